"""An in-memory tree as a mount, stored in a private pyfakefs FakeFilesystem.

pyfakefs is used through its objects (FakeFilesystem, FakeOsModule, FakeFile), never by
patching the real ``os``; file contents are read and written by this module (see _Live).
pyfakefs is not thread-safe, so one lock per backend guards every call, including reads
and writes on open files.  Symlinks are resolved by this module (under the lock, so
resolution and use are atomic) with the same rules as host mounts: a relative target is
followed from the link's directory and may not climb above the mount root; an absolute
target is a *virtual* path and is followed only when it lies inside this mount (a link
into another mount is refused with EACCES).  ``readlink`` returns the target exactly as
it was written.  A MemoryBackend holds one tree; mounting it at two virtual paths shows
the same tree at both.
"""

from __future__ import annotations

import errno
import io
import os
import stat as st
import threading
import time
from collections import deque

from vshell.vfs.backend import Ctx, Listing, Parts, mode_flags
from vshell.vfs.errors import LINK_ROOT, RENAME_ROOT, escape_error, fs_error, refuse_root_ends
from vshell.vfs.links import MAX_SYMLINKS, append_missing_tail, climb
from vshell.vfs.paths import join_parts, split_path
from vshell.vfs.stats import to_stat_result

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, BinaryIO

__all__ = ["Hold", "MemoryBackend", "MemoryBudget"]


class MemoryBudget:
    """How many bytes the holders sharing it may keep together.

    sbsh leaves memory unbounded, so ``yes > /tmp/x`` grows until the host runs out.  A
    sandbox has one budget for everything it holds (shell data, pipes, Python guests) and a
    child budget, its ``parent`` the sandbox's, for file data in memory: a charge is taken
    from the child and every ancestor or from none.  Files see a refusal as ENOSPC ("No
    space left on device", as on a full disk); the shell as ``cannot allocate memory``.
    ``None``: no limit of its own (the parent's still applies).
    """

    def __init__(self, capacity: int | None = None,
                 parent: MemoryBudget | None = None) -> None:
        if capacity is not None and capacity < 0:
            raise ValueError("capacity must be >= 0")
        self.capacity = capacity
        self.parent = parent
        self._used = 0
        self._lock = threading.Lock()
        self._returned: deque[int] = deque()  # bytes given back by finalizers, not yet counted

    @property
    def used(self) -> int:
        with self._lock:
            self._drain()
            return self._used

    def _drain(self) -> None:
        while self._returned:
            self._used -= self._returned.popleft()

    def give_back_later(self, size: int) -> None:
        """Give ``size`` bytes back without taking the lock: for a finalizer, which the
        garbage collector may run on a thread that holds it already."""
        self._returned.append(size)
        if self.parent is not None:
            self.parent.give_back_later(size)

    def try_change(self, delta: int, force: bool = False) -> bool:
        """Take (``delta`` > 0) or give back bytes here and in every ancestor; False, and
        nothing taken anywhere, if taking would pass a capacity (``force``: take anyway)."""
        with self._lock:
            self._drain()
            if delta > 0 and not force and self.capacity is not None and \
                    self._used + delta > self.capacity:
                return False
            if self.parent is not None and not self.parent.try_change(delta, force):
                return False
            self._used += delta
            return True

    def change(self, delta: int, force: bool = False) -> None:
        """Take (``delta`` > 0) or give back bytes; ENOSPC if taking would pass capacity."""
        if not self.try_change(delta, force):
            raise fs_error(errno.ENOSPC)

    def available(self) -> int | None:
        """Bytes that can still be taken here (the tightest ancestor counts); None: any."""
        room = None if self.capacity is None else max(0, self.capacity - self.used)  # drains
        if self.parent is not None:
            up = self.parent.available()
            if up is not None:
                room = up if room is None else min(room, up)
        return room

    def limit(self) -> int | None:
        """The tightest capacity on the way up (what a message should name)."""
        caps = []
        budget: MemoryBudget | None = self
        while budget is not None:
            if budget.capacity is not None:
                caps.append(budget.capacity)
            budget = budget.parent
        return min(caps) if caps else None


def _fake(parts: Parts | list[str]) -> str:
    return "/" + "/".join(parts)


