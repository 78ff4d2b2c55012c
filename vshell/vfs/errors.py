"""errno-shaped errors with GNU wording, named after the path the caller passed.

Every failure leaves the VFS as an ordinary ``OSError`` subclass (``OSError(errno, ...)``
picks FileNotFoundError, PermissionError … itself) so commands can print
``f"{e.filename}: {e.strerror}"`` and get what GNU tools print.
"""

from __future__ import annotations

import errno
import os

__all__ = [
    "LINK_ROOT", "RENAME_ROOT", "CrossMount", "Rerouted", "escape_error", "fs_error",
    "refuse_root_ends", "rename_error",
]

# What the mount root as (source, destination) of a rename or a hard link fails with
RENAME_ROOT = (errno.EBUSY, errno.EBUSY)
LINK_ROOT = (errno.EPERM, errno.EEXIST)


class CrossMount(PermissionError):
    """A host symlink pointing outside its mount (``host_target``, then ``rest``).

    The VFS follows it only when the target lies inside another host mount, re-resolving
    the path through that mount's rules; otherwise it is the escape it looks like (EACCES).
    """

    def __init__(self, host_target: str) -> None:
        super().__init__(errno.EACCES, os.strerror(errno.EACCES))
        self.host_target = host_target
        self.rest: list[str] = []


class Rerouted(CrossMount):
    """A walk reached a host location another mount governs; go on at virtual ``vpath``.

    Raised by a backend when its walk enters (or names) the host directory of a nested or
    masking mount: the VFS resolves ``vpath`` from the start, so that mount's read-only,
    copy-on-write, masking and deny rules apply as if the caller had named it.
    """

    def __init__(self, vpath: str) -> None:
        super().__init__(vpath)
        self.vpath = vpath


def fs_error(code: int, filename: str | None = None, filename2: str | None = None) -> OSError:
    """An OSError for ``code`` with ``os.strerror`` wording and the caller's path(s)."""
    if filename2 is not None:
        return OSError(code, os.strerror(code), filename, None, filename2)
    if filename is not None:
        return OSError(code, os.strerror(code), filename)
    return OSError(code, os.strerror(code))


def rename_error(exc: OSError, filename: str, filename2: str | None = None) -> OSError:
    """Re-issue ``exc`` naming the caller's path instead of a host or backend path.

    Backends see host paths and fd-relative names; those must never reach the sandbox.
    """
    if isinstance(exc, CrossMount):
        return exc
    code = exc.errno
    if code is None:
        code = errno.EIO
    return fs_error(code, filename, filename2)


def refuse_root_ends(src: tuple[str, ...], dst: tuple[str, ...], errnos: tuple[int, int]) -> None:
    """Neither end of a rename or link may be the mount root (``()``): each end its errno."""
    if not src:
        raise fs_error(errnos[0])
    if not dst:
        raise fs_error(errnos[1])


def escape_error() -> PermissionError:
    """The error for a symlink that would leave its mount (never followed)."""
    err = fs_error(errno.EACCES)
    assert isinstance(err, PermissionError)
    return err
