"""The interface between the VFS and a storage backend, small enough for a user's own.

A backend sees *mount-relative* paths as tuples of components (``()`` is the mount root),
already normalized lexically (no ``.``, ``..`` or empty names).  It resolves symlinks itself,
never lets one leave the mount (``PermissionError``), and calls ``ctx.guard(parts)`` with
the mount-relative path of every symlink it reads and of the object it finally acts on,
so the VFS can apply deny rules to *resolved* paths at the moment of use.  Read-only
mounts and deny rules on the path as given are enforced by the VFS before a backend is
called.  Errors are plain OSErrors; the VFS renames them after the caller's path.
"""

from __future__ import annotations

import os

from vshell.records import record

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from vshell.vfs.protocol import Backend as Backend

__all__ = ["OPEN_MODES", "Backend", "Ctx", "Listing", "Parts", "mode_flags", "normalize_mode"]

Parts = tuple[str, ...]
# (resolved parts of the directory, [(name, kind)]) where kind is one of
# "d" directory, "f" regular file, "l" symlink, "o" other.
Listing = tuple[Parts, list[tuple[str, str]]]


@record(frozen=True)
class Ctx:
    """What a backend needs to know about the mount it is serving."""

    vroot: str  # the mount's virtual path, e.g. "/work"
    guard: Callable[[Parts], None]  # raises PermissionError for a denied resolved path
    # Host locations this mount does not govern (vshell.vfs.boundary.Boundaries) or None;
    # host-backed backends consult it at every component of a walk.
    bounds: Any = None


# Canonical binary modes and their open(2) flags.
OPEN_MODES: dict[str, int] = {
    "rb": os.O_RDONLY,
    "wb": os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
    "ab": os.O_WRONLY | os.O_CREAT | os.O_APPEND,
    "xb": os.O_WRONLY | os.O_CREAT | os.O_EXCL,
    "r+b": os.O_RDWR,
    "w+b": os.O_RDWR | os.O_CREAT | os.O_TRUNC,
    "a+b": os.O_RDWR | os.O_CREAT | os.O_APPEND,
    "x+b": os.O_RDWR | os.O_CREAT | os.O_EXCL,
}


def normalize_mode(mode: str) -> str:
    """Map any spelling of a binary mode ("br", "rb+", "wb") to its key in OPEN_MODES."""
    if mode in OPEN_MODES:  # (nearly every caller spells it so)
        return mode
    chars = set(mode)
    base = chars & set("rwax")
    if "b" not in chars or len(base) != 1 or not chars <= set("rwaxb+") or len(mode) != len(chars):
        raise ValueError(f"invalid mode: {mode!r} (binary modes only: rb wb ab xb r+b w+b a+b)")
    return base.pop() + ("+" if "+" in chars else "") + "b"


def mode_flags(mode: str) -> int:
    """open(2) flags for a normalized mode."""
    return OPEN_MODES[mode]


def is_write_mode(mode: str) -> bool:
    """Whether opening with ``mode`` can change the file system."""
    return mode != "rb"


if not TYPE_CHECKING:  # (to mypy the name is the import above)

    def __getattr__(name: str) -> object:
        """:class:`Backend` from :mod:`vshell.vfs.protocol` on first use: a Protocol needs
        typing, which the start-up path never imports."""
        if name == "Backend":
            from vshell.vfs.protocol import Backend

            return Backend
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