class _Live:
    """The shared, growable contents of a file while some handle has it open for writing.

    All handles see the same bytes at once (as with a real file).  The FakeFile holds this
    very buffer once published (on flush and when the last writer closes), so publishing
    costs O(1), and a later writer takes the buffer back without a copy: appending to a file
    one line per ``>>`` costs O(line), not O(file) (a copy each way made a log written line
    by line quadratic)."""

    __slots__ = ("buf", "dirty", "fobj", "writers")

    def __init__(self, fobj: Any) -> None:
        self.fobj = fobj
        held = fobj.byte_contents
        self.buf = held if type(held) is bytearray else bytearray(held or b"")
        self.writers = 0
        self.dirty = False

    def publish(self) -> None:
        if self.dirty:
            fobj = self.fobj
            now = time.time()
            if hasattr(fobj, "_byte_contents"):  # pyfakefs's store of a file's bytes
                fobj._byte_contents = self.buf
                fobj.epoch += 1
                # its status fields, without FakeFile's forwarding hooks (each set runs a
                # Python __setattr__ that looks the name up in a list)
                status = fobj.stat_result
                status.st_size = len(self.buf)
                status.st_mtime = now
                status.st_ctime = now
            else:  # a pyfakefs without those attributes: the public way, a copy
                fobj.set_contents(bytes(self.buf))
                fobj.st_mtime = now
                fobj.st_ctime = now
            self.dirty = False


class _MemRaw(io.RawIOBase):
    """Raw I/O on one in-memory file; the backend lock guards every call."""

    def __init__(self, backend: MemoryBackend, fobj: Any, name: str, mode: str) -> None:
        super().__init__()
        self._backend = backend
        self._fobj = fobj
        self.name = name
        self.mode = mode
        self._readable = mode.startswith("r") or "+" in mode
        self._writable = not mode.startswith("r") or "+" in mode
        self._append = mode.startswith("a")
        self._pos = 0
        self._released = False

    def readable(self) -> bool:
        return self._readable

    def writable(self) -> bool:
        return self._writable

    def seekable(self) -> bool:
        return True

    def _data(self) -> bytes | bytearray:
        live = self._backend._live.get(id(self._fobj))
        if live is not None:
            return live.buf
        return self._fobj.byte_contents or b""

    def readinto(self, buffer: Any) -> int:
        if self.closed:
            raise ValueError("I/O operation on closed file.")
        if not self._readable:
            raise io.UnsupportedOperation("read")
        with self._backend._lock:
            data = self._data()
            pos = self._pos
            count = max(0, min(len(buffer), len(data) - pos))
            if count:
                with memoryview(data) as view:
                    buffer[:count] = view[pos : pos + count]
            self._pos = pos + count
            return count

    def write(self, data: Any) -> int:
        if self.closed:
            raise ValueError("I/O operation on closed file.")
        if not self._writable:
            raise io.UnsupportedOperation("write")
        size = len(memoryview(data))
        with self._backend._lock:
            live = self._backend._live_open(self._fobj, count=False)
            buf = live.buf
            pos = len(buf) if self._append else self._pos
            if pos + size > len(buf):
                self._backend._charge(self._fobj, pos + size)
            if pos > len(buf):
                buf.extend(bytes(pos - len(buf)))
            buf[pos : pos + size] = data
            self._pos = pos + size
            live.dirty = True
        return size

    def seek(self, offset: int, whence: int = 0) -> int:
        if self.closed:
            raise ValueError("I/O operation on closed file.")
        with self._backend._lock:
            if whence == os.SEEK_SET:
                pos = offset
            elif whence == os.SEEK_CUR:
                pos = self._pos + offset
            elif whence == os.SEEK_END:
                pos = len(self._data()) + offset
            else:
                raise ValueError(f"invalid whence ({whence})")
            if pos < 0:
                raise fs_error(errno.EINVAL, self.name)
            self._pos = pos
            return pos

    def tell(self) -> int:
        if self.closed:
            raise ValueError("I/O operation on closed file.")
        return self._pos

    def truncate(self, size: int | None = None) -> int:
        if self.closed:
            raise ValueError("I/O operation on closed file.")
        if not self._writable:
            raise io.UnsupportedOperation("truncate")
        with self._backend._lock:
            size = self._pos if size is None else size
            live = self._backend._live_open(self._fobj, count=False)
            self._backend._charge(self._fobj, size)
            _resize(live.buf, size)
            live.dirty = True
            return size

    def flush(self) -> None:
        if self.closed or not self._writable:
            return
        with self._backend._lock:
            live = self._backend._live.get(id(self._fobj))
            if live is not None:
                live.publish()

    def close(self) -> None:
        if self.closed:
            return
        try:
            self.flush()
        finally:
            if not self._released:
                self._released = True
                if self._writable:
                    self._backend._live_close(self._fobj)
                self._backend._handle_close(self._fobj)
            super().close()

    def fileno(self) -> int:
        raise io.UnsupportedOperation("in-memory file has no file descriptor")


