"""The virtual filesystem: a mount table, deny rules, a synthetic root and ``/dev``.

Paths given to the VFS are virtual and absolute; they are normalized lexically (``..`` is
clamped at ``/``), routed to the mount with the longest matching prefix, and handed to its
backend as mount-relative components.  Deny rules are checked on the path as given here
and on the resolved path by the backend (through ``Ctx.guard``), at the moment of use.
Directories above mount points (and ``/``) are synthetic and read-only; ``/dev`` is
synthetic; a default in-memory ``/tmp`` exists unless a mount covers it.
"""

from __future__ import annotations

import errno
import functools
import os
import stat as st
import threading
import time

from vshell.lazy import lazy_function, lazy_module
from vshell.records import cast, record
from vshell.vfs.backend import Ctx, Parts, normalize_mode
from vshell.vfs.bindir import COMMAND_DIRS, CommandDir
from vshell.vfs.boundary import Boundaries, compute_boundaries, host_dir_of
from vshell.vfs.deny import DenyRules
from vshell.vfs.errors import CrossMount, Rerouted, fs_error, rename_error
from vshell.vfs.links import relative_link_parts, resolves_inside
from vshell.vfs.memory import MemoryBackend, MemoryBudget
from vshell.vfs.paths import join_parts, split_path
from vshell.vfs.stats import crc32, make_stat, with_counts

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Mapping
    from typing import Any, BinaryIO, TypeVar

    from vshell.vfs import devices
    from vshell.vfs.protocol import Backend

    _Op = TypeVar("_Op", bound=Callable[..., Any])
    from vshell.vfs.fifo import Fifo
else:  # imported at first use (start-up): a stand-in puts the real one in its place
    Fifo = lazy_function("vshell.vfs.fifo", "Fifo", globals())

    devices = lazy_module("vshell.vfs.devices")  # /dev: only a path under it asks


__all__ = ["VFS", "DirEntry", "Mount"]

_SYN_DEV = 0x7673  # st_dev of synthetic entries ("vs")
_SYN_DIR_MODE = st.S_IFDIR | 0o555
_MOUNT_PARENT_MODE = st.S_IFDIR | 0o755  # a mount point's parent the outer mount lacks
_RENAME_SCAN_LIMIT = 100_000


@record(frozen=True)
class Mount:
    """A backend exposed at the virtual path ``vpath`` (normalized on construction)."""

    vpath: str
    backend: Backend
    readonly: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.vpath, str) or not self.vpath.startswith("/"):
            raise ValueError(f"mount point must be an absolute path: {self.vpath!r}")
        parts, _ = split_path(self.vpath)
        if ".." in self.vpath.split("/"):
            raise ValueError(f"mount point must not contain '..': {self.vpath!r}")
        object.__setattr__(self, "vpath", join_parts(parts))


class DirEntry:
    """One entry of ``VFS.scandir``; types come from the listing, stats are fetched lazily."""

    __slots__ = ("_kind", "_lstat", "_stat", "_vfs", "name", "path")

    def __init__(self, vfs: VFS, name: str, path: str, kind: str) -> None:
        self.name = name
        self.path = path
        self._kind = kind
        self._vfs = vfs
        self._stat: os.stat_result | None = None
        self._lstat: os.stat_result | None = None

    def __repr__(self) -> str:
        return f"<DirEntry {self.name!r}>"

    def __fspath__(self) -> str:
        return self.path

    def is_symlink(self) -> bool:
        return self._kind == "l"

    def _followed_mode(self) -> int | None:
        try:
            return self.stat().st_mode
        except OSError:
            return None

    def is_dir(self, *, follow_symlinks: bool = True) -> bool:
        if self._kind == "l" and follow_symlinks:
            mode = self._followed_mode()
            return mode is not None and st.S_ISDIR(mode)
        return self._kind == "d"

    def is_file(self, *, follow_symlinks: bool = True) -> bool:
        if self._kind == "l" and follow_symlinks:
            mode = self._followed_mode()
            return mode is not None and st.S_ISREG(mode)
        return self._kind == "f"

    def stat(self, *, follow_symlinks: bool = True) -> os.stat_result:
        if follow_symlinks:
            if self._stat is None:
                self._stat = self._vfs.stat(self.path)
            return self._stat
        if self._lstat is None:
            self._lstat = self._vfs.lstat(self.path)
        return self._lstat

    def inode(self) -> int:
        return self.stat(follow_symlinks=False).st_ino


def _default_private() -> list[str]:
    """vshell's cache directories (this process's and the other usual places), whether or
    not they exist yet."""
    from vshell.cachedir import cache_paths  # strings: no pathlib import on start-up

    return list(dict.fromkeys(os.path.realpath(where) for where in cache_paths()))


class _DeniedTarget(Exception):
    """A link target's walk reached a denied path (not an OSError: it must not be taken
    for a missing tail or an escape on the way out)."""

    @classmethod
    def guard(cls, guard: Callable[[Parts], None]) -> Callable[[Parts], None]:
        def check(parts: Parts) -> None:
            try:
                guard(parts)
            except PermissionError:
                raise cls from None

        return check


_DIR_SIZE = 4096  # what a directory's size is shown as when entries may be hidden

_hops = threading.local()
_MAX_HOPS = 40




class _TreeTooLarge(Exception):
    """A rename's scan of the moved tree met more than _RENAME_SCAN_LIMIT entries."""


def _scan_tree(backend: Any, top: Parts, raw: Ctx) -> Iterator[tuple[Parts, str, str]]:
    """(resolved parts of the directory, name, kind) of every entry below ``top``, depth
    first; unreadable directories are passed over; _TreeTooLarge past the limit."""
    stack = [top]
    budget = _RENAME_SCAN_LIMIT
    while stack:
        rel = stack.pop()
        try:
            resolved, entries = backend.scandir(rel, raw)
        except OSError:
            continue
        for name, kind in entries:
            budget -= 1
            if budget < 0:
                raise _TreeTooLarge
            if kind == "d":
                stack.append((*resolved, name))
            yield resolved, name, kind


