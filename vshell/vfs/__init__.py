"""vshell's virtual filesystem: mounts, deny rules, synthetic root and /dev.

    vfs = VFS(mounts=[Mount("/work", HostBackend("/host/dir"))], deny=["**/.env"])

Only this package touches host files.  See core.VFS for the API and host.HostBackend for
the symlink rules that keep a host mount's resolution beneath its root.
"""

from .backend import Backend, Ctx
from .core import VFS, DirEntry, Mount
from .deny import DenyPattern, DenyRules, parse_deny
from .host import HostBackend
from .memory import MemoryBackend, MemoryBudget

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
