"""The filesystem the guest sees: the sandbox's VFS, plus vshell's few read-only guest files.

The extra files (the runtime's stdlib zip at ``/usr/local/lib/python315.zip``, matplotlib's
data beside it, the door's guest half and the compiled boot code under
``/usr/local/lib/vshell``) exist only for the guest, as layers: they are found by lookups,
shadow nothing the VFS has except those exact paths, cannot be changed, and are left out of
the listing of ``/`` so ``os.listdir('/')`` shows what ``ls /`` shows.  Every other path goes
to the VFS untouched, so mounts, read-only rules and deny patterns hold as they do for every
command.
"""

from __future__ import annotations

import errno
import io
import stat as st
import zlib
from collections.abc import Mapping

from vshell.python import abi
from vshell.records import record

TYPE_CHECKING = False  # not typing's: importing typing costs every python start
if TYPE_CHECKING:
    from typing import Any


@record(frozen=True)
class SynthStat:
    """A stat result for a guest file vshell makes up."""

    st_mode: int
    st_size: int
    st_ino: int
    st_dev: int = 0x76736800
    st_nlink: int = 1
    st_uid: int = 0
    st_gid: int = 0
    st_atime_ns: int = 0
    st_mtime_ns: int = 0
    st_ctime_ns: int = 0


def join(base: str, rel: str) -> str:
    """``rel`` (a WASI path relative to directory ``base``) as a normalised virtual path.

    ``..`` stops at ``/``, as everywhere in vshell; an absolute ``rel`` is still taken
    relative to ``base`` (WASI has no absolute paths).  A final ``/`` is kept: the path
    must then be a directory, and a symlink there is followed."""
    from vshell.command import absolute

    return absolute(base, rel.lstrip("/") or ".")


def _ino(path: str) -> int:
    return (zlib.crc32(path.encode("utf-8", "surrogateescape")) << 1) | 1


def filetype(mode: int) -> int:
    """The WASI file type of an ``st_mode``."""
    fmt = st.S_IFMT(mode)
    if fmt == st.S_IFREG:
        return abi.FILETYPE_REGULAR_FILE
    if fmt == st.S_IFDIR:
        return abi.FILETYPE_DIRECTORY
    if fmt == st.S_IFLNK:
        return abi.FILETYPE_SYMBOLIC_LINK
    if fmt == st.S_IFCHR:
        return abi.FILETYPE_CHARACTER_DEVICE
    return abi.FILETYPE_UNKNOWN


def _erofs(path: str) -> OSError:
    return OSError(errno.EROFS, "Read-only file system", path)


def _tree(paths: Any) -> dict[str, dict[str, int]]:
    """parent directory -> {name: WASI file type} for every ancestor of ``paths``."""
    children: dict[str, dict[str, int]] = {}
    for path in paths:
        parent, _, name = path.rpartition("/")
        kind = abi.FILETYPE_REGULAR_FILE
        while True:
            parent = parent or "/"
            entries = children.setdefault(parent, {})
            if entries.get(name) == abi.FILETYPE_REGULAR_FILE and kind != abi.FILETYPE_REGULAR_FILE:
                pass  # a file that is also a directory prefix (the zip): the file wins
            else:
                entries[name] = kind
            if parent == "/":
                break
            parent, _, name = parent.rpartition("/")
            kind = abi.FILETYPE_DIRECTORY
    return children


class Layer:
    """Read-only files vshell supplies (path -> bytes or a Blob with ``size`` and ``open()``).

    With ``loader`` the files under ``prefix`` are listed only when a path there is first
    looked up (matplotlib's data costs a decompression most runs never need)."""

    def __init__(self, files: Mapping[str, Any] | None = None, prefix: str | None = None,
                 loader: Any = None, inside_file: str | None = None) -> None:
        self.prefix = prefix
        self._loader = loader
        self._files: dict[str, Any] | None = dict(files) if files is not None else None
        self._children: dict[str, dict[str, int]] | None = None
        self._outline = _tree([prefix]) if prefix else {}
        if prefix:  # the prefix itself is a directory, not a file
            parent, _, name = prefix.rpartition("/")
            self._outline[parent or "/"][name] = abi.FILETYPE_DIRECTORY
        if inside_file:
            # The prefix lies inside a file (matplotlib's data inside the zip): the folders
            # between are not folders.  zipimport tells a path inside a zip by the first
            # ancestor that stats as a regular file, so they must not stat as directories.
            for path in list(self._outline):
                if path == inside_file or path.startswith(inside_file + "/"):
                    del self._outline[path]

    def _load(self) -> None:
        if self._files is None:
            self._files = dict(self._loader())
        if self._children is None:
            self._children = _tree(self._files)
            for parent, names in self._outline.items():
                self._children.setdefault(parent, {}).update(
                    (n, k) for n, k in names.items() if n not in self._children.get(parent, {}))

    def _inside(self, path: str) -> bool:
        p = self.prefix
        return p is None or path == p or path.startswith(p + "/")

    def file(self, path: str) -> Any:
        if not self._inside(path):
            return None
        self._load()
        assert self._files is not None
        return self._files.get(path)

    def entries(self, path: str) -> dict[str, int] | None:
        if self._inside(path):
            self._load()
            assert self._children is not None
            return self._children.get(path)
        return self._outline.get(path)


