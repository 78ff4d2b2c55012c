"""The worker pool: sessions whose sandboxes live in vshell's own worker processes.

``supervisor`` starts and replaces the workers, ``worker`` is their entry point
(``python -m vshell.pool.worker``), ``protocol`` the framed pipe between them, and ``pool``
the public :class:`SandboxPool` with its :class:`PoolSession` handles.
"""

from vshell.pool.pool import PoolSession, SandboxPool
from vshell.pool.supervisor import PoolError, WorkerLost

__all__ = ["PoolError", "PoolSession", "SandboxPool", "WorkerLost"]
