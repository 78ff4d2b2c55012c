"""The one private per-user cache directory (compiled Python runtime, parser tables).

``$VSHELL_CACHE_DIR``, else ``$XDG_CACHE_HOME/vshell``, else ``~/.cache/vshell`` where ``~``
is the user's home from the password database, not ``$HOME``: callers that give each run a
fresh ``HOME`` (test harnesses, agent runners) must not pay a recompile every time.  The
directory is trusted only when it is ours and private (mode 0700); otherwise None.
"""

from __future__ import annotations

import os
import stat

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    from pathlib import Path

# The functions on the start-up path (``cache_paths`` for every VFS, ``cache_folder`` for
# the parser tables) work on strings: :mod:`pathlib` costs about 5 ms to import (it pulls in
# ``urllib.parse`` and ``ipaddress``), a third of what ``vshell -c`` may spend.  The
# ``Path``-returning functions are the same answers for the callers that want paths.


def _home() -> str | None:
    try:
        import pwd

        return pwd.getpwuid(os.getuid()).pw_dir
    except (ImportError, KeyError, OSError):
        home = os.path.expanduser("~")
        return home if os.path.isabs(home) else None


def clean_path(path: str) -> str:
    """``str(Path(path))`` on POSIX, without :mod:`pathlib`: empty and ``.`` parts dropped,
    ``..`` kept (it is resolved by the system, through symlinks), ``//`` kept at the start."""
    lead = "//" if path.startswith("//") and not path.startswith("///") else path[:1] * (
        path.startswith("/")
    )
    return lead + "/".join(part for part in path.split("/") if part and part != ".") or "."


def _location() -> str | None:
    explicit = os.environ.get("VSHELL_CACHE_DIR", "")
    if os.path.isabs(explicit):
        return clean_path(explicit)
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        home = _home()
        if home is None:
            return None
        base = os.path.join(home, ".cache")
    return clean_path(os.path.join(base, "vshell"))


def _path(where: str) -> Path:
    from pathlib import Path

    return Path(where)


def cache_location() -> Path | None:
    """Where the private cache directory is (or would be), without creating it.

    The VFS treats this location as private: no mount, alias or link reaches it.
    """
    where = _location()
    return None if where is None else _path(where)


def cache_paths() -> list[str]:
    """Every place a vshell process of this user may keep its cache, this one's first.

    Another process (the CLI, an MCP server, a test run) may choose differently through
    ``$VSHELL_CACHE_DIR``, ``$XDG_CACHE_HOME`` or ``$HOME``; a sandbox reaching that cache
    could read its seal key and plant a module the other process would load.  The VFS
    keeps all of them private.
    """
    out: list[str] = []
    here = _location()
    if here is not None:
        out.append(here)
    homes = [_home(), os.environ.get("HOME", "")]
    bases = [os.environ.get("XDG_CACHE_HOME", "")]
    bases += [os.path.join(h, ".cache") for h in homes if h and os.path.isabs(h)]
    for base in bases:
        if os.path.isabs(base):
            where = clean_path(os.path.join(base, "vshell"))
            if where not in out:
                out.append(where)
    return out


def cache_locations() -> list[Path]:
    """:func:`cache_paths` as paths."""
    return [_path(where) for where in cache_paths()]


def cache_folder() -> str | None:
    """The private cache directory, created if needed; None when none can be trusted."""
    path = _location()
    if path is None:
        return None
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
        info = os.lstat(path)
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
            return None
        if info.st_mode & 0o077:
            os.chmod(path, 0o700)
    except OSError:
        return None
    return path


def cache_dir() -> Path | None:
    """:func:`cache_folder` as a path."""
    folder = cache_folder()
    return None if folder is None else _path(folder)


# ---------------------------------------------------------------------- seals
#
# The VFS keeps the cache out of every sandbox's reach; seals are the second wall.  A file
# is loaded only if vshell wrote it: a secret per-cache key (mode 0600) authenticates
# either the bytes themselves (small files) or, for the big compiled module that is mapped
# rather than read, the file's identity as it was right after writing (device, inode,
# size, mtime and ctime: rewriting or replacing the file changes the ctime or the inode,
# and no unprivileged process can set a ctime back).  A file without a valid seal is
# rebuilt, never loaded.

_KEY_NAME = ".seal-key"
_KEY_SIZE = 32
_TAG_SIZE = 32


def _private_file(info: os.stat_result) -> bool:
    return (
        stat.S_ISREG(info.st_mode)
        and info.st_uid == os.getuid()
        and not info.st_mode & 0o077
    )


