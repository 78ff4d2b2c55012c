"""When a symlink may be made: its target must stay inside the mount that holds it.

It matters most on a host mount, where host tools and the user follow the link later;
the same rule holds on every mount so ``ln`` answers alike everywhere.

A link is judged from its *real* host location (the resolved directory that holds it), not
from the path the caller spelled: ``ln -s . d; ln -s d/../outside l`` names ``outside`` two
levels above ``l`` once ``d`` is followed.  The rule, checked structurally here and then by
resolving the target through the mount's own escape-proof walk:

- a relative target may climb with leading ``..`` components only, no more of them than
  the link's directory is deep, and must not contain ``..`` after a name: ``a/../x``
  changes meaning (and can leave the mount) as soon as ``a`` is replaced by a symlink;
- an absolute target is a virtual path; it must lie in the same mount, without ``..``;
- whatever existing links the target passes through must resolve inside the mount too.

Otherwise the operation fails with EPERM ("Operation not permitted") and nothing is made.
"""

from __future__ import annotations

import errno

from vshell.vfs.backend import Parts
from vshell.vfs.errors import escape_error, fs_error

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["MAX_SYMLINKS", "relative_link_parts", "resolves_inside"]

MAX_SYMLINKS = 40  # symlinks a resolution follows before ELOOP (host, memory and overlay)


def relative_link_parts(target: str, parent: Parts) -> Parts:
    """The mount-relative parts a relative ``target`` names from directory ``parent``.

    Raises EPERM when the target climbs above the mount root or has ``..`` after a name.
    """
    names = [p for p in target.split("/") if p not in ("", ".")]
    climb = 0
    while climb < len(names) and names[climb] == "..":
        climb += 1
    if ".." in names[climb:] or climb > len(parent):
        raise fs_error(errno.EPERM)
    return tuple(parent[: len(parent) - climb]) + tuple(names[climb:])


def resolves_inside(resolve: Callable[[Parts], object], parts: Parts) -> None:
    """Resolve ``parts`` with the mount's walk; EPERM when it leaves or crosses the mount.

    A missing tail is fine (a dangling link is allowed, as with ``ln``); a walk that would
    escape, enter another mount's host directory or a denied/private one is not.
    """
    try:
        resolve(parts)
    except PermissionError:  # an escape, a cross-mount hand-off, a denied location
        raise fs_error(errno.EPERM) from None
    except OSError:
        return


def climb(resolved: list[str]) -> None:
    """A ``..`` step of a walk: drop the last name resolved; above the mount's root is an
    escape (EPERM), never a step out to the host."""
    if not resolved:
        raise escape_error()
    resolved.pop()


def append_missing_tail(resolved: list[str], name: str, pending: list[str]) -> None:
    """Finish resolving past a missing ``name`` (``missing_ok``): nothing below it can be a
    link, so the rest of the path (``pending``, next component last) is taken lexically."""
    resolved.append(name)
    for rest in reversed(pending):
        if rest == "..":
            climb(resolved)
        elif rest != ".":
            resolved.append(rest)
