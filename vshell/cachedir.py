"""The one private per-user cache directory (compiled Python runtime, parser tables).

``$VSHELL_CACHE_DIR``, else ``$XDG_CACHE_HOME/vshell``, else ``~/.cache/vshell`` where ``~``
is the user's home from the password database, not ``$HOME``: callers that give each run a
fresh ``HOME`` (test harnesses, agent runners) must not pay a recompile every time.  The
directory is trusted only when it is ours and private (mode 0700); otherwise None.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


def _home() -> str | None:
    try:
        import pwd

        return pwd.getpwuid(os.getuid()).pw_dir
    except (ImportError, KeyError, OSError):
        home = os.path.expanduser("~")
        return home if os.path.isabs(home) else None


def cache_location() -> Path | None:
    """Where the private cache directory is (or would be), without creating it.

    The VFS treats this location as private: no mount, alias or link reaches it.
    """
    explicit = os.environ.get("VSHELL_CACHE_DIR", "")
    if os.path.isabs(explicit):
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        home = _home()
        if home is None:
            return None
        base = os.path.join(home, ".cache")
    return Path(base) / "vshell"


def cache_dir() -> Path | None:
    """The private cache directory, created if needed; None when none can be trusted."""
    path = cache_location()
    if path is None:
        return None
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.lstat(path)
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
            return None
        if info.st_mode & 0o077:
            os.chmod(path, 0o700)
    except OSError:
        return None
    return path
