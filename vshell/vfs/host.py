"""A host directory as a mount, resolved with openat2 ``RESOLVE_BENEATH`` semantics.

Every path is walked one component at a time from a directory fd held on the mount root,
with ``O_PATH|O_NOFOLLOW|O_DIRECTORY`` and ``dir_fd``; symlinks are read with
``readlink(dir_fd=...)`` and expanded by us, never by the kernel.  The final operation is
done relative to the already-walked parent fd with ``O_NOFOLLOW`` / ``follow_symlinks=False``,
so swapping a directory or file for a symlink between two calls is never followed: there
is no check-then-open race.

Symlink rules (documented choice):
- a relative target is resolved from the link's real directory; ``..`` that would climb
  above the mount root is an escape;
- an absolute target is a *host* path: followed only when it lies beneath the mount's host
  directory (then resolved inside the mount), otherwise an escape;
- an escape raises ``PermissionError`` (EACCES) and is never followed; more than 40 links
  raise ``OSError(ELOOP)``.
Symlinks created through the VFS with an absolute virtual target inside the same mount are
stored as the matching host path (so they work on the host too) and read back as virtual
paths.  Host special files (FIFOs, devices, sockets) are refused with EACCES so a read can
never block or touch a device.
"""

from __future__ import annotations

import errno
import os
import stat as st

from vshell.records import cast
from vshell.vfs.backend import Ctx, Listing, Parts, mode_flags
from vshell.vfs.boundary import Boundaries
from vshell.vfs.errors import LINK_ROOT, RENAME_ROOT, CrossMount, fs_error
from vshell.vfs.links import MAX_SYMLINKS, climb, relative_link_parts
from vshell.vfs.paths import join_parts

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import BinaryIO, Self

__all__ = ["MAX_SYMLINKS", "HostBackend"]

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_PATH = getattr(os, "O_PATH", os.O_RDONLY)
# How a walk opens each directory on its way: never following a link (the overlay walks too).
DIR_WALK = _PATH | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC
_DIR_READ = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC
_NOFOLLOW_OPEN = os.O_NOFOLLOW | _CLOEXEC | os.O_NONBLOCK


class _Walk:
    """The end of a walk: the parent directory fd and the final name in it.

    ``name`` is "." when the walk ended on the mount root.  ``parts`` is the resolved
    mount-relative path.  The fds opened along the way are owned and closed by ``close``.
    """

    __slots__ = ("_fds", "name", "parent", "parts")

    def __init__(self, parent: int, name: str, parts: Parts, fds: list[int]) -> None:
        self.parent = parent
        self.name = name
        self.parts = parts
        self._fds = fds

    @property
    def is_root(self) -> bool:
        return not self.parts

    def close(self) -> None:
        for fd in self._fds:
            os.close(fd)
        self._fds = []

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _check_final(parent: int, name: str, bounds: Boundaries | None) -> None:
    """Hand off (or deny) when the object a walk ends on is another mount's or private."""
    if bounds is None or not bounds.by_inode:
        return
    try:
        info = os.stat(name, dir_fd=parent, follow_symlinks=False)
    except OSError:
        return  # missing: the operation itself reports it
    bounds.check_stat(info, ())


