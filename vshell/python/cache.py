"""The on-disk cache of the compiled Python runtime (``Module.serialize`` artifacts).

Loading a cached artifact maps native code into the process, so the cache is trusted only
when it is private: a directory we own with mode 0700 (``$XDG_CACHE_HOME/vshell`` or
``~/.cache/vshell``), files we own that nobody else can write.  Anything else is ignored and
the module is compiled in memory.  Files are written to a temporary name and renamed, so a
reader never sees half an artifact; a file that fails to load is deleted and rebuilt.
"""

from __future__ import annotations

import contextlib
import os
import stat
import time

TYPE_CHECKING = False  # pathlib costs ~8 ms of a python start: the run path uses strings
if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

STALE_AFTER = 86400.0  # seconds: other artifacts untouched this long are pruned


def cache_dir() -> Path | None:
    """The private cache directory (see :mod:`vshell.cachedir`)."""
    from vshell.cachedir import cache_dir as shared

    return shared()


def cache_folder() -> str | None:
    """:func:`cache_dir` as a string (what a python start uses)."""
    from vshell.cachedir import cache_folder as shared

    return shared()


def open_sealed(path: str | Path) -> int | None:
    """An fd on a cached artifact vshell wrote and nothing changed (see vshell.cachedir)."""
    from vshell.cachedir import open_sealed as check

    return check(path)


def seal(path: str | Path) -> None:
    """Mark a just-written artifact as vshell's own."""
    from vshell.cachedir import seal_file

    seal_file(path)


@contextlib.contextmanager
def locked(path: str | Path | None) -> Iterator[None]:
    """Hold the cache's compile lock (an exclusive ``flock`` on a file beside ``path``)."""
    if path is None:
        yield
        return
    try:
        fd = os.open(os.path.join(os.path.dirname(path), ".compile.lock"),
                     os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError:
        yield
        return
    try:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def key(*parts: str) -> str:
    """A short stable digest of everything an artifact depends on."""
    from vshell.cachedir import sha256_hex

    return sha256_hex("\0".join(parts).encode())[:32]


def trusted_file(path: str | Path) -> bool:
    """True if ``path`` is a regular, non-empty file we own and only we can write."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return (
        stat.S_ISREG(info.st_mode)
        and info.st_uid == os.getuid()
        and not info.st_mode & 0o022
        and info.st_size > 0
    )


def write_atomic(path: str | Path, data: bytes | bytearray) -> None:
    """Write ``data`` to ``path`` through a private temporary file and a rename."""
    import tempfile  # (only here: the first compile; it costs a python start ~4 ms)

    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=os.path.dirname(path))
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def remove(path: str | Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def prune(folder: str | Path, pattern: str, keep: str | Path) -> None:
    """Remove artifacts matching ``pattern`` other than ``keep`` (left by an older wasmtime or
    runtime) once unused for a day, and temporary files a crashed writer left behind."""
    from pathlib import Path

    now = time.time()
    folder = Path(folder)
    candidates = [*folder.glob(pattern), *folder.glob(".tmp-*")]
    for path in candidates:
        if os.fspath(path) == os.fspath(keep):
            continue
        with contextlib.suppress(OSError):
            if now - os.lstat(path).st_mtime > STALE_AFTER:
                os.unlink(path)