def _read_key(path: str) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not _private_file(info) or info.st_size != _KEY_SIZE:
            return None
        key = os.read(fd, _KEY_SIZE + 1)
        return key if len(key) == _KEY_SIZE else None
    finally:
        os.close(fd)


def seal_key(folder: str | os.PathLike[str]) -> bytes | None:
    """The cache's secret sealing key, created on first use; None when none can be trusted."""
    path = os.path.join(folder, _KEY_NAME)
    key = _read_key(path)
    if key is not None:
        return key
    tmp = os.path.join(folder, f".key-{os.urandom(8).hex()}")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            os.write(fd, os.urandom(_KEY_SIZE))  # what secrets.token_bytes is
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(tmp, path)  # never replaces a key another process made first
        except FileExistsError:
            pass
    except OSError:
        return None
    finally:
        try:
            os.unlink(tmp)
        except OSError:
            pass
    return _read_key(path)


def _tag(key: bytes, label: bytes, data: bytes) -> bytes:
    """Keyed BLAKE2b, a MAC on its own: the start-up path loads sealed parser tables, and
    ``hashlib``/``hmac`` cost about 15 ms to import there while the builtin ``_blake2`` is
    ready at once."""
    try:
        from _blake2 import blake2b
    except ImportError:  # an interpreter built without it
        from hashlib import blake2b
    return blake2b(label + b"\0" + data, key=key, digest_size=_TAG_SIZE).digest()


def sha256_hex(data: bytes) -> str:
    """``hashlib.sha256(data).hexdigest()`` from the builtin module when there is one:
    hashlib loads OpenSSL on import, ~3 ms of a python start (cache keys are digests)."""
    import sys

    try:
        if sys.version_info >= (3, 12):
            from _sha2 import sha256
        else:
            from _sha256 import sha256  # type: ignore[import-not-found]  # 3.11 (typeshed has _sha2)
    except ImportError:  # an interpreter built without them
        from hashlib import sha256
    return sha256(data).hexdigest()


def _same(a: bytes, b: bytes) -> bool:
    from _operator import _compare_digest  # what hmac.compare_digest is, without hashlib

    return bool(_compare_digest(a, b))


def seal_bytes(folder: str | os.PathLike[str], label: str, data: bytes) -> bytes | None:
    """``data`` prefixed with its tag (for :func:`unseal_bytes`); None without a key."""
    key = seal_key(folder)
    return None if key is None else _tag(key, label.encode(), data) + data


def unseal_bytes(folder: str | os.PathLike[str], label: str, sealed: bytes) -> bytes | None:
    """The data of a sealed blob, or None when the tag is missing or wrong."""
    key = _read_key(os.path.join(folder, _KEY_NAME))
    if key is None or len(sealed) < _TAG_SIZE:
        return None
    tag, data = sealed[:_TAG_SIZE], sealed[_TAG_SIZE:]
    return data if _same(tag, _tag(key, label.encode(), data)) else None


def _identity(info: os.stat_result) -> bytes:
    fields = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
    return ":".join(map(str, fields)).encode()


def seal_file(path: str | os.PathLike[str]) -> None:
    """Record ``path`` (just written by vshell) as vshell's own, in ``path.seal``."""
    path = os.fspath(path)
    folder, name = os.path.split(path)
    key = seal_key(folder)
    if key is None:
        return
    info = os.lstat(path)
    tag = _tag(key, name.encode(), _identity(info))
    seal = path + ".seal"
    tmp = os.path.join(folder, f".tmp-{name}.seal")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    try:
        os.write(fd, tag)
    finally:
        os.close(fd)
    os.replace(tmp, seal)


def open_sealed(path: str | os.PathLike[str]) -> int | None:
    """An fd on ``path`` when its seal proves vshell wrote it and nothing changed it since.

    The caller loads through ``/proc/self/fd/N`` (or the fd), so the checked file is the
    one used.  None for a missing, foreign, modified or unsealed file.
    """
    path = os.fspath(path)  # (strings: pathlib costs ~8 ms of a python start, see above)
    folder, name = os.path.split(path)
    key = _read_key(os.path.join(folder, _KEY_NAME))
    if key is None:
        return None
    try:
        with open(path + ".seal", "rb", opener=_nofollow) as f:
            if not _private_file(os.fstat(f.fileno())):
                return None
            tag = f.read(_TAG_SIZE + 1)
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    info = os.fstat(fd)
    want = _tag(key, name.encode(), _identity(info))
    if _private_file(info) and info.st_size > 0 and _same(tag, want):
        return fd
    os.close(fd)
    return None


def _nofollow(path: str, flags: int) -> int:
    return os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC)