def _follows_cross_mount(fn: _Op) -> _Op:
    """Retry an operation whose path crossed a host symlink into another host mount.

    The new virtual path is resolved from the start, so the target mount's read-only
    flag and the deny rules apply exactly as if the caller had named it.
    """

    @functools.wraps(fn)
    def wrapper(self: VFS, path: str, *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(self, path, *args, **kwargs)
        except CrossMount as cm:
            depth = getattr(_hops, "n", 0)
            new = cm.vpath if isinstance(cm, Rerouted) else self._cross_target(cm)
            if new is None:
                raise fs_error(errno.EACCES, path) from None
            if depth >= _MAX_HOPS:
                raise fs_error(errno.ELOOP, path) from None
            _hops.n = depth + 1
            try:
                return wrapper(self, new, *args, **kwargs)
            finally:
                _hops.n = depth

    return cast("_Op", wrapper)


def _no_guard(parts: Parts) -> None:
    return None


class _Changes:
    """How many changes the tree has had through a VFS and its views (they share one)."""

    __slots__ = ("_lock", "n")

    def __init__(self) -> None:
        self.n = 0
        self._lock = threading.Lock()

    def bump(self) -> None:
        with self._lock:
            self.n += 1


def _counted(fn: _Op) -> _Op:
    """Count a call of ``fn`` as a change of the tree, once it is done (failed or not): what
    was read from the tree before it may be stale (see VFS.changes)."""

    @functools.wraps(fn)
    def wrapper(self: VFS, *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(self, *args, **kwargs)
        finally:
            self._changes.bump()

    return cast("_Op", wrapper)


class VFS:
    """The sandbox's file system.  Thread-safe; see /work/contracts.md for the API."""

    def __init__(
        self,
        mounts: Iterable[Mount] = (),
        deny: Iterable[str] | DenyRules = (),
        memory_budget: MemoryBudget | None = None,
        private: Iterable[str | os.PathLike[str]] = (),
        commands: Callable[[], Iterable[str]] | None = None,
    ) -> None:
        """``private`` names host files and directories no path may reach (as denied);
        vshell's cache directory is always among them.  ``commands`` gives the names
        ``/usr/bin`` and ``/bin`` list where no mount covers them."""
        if isinstance(deny, str):
            deny = [deny]  # one pattern, not its characters
        self._deny = deny if isinstance(deny, DenyRules) else DenyRules(deny)
        table: dict[Parts, Mount] = {}
        order: list[Mount] = []
        for mount in mounts:
            if not isinstance(mount, Mount):
                raise TypeError(f"expected a Mount, got {type(mount).__name__}")
            parts, _ = split_path(mount.vpath)
            if parts[:1] == ("dev",):
                raise ValueError(f"cannot mount over the synthetic /dev: {mount.vpath}")
            if parts in table:
                raise ValueError(f"two mounts at {mount.vpath}")
            table[parts] = mount
            order.append(mount)
        self._table = table
        if self._find_mount(("tmp",)) is None:
            # the VFS's own /tmp: world-writable and sticky (drwxrwxrwt), as on Linux
            tmp = Mount("/tmp", MemoryBackend(budget=memory_budget, root_mode=0o1777))
            table[("tmp",)] = tmp
            order.append(tmp)
        if commands is not None:
            bins = CommandDir(commands)
            for vpath in COMMAND_DIRS:
                where = split_path(vpath)[0]
                if self._find_mount(where) is None:
                    table[where] = Mount(vpath, bins, readonly=True)
                    order.append(table[where])
        self._mounts = order
        self._private: list[str] = _default_private()
        self._ctx: dict[str, Ctx] = {}
        self._changes = _Changes()  # shared with the views
        self.protect(*private)
        # Names to show in a directory because a mount point sits right below it.
        children: dict[Parts, set[str]] = {(): {"dev"}}
        for parts in table:
            for i in range(len(parts)):
                children.setdefault(parts[:i], set()).add(parts[i])
        self._children = children
        self._synthetic = {p for p in children if self._find_mount(p) is None}
        # Directories inside a mount on the way to a nested mount point: always shown as
        # directories (Linux needs them to exist to mount there), whatever the backend holds.
        self._mount_parents = {p for p in children if p not in self._synthetic and p not in table}
        self._materialize_mount_parents()
        self._fds: Mapping[int, Any] | None = None
        self._umask: int | None = None  # the shell's umask for what a view creates
        self._boot_ns = time.time_ns()
        self._fifos: dict[Parts, Fifo] = {}  # what mkfifo made, at resolved paths
        self._cancel_check: Callable[[], None] | None = None  # polled by a FIFO's waits
        # the trees whose own count of changes VFS.changes adds (each may be shared)
        self._memory_trees = [m.backend for m in order if type(m.backend) is MemoryBackend]
        # every tree is one only this process changes, and counts its changes
        self._closed = all(type(m.backend) in (MemoryBackend, CommandDir) for m in order)

    def __repr__(self) -> str:
        mounts = ", ".join(f"{m.vpath}{' (ro)' if m.readonly else ''}" for m in self._mounts)
        return f"<VFS mounts=[{mounts}] deny={[p.pattern for p in self._deny.patterns]}>"

    # ------------------------------------------------------------------ plumbing

    @_counted
    def protect(self, *host_paths: str | os.PathLike[str]) -> None:
        """Make host files or directories unreachable from every mount, as denied paths.

        Matched on the resolved host location (by path and by device and inode), so no
        alias, symlink or nested mount reaches them.  Views made by :meth:`bind` share it.
        """
        for path in host_paths:
            real = os.path.realpath(os.fspath(path))
            if real not in self._private:
                self._private.append(real)
        bounds = compute_boundaries(((m.vpath, m.backend) for m in self._mounts), self._private)
        for mount in self._mounts:
            found = bounds.get(mount.vpath)
            self._ctx[mount.vpath] = Ctx(mount.vpath, self._make_guard(mount.vpath), found)
            backend = mount.backend
            if hasattr(backend, "boundaries"):
                backend.boundaries = found  # a copy-on-write mount checks them when it syncs

    def _materialize_mount_parents(self) -> None:
        """Create the directories leading to nested mount points in plain in-memory
        mounts, so files can be written beside the nested mount as on Linux.  Host and
        copy-on-write backends are left untouched (no host write, no spurious change):
        their missing parents are only shown, as synthetic directories."""
        for parts in sorted(self._mount_parents, key=len):
            mount, rel = self._find_mount(parts)  # type: ignore[misc]  # a mount parent always lies in a mount
            if type(mount.backend) is not MemoryBackend:
                continue
            try:
                mount.backend.mkdir(rel, 0o777, self._ctx[mount.vpath])
            except OSError:
                pass  # already there (seeded), or a file the nested mount now hides

    def _mount_parent_stat(
        self, parts: Parts, backend_stat: Callable[[], os.stat_result]
    ) -> os.stat_result:
        """A mount parent's status: the backend's directory, else a synthetic one."""
        try:
            info = backend_stat()
        except (FileNotFoundError, NotADirectoryError):
            return self._syn_stat(parts, _MOUNT_PARENT_MODE)
        if st.S_ISDIR(info.st_mode):
            return info
        return self._syn_stat(parts, _MOUNT_PARENT_MODE)

    @property
    def changes(self) -> int:
        """A number that moves on with every change of a name, type or mode in the tree made
        through this VFS or a view of it (and, in a memory mount, made through any VFS): what
        was read from the tree still holds while it stays the same.  A change made on the host
        behind a host or copy-on-write mount is not counted (see ``closed``)."""
        n = self._changes.n
        for tree in self._memory_trees:
            n += tree.changes
        return n

    @property
    def closed(self) -> bool:
        """Whether every mount is one only this process changes (memory, vshell's command
        directories): then ``changes`` counts every change there can be."""
        return self._closed

    def boundaries(self, vpath: str) -> Boundaries | None:
        """The host locations the mount at ``vpath`` hands off or denies (None: none)."""
        ctx = self._ctx.get(vpath)
        return None if ctx is None else ctx.bounds

    @property
    def mounts(self) -> list[Mount]:
        """The mounts, in the order given (the default /tmp last; not /usr/bin, /bin)."""
        return [m for m in self._mounts if not isinstance(m.backend, CommandDir)]

    def own_command(self, path: str) -> str | None:
        """The command a ``/usr/bin/NAME`` file of vshell's own stands for, else None."""
        found = self._find_mount(self._split(path)[0])
        if found is None or not isinstance(found[0].backend, CommandDir) or len(found[1]) != 1:
            return None
        return found[1][0] if found[1][0] in found[0].backend.names() else None

    @property
    def deny(self) -> DenyRules:
        """The deny rules in force."""
        return self._deny

    def bind(self, fds: Mapping[int, Any], umask: int | None = None,
             check: Callable[[], None] | None = None) -> VFS:
        """A view whose /dev/stdin, /dev/stdout, /dev/stderr and /dev/fd/N open ``fds``.

        With ``umask``, files and directories the view creates get 0666 / 0777 (or the
        mode asked for) less those bits, as the shell's ``umask`` says, whatever the host
        process's own umask is.  ``check`` raises when the run must stop: a named pipe's
        waits poll it.
        """
        view = object.__new__(type(self))  # a shallow copy (copy.copy costs more; one a command)
        view.__dict__.update(self.__dict__)
        view._fds = dict(fds)
        if umask is not None:
            view._umask = umask
        if check is not None:
            view._cancel_check = check
        return view

    # ------------------------------------------------------------------ named pipes

    @_counted
    def mkfifo(self, path: str, mode: int | None = None) -> None:
        """Make a named pipe (``mode`` None: 0666 less the view's umask)."""
        try:
            parts = self._checked(path)
            if self.lexists(path):
                raise fs_error(errno.EEXIST)
            parent = join_parts(parts[:-1])
            if not st.S_ISDIR(self.stat(parent).st_mode):
                raise fs_error(errno.ENOTDIR)
            self._mount_route(parts, True)  # EROFS: a read-only mount, /dev, a synthetic dir
            if not self.access(parent, os.W_OK | os.X_OK):
                raise fs_error(errno.EACCES)
            perm = 0o666 & ~(self._umask or 0) if mode is None else mode & 0o7777
            where = self._split(self.realpath(parent))[0] + parts[-1:]
            if where in self._fifos:
                raise fs_error(errno.EEXIST)
            self._fifos[where] = Fifo(perm)
        except OSError as exc:
            raise rename_error(exc, path) from None

    def _fifo_at(self, parts: Parts) -> Parts | None:
        """Where the named pipe at ``parts`` is kept (spelled so, or through its parent's
        real path), or None."""
        if not self._fifos or not parts:
            return None
        if parts in self._fifos:
            return parts
        try:
            where = self._split(self.realpath(join_parts(parts[:-1])))[0] + parts[-1:]
        except (OSError, ValueError):
            return None
        return where if where in self._fifos else None

    def _fifo_removed(self, path: str) -> bool:
        """``unlink`` of a named pipe: forget it (True); False when ``path`` is none."""
        parts, _ = self._split(path)
        where = self._fifo_at(parts)
        if where is None:
            return False
        self._mount_route(parts, True)
        self._fifos.pop(where, None)
        return True

    def _fifo_moved(self, src: str, dst: str) -> bool:
        """``rename`` of a named pipe: it now lives at ``dst`` (True); False when ``src``
        is none.  A file at ``dst`` is replaced, as rename(2) does."""
        sparts, dparts = self._split(src)[0], self._split(dst)[0]
        where = self._fifo_at(sparts)
        if where is None:
            return False
        self._mount_route(sparts, True)
        self._mount_route(dparts, True)
        if self.isdir(dst):
            raise fs_error(errno.EISDIR)
        if self.lexists(dst) and self._fifo_at(dparts) is None:
            self.unlink(dst)
        target = self._split(self.realpath(join_parts(dparts[:-1])))[0] + dparts[-1:]
        self._fifos[target] = self._fifos.pop(where)
        return True

    def mount_for(self, path: str) -> tuple[Mount, str]:
        """The mount serving ``path`` and the path inside it (``/`` for its root)."""
        parts, _ = self._split(path)
        found = self._find_mount(parts) if parts[:1] != ("dev",) else None
        if found is None:
            raise fs_error(errno.ENOENT, path)
        mount, rel = found
        return mount, join_parts(rel)

    def _make_guard(self, vroot: str) -> Callable[[Parts], None]:
        deny = self._deny
        if not deny:
            return _no_guard

        def guard(parts: Parts) -> None:
            if deny.matches(join_parts(parts, vroot)):
                raise fs_error(errno.EACCES)

        return guard

    def _find_mount(self, parts: Parts) -> tuple[Mount, Parts] | None:
        table = self._table
        for i in range(len(parts), -1, -1):
            mount = table.get(parts[:i])
            if mount is not None:
                return mount, parts[i:]
        return None

    @staticmethod
    def _split(path: str) -> tuple[Parts, bool]:
        if not isinstance(path, str):
            path = os.fsdecode(os.fspath(path))
        try:
            return split_path(path)
        except ValueError:
            raise fs_error(errno.EINVAL, path) from None

    def _checked(self, path: str) -> Parts:
        """``path``'s components, refused (EACCES) when a deny rule matches them as given."""
        parts, _ = self._split(path)
        self._check(parts)
        return parts

    def _check(self, parts: Parts) -> None:
        if self._deny and self._deny.matches(join_parts(parts)):
            raise fs_error(errno.EACCES)

    def _route(self, parts: Parts) -> tuple[str, Any, Parts]:
        """("dev", None, rest) | ("mount", Mount, rel) | ("syn", None, parts) | ENOENT."""
        if parts[:1] == ("dev",):
            return "dev", None, parts[1:]
        found = self._find_mount(parts)
        if found is not None:
            return "mount", found[0], found[1]
        if parts in self._synthetic:
            return "syn", None, parts
        raise fs_error(errno.ENOENT)

    def _mount_route(self, parts: Parts, writing: bool) -> tuple[Mount, Parts, Ctx]:
        """Route a path that must live in a mount; raise the right error otherwise."""
        self._check(parts)
        try:
            kind, mount, rel = self._route(parts)
        except FileNotFoundError:
            if writing and parts and parts[:-1] in self._synthetic:
                raise fs_error(errno.EROFS) from None
            raise
        if kind != "mount":
            raise fs_error(errno.EROFS if writing else errno.EINVAL)
        if writing and mount.readonly:
            raise fs_error(errno.EROFS)
        return mount, rel, self._ctx[mount.vpath]

    def _syn_stat(self, parts: Parts, mode: int = _SYN_DIR_MODE, size: int = 0) -> os.stat_result:
        ino = crc32(join_parts(parts).encode()) | 1
        nlink = 2 if st.S_ISDIR(mode) else 1
        boot = self._boot_ns
        return make_stat(mode, ino, _SYN_DEV, nlink, 0, 0, size, boot, boot, boot)

    # ------------------------------------------------------------------ /dev

    def _dev_node(self, rest: Parts) -> str:
        """Classify a /dev path: "dir", "fddir", "dev", "link", "fd"; ENOENT otherwise."""
        if not rest:
            return "dir"
        if len(rest) == 1:
            if rest[0] == "fd":
                return "fddir"
            if rest[0] in devices.DEVICES:
                return "dev"
            if rest[0] in devices.STD_LINKS:
                return "link"
        elif len(rest) == 2 and rest[0] == "fd":
            return "fd"
        elif rest[0] in devices.DEVICES or rest[0] in devices.STD_LINKS:
            raise fs_error(errno.ENOTDIR)
        raise fs_error(errno.ENOENT)

    def _fd_of(self, rest: Parts) -> int | None:
        if rest[0] in devices.STD_LINKS:
            return devices.STD_LINKS[rest[0]]
        try:
            return int(rest[1]) if rest[1].isdigit() else None
        except ValueError:
            return None

    def _dev_stat(self, rest: Parts, follow: bool) -> os.stat_result:
        node = self._dev_node(rest)
        parts = ("dev", *rest)
        if node in ("dir", "fddir"):
            return self._syn_stat(parts)
        if node == "dev":
            return self._syn_stat(parts, devices.CHAR_MODE)
        if node == "link" and not follow:
            return self._syn_stat(parts, st.S_IFLNK | 0o777, len(self._std_target(rest)))
        fd = self._fd_of(rest)
        if fd is None or self._fds is None or self._fds.get(fd) is None:
            raise fs_error(errno.ENOENT)
        return self._syn_stat(("dev", "fd", str(fd)), devices.STREAM_MODE)

    @staticmethod
    def _std_target(rest: Parts) -> str:
        return f"/dev/fd/{devices.STD_LINKS[rest[0]]}"

    def _dev_open(self, rest: Parts, mode: str, path: str) -> BinaryIO:
        readable = mode.startswith("r") or "+" in mode
        writable = mode != "rb"
        try:
            node = self._dev_node(rest)
        except FileNotFoundError:
            if writable and len(rest) == 1 and not mode.startswith("r"):
                raise fs_error(errno.EROFS) from None
            raise
        if node in ("dir", "fddir"):
            raise fs_error(errno.EISDIR)
        if node == "dev":
            return devices.open_device(rest[0], path, readable, writable)  # type: ignore[return-value]  # device files are binary file objects without BinaryIO's whole surface
        fd = self._fd_of(rest)
        if fd is None:
            raise fs_error(errno.EBADF)
        return devices.open_stream(self._fds, fd, path, readable, writable)  # type: ignore[return-value]  # a descriptor's stream is one of the run's binary streams

    def _dev_list(self, rest: Parts) -> list[tuple[str, str]]:
        node = self._dev_node(rest)
        if node == "dir":
            return ([(n, "o") for n in devices.DEVICES] + [(n, "l") for n in devices.STD_LINKS]
                    + [("fd", "d")])
        if node == "fddir":
            fds = self._fds or {}
            return [(str(fd), "o") for fd in sorted(fds) if fds[fd] is not None]
        raise fs_error(errno.ENOTDIR)

    # ------------------------------------------------------------------ reading

    def open(self, path: str, mode: str = "rb") -> BinaryIO:
        """Open a file in a binary mode (rb wb ab xb r+b w+b a+b)."""
        if mode == "rb":
            return self._open(path, mode)
        try:
            return self._open(path, mode)
        finally:
            self._changes.bump()  # it may have made the file

    @_follows_cross_mount
    def _open(self, path: str, mode: str) -> BinaryIO:
        mode = normalize_mode(mode)
        writing = mode != "rb"
        parts, trailing = self._split(path)
        try:
            self._check(parts)
            if parts[:1] == ("dev",):
                return self._dev_open(parts[1:], mode, path)
            fifo = self._fifo_at(parts)
            if fifo is not None and not trailing:
                end = self._fifos[fifo].open(mode, path, self._cancel_check)
                return end  # type: ignore[return-value]
            if trailing:
                if mode[0] in "wax":  # Linux: O_CREAT with a final "/" is EISDIR...
                    try:
                        self.stat(path)
                    except PermissionError:
                        raise  # ...once the walk is allowed: a denied path says so
                    except OSError:
                        pass
                    raise fs_error(errno.EISDIR)
                info = self.stat(path)
                raise fs_error(errno.EISDIR if st.S_ISDIR(info.st_mode) else errno.ENOTDIR)
            try:
                mount: Mount  # a Mount when kind == "mount" (the only case used below)
                kind, mount, rel = self._route(parts)
            except FileNotFoundError:
                if writing and parts and parts[:-1] in self._synthetic:
                    raise fs_error(errno.EROFS) from None
                raise
            if kind == "syn" or parts in self._mount_parents:
                raise fs_error(errno.EISDIR)
            if writing and mount.readonly:
                raise fs_error(errno.EROFS)
            ctx = self._ctx_for(mount)
            if self._umask is None or mode in ("rb", "r+b"):
                return mount.backend.open(rel, mode, ctx)
            backend = mount.backend
            if type(backend) is MemoryBackend:  # made with its mode, in the same walk
                return backend.open(rel, mode, ctx, perm=0o666 & ~self._umask)
            try:
                backend.stat(rel, True, ctx)
                created = False
            except FileNotFoundError:
                created = True
            f = mount.backend.open(rel, mode, ctx)
            if created:
                mount.backend.chmod(rel, 0o666 & ~self._umask, True, ctx)
            return f
        except OSError as exc:
            raise rename_error(exc, path) from None

    def _ctx_for(self, mount: Mount) -> Ctx:
        return self._ctx[mount.vpath]

    @_follows_cross_mount
    def _stat(self, path: str, follow: bool) -> os.stat_result:
        parts, trailing = self._split(path)
        try:
            self._check(parts)
            fifo = self._fifo_at(parts)
            if fifo is not None:
                if trailing:
                    raise fs_error(errno.ENOTDIR)
                return self._syn_stat(parts, st.S_IFIFO | self._fifos[fifo].mode)
            kind, mount, rel = self._route(parts)
            if kind == "dev":
                info = self._dev_stat(rel, follow or trailing)
            elif kind == "syn":
                info = self._syn_stat(parts)
            else:
                ctx = self._ctx_for(mount)
                if parts in self._mount_parents:
                    info = self._mount_parent_stat(
                        parts, lambda: mount.backend.stat(rel, False, ctx)
                    )
                else:
                    info = mount.backend.stat(rel, follow or trailing, ctx)
                if st.S_ISDIR(info.st_mode) and (self._deny or ctx.bounds):
                    info = self._hide_counts(path, info, host_dir_of(mount.backend) is not None)
            if trailing and not st.S_ISDIR(info.st_mode):
                raise fs_error(errno.ENOTDIR)
            return info
        except OSError as exc:
            raise rename_error(exc, path) from None

    def _hide_counts(self, path: str, info: os.stat_result, host: bool) -> os.stat_result:
        """A directory's ``info`` without the counts that tell what it hides.

        Asked only when something can be hidden (deny rules, private or foreign host
        locations).  The link count includes hidden subdirectories: it becomes 2 + the
        subdirectories a listing shows.  A host directory's size grows with its entries
        (and their name lengths on tmpfs or btrfs): it is reported as one block."""
        nlink = info.st_nlink
        if nlink > 2:
            try:
                _, entries = self._entries(path)
            except OSError:
                entries = None
            if entries is not None:
                nlink = min(nlink, 2 + sum(1 for _, kind in entries if kind == "d"))
        size = _DIR_SIZE if host else info.st_size
        if nlink == info.st_nlink and info.st_size == size:
            return info
        return with_counts(info, nlink, size)

    def stat(self, path: str) -> os.stat_result:
        """Status of ``path``, following symlinks."""
        return self._stat(path, True)

    def lstat(self, path: str) -> os.stat_result:
        """Status of ``path`` itself (a final symlink is not followed)."""
        return self._stat(path, False)

    def _mode(self, path: str, follow: bool) -> int | None:
        """``st_mode`` of ``path``, None when it cannot be seen (the ``is*`` questions)."""
        try:
            return self._stat(path, follow).st_mode
        except (OSError, ValueError):
            return None

    def exists(self, path: str) -> bool:
        return self._mode(path, True) is not None

    def lexists(self, path: str) -> bool:
        return self._mode(path, False) is not None

    def isdir(self, path: str) -> bool:
        mode = self._mode(path, True)
        return mode is not None and st.S_ISDIR(mode)

    def isfile(self, path: str) -> bool:
        mode = self._mode(path, True)
        return mode is not None and st.S_ISREG(mode)

    def islink(self, path: str) -> bool:
        mode = self._mode(path, False)
        return mode is not None and st.S_ISLNK(mode)

    @_follows_cross_mount
    def _list(self, path: str) -> tuple[Parts, list[tuple[str, str]]]:
        try:
            parts = self._checked(path)
            kind, mount, rel = self._route(parts)
            if kind == "dev":
                entries = self._dev_list(rel)
            elif kind == "syn":
                entries = [(name, "d") for name in sorted(self._children.get(parts, ()))]
            else:
                try:
                    resolved, entries = mount.backend.scandir(rel, self._ctx_for(mount))
                except (FileNotFoundError, NotADirectoryError):
                    if parts not in self._mount_parents:
                        raise
                    resolved, entries = rel, []
                extra = self._children.get(parts)
                if extra:
                    have = {name for name, _ in entries}
                    entries += [(name, "d") for name in sorted(extra) if name not in have]
                if self._deny:
                    rbase = join_parts(resolved, mount.vpath)
                    deny = self._deny
                    entries = [e for e in entries if not deny.matches(join_parts((e[0],), rbase))]
        except OSError as exc:
            raise rename_error(exc, path) from None
        if self._fifos:
            entries += [(where[-1], "o") for where in list(self._fifos) if where[:-1] == parts]
        if self._deny:
            base = join_parts(parts)
            entries = [e for e in entries if not self._deny.matches(join_parts((e[0],), base))]
        return parts, entries

    def _entries(self, path: str) -> tuple[str, list[tuple[str, str]]]:
        """The listing under the caller's spelling of ``path`` (even when re-routed to
        another mount), denied names hidden under both spellings."""
        _, entries = self._list(path)
        base = join_parts(self._split(path)[0])
        if self._deny:
            deny = self._deny
            entries = [e for e in entries if not deny.matches(join_parts((e[0],), base))]
        return base, entries

    def listdir(self, path: str) -> list[str]:
        """Names in a directory (denied entries hidden, order unspecified)."""
        return [name for name, _ in self._entries(path)[1]]

    def scandir(self, path: str) -> list[DirEntry]:
        """Entries of a directory (denied entries hidden, order unspecified)."""
        base, entries = self._entries(path)
        return [DirEntry(self, name, join_parts((name,), base), kind) for name, kind in entries]

    @_follows_cross_mount
    def readlink(self, path: str) -> str:
        """The target of a symlink, as a virtual path when it points inside its mount."""
        parts, trailing = self._split(path)
        try:
            self._check(parts)
            if trailing:  # "link/" is the directory it leads to, never a link
                self._stat(path, True)
                raise fs_error(errno.EINVAL)
            mount: Mount  # a Mount when kind == "mount" (the only case used below)
            kind, mount, rel = self._route(parts)
            if kind == "dev":
                if self._dev_node(rel) == "link":
                    return self._std_target(rel)
                raise fs_error(errno.EINVAL)
            if kind == "syn":
                raise fs_error(errno.EINVAL)
            return mount.backend.readlink(rel, self._ctx_for(mount))
        except OSError as exc:
            raise rename_error(exc, path) from None

    @_follows_cross_mount
    def realpath(self, path: str, strict: bool = False) -> str:
        """The virtual path with symlinks resolved (missing tail kept unless ``strict``)."""
        try:
            parts = self._checked(path)
            try:
                kind, mount, rel = self._route(parts)
            except FileNotFoundError:
                if strict:
                    raise
                return join_parts(parts)
            if kind == "dev":
                if strict:
                    self._dev_stat(rel, True)
                return join_parts(parts)
            if kind == "syn":
                return join_parts(parts)
            ctx = self._ctx_for(mount)
            return join_parts(mount.backend.realpath(rel, strict, ctx), mount.vpath)
        except OSError as exc:
            raise rename_error(exc, path) from None

    def access(self, path: str, mode: int = os.F_OK) -> bool:
        """Whether ``path`` may be accessed with ``mode``; honours read-only and deny."""
        try:
            return self._access(path, mode)
        except (OSError, ValueError):
            return False

    @_follows_cross_mount
    def _access(self, path: str, mode: int) -> bool:
        parts = self._checked(path)
        if self._fifo_at(parts) is not None:
            return not mode & os.X_OK
        mount: Mount  # a Mount when kind == "mount" (the only case used below)
        kind, mount, rel = self._route(parts)
        if kind == "dev":
            node = self._dev_node(rel)
            if node in ("link", "fd"):
                self._dev_stat(rel, True)
            if node == "dev" and rel[0] == "tty":
                return mode == os.F_OK
            return not mode & os.X_OK or node in ("dir", "fddir")
        if kind == "syn":
            return not mode & os.W_OK
        if mode & os.W_OK and mount.readonly:
            return False
        return mount.backend.access(rel, mode, self._ctx_for(mount))

    def _cross_target(self, cm: CrossMount) -> str | None:
        """The virtual path of a host symlink target inside another host mount, if any."""
        from vshell.vfs.host import HostBackend

        best: tuple[int, str] | None = None
        for mount in self._mounts:
            backend = mount.backend
            if host_dir_of(backend) is None:
                continue
            host = getattr(backend, "host", backend)  # a copy-on-write mount's host side
            if not isinstance(host, HostBackend):
                continue
            for prefix in host._prefixes:
                root = prefix.rstrip("/")
                if cm.host_target == root or cm.host_target.startswith(root + "/"):
                    inner = [p for p in cm.host_target[len(root) :].split("/") if p]
                    vpath = join_parts(tuple(inner + list(cm.rest)), mount.vpath)
                    if best is None or len(root) > best[0]:
                        best = (len(root), vpath)
        return None if best is None else best[1]

    # ------------------------------------------------------------------ writing

    @_counted
    @_follows_cross_mount
    def mkdir(self, path: str, mode: int = 0o777) -> None:
        """Create a directory (FileExistsError if anything exists there)."""
        try:
            parts = self._checked(path)
            try:
                kind, mount, rel = self._route(parts)
            except FileNotFoundError:
                if parts and parts[:-1] in self._synthetic:
                    raise fs_error(errno.EROFS) from None
                raise
            if kind == "dev":
                try:
                    self._dev_node(rel)
                except FileNotFoundError:
                    if len(rel) == 1:
                        raise fs_error(errno.EROFS) from None
                    raise
                raise fs_error(errno.EEXIST)
            if kind == "syn" or not rel:
                raise fs_error(errno.EEXIST)
            ctx = self._ctx_for(mount)
            if mount.readonly:
                try:
                    mount.backend.stat(rel, False, ctx)
                except OSError:
                    raise fs_error(errno.EROFS) from None
                raise fs_error(errno.EEXIST)
            mount.backend.mkdir(rel, mode, ctx)
            if self._umask is not None:
                mount.backend.chmod(rel, mode & 0o7777 & ~self._umask, False, ctx)
        except OSError as exc:
            raise rename_error(exc, path) from None

    def makedirs(self, path: str, mode: int = 0o777, exist_ok: bool = False) -> None:
        """Create a directory and any missing parents."""
        parts, _ = self._split(path)
        for i in range(1, len(parts) + 1):
            sub = join_parts(parts[:i])
            last = i == len(parts)
            if not last and self.isdir(sub):
                continue
            try:
                self.mkdir(sub, mode if last else 0o777)
            except FileExistsError:
                if not self.isdir(sub):
                    code = errno.EEXIST if last else errno.ENOTDIR
                    raise rename_error(fs_error(code), path) from None
                if last and not exist_ok:
                    raise rename_error(fs_error(errno.EEXIST), path) from None
            except OSError as exc:
                raise rename_error(exc, path) from None
        if not parts and not exist_ok:
            raise fs_error(errno.EEXIST, path)

    @_follows_cross_mount
    def _simple_write(
        self,
        path: str,
        op: Callable[[Mount, Parts, Ctx], None],
        root_errno: int,
        creating: bool = False,
    ) -> None:
        parts, _ = self._split(path)
        try:
            if parts[:1] == ("dev",):
                self._check(parts)
                try:
                    self._dev_node(parts[1:])
                except FileNotFoundError:
                    if not (creating and len(parts) == 2):
                        raise
                raise fs_error(errno.EROFS if parts[1:] else errno.EBUSY)
            mount, rel, ctx = self._mount_route(parts, True)
            if not rel:
                raise fs_error(root_errno)
            op(mount, rel, ctx)
        except OSError as exc:
            raise rename_error(exc, path) from None

    @_counted
    def rmdir(self, path: str) -> None:
        """Remove an empty directory."""
        self._refuse_mount_parent(path, errno.ENOTEMPTY)  # it holds a mount point
        self._dir_spelling_check(path)
        if any(where[:-1] == self._split(path)[0] for where in list(self._fifos)):
            raise fs_error(errno.ENOTEMPTY, path)
        try:
            self._simple_write(path, lambda m, r, c: m.backend.rmdir(r, c), errno.EBUSY)
        except OSError as exc:
            raise self._not_empty_error(exc, path) from None

    def _not_empty_error(self, exc: OSError, path: str) -> OSError:
        """``exc``, unless it says "Directory not empty" of a directory that lists empty.

        Only denied or private entries keep such a directory, so the answer is theirs,
        "Permission denied": "not empty" would tell that something hidden lies inside
        while every listing says nothing does."""
        if exc.errno != errno.ENOTEMPTY:
            return exc
        try:
            if self.listdir(path):
                return exc
        except OSError:
            return exc
        return fs_error(errno.EACCES, exc.filename, exc.filename2)

    def _refuse_mount_parent(self, path: str, code: int) -> None:
        """Raise ``code`` when ``path`` leads to a nested mount point (it must stay)."""
        parts, _ = self._split(path)
        if parts in self._mount_parents:
            self._check(parts)
            raise fs_error(code, path)

    def _dir_spelling_check(self, path: str) -> bool:
        """For ``path`` ending in ``/``, which names a directory and follows no final link
        when removed or renamed (POSIX): ENOTDIR unless the entry itself is a directory.
        Whether ``path`` is so spelled (False also when nothing is there)."""
        parts, trailing = self._split(path)
        if not trailing:
            return False
        try:
            info = self._stat(join_parts(parts), False)
        except FileNotFoundError:
            return False
        if not st.S_ISDIR(info.st_mode):
            raise fs_error(errno.ENOTDIR, path)
        return True

    def _follows_for_slash(self, path: str, follow: bool) -> bool:
        """``follow``, or True for ``path`` ending in ``/`` once it is checked to lead to a
        directory (ENOTDIR otherwise): a final ``/`` always follows a link."""
        if not self._split(path)[1]:
            return follow
        self._stat(path, True)
        return True

    @_counted
    def unlink(self, path: str) -> None:
        """Remove a file or symlink."""
        try:
            if self._fifo_removed(path):
                return
        except OSError as exc:
            raise rename_error(exc, path) from None
        self._refuse_mount_parent(path, errno.EISDIR)
        self._dir_spelling_check(path)
        self._simple_write(path, lambda m, r, c: m.backend.unlink(r, c), errno.EISDIR)

    remove = unlink

    @_counted
    def symlink(self, target: str, linkpath: str) -> None:
        """Create ``linkpath`` pointing at ``target`` (stored as given; see backends)."""
        if not target:
            raise fs_error(errno.ENOENT, linkpath)

        def make(mount: Mount, rel: Parts, ctx: Ctx) -> None:
            self._check_link_target(mount, rel, target, ctx)
            if self._holds_private(mount, rel, ctx):
                raise fs_error(errno.EACCES)
            mount.backend.symlink(target, rel, ctx)

        self._simple_write(linkpath, make, errno.EEXIST, True)

    def symlink_allowed(self, target: str, linkpath: str) -> bool:
        """Whether :meth:`symlink` would accept ``target`` at ``linkpath`` (see vfs.links)."""
        for _ in range(_MAX_HOPS):
            parts, _ = self._split(linkpath)
            try:
                mount, rel, ctx = self._mount_route(parts, False)
                if rel:
                    self._check_link_target(mount, rel, target, ctx)
            except Rerouted as moved:
                linkpath = moved.vpath
                continue
            except PermissionError as exc:
                return exc.errno != errno.EPERM
            except OSError:
                return True  # not this check's business: symlink() itself will report it
            return True
        return False

    def _check_link_target(self, mount: Mount, rel: Parts, target: str, ctx: Ctx) -> None:
        """EPERM unless a link at ``rel`` to ``target`` stays inside ``mount``.

        One rule for every backend (a host mount is where it matters: host tools follow
        links later; a memory mount's walk would refuse the escape anyway)."""
        backend = mount.backend
        try:
            # Where the link really lives first: a parent reached through an alias may be
            # another mount's host directory, and the link is then judged (made) there.
            parent = backend.realpath(rel[:-1], False, ctx)
        except Rerouted as moved:
            raise Rerouted(join_parts(rel[-1:], moved.vpath)) from None
        if target.startswith("/"):
            tparts, _ = self._split(target)
            found = self._find_mount(tparts)
            if ".." in target.split("/") or found is None or found[0] is not mount:
                raise fs_error(errno.EPERM)
            wanted = found[1]
        else:
            wanted = relative_link_parts(target, parent)
        # A link may name a denied path (using it is refused), but a target *through* a
        # denied directory is refused before anything in it is looked at: judging it by what
        # the directory holds (an escaping link, another mount's directory) would answer
        # differently for each hidden name.
        if wanted[:-1]:
            guarded = Ctx(ctx.vroot, _DeniedTarget.guard(ctx.guard), ctx.bounds)
            try:
                resolves_inside(lambda p: backend.realpath(p, True, guarded), wanted[:-1])
            except _DeniedTarget:
                raise fs_error(errno.EACCES) from None
        raw = Ctx(ctx.vroot, _no_guard, ctx.bounds)
        resolves_inside(lambda p: backend.realpath(p, False, raw), wanted)

    def _rename_keeps_links_inside(
        self, mount: Mount, srel: Parts, drel: Parts, ctx: Ctx
    ) -> None:
        """A relative symlink moved (or a tree holding one) must still point inside."""
        backend = mount.backend
        if host_dir_of(backend) is None:
            return
        try:
            info = backend.stat(srel, False, ctx)
            dparent = backend.realpath(drel[:-1], False, ctx)
            sparent = backend.realpath(srel[:-1], False, ctx)
        except OSError:
            return  # the rename itself will report the problem
        if len(dparent) >= len(sparent):
            return  # as deep or deeper: every leading '..' still lands inside
        if st.S_ISLNK(info.st_mode):
            self._check_link_target(mount, (*dparent, drel[-1]), backend.readlink(srel, ctx), ctx)
        elif st.S_ISDIR(info.st_mode):
            self._scan_links_moved(backend, (*sparent, srel[-1]), len(sparent) - len(dparent), ctx)

    @staticmethod
    def _scan_links_moved(backend: Any, top: Parts, rise: int, ctx: Ctx) -> None:
        """EPERM when a tree moved ``rise`` levels up holds a link that would then escape."""
        raw = Ctx(ctx.vroot, _no_guard, ctx.bounds)
        try:
            for resolved, name, kind in _scan_tree(backend, top, raw):
                if kind != "l":
                    continue
                try:
                    target = backend.readlink((*resolved, name), raw)
                except OSError:
                    continue  # another mount's or private: not moved with this tree
                if target.startswith("/"):
                    continue
                names = [p for p in target.split("/") if p not in ("", ".")]
                climb = 0
                while climb < len(names) and names[climb] == "..":
                    climb += 1
                if climb > len(resolved) - rise:
                    raise fs_error(errno.EPERM)
        except _TreeTooLarge:
            raise fs_error(errno.EPERM) from None

    def _two_paths(self, src: str, dst: str) -> tuple[Mount, Parts, Parts, Ctx]:
        sparts, _ = self._split(src)
        dparts, _ = self._split(dst)
        self._check(sparts)
        self._check(dparts)
        for parts in (sparts, dparts):
            if parts[:1] == ("dev",) or parts in self._synthetic:
                raise fs_error(errno.EROFS)
            if parts in self._mount_parents:
                raise fs_error(errno.EBUSY)  # moving it would move a mount point
        smount, srel, ctx = self._mount_route(sparts, True)
        dmount, drel, _ = self._mount_route(dparts, True)
        if smount is not dmount:
            raise fs_error(errno.EXDEV)
        if not srel or not drel:
            raise fs_error(errno.EBUSY)
        return smount, srel, drel, ctx

    @_counted
    def rename(self, src: str, dst: str) -> None:
        """Rename within one mount (OSError(EXDEV) across mounts)."""
        try:
            if self._fifo_moved(src, dst):
                return
            self._dir_spelling_check(src)
            if self._split(dst)[1] and not self._dir_spelling_check(dst):
                if not st.S_ISDIR(self._stat(join_parts(self._split(src)[0]), False).st_mode):
                    raise fs_error(errno.ENOTDIR)  # only a directory may take a name "x/"
        except OSError as exc:
            raise rename_error(exc, src, dst) from None
        try:
            self._two_path_op(src, dst, self._rename)
        except OSError as exc:
            raise self._not_empty_error(exc, dst) from None

    replace = rename

    def _rename(self, mount: Mount, srel: Parts, drel: Parts, ctx: Ctx) -> None:
        if self._rename_exposes_denied(mount, srel, drel, ctx):
            raise fs_error(errno.EACCES)
        if self._holds_private(mount, srel, ctx) or self._holds_private(mount, drel, ctx):
            raise fs_error(errno.EACCES)
        self._rename_keeps_links_inside(mount, srel, drel, ctx)
        mount.backend.rename(srel, drel, ctx)

    @staticmethod
    def _holds_private(mount: Mount, srel: Parts, ctx: Ctx) -> bool:
        """Whether ``srel`` is, or lies on the way to, one of vshell's private locations.

        Such a path must not move, nor be replaced by a link or a renamed tree: vshell
        creates a missing cache directory later through that very path, and a planted
        ``.cache -> elsewhere`` would put its cache (seal key included) in reach."""
        bounds = ctx.bounds
        if bounds is None:
            return False
        private = [p for p, owner in bounds.by_parts.items() if owner is None]
        if not private:
            return False
        try:
            real = (*mount.backend.realpath(srel[:-1], False, ctx), srel[-1])
        except OSError:
            return False  # the rename itself will report the problem
        return any(p[: len(real)] == real for p in private)

    @_counted
    def link(self, src: str, dst: str) -> None:
        """Create a hard link ``dst`` to ``src`` (same mount only)."""
        self._two_path_op(src, dst, self._link)

    def _link(self, mount: Mount, srel: Parts, drel: Parts, ctx: Ctx) -> None:
        backend = mount.backend
        if self._holds_private(mount, drel, ctx):
            raise fs_error(errno.EACCES)
        if host_dir_of(backend) is not None:
            # A hard link to a symlink is a second copy of that symlink: same rule.
            try:
                info = backend.stat(srel, False, ctx)
            except OSError:
                info = None
            if info is not None and st.S_ISLNK(info.st_mode):
                self._check_link_target(mount, drel, backend.readlink(srel, ctx), ctx)
        backend.link(srel, drel, ctx)

    def _two_path_op(
        self, src: str, dst: str, op: Callable[[Mount, Parts, Parts, Ctx], None]
    ) -> None:
        """Run a rename or link; a walk landing in another mount's host tree is re-routed.

        The paths are re-resolved to where they really are (through every hand-off) and
        tried once more; still crossing between mounts then is EXDEV, as across devices.
        """
        try:
            try:
                op(*self._two_paths(src, dst))
            except CrossMount:
                self._two_real_paths_op(src, dst, op)
            except OSError as exc:
                # Two spellings in different mounts may still name one mount's host tree
                # (``d/cow/f`` with ``d -> .`` is in /work/cow): judge where they really are.
                if exc.errno != errno.EXDEV:
                    raise
                self._two_real_paths_op(src, dst, op)
        except OSError as exc:
            raise rename_error(exc, src, dst) from None

    def _two_real_paths_op(
        self, src: str, dst: str, op: Callable[[Mount, Parts, Parts, Ctx], None]
    ) -> None:
        rsrc, rdst = self._real_parent(src), self._real_parent(dst)
        try:
            op(*self._two_paths(rsrc, rdst))
        except CrossMount:
            raise fs_error(errno.EXDEV) from None

    def _real_parent(self, path: str) -> str:
        """``path`` with its directory resolved through every mount hand-off."""
        parts, _ = self._split(path)
        if not parts:
            return "/"
        parent = self.realpath(join_parts(parts[:-1]))
        return join_parts(parts[-1:], parent)

    def _rename_exposes_denied(self, mount: Mount, srel: Parts, drel: Parts, ctx: Ctx) -> bool:
        """Whether moving directory ``srel`` would un-deny something below it.

        Deny rules select names; renaming ``/work/a`` (holding a denied ``/work/a/key``)
        to ``/work/b`` must not be a way to read the key.  Refused when the tree is too
        large to check.
        """
        if not self._deny:
            return False
        backend = mount.backend
        try:
            if not st.S_ISDIR(backend.stat(srel, False, ctx).st_mode):
                return False
            dst_base = join_parts(backend.realpath(drel[:-1], False, ctx) + drel[-1:], mount.vpath)
            real_src = join_parts(backend.realpath(srel[:-1], False, ctx) + srel[-1:], mount.vpath)
        except OSError:
            return False  # the rename itself will report the problem
        deny = self._deny
        # A denied path named outright below the tree refuses the move whether or not it
        # exists, so the answer does not tell (the scan below is for wildcard patterns).
        for pattern in deny.patterns:
            named = pattern.pattern
            if named.startswith("/") and "*" not in named:
                named = join_parts(tuple(p for p in named.split("/") if p))
                if named.startswith(real_src.rstrip("/") + "/") and not deny.matches(
                    dst_base + named[len(real_src.rstrip("/")) :]
                ):
                    return True
        raw = Ctx(ctx.vroot, _no_guard, ctx.bounds)
        src_base: str | None = None  # the tree's own resolved path (its first entries')
        try:
            for resolved, name, _kind in _scan_tree(backend, srel, raw):
                if src_base is None:
                    src_base = join_parts(resolved, mount.vpath)
                vpath = join_parts((*resolved, name), mount.vpath)
                if deny.matches(vpath) and not deny.matches(dst_base + vpath[len(src_base) :]):
                    return True
        except _TreeTooLarge:
            return True
        return False

    @_counted
    @_follows_cross_mount
    def chmod(self, path: str, mode: int, follow_symlinks: bool = True) -> None:
        """Change permission bits (OSError(EOPNOTSUPP) on a symlink itself)."""
        follow_symlinks = self._follows_for_slash(path, follow_symlinks)
        self._set_meta(path, lambda m, r, c: m.backend.chmod(r, mode, follow_symlinks, c))

    @_counted
    @_follows_cross_mount
    def utime(
        self,
        path: str,
        times: tuple[float, float] | None = None,
        ns: tuple[int, int] | None = None,
        follow_symlinks: bool = True,
    ) -> None:
        """Set access and modification times (now when neither ``times`` nor ``ns``)."""
        if times is not None and ns is not None:
            raise ValueError("utime: you may specify either 'times' or 'ns' but not both")
        if times is not None:
            ns = (int(times[0] * 1e9), int(times[1] * 1e9))
        follow_symlinks = self._follows_for_slash(path, follow_symlinks)
        parts, _ = self._split(path)
        if parts[:1] == ("dev",):
            try:
                self._check(parts)
                self._dev_stat(parts[1:], True)  # touching a device is allowed, and a no-op
                return
            except OSError as exc:
                raise rename_error(exc, path) from None
        self._set_meta(path, lambda m, r, c: m.backend.utime(r, ns, follow_symlinks, c))

    @_counted
    @_follows_cross_mount
    def truncate(self, path: str, length: int) -> None:
        """Set a file's size."""
        if length < 0:
            raise fs_error(errno.EINVAL, path)
        parts, _ = self._split(path)
        if parts[:1] == ("dev",):
            try:
                self._check(parts)
                self._dev_node(parts[1:])
                raise fs_error(errno.EINVAL)
            except OSError as exc:
                raise rename_error(exc, path) from None
        self._simple_write(path, lambda m, r, c: m.backend.truncate(r, length, c), errno.EISDIR)

    def _is_mount_root(self, path: str) -> bool:
        parts, _ = self._split(path)
        return parts in self._table

    def _set_meta(self, path: str, op: Callable[[Mount, Parts, Ctx], None]) -> None:
        """A change of metadata (chmod, utime), which a mount's root takes too."""
        if self._is_mount_root(path):
            self._root_op(path, lambda m, c: op(m, (), c))
            return
        self._simple_write(path, op, errno.EBUSY)

    def _root_op(self, path: str, op: Callable[[Mount, Ctx], None]) -> None:
        try:
            parts = self._checked(path)
            mount = self._table[parts]
            if mount.readonly:
                raise fs_error(errno.EROFS)
            op(mount, self._ctx_for(mount))
        except OSError as exc:
            raise rename_error(exc, path) from None
