"""vshell's virtual filesystem: mounts, deny rules, synthetic root and /dev.

    vfs = VFS(mounts=[Mount("/work", HostBackend("/host/dir"))], deny=["**/.env"])

Only this package touches host files.  See core.VFS for the API and host.HostBackend for
the symlink rules that keep a host mount's resolution beneath its root.

The names below are imported from their modules when first used: importing any module of
the package (``vshell.vfs.memory``, say) runs this file first, and ``vshell -c`` should not
pay for the host backend or the deny-rule globs when it has no host mount and no rule.
"""

import sys as _sys

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
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

_HOME = {
    "Backend": "vshell.vfs.protocol",
    "Ctx": "vshell.vfs.backend",
    "VFS": "vshell.vfs.core",
    "DirEntry": "vshell.vfs.core",
    "Mount": "vshell.vfs.core",
    "DenyPattern": "vshell.vfs.deny",
    "DenyRules": "vshell.vfs.deny",
    "parse_deny": "vshell.vfs.deny",
    "HostBackend": "vshell.vfs.host",
    "MemoryBackend": "vshell.vfs.memory",
    "MemoryBudget": "vshell.vfs.memory",
}


if not TYPE_CHECKING:  # (to mypy the names are the imports above)

    def __getattr__(name: str) -> object:
        """One of ``__all__``, from its module (imported now if it was not)."""
        home = _HOME.get(name)
        if home is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        __import__(home)
        value = getattr(_sys.modules[home], name)
        globals()[name] = value
        return value