def _resize(buf: bytearray, size: int) -> None:
    if size < len(buf):
        del buf[size:]
    else:
        buf.extend(bytes(size - len(buf)))


_BUFFER = 65536


def _may(fobj: Any, mode: str) -> bool:
    """Owner/group/other permission check for opening an existing in-memory file."""
    euid = os.geteuid()
    if euid == 0:
        return True
    bits: int = fobj.st_mode
    if fobj.st_uid == euid:
        shift = 6
    elif fobj.st_gid == os.getegid():
        shift = 3
    else:
        shift = 0
    need = 0
    if mode.startswith("r") or "+" in mode:
        need |= 4
    if not mode.startswith("r") or "+" in mode:
        need |= 2
    return (bits >> shift) & need == need


class MemoryBackend:
    """A private in-memory tree (pyfakefs) usable as a read-write or read-only mount.

    ``files`` optionally seeds it: mount-relative paths mapped to bytes (or str, UTF-8);
    ``root_mode`` the root directory's mode (the default /tmp is 1777, as on Linux).  The tree
    is built on first use, so a sandbox that never touches it never imports pyfakefs.
    """

    def __init__(self, files: Mapping[str, bytes | str] | None = None,
                 budget: MemoryBudget | None = None, root_mode: int | None = None) -> None:
        self._root_mode = root_mode
        self._lock = threading.RLock()
        self._live: dict[int, _Live] = {}
        self._seed = dict(files or {})
        self._fake: Any = None
        self.budget = budget if budget is not None else MemoryBudget()
        self._charges: dict[int, tuple[Any, int]] = {}  # id(file) -> (file, bytes charged)
        # id(file) -> open handles, readers included: an unlinked file's bytes stay charged
        # while any handle can still read them (`exec {fd}< f; rm f` keeps the data alive)
        self._handles: dict[int, int] = {}
        # how many changes of names, types or modes this tree has had (read by VFS.changes;
        # a tree shared by two VFSs so tells each what the other did).  Counted under the
        # lock, which every reader takes too: a count read before the change cannot come with
        # a reading made after it
        self.changes = 0

    def _charge(self, fobj: Any, size: int, force: bool = False) -> None:
        """Make ``fobj``'s charge against the budget ``size`` bytes; call with the lock held."""
        key = id(fobj)
        old = self._charges.get(key, (fobj, 0))[1]
        if size != old:
            self.budget.change(size - old, force)
            self._charges[key] = (fobj, size)

    def release(self) -> None:
        """Give every byte this tree holds back to its budget (the tree is being dropped)."""
        with self._lock:
            total = sum(size for _, size in self._charges.values())
            self._charges.clear()
            self.budget.change(-total)

    def _release_if_gone(self, fobj: Any) -> None:
        """Give back a file's bytes once no name and no open writer holds it."""
        if fobj is not None and fobj.st_nlink <= 0 and id(fobj) not in self._live \
                and id(fobj) not in self._handles:
            entry = self._charges.pop(id(fobj), None)
            if entry is not None:
                self.budget.change(-entry[1])

    @property
    def fs(self) -> Any:
        """The pyfakefs tree, built on first use so an unused /tmp costs no import."""
        if self._fake is None:
            with self._lock:
                if self._fake is None:
                    self._build()
        return self._fake

    @property
    def _os(self) -> Any:
        self.fs  # noqa: B018 - builds the tree
        return self._fake_os

    def _build(self) -> None:
        from pyfakefs.fake_filesystem import FakeFilesystem
        from pyfakefs.fake_os import FakeOsModule

        fake = FakeFilesystem(path_separator="/")
        fake_os = FakeOsModule(fake)
        self._fake_os = fake_os
        self._fake = fake
        if self._root_mode is not None:
            fake_os.chmod("/", self._root_mode)
        for path, data in self._seed.items():
            parts, _ = split_path(path)
            if len(parts) > 1:
                fake_os.makedirs(_fake(parts[:-1]), exist_ok=True)
            self.seed_file(parts, data.encode() if isinstance(data, str) else data)

    def seed_file(self, parts: Parts, data: bytes) -> None:
        """Create a file from the host side (seeds, a resumed overlay): charged to the budget
        but never refused by it."""
        with self._lock:
            self.changes += 1
            fobj = self.fs.create_file(_fake(parts), contents=data)
            self._charge(fobj, len(data), force=True)

    def __repr__(self) -> str:
        return "MemoryBackend()"

    # ------------------------------------------------------------------ resolution

    def _walk(self, parts: Parts, follow_last: bool, ctx: Ctx, missing_ok: bool = False) -> Parts:
        """Resolve ``parts`` to mount-relative components; call with the lock held."""
        return self._walk_obj(parts, follow_last, ctx, missing_ok)[0]

    def _walk_obj(
        self, parts: Parts, follow_last: bool, ctx: Ctx, missing_ok: bool = False
    ) -> tuple[Parts, Any]:
        """Resolve ``parts``; also return the final pyfakefs object (None when missing)."""
        resolved, obj, _ = self._walk_entry(parts, follow_last, ctx, missing_ok)
        return resolved, obj

    def _walk_entry(
        self, parts: Parts, follow_last: bool, ctx: Ctx, missing_ok: bool = False
    ) -> tuple[Parts, Any, Any]:
        """Resolve ``parts``: the mount-relative components, the final pyfakefs object (None
        when missing) and, when that object is missing or not followed, the directory
        object that holds (or would hold) its name.

        Walks pyfakefs's directory objects directly (one dict lookup per component).
        """
        root = self.fs.root
        resolved: list[str] = []
        dirs: list[Any] = [root]
        pending = list(reversed(parts))
        links = 0
        obj: Any = root
        while pending:
            name = pending.pop()
            if name == "..":
                climb(resolved)
                dirs.pop()
                obj = dirs[-1]
                continue
            last = not pending
            ctx.guard((*resolved, name))  # denied: the same answer whatever lies below
            obj = dirs[-1].entries.get(name)
            if last and not follow_last:
                resolved.append(name)
                break
            if obj is None:
                if last or missing_ok:  # the last name may be missing; past it, the rest too
                    append_missing_tail(resolved, name, pending)
                    break
                raise fs_error(errno.ENOENT)
            mode = obj.st_mode
            if st.S_ISLNK(mode):
                links += 1
                if links > MAX_SYMLINKS:
                    raise fs_error(errno.ELOOP)
                ctx.guard((*resolved, name))
                target = obj.contents
                if not target:
                    raise fs_error(errno.ENOENT)
                if target.startswith("/"):
                    vroot = ctx.vroot.rstrip("/")
                    if not (target == ctx.vroot or target.startswith(vroot + "/")):
                        raise escape_error()
                    target = target[len(vroot) :]
                    resolved.clear()
                    del dirs[1:]
                obj = dirs[-1]
                pending.extend(reversed([p for p in target.split("/") if p and p != "."]))
            elif st.S_ISDIR(mode):
                resolved.append(name)
                dirs.append(obj)
            elif last:
                resolved.append(name)
            else:
                raise fs_error(errno.ENOTDIR)
        return tuple(resolved), obj, dirs[-1]

    def _final(self, parts: Parts, follow: bool, ctx: Ctx) -> str:
        resolved = self._walk(parts, follow, ctx)
        ctx.guard(resolved)
        return _fake(resolved)

    # ------------------------------------------------------------------ reading

    def open(self, parts: Parts, mode: str, ctx: Ctx, perm: int = 0o666) -> BinaryIO:
        """``parts`` opened in ``mode``; a file it creates gets the permissions ``perm``
        (the VFS passes 0666 less its umask: made so, not chmodded after)."""
        flags = mode_flags(mode)
        name = join_parts(parts, ctx.vroot)
        with self._lock:
            resolved, fobj, parent = self._walk_entry(parts, not flags & os.O_EXCL, ctx)
            ctx.guard(resolved)
            if fobj is None:
                if not flags & os.O_CREAT:
                    raise fs_error(errno.ENOENT)
                self.changes += 1
                fobj = self._create_file(parent, resolved[-1], perm)
            elif flags & os.O_EXCL:
                raise fs_error(errno.EEXIST)
            elif st.S_ISDIR(fobj.st_mode):
                raise fs_error(errno.EISDIR)
            elif not _may(fobj, mode):
                raise fs_error(errno.EACCES)
            raw = _MemRaw(self, fobj, name, mode)
            self._handles[id(fobj)] = self._handles.get(id(fobj), 0) + 1
            if raw.writable():
                live = self._live_open(fobj, count=True)
                if flags & os.O_TRUNC and live.buf:
                    self._charge(fobj, 0)
                    live.buf.clear()
                    live.dirty = True
                    live.publish()
        if mode == "rb":
            return io.BufferedReader(raw, _BUFFER)
        if "+" in mode:
            return io.BufferedRandom(raw, _BUFFER)
        return io.BufferedWriter(raw, _BUFFER)

    def _create_file(self, parent: Any, name: str, perm: int = 0o666) -> Any:
        """A new empty regular file ``name`` in the directory object ``parent``, made as
        pyfakefs's ``os.open(O_CREAT)`` makes it (mode ``perm``, owner, times, inode, link
        count; EACCES without write permission on the directory) but from the objects this
        module's walk already holds, not through pyfakefs's path layer again (which cost
        ten times the rest of ``echo x >> /tmp/new``)."""
        from pyfakefs.fake_file import FakeFile

        fobj = FakeFile(name, st.S_IFREG | perm, filesystem=self.fs)
        parent.add_entry(fobj)
        return fobj

    def _live_open(self, fobj: Any, count: bool) -> _Live:
        """The live buffer of ``fobj`` (created on demand); call with the lock held."""
        live = self._live.get(id(fobj))
        if live is None:
            live = self._live[id(fobj)] = _Live(fobj)
        if count:
            live.writers += 1
        return live

    def _handle_close(self, fobj: Any) -> None:
        """One handle of ``fobj`` is gone; the last one of an unlinked file frees its bytes."""
        with self._lock:
            key = id(fobj)
            left = self._handles.get(key, 0) - 1
            if left > 0:
                self._handles[key] = left
                return
            self._handles.pop(key, None)
            self._release_if_gone(fobj)

    def _live_close(self, fobj: Any) -> None:
        with self._lock:
            live = self._live.get(id(fobj))
            if live is None:
                return
            live.writers -= 1
            if live.writers <= 0:
                live.publish()
                del self._live[id(fobj)]
                self._release_if_gone(fobj)

    def stat(self, parts: Parts, follow: bool, ctx: Ctx) -> os.stat_result:
        with self._lock:
            resolved, obj = self._walk_obj(parts, follow, ctx)
            ctx.guard(resolved)
            if obj is None:
                raise fs_error(errno.ENOENT)
            live = self._live.get(id(obj))
            if live is not None:
                live.publish()
            return to_stat_result(obj.stat_result)

    def exists(self, parts: Parts, ctx: Ctx) -> bool:
        """What ``stat`` tells by raising FileNotFoundError or not (its other errors too),
        without making the status."""
        with self._lock:
            resolved, obj = self._walk_obj(parts, True, ctx)
            ctx.guard(resolved)
            return obj is not None

    def scandir(self, parts: Parts, ctx: Ctx) -> Listing:
        with self._lock:
            resolved, obj = self._walk_obj(parts, True, ctx)
            ctx.guard(resolved)
            if obj is None:
                raise fs_error(errno.ENOENT)
            if not st.S_ISDIR(obj.st_mode):
                raise fs_error(errno.ENOTDIR)
            entries: list[tuple[str, str]] = []
            for name, child in obj.entries.items():
                mode = child.st_mode
                if st.S_ISLNK(mode):
                    kind = "l"
                elif st.S_ISDIR(mode):
                    kind = "d"
                elif st.S_ISREG(mode):
                    kind = "f"
                else:
                    kind = "o"
                entries.append((name, kind))
            return resolved, entries

    def readlink(self, parts: Parts, ctx: Ctx) -> str:
        with self._lock:
            if not parts:
                raise fs_error(errno.EINVAL)
            target: str = self._os.readlink(self._final(parts, False, ctx))
            return target

    def realpath(self, parts: Parts, strict: bool, ctx: Ctx) -> Parts:
        with self._lock:
            resolved = self._walk(parts, True, ctx, missing_ok=not strict)
            ctx.guard(resolved)
            if strict:
                self._os.stat(_fake(resolved), follow_symlinks=False)
            return resolved

    def access(self, parts: Parts, mode: int, ctx: Ctx) -> bool:
        with self._lock:
            path = self._final(parts, True, ctx)
            self._os.stat(path, follow_symlinks=False)
            return bool(self._os.access(path, mode))

    # ------------------------------------------------------------------ writing

    def mkdir(self, parts: Parts, mode: int, ctx: Ctx) -> None:
        with self._lock:
            self.changes += 1
            if not parts:
                raise fs_error(errno.EEXIST)
            self._os.mkdir(self._final(parts, False, ctx), mode)

    def rmdir(self, parts: Parts, ctx: Ctx) -> None:
        with self._lock:
            self.changes += 1
            if not parts:
                raise fs_error(errno.EBUSY)
            path = self._final(parts, False, ctx)
            if st.S_ISLNK(self._os.lstat(path).st_mode):
                raise fs_error(errno.ENOTDIR)
            self._os.rmdir(path)

    def unlink(self, parts: Parts, ctx: Ctx) -> None:
        with self._lock:
            self.changes += 1
            if not parts:
                raise fs_error(errno.EISDIR)
            resolved, fobj, parent = self._walk_entry(parts, False, ctx)
            ctx.guard(resolved)
            if fobj is None:
                raise fs_error(errno.ENOENT)
            if st.S_ISDIR(fobj.st_mode):
                raise fs_error(errno.EISDIR)
            # what pyfakefs's os.unlink does once it has found the entry (its path layer
            # skipped, as in _create_file): EACCES without write and search permission on
            # the directory, the link count and disk usage updated
            parent.remove_entry(resolved[-1])
            self._release_if_gone(fobj)

    def rename(self, src: Parts, dst: Parts, ctx: Ctx) -> None:
        with self._lock:
            self.changes += 1
            refuse_root_ends(src, dst, RENAME_ROOT)
            spath = self._final(src, False, ctx)
            dpath = self._final(dst, False, ctx)
            self._os.lstat(spath)
            if dpath == spath:
                return
            if dpath.startswith(spath + "/"):
                raise fs_error(errno.EINVAL)
            replaced = self.fs.exists(dpath, check_link=True) and self.fs.resolve(
                dpath, follow_symlinks=False)
            self._os.rename(spath, dpath)
            if replaced and not st.S_ISDIR(replaced.st_mode):
                self._release_if_gone(replaced)

    def symlink(self, target: str, parts: Parts, ctx: Ctx) -> None:
        with self._lock:
            self.changes += 1
            if not parts:
                raise fs_error(errno.EEXIST)
            self._os.symlink(target, self._final(parts, False, ctx))

    def link(self, src: Parts, dst: Parts, ctx: Ctx) -> None:
        with self._lock:
            self.changes += 1
            refuse_root_ends(src, dst, LINK_ROOT)
            spath = self._final(src, False, ctx)
            dpath = self._final(dst, False, ctx)
            if st.S_ISDIR(self._os.lstat(spath).st_mode):
                raise fs_error(errno.EPERM)
            self._os.link(spath, dpath, follow_symlinks=False)

    def chmod(self, parts: Parts, mode: int, follow: bool, ctx: Ctx) -> None:
        with self._lock:
            self.changes += 1
            path = self._final(parts, follow, ctx)
            if st.S_ISLNK(self._os.lstat(path).st_mode):
                raise fs_error(errno.EOPNOTSUPP)
            self._os.chmod(path, mode)

    def utime(self, parts: Parts, ns: tuple[int, int] | None, follow: bool, ctx: Ctx) -> None:
        with self._lock:
            path = self._final(parts, follow, ctx)
            self._os.utime(path, ns=ns, follow_symlinks=False)

    def truncate(self, parts: Parts, length: int, ctx: Ctx) -> None:
        with self._lock:
            path = self._final(parts, True, ctx)
            if st.S_ISDIR(self._os.stat(path, follow_symlinks=False).st_mode):
                raise fs_error(errno.EISDIR)
            fobj = self.fs.resolve(path)
            self._charge(fobj, length)
            live = self._live.get(id(fobj))
            if live is not None:
                _resize(live.buf, length)
                live.dirty = True
                live.publish()
            else:
                self._os.truncate(path, length)


class Hold:
    """Bytes taken from a budget for as long as this object lives (or until released).

    Dropping the last reference gives them back, so a variable's charge ends with the
    variable however it goes (unset, reassigned, a function's locals, a subshell's copy).
    """

    __slots__ = ("_budget", "size")

    def __init__(self, budget: Any, size: int = 0) -> None:
        self._budget = budget
        self.size = 0
        if size:
            self.resize(size)

    def resize(self, size: int) -> bool:
        """Hold ``size`` bytes from now on; False (nothing changed) if the budget refuses."""
        delta = size - self.size
        if delta and not self._budget.try_change(delta):
            return False
        self.size = size
        return True

    def release(self) -> None:
        if self.size:
            self._budget.try_change(-self.size)
            self.size = 0

    def __del__(self) -> None:
        # never the lock here: a collection may run this inside the budget's own try_change
        if self.size:
            self._budget.give_back_later(self.size)
            self.size = 0
