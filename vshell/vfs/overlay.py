"""A copy-on-write view of a host directory: reads from the host, every change in memory.

The agent sees the host tree merged with an *upper* layer (a MemoryBackend by default);
the host is never written until :meth:`OverlayBackend.sync` is asked to.  This lets a
caller review what a script did (``changes``/``diff``) before anything touches real files.

Model:
- ``upper`` holds every object written, created, renamed or re-moded; a host file is
  copied up (bytes, mode, times) on its first change and what was seen of it is recorded
  as an :class:`Origin` (size, mtime_ns, sha256) so a later sync can detect that the host
  moved underneath us.
- ``hidden`` is the whiteout set: a host path in it (and everything below it) is invisible.
  A directory re-created over a hidden path is therefore opaque, never merged.
- Paths are resolved here, over the merged view, one component at a time with the same
  rules as host mounts (relative links may not climb above the root; absolute links are
  followed only inside this mount; a cow mount never follows a link into another mount).
  The layers are then called only with symlink-free paths, so neither can be steered
  elsewhere.  Host reads still go through HostBackend's escape-proof walk.
"""

from __future__ import annotations

import errno
import hashlib
import os
import secrets
import stat as st
import threading
from collections.abc import Callable, Iterator
from typing import BinaryIO

from vshell.records import record
from vshell.vfs.backend import Ctx, Listing, Parts, mode_flags
from vshell.vfs.boundary import Boundaries
from vshell.vfs.errors import (
    LINK_ROOT,
    RENAME_ROOT,
    CrossMount,
    Rerouted,
    escape_error,
    fs_error,
    refuse_root_ends,
)
from vshell.vfs.host import DIR_WALK, MAX_SYMLINKS, HostBackend
from vshell.vfs.links import append_missing_tail, climb, relative_link_parts, resolves_inside
from vshell.vfs.memory import MemoryBackend, MemoryBudget
from vshell.vfs.paths import join_parts

__all__ = ["Change", "Origin", "OverlayBackend", "SyncReport"]

_CHUNK = 1 << 20


def _no_guard(parts: Parts) -> None:
    return None


@record(frozen=True)
class Origin:
    """What was seen of a host object when the overlay first changed it."""

    kind: str  # "f" file, "l" symlink, "d" directory
    size: int
    mtime_ns: int
    digest: str  # sha256 of a file's bytes, a symlink's target, "" for a directory


@record(frozen=True)
class Change:
    """One difference between the merged view and the host (``kind`` as in changes())."""

    parts: Parts
    kind: str  # "add" | "modify" | "delete" | "type-change"


@record
class SyncReport:
    """The outcome of a sync: what was applied, what conflicted, and what failed."""

    applied: list[Change]
    conflicts: list[Parts]
    failed: Parts | None = None
    error: OSError | None = None


_KIND_LETTERS = {st.S_IFDIR: "d", st.S_IFLNK: "l", st.S_IFREG: "f"}


def _kind(mode: int) -> str:
    """One letter for a file's type (d, l, f, or o for other), as the overlay records it."""
    return _KIND_LETTERS.get(st.S_IFMT(mode), "o")


def _under(parts: Parts, base: Parts) -> bool:
    return parts[: len(base)] == base


