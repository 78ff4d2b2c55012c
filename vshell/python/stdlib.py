"""The guest's standard library: ``python-stdlib.zip`` served read-only at ``/usr/local/lib``.

The zip (54 MB) is the one file of the runtime the guest reads on every start, so it is not
re-hashed by every process: the first use verifies the package's copy against its pin and
writes it into the private cache with a seal (:mod:`vshell.cachedir`); later processes open
the sealed copy, which only vshell wrote.  Without a private cache the verified bytes are held
in memory for the process.  Either way the guest reads exactly the pinned bytes, through a
read-only descriptor of its own; the file is never reachable through a mount.

matplotlib looks for its data (fonts, styles, ``matplotlibrc``) beside its own ``__file__``,
inside the zip; the zip carries that folder as an inner archive, served here unpacked as
read-only files under :data:`pywasm.MPL_DATA_GUEST`, read from the archive when opened.
"""

from __future__ import annotations

import contextlib
import io
import os
import threading

TYPE_CHECKING = False
if TYPE_CHECKING:
    import zipfile  # imported where matplotlib's data is first looked up: ~4 ms a start
    from typing import Any

_lock = threading.Lock()
_source: Any = None  # _Shared: the verified zip, for this process
_mpl: dict[str, zipfile.ZipInfo] | None = None
_mpl_zip: zipfile.ZipFile | None = None
_layers: list[Any] | None = None


class Blob:
    """A read-only guest file whose content vshell supplies (size known, opened on demand)."""

    __slots__ = ("_open", "size")

    def __init__(self, size: int, opener: Any) -> None:
        self.size = size
        self._open = opener

    def open(self) -> Any:
        return self._open()


class _Shared:
    """One read-only fd (or bytes) shared by every reader; each reader has its own position."""

    def __init__(self, fd: int | None, data: bytes | None, size: int) -> None:
        self.fd = fd
        self.data = data
        self.size = size

    def pread(self, n: int, offset: int) -> bytes:
        if self.data is not None:
            return self.data[offset : offset + n]
        assert self.fd is not None
        return os.pread(self.fd, n, offset)


class _Reader(io.RawIOBase):
    """A seekable read-only file over a :class:`_Shared` source (what ``open()`` returns)."""

    def __init__(self, source: _Shared) -> None:
        self._src = source
        self._pos = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        if n is None or n < 0:
            n = max(0, self._src.size - self._pos)
        data = self._src.pread(n, self._pos)
        self._pos += len(data)
        return data

    def readinto(self, b: Any) -> int:
        data = self.read(len(b))
        b[: len(data)] = data
        return len(data)

    def seek(self, offset: int, whence: int = 0) -> int:
        if whence == 1:
            offset += self._pos
        elif whence == 2:
            offset += self._src.size
        if offset < 0:
            raise OSError(22, "Invalid argument")
        self._pos = offset
        return offset

    def tell(self) -> int:
        return self._pos

    def write(self, b: Any) -> int:
        raise OSError(9, "Bad file descriptor")


def _cached_path() -> Any:
    import pywasm
    from vshell.python import cache

    folder = cache.cache_folder()
    if folder is None:
        return None
    digest = pywasm.PINS[pywasm.STDLIB][1]
    return os.path.join(folder,
                        f"python{pywasm.PYTHON_TAG.replace('.', '')}-stdlib-{digest[:16]}.zip")


def _load() -> _Shared:
    """The verified zip: the sealed cached copy, else verified now (and cached)."""
    import pywasm
    from vshell.python import cache

    size = pywasm.PINS[pywasm.STDLIB][0]
    path = _cached_path()
    if path is not None:
        fd = cache.open_sealed(path)
        if fd is not None:
            if os.fstat(fd).st_size == size:
                return _Shared(fd, None, size)
            os.close(fd)
    data = pywasm.read_verified(pywasm.STDLIB)
    if path is not None:
        with contextlib.suppress(Exception):  # no cache this time; the bytes are verified
            cache.write_atomic(path, data)
            cache.seal(path)
            fd = cache.open_sealed(path)
            if fd is not None:
                return _Shared(fd, None, size)
    return _Shared(None, data, size)


def source() -> _Shared:
    global _source
    if _source is None:
        with _lock:
            if _source is None:
                _source = _load()
    return _source


def _mpl_members() -> dict[str, zipfile.ZipInfo]:
    """matplotlib's data files: guest path -> member of the inner archive."""
    global _mpl, _mpl_zip
    if _mpl is None:
        src = source()
        with _lock:
            if _mpl is None:
                import zipfile

                import pywasm

                outer = zipfile.ZipFile(_Reader(src))
                try:
                    inner = outer.read(pywasm.MPL_DATA_MEMBER)
                except KeyError:
                    inner = None
                members: dict[str, zipfile.ZipInfo] = {}
                if inner is not None:
                    _mpl_zip = zipfile.ZipFile(io.BytesIO(inner))
                    for info in _mpl_zip.infolist():
                        name = info.filename.strip("/")
                        if name.startswith("mpl-data/"):
                            name = name[len("mpl-data/"):]
                        if info.is_dir() or not name or ".." in name.split("/"):
                            continue
                        members[f"{pywasm.MPL_DATA_GUEST}/{name}"] = info
                _mpl = members
    return _mpl


def layers() -> list[Any]:
    """The runtime's read-only files as the guest sees them: the zip, then matplotlib's data
    (listed when first looked up); the same layers for every run of the process."""
    global _layers
    if _layers is None:
        import pywasm
        from vshell.python.guestfs import Layer

        src = source()
        with _lock:
            if _layers is None:
                _layers = [
                    Layer({pywasm.STDLIB_GUEST: Blob(src.size, lambda: _Reader(src))}),
                    Layer(prefix=pywasm.MPL_DATA_GUEST, loader=_mpl_files,
                          inside_file=pywasm.STDLIB_GUEST),
                ]
    return _layers


def _mpl_files() -> dict[str, Blob]:
    return {path: Blob(info.file_size, _member_opener(info))
            for path, info in _mpl_members().items()}


def _member_opener(info: zipfile.ZipInfo) -> Any:
    def opener() -> Any:
        assert _mpl_zip is not None
        with _lock:
            return io.BytesIO(_mpl_zip.read(info))

    return opener
