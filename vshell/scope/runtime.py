"""The private runtime directory holding the per-scope servers' sockets.

``$VSHELL_RUNTIME_DIR`` if set (tests give each test its own), else
``$XDG_RUNTIME_DIR/vshell``, else ``/tmp/vshell-$UID``.  A socket there runs commands
as its owner, so the directory must be ours and mode 0700: anything else is refused.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


class RuntimeDirError(OSError):
    """The runtime directory is missing, not ours, or open to other users."""


def runtime_location() -> Path:
    explicit = os.environ.get("VSHELL_RUNTIME_DIR", "")
    if os.path.isabs(explicit):
        return Path(explicit)
    xdg = os.environ.get("XDG_RUNTIME_DIR", "")
    if os.path.isabs(xdg) and os.path.isdir(xdg):
        return Path(xdg) / "vshell"
    return Path("/tmp") / f"vshell-{os.getuid()}"


def runtime_dir(create: bool = True) -> Path:
    """The runtime directory, created 0700 when missing; checked to be private."""
    path = runtime_location()
    if create:
        try:
            path.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as e:
            raise RuntimeDirError(f"cannot create the runtime directory {path}: {e}") from None
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        raise RuntimeDirError(f"no runtime directory {path}") from None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
        raise RuntimeDirError(f"{path} is not a directory owned by this user; refusing it")
    if st.st_mode & 0o077:
        raise RuntimeDirError(f"{path} is open to other users (mode "
                              f"{stat.S_IMODE(st.st_mode):o}); want 0700")
    return path


def socket_path(ident: str) -> Path:
    return runtime_dir() / f"{ident}.sock"
