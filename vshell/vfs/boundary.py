"""Host locations inside one mount's host tree that this mount does not govern.

A host directory mounted at ``/work`` may contain the host directory of another mount
(``P/.git`` mounted read-only at ``/work/.git``), a directory masked by a mount at a deeper
virtual path (``/work/secrets`` over ``P/secrets``), or vshell's own private files (the
cache, an overlay store, the history file).  A backend's walk can reach such a location
by a path the mount table never sees (a symlink alias ``d -> .``, ``..`` after a link, an
absolute host link), so the walk itself asks a :class:`Boundaries` at every component:

- by *resolved mount-relative path*, which also catches locations that do not exist yet;
- by *host identity* (device, inode), which still holds after an ancestor is renamed.

An owned location hands the rest of the walk to the VFS (:class:`Rerouted`, the owner's
virtual path); a private one is denied (``EACCES``), exactly as a deny pattern would be.
"""

from __future__ import annotations

import errno
import os
import stat as st

from vshell.vfs.backend import Parts
from vshell.vfs.errors import Rerouted, fs_error
from vshell.vfs.paths import join_parts

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

__all__ = ["Boundaries", "compute_boundaries", "host_dir_of"]

# The owner of a location: a virtual path to continue at, or None for a private one.
Owner = str | None


class Boundaries:
    """What one host-backed mount must not walk into itself (see the module docstring)."""

    __slots__ = ("_private_inos", "by_inode", "by_parts", "private_inodes")

    def __init__(self) -> None:
        self.by_parts: dict[Parts, Owner] = {}
        self.by_inode: dict[tuple[int, int], Owner] = {}
        self.private_inodes: set[tuple[int, int]] = set()
        self._private_inos: set[int] = set()  # inode numbers alone: a cheap first filter

    def __bool__(self) -> bool:
        return bool(self.by_parts or self.by_inode)

    def __repr__(self) -> str:
        return f"<Boundaries parts={sorted(self.by_parts)} inodes={len(self.by_inode)}>"

    def add(self, parts: Parts, owner: Owner, host_path: str | None) -> None:
        """Record the location ``parts`` (and its host identity when it exists)."""
        if parts not in self.by_parts or owner is None:
            self.by_parts[parts] = owner
        if host_path is None:
            return
        try:
            info = os.lstat(host_path)
        except OSError:
            return
        if owner is not None and not st.S_ISDIR(info.st_mode):
            return  # a mount's host directory; a symlink there is caught by name
        key = (info.st_dev, info.st_ino)
        if key not in self.by_inode or owner is None:
            self.by_inode[key] = owner
        if owner is None:
            self.add_private_inode(key)

    def add_private_inode(self, key: tuple[int, int]) -> None:
        """Deny the host object with (device, inode) ``key`` wherever it is reached."""
        self.by_inode[key] = None
        self.private_inodes.add(key)
        self._private_inos.add(key[1])

    @staticmethod
    def _hand_off(owner: Owner, rest: Sequence[str]) -> None:
        if owner is None:
            raise fs_error(errno.EACCES)
        raise Rerouted(join_parts(tuple(p for p in rest if p != "."), owner))

    def check_parts(self, parts: Parts, rest: Sequence[str]) -> None:
        """Hand off (or deny) when ``parts`` is a boundary; ``rest`` follows it, in order."""
        by_parts = self.by_parts
        if by_parts and parts in by_parts:
            self._hand_off(by_parts[parts], rest)

    def check_stat(self, info: os.stat_result, rest: Sequence[str]) -> None:
        """Hand off (or deny) when the object ``info`` describes is a boundary."""
        by_inode = self.by_inode
        if by_inode:
            key = (info.st_dev, info.st_ino)
            if key in by_inode:
                self._hand_off(by_inode[key], rest)

    def hides(self, parts: Parts, entry: os.DirEntry[str]) -> bool:
        """Whether a listed host entry is private (left out of listings, as a denied one)."""
        if self.by_parts.get(parts, "") is None:
            return True
        if entry.inode() not in self._private_inos:
            return False
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            return False
        return (info.st_dev, info.st_ino) in self.private_inodes


def host_dir_of(backend: object) -> str | None:
    """The real host directory behind a host-backed backend (plain or copy-on-write)."""
    host = getattr(backend, "host_dir", None)
    return host if isinstance(host, str) else None


def _inside(path: str, root: str) -> Parts | None:
    """``path`` relative to ``root`` as components when strictly inside it, else None."""
    if root == "/":
        rel = path.strip("/")
    elif path.startswith(root + "/"):
        rel = path[len(root) + 1 :]
    else:
        return None
    parts = tuple(p for p in rel.split("/") if p)
    return parts or None


def _vparts(vpath: str) -> Parts:
    return tuple(p for p in vpath.split("/") if p)


_PRIVATE_SCAN_LIMIT = 10_000


def _add_private_files(bounds: Boundaries, top: str) -> None:
    """Also deny by identity what a private directory holds now: a host-made hard link to
    one of its files elsewhere in the mount is the same file."""
    budget = _PRIVATE_SCAN_LIMIT
    stack = [top]
    while stack and budget > 0:
        try:
            with os.scandir(stack.pop()) as it:
                for entry in it:
                    budget -= 1
                    if budget < 0:
                        return
                    try:
                        info = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    bounds.add_private_inode((info.st_dev, info.st_ino))
                    if st.S_ISDIR(info.st_mode):
                        stack.append(entry.path)
        except OSError:
            continue


def compute_boundaries(
    mounts: Iterable[tuple[str, object]], private: Iterable[str]
) -> dict[str, Boundaries]:
    """The boundaries of every host-backed mount, keyed by its virtual path.

    ``mounts`` are (virtual path, backend) pairs; ``private`` are real host paths.  For a
    mount at V over host directory R: every mount at a virtual path below V masks the host
    location under R with the same relative path; every other mount whose host directory
    lies strictly inside R owns that directory; every private path inside R is denied, and
    a mount whose host directory is itself private (or inside a private one) is all denied.
    """
    pairs = list(mounts)
    private = [os.path.realpath(p) for p in private]
    out: dict[str, Boundaries] = {}
    for vpath, backend in pairs:
        root = host_dir_of(backend)
        if root is None:
            continue
        bounds = Boundaries()
        vparts = _vparts(vpath)
        for ovpath, obackend in pairs:
            if ovpath == vpath:
                continue
            oparts = _vparts(ovpath)
            if oparts[: len(vparts)] == vparts and len(oparts) > len(vparts):
                rel = oparts[len(vparts) :]
                bounds.add(rel, ovpath, os.path.join(root, *rel))
            oroot = host_dir_of(obackend)
            if oroot is not None and oroot != root:
                rel2 = _inside(oroot, root)
                if rel2 is not None:
                    bounds.add(rel2, ovpath, oroot)
        for path in private:
            if path == root or _inside(root, path) is not None:
                bounds.add((), None, root)
                continue
            rel3 = _inside(path, root)
            if rel3 is not None:
                bounds.add(rel3, None, path)
                _add_private_files(bounds, path)
        if bounds:
            out[vpath] = bounds
    return out