class HostBackend:
    """A host directory exposed under a mount; the only code that touches host files."""

    def __init__(self, host_dir: str | os.PathLike[str]) -> None:
        self._root_fd = -1
        path = os.fspath(host_dir)
        real = os.path.realpath(path)
        if not os.path.isdir(real):
            raise ValueError(f"host mount source is not a directory: {path}")
        self.host_dir = real
        # Absolute symlink targets naming either spelling of the root are inside the mount.
        self._prefixes = tuple(dict.fromkeys([real, os.path.abspath(path)]))
        self._root_fd = os.open(real, DIR_WALK)

    def __repr__(self) -> str:
        return f"HostBackend({self.host_dir!r})"

    def close(self) -> None:
        """Release the root directory fd (the backend is unusable afterwards)."""
        fd, self._root_fd = self._root_fd, -1
        if fd >= 0:
            os.close(fd)

    def __del__(self) -> None:  # pragma: no cover - best effort
        try:
            self.close()
        except OSError:
            pass

    # ------------------------------------------------------------------ resolution

    def _host_inner(self, target: str) -> list[str]:
        """Components inside the mount for an absolute host target, or raise (escape)."""
        for prefix in self._prefixes:
            if target == prefix or target.startswith(prefix.rstrip("/") + "/"):
                return [p for p in target[len(prefix) :].split("/") if p and p != "."]
        raise CrossMount(os.path.normpath(target))

    def _walk(self, parts: Parts, follow_last: bool, ctx: Ctx) -> _Walk:
        """Resolve ``parts`` beneath the root; see the module docstring for the rules."""
        root = self._root_fd
        if root < 0:
            raise fs_error(errno.EBADF)
        fds: list[int] = []
        resolved: list[str] = []
        pending = list(reversed(parts))
        links = 0
        bounds = ctx.bounds
        if bounds is not None:
            bounds.check_parts((), parts)  # a mount over a private directory: all denied
        try:
            while pending:
                name = pending.pop()
                if name == "..":
                    climb(resolved)
                    os.close(fds.pop())
                    continue
                here = (*resolved, name)
                # Deny and boundaries apply to every component, before it is looked at, so a
                # denied or foreign directory answers the same whatever lies below it.
                ctx.guard(here)
                if bounds is not None:
                    bounds.check_parts(here, pending[::-1])
                cur = fds[-1] if fds else root
                if not pending:  # the last component
                    if not follow_last:
                        _check_final(cur, name, bounds)
                        return _Walk(cur, name, here, fds)
                    try:
                        target = os.readlink(name, dir_fd=cur)
                    except OSError as exc:
                        if exc.errno in (errno.EINVAL, errno.ENOENT):
                            _check_final(cur, name, bounds)
                            return _Walk(cur, name, here, fds)
                        raise
                else:
                    try:
                        fd = os.open(name, DIR_WALK, dir_fd=cur)
                    except OSError as exc:
                        if exc.errno not in (errno.ENOTDIR, errno.ELOOP):
                            raise
                        try:
                            target = os.readlink(name, dir_fd=cur)
                        except OSError as exc2:
                            if exc2.errno == errno.EINVAL:
                                raise fs_error(errno.ENOTDIR) from None
                            raise
                    else:
                        fds.append(fd)
                        resolved.append(name)
                        if bounds is not None and bounds.by_inode:
                            bounds.check_stat(os.fstat(fd), pending[::-1])
                        continue
                # ``name`` is a symlink whose target is ``target``.
                links += 1
                if links > MAX_SYMLINKS:
                    raise fs_error(errno.ELOOP)
                ctx.guard((*resolved, name))
                if not target:
                    raise fs_error(errno.ENOENT)
                if target.startswith("/"):
                    try:
                        tparts = self._host_inner(target)
                    except CrossMount as cm:
                        cm.rest = list(reversed(pending))
                        raise
                    for fd in fds:
                        os.close(fd)
                    fds.clear()
                    resolved.clear()
                else:
                    tparts = [p for p in target.split("/") if p and p != "."]
                pending.extend(reversed(tparts))
            # Ended on a directory we hold (or the root): name it from its parent.
            if not resolved:
                return _Walk(root, ".", (), fds)
            parent = fds[-2] if len(fds) > 1 else root
            return _Walk(parent, resolved[-1], tuple(resolved), fds)
        except BaseException:
            for fd in fds:
                os.close(fd)
            raise

    def _resolve_final(self, parts: Parts, follow: bool, ctx: Ctx) -> _Walk:
        walk = self._walk(parts, follow, ctx)
        try:
            ctx.guard(walk.parts)
        except BaseException:
            walk.close()
            raise
        return walk

    # ------------------------------------------------------------------ reading

    def open(self, parts: Parts, mode: str, ctx: Ctx) -> BinaryIO:
        flags = mode_flags(mode)
        # O_EXCL does not follow a final symlink (as open(2) with O_CREAT|O_EXCL).
        follow = not flags & os.O_EXCL
        with self._resolve_final(parts, follow, ctx) as walk:
            try:
                fd = os.open(walk.name, flags | _NOFOLLOW_OPEN, 0o666, dir_fd=walk.parent)
            except OSError as exc:
                if exc.errno == errno.ELOOP and flags & os.O_EXCL:
                    raise fs_error(errno.EEXIST) from None
                raise
        try:
            info = os.fstat(fd)
            if st.S_ISDIR(info.st_mode):
                raise fs_error(errno.EISDIR)
            if not st.S_ISREG(info.st_mode):
                raise fs_error(errno.EACCES)
            # a binary mode always (mode_flags accepted it), so the file object is binary
            fobj = cast("BinaryIO", os.fdopen(fd, "r+b" if mode.startswith("x+") else
                                            mode.replace("x", "w")))
        except BaseException:
            os.close(fd)
            raise
        try:
            fobj.raw.name = join_parts(parts, ctx.vroot)  # type: ignore[attr-defined]  # a buffered file's raw FileIO; its name becomes the virtual path
        except (AttributeError, TypeError):
            pass
        return fobj

    def stat(self, parts: Parts, follow: bool, ctx: Ctx) -> os.stat_result:
        with self._resolve_final(parts, follow, ctx) as walk:
            return os.stat(walk.name, dir_fd=walk.parent, follow_symlinks=False)

    def scandir(self, parts: Parts, ctx: Ctx) -> Listing:
        with self._resolve_final(parts, True, ctx) as walk:
            dfd = os.open(walk.name, _DIR_READ, dir_fd=walk.parent)
            resolved = walk.parts
        entries: list[tuple[str, str]] = []
        bounds = ctx.bounds
        try:
            with os.scandir(dfd) as it:
                for entry in it:
                    if bounds is not None and bounds.hides((*resolved, entry.name), entry):
                        continue
                    if entry.is_symlink():
                        kind = "l"
                    elif entry.is_dir(follow_symlinks=False):
                        kind = "d"
                    elif entry.is_file(follow_symlinks=False):
                        kind = "f"
                    else:
                        kind = "o"
                    entries.append((entry.name, kind))
        finally:
            os.close(dfd)
        return resolved, entries

    def readlink(self, parts: Parts, ctx: Ctx) -> str:
        with self._resolve_final(parts, False, ctx) as walk:
            if walk.is_root:
                raise fs_error(errno.EINVAL)
            target = os.readlink(walk.name, dir_fd=walk.parent)
        if target.startswith("/"):
            for prefix in self._prefixes:
                if target == prefix or target.startswith(prefix.rstrip("/") + "/"):
                    inner = [p for p in target[len(prefix) :].split("/") if p]
                    return join_parts(inner, ctx.vroot)
        return target

    def realpath(self, parts: Parts, strict: bool, ctx: Ctx) -> Parts:
        try:
            with self._resolve_final(parts, True, ctx) as walk:
                if strict and not walk.is_root:
                    os.stat(walk.name, dir_fd=walk.parent, follow_symlinks=False)
                return walk.parts
        except FileNotFoundError:
            if strict:
                raise
        # A missing component: resolve the longest existing prefix, append the rest.
        for cut in range(len(parts) - 1, -1, -1):
            try:
                with self._resolve_final(parts[:cut], True, ctx) as walk:
                    os.stat(walk.name, dir_fd=walk.parent, follow_symlinks=False)
                    return walk.parts + parts[cut:]
            except FileNotFoundError:
                continue
        return parts

    def access(self, parts: Parts, mode: int, ctx: Ctx) -> bool:
        with self._resolve_final(parts, True, ctx) as walk:
            if mode == os.F_OK:
                os.stat(walk.name, dir_fd=walk.parent, follow_symlinks=False)
                return True
            return os.access(walk.name, mode, dir_fd=walk.parent, follow_symlinks=False)

    # ------------------------------------------------------------------ writing

    def mkdir(self, parts: Parts, mode: int, ctx: Ctx) -> None:
        with self._resolve_final(parts, False, ctx) as walk:
            if walk.is_root:
                raise fs_error(errno.EEXIST)
            os.mkdir(walk.name, mode, dir_fd=walk.parent)

    def rmdir(self, parts: Parts, ctx: Ctx) -> None:
        with self._resolve_final(parts, False, ctx) as walk:
            if walk.is_root:
                raise fs_error(errno.EBUSY)
            os.rmdir(walk.name, dir_fd=walk.parent)

    def unlink(self, parts: Parts, ctx: Ctx) -> None:
        with self._resolve_final(parts, False, ctx) as walk:
            if walk.is_root:
                raise fs_error(errno.EISDIR)
            os.unlink(walk.name, dir_fd=walk.parent)

    def _between(self, src: Parts, dst: Parts, ctx: Ctx, root_errnos: tuple[int, int],
                 act: Callable[[_Walk, _Walk], None]) -> None:
        """Walk both ends of a rename or link (neither followed) and ``act`` on them; the
        root as either end fails with its errno from ``root_errnos`` (source, destination)."""
        with self._resolve_final(src, False, ctx) as swalk:
            if swalk.is_root:
                raise fs_error(root_errnos[0])
            with self._resolve_final(dst, False, ctx) as dwalk:
                if dwalk.is_root:
                    raise fs_error(root_errnos[1])
                act(swalk, dwalk)

    def rename(self, src: Parts, dst: Parts, ctx: Ctx) -> None:
        self._between(src, dst, ctx, RENAME_ROOT, lambda s, d: os.rename(
            s.name, d.name, src_dir_fd=s.parent, dst_dir_fd=d.parent))

    def symlink(self, target: str, parts: Parts, ctx: Ctx) -> None:
        stored = target
        if target.startswith("/"):
            vroot = ctx.vroot.rstrip("/")
            if target == ctx.vroot or target.startswith(vroot + "/"):
                inner = [p for p in target[len(vroot) :].split("/") if p]
                stored = join_parts(inner, self.host_dir)
        with self._resolve_final(parts, False, ctx) as walk:
            if walk.is_root:
                raise fs_error(errno.EEXIST)
            if not target.startswith("/"):
                # Judged again from the directory actually walked (the VFS checked first):
                # a parent swapped for a symlink in between cannot move a '..' link up.
                relative_link_parts(target, walk.parts[:-1])
            os.symlink(stored, walk.name, dir_fd=walk.parent)

    def link(self, src: Parts, dst: Parts, ctx: Ctx) -> None:
        self._between(src, dst, ctx, LINK_ROOT, lambda s, d: os.link(
            s.name, d.name, src_dir_fd=s.parent, dst_dir_fd=d.parent, follow_symlinks=False))

    def chmod(self, parts: Parts, mode: int, follow: bool, ctx: Ctx) -> None:
        with self._resolve_final(parts, follow, ctx) as walk:
            fd = os.open(walk.name, _PATH | os.O_NOFOLLOW | _CLOEXEC, dir_fd=walk.parent)
            try:
                if st.S_ISLNK(os.fstat(fd).st_mode):
                    raise fs_error(errno.EOPNOTSUPP)  # Linux cannot chmod a symlink
                try:
                    # The magic link names exactly the inode we hold: no re-resolution.
                    os.chmod(f"/proc/self/fd/{fd}", mode)
                except FileNotFoundError:
                    # No /proc: a real fd on the same name, still without following.
                    rfd = os.open(walk.name, os.O_RDONLY | _NOFOLLOW_OPEN, dir_fd=walk.parent)
                    try:
                        os.fchmod(rfd, mode)
                    finally:
                        os.close(rfd)
            finally:
                os.close(fd)

    def utime(self, parts: Parts, ns: tuple[int, int] | None, follow: bool, ctx: Ctx) -> None:
        with self._resolve_final(parts, follow, ctx) as walk:
            if ns is None:
                os.utime(walk.name, dir_fd=walk.parent, follow_symlinks=False)
            else:
                os.utime(walk.name, ns=ns, dir_fd=walk.parent, follow_symlinks=False)

    def truncate(self, parts: Parts, length: int, ctx: Ctx) -> None:
        with self._resolve_final(parts, True, ctx) as walk:
            fd = os.open(walk.name, os.O_WRONLY | _NOFOLLOW_OPEN, dir_fd=walk.parent)
        try:
            if not st.S_ISREG(os.fstat(fd).st_mode):
                raise fs_error(errno.EINVAL)
            os.ftruncate(fd, length)
        finally:
            os.close(fd)
