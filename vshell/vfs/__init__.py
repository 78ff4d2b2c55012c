"""vshell's virtual filesystem: mounts, deny rules, synthetic root and /dev.

    vfs = VFS(mounts=[Mount("/work", HostBackend("/host/dir"))], deny=["**/.env"])

Only this package touches host files.  See core.VFS for the API and host.HostBackend for
the symlink rules that keep a host mount's resolution beneath its root.
"""

from vshell.vfs.backend import Backend, Ctx
from vshell.vfs.core import VFS, DirEntry, Mount
from vshell.vfs.deny import DenyPattern, DenyRules, parse_deny
from vshell.vfs.host import HostBackend
from vshell.vfs.memory import MemoryBackend, MemoryBudget

__all__ = [
    "VFS",
    "Backend",
    "Ctx",
    "DenyPattern",
    "DenyRules",
    "DirEntry",
    "HostBackend",
    "MemoryBackend",
    "MemoryBudget",
    "Mount",
    "parse_deny",
]