class OverlayBackend:
    """A Backend over ``host_dir`` whose writes all land in ``upper`` (copy-on-write)."""

    def __init__(self, host_dir: str | os.PathLike[str], upper: MemoryBackend | None = None,
                 budget: MemoryBudget | None = None) -> None:
        self.host = HostBackend(host_dir)
        self.budget = budget
        self.upper: MemoryBackend = upper if upper is not None else MemoryBackend(budget=budget)
        self.hidden: set[Parts] = set()
        self.origins: dict[Parts, Origin] = {}
        # Host locations another mount governs or vshell keeps private (set by the VFS
        # mounting this overlay): sync never writes there.
        self.boundaries: Boundaries | None = None
        self._lock = threading.RLock()

    def __repr__(self) -> str:
        return f"OverlayBackend({self.host.host_dir!r})"

    @property
    def host_dir(self) -> str:
        return self.host.host_dir

    def discard(self) -> None:
        """Forget every change: the view is the host again."""
        with self._lock:
            if isinstance(self.upper, MemoryBackend):
                self.upper.release()
            self.upper = MemoryBackend(budget=self.budget)
            self.hidden.clear()
            self.origins.clear()

    # ------------------------------------------------------------------ lookup

    @staticmethod
    def _raw(ctx: Ctx) -> Ctx:
        """``ctx`` without deny rules (checked on resolved paths here), boundaries kept."""
        return Ctx(ctx.vroot, _no_guard, ctx.bounds)

    def _hidden_at(self, parts: Parts) -> bool:
        """Whether the host object at ``parts`` is whited out (itself or an ancestor)."""
        hidden = self.hidden
        return bool(hidden) and any(parts[:i] in hidden for i in range(1, len(parts) + 1))

    def _upper_stat(self, parts: Parts, ctx: Ctx) -> os.stat_result | None:
        try:
            info: os.stat_result = self.upper.stat(parts, False, self._raw(ctx))
            return info
        except (FileNotFoundError, NotADirectoryError):
            return None

    def _host_stat(self, parts: Parts, ctx: Ctx) -> os.stat_result | None:
        """The host object at ``parts`` if visible in the merged view."""
        if self._hidden_at(parts):
            return None
        try:
            return self.host.stat(parts, False, self._raw(ctx))
        except (FileNotFoundError, NotADirectoryError):
            return None

    def _lookup(self, parts: Parts, ctx: Ctx) -> tuple[str, os.stat_result] | None:
        """("u"|"h", lstat) of the merged object at symlink-free ``parts``, or None."""
        if parts:
            info = self._upper_stat(parts, ctx)
            if info is not None:
                return "u", info
        info = self._host_stat(parts, ctx)
        return None if info is None else ("h", info)

    def _raw_link(self, parts: Parts, layer: str, ctx: Ctx) -> list[str] | None:
        """A symlink's target as components from the root (absolute) or None (relative)."""
        if layer == "u":
            target = self.upper.readlink(parts, self._raw(ctx))
            if target.startswith("/"):
                vroot = ctx.vroot.rstrip("/")
                if not (target == ctx.vroot or target.startswith(vroot + "/")):
                    raise escape_error()
                return [p for p in target[len(vroot) :].split("/") if p and p != "."]
            return None
        with self.host._resolve_final(parts, False, self._raw(ctx)) as walk:
            target = os.readlink(walk.name, dir_fd=walk.parent)
        if target.startswith("/"):
            try:
                return self.host._host_inner(target)
            except CrossMount:
                raise escape_error() from None
        return None

    def _link_text(self, parts: Parts, layer: str, ctx: Ctx) -> str:
        if layer == "u":
            return str(self.upper.readlink(parts, self._raw(ctx)))
        return str(self.host.readlink(parts, self._raw(ctx)))

    def _resolve(self, parts: Parts, follow: bool, ctx: Ctx, missing_ok: bool = False) -> Parts:
        """Resolve ``parts`` over the merged view; every symlink read is guarded."""
        resolved: list[str] = []
        pending = list(reversed(parts))
        links = 0
        while pending:
            name = pending.pop()
            if name == "..":
                climb(resolved)
                continue
            last = not pending
            here = (*resolved, name)
            ctx.guard(here)  # a denied directory answers the same whatever lies below it
            bounds = ctx.bounds
            if bounds is not None:
                bounds.check_parts(here, pending[::-1])
            if last and not follow:
                resolved.append(name)
                break
            try:
                found = self._lookup(here, ctx)
            except Rerouted as moved:  # a host directory another mount governs
                raise Rerouted(join_parts(tuple(pending[::-1]), moved.vpath)) from None
            if found is None:
                if last or missing_ok:  # the last name may be missing; past it, the rest too
                    append_missing_tail(resolved, name, pending)
                    break
                raise fs_error(errno.ENOENT)
            layer, info = found
            kind = _kind(info.st_mode)
            if kind == "l":
                links += 1
                if links > MAX_SYMLINKS:
                    raise fs_error(errno.ELOOP)
                ctx.guard(here)
                absolute = self._raw_link(here, layer, ctx)
                if absolute is not None:
                    resolved.clear()
                    pending.extend(reversed(absolute))
                else:
                    target = self._link_text(here, layer, ctx)
                    if not target:
                        raise fs_error(errno.ENOENT)
                    pending.extend(reversed([p for p in target.split("/") if p and p != "."]))
            elif kind == "d" or last:
                resolved.append(name)
            else:
                raise fs_error(errno.ENOTDIR)
        return tuple(resolved)

    def _final(self, parts: Parts, follow: bool, ctx: Ctx
               ) -> tuple[Parts, tuple[str, os.stat_result] | None]:
        """Resolved parts (guarded) and their merged lookup (None when missing)."""
        r = self._resolve(parts, follow, ctx)
        ctx.guard(r)
        return r, self._lookup(r, ctx)

    def _existing(self, parts: Parts, follow: bool, ctx: Ctx
                  ) -> tuple[Parts, tuple[str, os.stat_result]]:
        """Like ``_final``, for an entry that must exist (ENOENT otherwise)."""
        r, found = self._final(parts, follow, ctx)
        if found is None:
            raise fs_error(errno.ENOENT)
        return r, found

    def _new_entry(self, parts: Parts, ctx: Ctx) -> Parts:
        """The resolved parts where a new entry goes (EEXIST if taken), its upper parents
        made."""
        if not parts:
            raise fs_error(errno.EEXIST)
        r, found = self._final(parts, False, ctx)
        if found is not None:
            raise fs_error(errno.EEXIST)
        self._need_parent(r, ctx)
        self._upper_dirs(r[:-1], ctx)
        return r

    def _need_parent(self, r: Parts, ctx: Ctx) -> None:
        """The parent of a new entry must be a directory in the merged view."""
        if not r[:-1]:
            return
        found = self._lookup(r[:-1], ctx)
        if found is None:
            raise fs_error(errno.ENOENT)
        if not st.S_ISDIR(found[1].st_mode):
            raise fs_error(errno.ENOTDIR)

    # ------------------------------------------------------------------ copy-up

    def _upper_dirs(self, parts: Parts, ctx: Ctx) -> None:
        """Make every directory of ``parts`` exist in upper, copying host modes/times."""
        raw = self._raw(ctx)
        for i in range(1, len(parts) + 1):
            p = parts[:i]
            if self._upper_stat(p, ctx) is not None:
                continue
            info = self._host_stat(p, ctx)
            if info is None or not st.S_ISDIR(info.st_mode):
                raise fs_error(errno.ENOENT)
            self.upper.mkdir(p, 0o700, raw)
            self.upper.chmod(p, st.S_IMODE(info.st_mode), False, raw)
            self.upper.utime(p, (info.st_atime_ns, info.st_mtime_ns), False, raw)

    def _remember(self, r: Parts, ctx: Ctx) -> None:
        """Record what the host holds at ``r`` before the overlay first changes it."""
        if r in self.origins:
            return
        info = self._host_stat(r, ctx)
        if info is None:
            return
        kind = _kind(info.st_mode)
        if kind == "f":
            with self.host.open(r, "rb", self._raw(ctx)) as f:
                info = os.fstat(f.fileno())
                h = hashlib.sha256()
                while chunk := f.read(_CHUNK):
                    h.update(chunk)
            digest = h.hexdigest()
        elif kind == "l":
            digest = hashlib.sha256(self._link_text(r, "h", ctx).encode()).hexdigest()
        else:
            digest = ""
        self.origins[r] = Origin(kind, info.st_size, info.st_mtime_ns, digest)

    def _copy_up(self, r: Parts, ctx: Ctx) -> None:
        """Bring the visible host object at ``r`` (file, symlink or whole tree) into upper."""
        found = self._lookup(r, ctx)
        if found is None or found[0] == "u":
            return
        info = found[1]
        raw = self._raw(ctx)
        self._upper_dirs(r[:-1], ctx)
        kind = _kind(info.st_mode)
        if kind == "d":
            self._upper_dirs(r, ctx)
            for name, _ in self.host.scandir(r, raw)[1]:
                if (*r, name) not in self.hidden:
                    self._copy_up((*r, name), ctx)
            return
        self._remember(r, ctx)
        if kind == "l":
            self.upper.symlink(self._link_text(r, "h", ctx), r, raw)
            return
        if kind != "f":
            raise fs_error(errno.EACCES)
        with self.host.open(r, "rb", raw) as src, self.upper.open(r, "xb", raw) as dst:
            while chunk := src.read(_CHUNK):
                dst.write(chunk)
        self.upper.chmod(r, st.S_IMODE(info.st_mode), False, raw)
        self.upper.utime(r, (info.st_atime_ns, info.st_mtime_ns), False, raw)

    def _drop_host(self, r: Parts, ctx: Ctx) -> None:
        """Hide the host object at ``r`` (a whiteout), remembering it for conflict checks."""
        if self._host_stat(r, ctx) is None:
            return
        stack = [r]
        while stack:  # remember every host file about to vanish from the view
            p = stack.pop()
            info = self._host_stat(p, ctx)
            if info is None:
                continue
            self._remember(p, ctx)
            if st.S_ISDIR(info.st_mode):
                stack.extend((*p, n) for n, _ in self.host.scandir(p, self._raw(ctx))[1])
        self.hidden.add(r)

    # ------------------------------------------------------------------ reading

    def open(self, parts: Parts, mode: str, ctx: Ctx) -> BinaryIO:
        flags = mode_flags(mode)
        with self._lock:
            r, found = self._final(parts, not flags & os.O_EXCL, ctx)
            if mode == "rb":
                if found is None:
                    raise fs_error(errno.ENOENT)
                layer = self.upper if found[0] == "u" else self.host
                return layer.open(r, mode, ctx)
            if found is None:
                if not flags & os.O_CREAT:
                    raise fs_error(errno.ENOENT)
                self._need_parent(r, ctx)
                self._upper_dirs(r[:-1], ctx)
            else:
                if flags & os.O_EXCL:
                    raise fs_error(errno.EEXIST)
                if st.S_ISDIR(found[1].st_mode):
                    raise fs_error(errno.EISDIR)
                if found[0] == "h":
                    self._copy_up(r, ctx)  # the copied mode bits still refuse a 0444 file
            return self.upper.open(r, mode, ctx)

    def stat(self, parts: Parts, follow: bool, ctx: Ctx) -> os.stat_result:
        with self._lock:
            _, found = self._existing(parts, follow, ctx)
            return found[1]

    def _merged_entries(self, r: Parts, ctx: Ctx) -> dict[str, str]:
        raw = self._raw(ctx)
        entries: dict[str, str] = {}
        hinfo = self._host_stat(r, ctx)
        if hinfo is not None and st.S_ISDIR(hinfo.st_mode):
            for name, kind in self.host.scandir(r, raw)[1]:
                if (*r, name) not in self.hidden:
                    entries[name] = kind
        if self._upper_stat(r, ctx) is not None or not r:
            for name, kind in self.upper.scandir(r, raw)[1]:
                entries[name] = kind
        return entries

    def scandir(self, parts: Parts, ctx: Ctx) -> Listing:
        with self._lock:
            r, found = self._existing(parts, True, ctx)
            if not st.S_ISDIR(found[1].st_mode):
                raise fs_error(errno.ENOTDIR)
            return r, list(self._merged_entries(r, ctx).items())

    def readlink(self, parts: Parts, ctx: Ctx) -> str:
        with self._lock:
            if not parts:
                raise fs_error(errno.EINVAL)
            r, found = self._existing(parts, False, ctx)
            if not st.S_ISLNK(found[1].st_mode):
                raise fs_error(errno.EINVAL)
            return self._link_text(r, found[0], ctx)

    def realpath(self, parts: Parts, strict: bool, ctx: Ctx) -> Parts:
        with self._lock:
            r = self._resolve(parts, True, ctx, missing_ok=not strict)
            ctx.guard(r)
            if strict and self._lookup(r, ctx) is None:
                raise fs_error(errno.ENOENT)
            return r

    def access(self, parts: Parts, mode: int, ctx: Ctx) -> bool:
        with self._lock:
            r, found = self._existing(parts, True, ctx)
            layer = self.upper if found[0] == "u" else self.host
            return bool(layer.access(r, mode, self._raw(ctx)))

    # ------------------------------------------------------------------ writing

    def mkdir(self, parts: Parts, mode: int, ctx: Ctx) -> None:
        with self._lock:
            r = self._new_entry(parts, ctx)
            self.upper.mkdir(r, mode, ctx)

    def rmdir(self, parts: Parts, ctx: Ctx) -> None:
        with self._lock:
            if not parts:
                raise fs_error(errno.EBUSY)
            r, found = self._existing(parts, False, ctx)
            if not st.S_ISDIR(found[1].st_mode):
                raise fs_error(errno.ENOTDIR)
            if self._merged_entries(r, ctx):
                raise fs_error(errno.ENOTEMPTY)
            if self._upper_stat(r, ctx) is not None:
                self.upper.rmdir(r, self._raw(ctx))
            self._drop_host(r, ctx)

    def unlink(self, parts: Parts, ctx: Ctx) -> None:
        with self._lock:
            if not parts:
                raise fs_error(errno.EISDIR)
            r, found = self._existing(parts, False, ctx)
            if st.S_ISDIR(found[1].st_mode):
                raise fs_error(errno.EISDIR)
            if found[0] == "u":
                self.upper.unlink(r, self._raw(ctx))
            self._drop_host(r, ctx)

    def rename(self, src: Parts, dst: Parts, ctx: Ctx) -> None:
        with self._lock:
            refuse_root_ends(src, dst, RENAME_ROOT)
            rs, sfound = self._final(src, False, ctx)
            rd, dfound = self._final(dst, False, ctx)
            if sfound is None:
                raise fs_error(errno.ENOENT)
            if rs == rd:
                return
            if _under(rd, rs):
                raise fs_error(errno.EINVAL)
            self._need_parent(rd, ctx)
            sdir = st.S_ISDIR(sfound[1].st_mode)
            raw = self._raw(ctx)
            if dfound is not None:
                ddir = st.S_ISDIR(dfound[1].st_mode)
                if sdir and not ddir:
                    raise fs_error(errno.ENOTDIR)
                if ddir and not sdir:
                    raise fs_error(errno.EISDIR)
                if ddir and self._merged_entries(rd, ctx):
                    raise fs_error(errno.ENOTEMPTY)
            self._copy_up(rs, ctx)
            self._upper_dirs(rd[:-1], ctx)
            if dfound is not None:
                if dfound[0] == "u":
                    (self.upper.rmdir if sdir else self.upper.unlink)(rd, raw)
                self._drop_host(rd, ctx)
            self._drop_host(rs, ctx)
            self.upper.rename(rs, rd, raw)
            if self._host_stat(rd, ctx) is not None:
                self._drop_host(rd, ctx)  # the moved object replaces, never merges

    def symlink(self, target: str, parts: Parts, ctx: Ctx) -> None:
        with self._lock:
            r = self._new_entry(parts, ctx)
            self.upper.symlink(target, r, self._raw(ctx))

    def link(self, src: Parts, dst: Parts, ctx: Ctx) -> None:
        with self._lock:
            refuse_root_ends(src, dst, LINK_ROOT)
            rs, sfound = self._final(src, False, ctx)
            rd, dfound = self._final(dst, False, ctx)
            if sfound is None:
                raise fs_error(errno.ENOENT)
            if dfound is not None:
                raise fs_error(errno.EEXIST)
            if st.S_ISDIR(sfound[1].st_mode):
                raise fs_error(errno.EPERM)
            self._need_parent(rd, ctx)
            self._copy_up(rs, ctx)
            self._upper_dirs(rd[:-1], ctx)
            self.upper.link(rs, rd, self._raw(ctx))

    def _changed(self, parts: Parts, follow: bool, ctx: Ctx) -> Parts:
        """Resolve, guard and copy up an existing object about to change in place."""
        r, found = self._existing(parts, follow, ctx)
        if found[0] == "h":
            if st.S_ISDIR(found[1].st_mode):
                self._upper_dirs(r, ctx)
            else:
                self._copy_up(r, ctx)
        return r

    def chmod(self, parts: Parts, mode: int, follow: bool, ctx: Ctx) -> None:
        with self._lock:
            r, found = self._final(parts, follow, ctx)
            if found is not None and st.S_ISLNK(found[1].st_mode):
                raise fs_error(errno.EOPNOTSUPP)
            r = self._changed(parts, follow, ctx)
            self.upper.chmod(r, mode, False, self._raw(ctx))

    def utime(self, parts: Parts, ns: tuple[int, int] | None, follow: bool, ctx: Ctx) -> None:
        with self._lock:
            r = self._changed(parts, follow, ctx)
            self.upper.utime(r, ns, False, self._raw(ctx))

    def truncate(self, parts: Parts, length: int, ctx: Ctx) -> None:
        with self._lock:
            r, found = self._existing(parts, True, ctx)
            if st.S_ISDIR(found[1].st_mode):
                raise fs_error(errno.EISDIR)
            r = self._changed(parts, True, ctx)
            self.upper.truncate(r, length, self._raw(ctx))

    # ------------------------------------------------------------------ review

    def _host_lstat(self, parts: Parts) -> os.stat_result | None:
        """The real host object at ``parts`` (no whiteouts), only via real directories."""
        fd = self._host_dir_fd(parts[:-1])
        if fd is None:
            return None
        try:
            return os.stat(parts[-1] if parts else ".", dir_fd=fd, follow_symlinks=False)
        except (FileNotFoundError, NotADirectoryError):
            return None
        finally:
            os.close(fd)

    def _host_dir_fd(self, parts: Parts) -> int | None:
        """An O_PATH fd on host directory ``parts``, walked with O_NOFOLLOW (never escapes).

        Returns None when a component is missing or is not a real directory.
        """
        fd = os.open(".", DIR_WALK, dir_fd=self.host._root_fd)
        for name in parts:
            try:
                nfd = os.open(name, DIR_WALK, dir_fd=fd)
            except OSError as exc:
                os.close(fd)
                if exc.errno in (errno.ENOENT, errno.ENOTDIR, errno.ELOOP):
                    return None
                raise
            os.close(fd)
            fd = nfd
        return fd

    def _host_read(self, parts: Parts) -> bytes:
        fd = self._host_dir_fd(parts[:-1])
        if fd is None:
            raise fs_error(errno.ENOENT)
        try:
            ffd = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=fd)
        finally:
            os.close(fd)
        with os.fdopen(ffd, "rb") as f:
            return f.read()

    def _host_link(self, parts: Parts) -> str:
        fd = self._host_dir_fd(parts[:-1])
        if fd is None:
            raise fs_error(errno.ENOENT)
        try:
            return os.readlink(parts[-1], dir_fd=fd)
        finally:
            os.close(fd)

    def _upper_walk(self, ctx: Ctx) -> Iterator[tuple[Parts, str]]:
        stack: list[Parts] = [()]
        while stack:
            p = stack.pop()
            for name, kind in self.upper.scandir(p, ctx)[1]:
                child = (*p, name)
                yield child, kind
                if kind == "d":
                    stack.append(child)

    def _upper_bytes(self, parts: Parts, ctx: Ctx) -> bytes:
        with self.upper.open(parts, "rb", ctx) as f:
            return f.read()

    def changes(self, vroot: str = "/") -> list[Change]:
        """Every difference between the merged view and the host as it is now."""
        ctx = Ctx(vroot, _no_guard)
        out: dict[Parts, str] = {}
        with self._lock:
            upper_paths: dict[Parts, str] = dict(self._upper_walk(ctx))
            for p, kind in upper_paths.items():
                hinfo = self._host_lstat(p)
                if hinfo is None:
                    out[p] = "add"
                    continue
                hkind = _kind(hinfo.st_mode)
                if hkind != kind:
                    out[p] = "type-change"
                    continue
                uinfo = self.upper.stat(p, False, ctx)
                if kind == "l":
                    if self.upper.readlink(p, ctx) != self.host.readlink(p, ctx):
                        out[p] = "modify"
                    continue
                same_mode = st.S_IMODE(uinfo.st_mode) == st.S_IMODE(hinfo.st_mode)
                if kind == "f" and (
                    not same_mode
                    or uinfo.st_size != hinfo.st_size
                    or self._upper_bytes(p, ctx) != self._host_read(p)
                ):
                    out[p] = "modify"
                elif kind == "d" and not same_mode:
                    out[p] = "modify"
            for h in self.hidden:
                stack = [h]
                while stack:
                    p = stack.pop()
                    info = self._host_lstat(p)
                    if info is None:
                        continue
                    if p not in upper_paths:
                        out[p] = "delete"
                    if st.S_ISDIR(info.st_mode):
                        fd = self._host_dir_fd(p)
                        if fd is None:
                            continue
                        try:
                            rfd = os.open(".", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
                        finally:
                            os.close(fd)
                        try:
                            names = os.listdir(rfd)
                        finally:
                            os.close(rfd)
                        stack.extend((*p, n) for n in names)
        return [Change(p, k) for p, k in sorted(out.items())]

    def contents(self, change: Change, vroot: str = "/") -> tuple[bytes | None, bytes | None]:
        """(host bytes, overlay bytes) of a changed regular file; None where not a file."""
        ctx = Ctx(vroot, _no_guard)
        with self._lock:
            p = change.parts
            old = new = None
            hinfo = self._host_lstat(p)
            if hinfo is not None and st.S_ISREG(hinfo.st_mode):
                old = self._host_read(p)
            uinfo = self._upper_stat(p, ctx)
            if uinfo is not None and st.S_ISREG(uinfo.st_mode) and change.kind != "delete":
                new = self._upper_bytes(p, ctx)
            return old, new

    def entries(self, change: Change, vroot: str = "/"
                ) -> tuple[tuple[int, str | None] | None, tuple[int, str | None] | None]:
        """(host, overlay) ``(st_mode, symlink target or None)`` of a change; None = absent.

        What a diff needs beyond file bytes: mode changes and symlink targets.
        """
        ctx = Ctx(vroot, _no_guard)
        with self._lock:
            p = change.parts
            old = new = None
            hinfo = self._host_lstat(p)
            if hinfo is not None:
                link = self._host_link(p) if st.S_ISLNK(hinfo.st_mode) else None
                old = (hinfo.st_mode, link)
            uinfo = self._upper_stat(p, ctx) if change.kind != "delete" else None
            if uinfo is not None:
                link = self._link_text(p, "u", ctx) if st.S_ISLNK(uinfo.st_mode) else None
                new = (uinfo.st_mode, link)
            return old, new

    # ------------------------------------------------------------------ sync

    def _conflicts(self, changes: list[Change]) -> list[Parts]:
        """Host objects that differ from what the overlay saw before changing them."""
        bad: list[Parts] = []
        for c in changes:
            if c.kind == "add":
                continue
            info = self._host_lstat(c.parts)
            if info is None:
                bad.append(c.parts)
                continue
            kind = _kind(info.st_mode)
            if kind == "d" and c.kind != "type-change":
                continue
            origin = self.origins.get(c.parts)
            if origin is None:
                if kind == "d":
                    continue  # a directory's own record is its mode, not its contents
                bad.append(c.parts)
                continue
            if origin.kind != kind:
                bad.append(c.parts)
                continue
            if kind == "d":
                continue
            if kind == "l":
                digest = hashlib.sha256(self._host_link(c.parts).encode()).hexdigest()
            else:
                if (info.st_size, info.st_mtime_ns) != (origin.size, origin.mtime_ns):
                    bad.append(c.parts)
                    continue
                digest = hashlib.sha256(self._host_read(c.parts)).hexdigest()
            if digest != origin.digest:
                bad.append(c.parts)
        return bad

    def preflight(self, changes: list[Change], vroot: str = "/") -> list[Parts]:
        """Paths that block a sync: host changed since copy-up, or an unsafe symlink."""
        ctx = Ctx(vroot, _no_guard)
        with self._lock:
            bad = self._conflicts(changes)
            for c in changes:
                if self._crosses_boundary(c.parts) or self._repoints_private(c, ctx):
                    bad.append(c.parts)
                    continue
                if c.kind == "delete":
                    continue
                uinfo = self._upper_stat(c.parts, ctx)
                if uinfo is not None and st.S_ISLNK(uinfo.st_mode):
                    if not self._symlink_ok(c.parts, self.upper.readlink(c.parts, ctx)):
                        bad.append(c.parts)
            return sorted(set(bad))

    def _repoints_private(self, change: Change, ctx: Ctx) -> bool:
        """Whether ``change`` would replace a directory on the way to a private location
        (with a link, a file, or nothing): vshell makes a missing cache through that path."""
        bounds = self.boundaries
        parts = change.parts
        if bounds is None or not any(
            owner is None and len(p) > len(parts) and p[: len(parts)] == parts
            for p, owner in bounds.by_parts.items()
        ):
            return False
        if change.kind == "delete":
            return True
        info = self._upper_stat(parts, ctx)
        return info is None or not st.S_ISDIR(info.st_mode)

    def _crosses_boundary(self, parts: Parts) -> bool:
        """Whether ``parts`` lies in a host location another mount governs or is private."""
        bounds = self.boundaries
        if bounds is None:
            return False
        if any(parts[:i] in bounds.by_parts for i in range(len(parts) + 1)):
            return True
        if not bounds.by_inode:
            return False
        fd = os.open(".", DIR_WALK, dir_fd=self.host._root_fd)
        try:
            for name in parts:
                try:
                    info = os.stat(name, dir_fd=fd, follow_symlinks=False)
                except OSError:
                    return False
                if (info.st_dev, info.st_ino) in bounds.by_inode:
                    return True
                if not st.S_ISDIR(info.st_mode):
                    return False
                nfd = os.open(name, DIR_WALK, dir_fd=fd)
                os.close(fd)
                fd = nfd
        finally:
            os.close(fd)
        return False

    def _symlink_ok(self, parts: Parts, target: str) -> bool:
        """Only relative links whose target stays inside the mount go to the host.

        Judged by vfs.links' rule from the link's real directory, then resolved through
        the host walk, so a host symlink on the way that leaves the mount is caught too.
        """
        if not target or target.startswith("/"):
            return False
        try:
            wanted = relative_link_parts(target, parts[:-1])
            resolves_inside(
                lambda p: self.host.realpath(p, False, Ctx("/", _no_guard, self.boundaries)),
                wanted,
            )
        except OSError:
            return False
        return True

    def sync(
        self,
        vroot: str = "/",
        select: Callable[[Parts], bool] | None = None,
    ) -> SyncReport:
        """Apply the changes to the host, all or nothing on conflict, atomically per file.

        Each applied entry is removed from the overlay right after it lands, so a failure
        part-way leaves exactly the unapplied changes for a retry.
        """
        ctx = Ctx(vroot, _no_guard)
        with self._lock:
            todo = [c for c in self.changes(vroot) if select is None or select(c.parts)]
            bad = self.preflight(todo, vroot)
            if bad:
                return SyncReport([], bad)
            report = SyncReport([], [])
            removals = [c for c in todo if c.kind in ("delete", "type-change")]
            creations = [c for c in todo if c.kind != "delete"]
            removals.sort(key=lambda c: (-len(c.parts), c.parts))
            creations.sort(key=lambda c: (len(c.parts), c.parts))
            current: Change | None = None
            try:
                for c in removals:
                    current = c
                    self._recheck(c)
                    self._host_remove(c.parts)
                    if c.kind == "delete":
                        self._forget(c.parts, ctx, keep_upper=True)
                        report.applied.append(c)
                for c in creations:
                    current = c
                    if c.kind == "modify":
                        self._recheck(c)
                    self._host_create(c.parts, ctx)
                    self._forget(c.parts, ctx, keep_upper=False)
                    report.applied.append(c)
            except OSError as exc:
                report.failed = current.parts if current is not None else None
                report.error = exc
            return report

    def _recheck(self, change: Change) -> None:
        """Narrow the window between the up-front conflict check and this entry's write."""
        if self._conflicts([change]):
            raise fs_error(errno.ESTALE)

    def _forget(self, parts: Parts, ctx: Ctx, keep_upper: bool) -> None:
        """Drop an applied entry from the overlay; the merged view stays the same."""
        self.origins.pop(parts, None)
        # Safe for a directory too: the host one was just created empty (or removed).
        self.hidden.discard(parts)
        uinfo = self._upper_stat(parts, ctx)
        if keep_upper or uinfo is None or st.S_ISDIR(uinfo.st_mode) or self._hidden_at(parts):
            return  # under an opaque directory the upper copy must stay to be seen
        self.upper.unlink(parts, ctx)

    def _host_remove(self, parts: Parts) -> None:
        fd = self._host_dir_fd(parts[:-1])
        if fd is None:
            return
        try:
            info = os.stat(parts[-1], dir_fd=fd, follow_symlinks=False)
            if st.S_ISDIR(info.st_mode):
                os.rmdir(parts[-1], dir_fd=fd)
            else:
                os.unlink(parts[-1], dir_fd=fd)
        except FileNotFoundError:
            pass
        finally:
            os.close(fd)

    def _host_create(self, parts: Parts, ctx: Ctx) -> None:
        """Write the upper object at ``parts`` to the host: temp beside it, then replace."""
        uinfo = self.upper.stat(parts, False, ctx)
        fd = self._host_dir_fd(parts[:-1])
        if fd is None:
            raise fs_error(errno.ENOENT)
        name = parts[-1]
        mode = st.S_IMODE(uinfo.st_mode)
        if self._host_lstat(parts) is None:
            mode &= ~0o022  # a new host entry gets what the usual umask would allow
        try:
            kind = _kind(uinfo.st_mode)
            if kind == "d":
                try:
                    os.mkdir(name, 0o700, dir_fd=fd)
                except FileExistsError:
                    pass
                dfd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
                try:
                    os.fchmod(dfd, mode)
                finally:
                    os.close(dfd)
                return
            tmp = f".{name}.vshell-sync-{secrets.token_hex(6)}"
            try:
                if kind == "l":
                    os.symlink(self.upper.readlink(parts, ctx), tmp, dir_fd=fd)
                else:
                    wfd = os.open(
                        tmp,
                        os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
                        0o600,
                        dir_fd=fd,
                    )
                    with os.fdopen(wfd, "wb") as out, self.upper.open(parts, "rb", ctx) as src:
                        while chunk := src.read(_CHUNK):
                            out.write(chunk)
                        out.flush()
                        os.fchmod(out.fileno(), mode)
                        os.fsync(out.fileno())
                os.replace(tmp, name, src_dir_fd=fd, dst_dir_fd=fd)
            except BaseException:
                try:
                    os.unlink(tmp, dir_fd=fd)
                except OSError:
                    pass
                raise
        finally:
            os.close(fd)