def _size(data: Any) -> int:
    return data.size if hasattr(data, "size") and not isinstance(data, bytes) else len(data)


class GuestFS:
    """The VFS with ``files`` (absolute path -> content) and ``layers`` laid over it, read-only."""

    def __init__(self, vfs: Any, files: Mapping[str, Any], layers: Any = ()) -> None:
        self.vfs = vfs
        self.layers = [Layer(files), *layers]

    def _file(self, path: str) -> Any:
        for layer in self.layers:
            data = layer.file(path)
            if data is not None:
                return data
        return None

    def _entries(self, path: str) -> dict[str, int] | None:
        out: dict[str, int] | None = None
        for layer in self.layers:
            names = layer.entries(path)
            if names:
                out = dict(names) if out is None else {**names, **out}
        return out

    # --- lookups ---
    def stat(self, path: str, follow: bool = True) -> Any:
        data = self._file(path)
        if data is not None:
            return SynthStat(st.S_IFREG | 0o444, _size(data), _ino(path))
        try:
            return self.vfs.stat(path) if follow else self.vfs.lstat(path)
        except FileNotFoundError:
            if self._entries(path) is not None:
                return SynthStat(st.S_IFDIR | 0o555, 0, _ino(path), st_nlink=2)
            raise

    def listdir(self, path: str) -> list[tuple[str, int, int]]:
        """``(name, WASI file type, inode)`` for each entry of directory ``path``."""
        extra = (self._entries(path) or {}) if path != "/" else {}
        try:
            entries = self.vfs.scandir(path)
        except FileNotFoundError:
            if self._entries(path) is not None:
                entries = []
            else:
                raise
        out: list[tuple[str, int, int]] = []
        seen: set[str] = set()
        for entry in entries:
            name = entry.name
            seen.add(name)
            try:
                if entry.is_symlink():
                    kind = abi.FILETYPE_SYMBOLIC_LINK
                elif entry.is_dir():
                    kind = abi.FILETYPE_DIRECTORY
                elif entry.is_file():
                    kind = abi.FILETYPE_REGULAR_FILE
                else:
                    kind = abi.FILETYPE_UNKNOWN
            except OSError:
                kind = abi.FILETYPE_UNKNOWN
            out.append((name, kind, _ino(join(path, name))))
        for name, kind in extra.items():
            if name not in seen:
                out.append((name, kind, _ino(join(path, name))))
        return out

    def is_synthetic(self, path: str) -> bool:
        return self._file(path) is not None or (path != "/" and self._entries(path) is not None)

    # --- files ---
    def open(self, path: str, mode: str) -> Any:
        data = self._file(path)
        if data is not None:
            if mode != "rb":
                raise _erofs(path)
            return io.BytesIO(data) if isinstance(data, bytes) else data.open()
        return self.vfs.open(path, mode)

    # --- changes (refused on vshell's own files) ---
    def _guard(self, *paths: str) -> None:
        for path in paths:
            if self._file(path) is not None:
                raise _erofs(path)

    def mkdir(self, path: str) -> None:
        self._guard(path)
        if path != "/" and self._entries(path) is not None and not self.vfs.exists(path):
            raise OSError(errno.EEXIST, "File exists", path)
        self.vfs.mkdir(path)

    def rmdir(self, path: str) -> None:
        self._guard(path)
        self.vfs.rmdir(path)

    def unlink(self, path: str) -> None:
        self._guard(path)
        self.vfs.unlink(path)

    def rename(self, src: str, dst: str) -> None:
        self._guard(src, dst)
        self.vfs.rename(src, dst)

    def symlink(self, target: str, linkpath: str) -> None:
        self._guard(linkpath)
        self.vfs.symlink(target, linkpath)

    def link(self, src: str, dst: str) -> None:
        self._guard(src, dst)
        self.vfs.link(src, dst)

    def readlink(self, path: str) -> str:
        if self.is_synthetic(path):
            raise OSError(errno.EINVAL, "Invalid argument", path)
        return self.vfs.readlink(path)

    def utime(self, path: str, ns: tuple[int, int], follow: bool = True) -> None:
        self._guard(path)
        if follow:
            self.vfs.utime(path, ns=ns)
        else:
            self.vfs.utime(path, ns=ns, follow_symlinks=False)

    def truncate(self, path: str, length: int) -> None:
        self._guard(path)
        self.vfs.truncate(path, length)
