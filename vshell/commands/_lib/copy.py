"""The copy engine behind cp (and mv across mounts): files, directories and symlinks, via the VFS.

Directory entries are copied in sorted order (GNU follows readdir order).  Ownership is
never copied: the sandbox has one user.  The umask is taken as 022.
"""

from __future__ import annotations

import errno
import os
import stat as st
from typing import TYPE_CHECKING

from vshell.command import Invocation
from vshell.commands._lib.futil import CHUNK, child_name, quoteaf, strerror, write_line
from vshell.commands._lib.modes import UMASK
from vshell.records import record

if TYPE_CHECKING:
    from vshell.vfs import VFS


@record
class CopyOptions:
    recursive: bool = False
    deref: str = "auto"  # "always" (-L), "never" (-P), "command-line" (-H), "auto"
    preserve_mode: bool = False
    preserve_times: bool = False
    no_clobber: bool = False
    force: bool = False
    verbose: bool = False
    update: bool = False
    prog: str = "cp"


def basename(name: str) -> str:
    stripped = name.rstrip("/")
    return stripped.rsplit("/", 1)[-1] if stripped else "/"


def link_escapes(inv: Invocation, target: str, link_path: str) -> bool:
    """True if a symlink at ``link_path`` with ``target`` would point outside its mount.

    The VFS decides (vshell.vfs.links: resolved from the link's real host location); this
    asks first so a command can refuse before it removes an existing destination.
    """
    fs = inv.fs
    allowed = getattr(fs, "symlink_allowed", None)
    if allowed is None:  # a foreign file system object: its own symlink() decides
        return False
    return not allowed(target, link_path)


class Copier:
    def __init__(self, inv: Invocation, opts: CopyOptions) -> None:
        self.inv = inv
        self.fs = inv.fs
        self.o = opts
        self.status = 0

    def err(self, text: str) -> bool:
        self.inv.error(text)
        self.status = 1
        return False

    def _src_stat(self, path: str, top: bool) -> os.stat_result:
        d = self.o.deref
        follow = d == "always" or (d in ("command-line", "auto") and top)
        if d == "auto" and self.o.recursive:
            follow = False
        return self.fs.stat(path) if follow else self.fs.lstat(path)

    def copy(self, src_shown: str, src: str, dst_shown: str, dst: str, top: bool = True) -> bool:
        fs = self.fs
        self.inv.cancel.check()
        try:
            s = self._src_stat(src, top)
        except OSError as e:
            return self.err(f"cannot stat {quoteaf(src_shown)}: {strerror(e)}")
        try:
            d = fs.stat(dst)
        except OSError:
            d = None
        if st.S_ISDIR(s.st_mode):
            if not self.o.recursive:
                return self.err(f"-r not specified; omitting directory {quoteaf(src_shown)}")
            if d is not None and not st.S_ISDIR(d.st_mode):
                return self.err(f"cannot overwrite non-directory {quoteaf(dst_shown)} "
                                f"with directory {quoteaf(src_shown)}")
            if is_inside(fs, src, dst):
                return self.err(f"cannot copy a directory, {quoteaf(src_shown)}, into itself, "
                                f"{quoteaf(dst_shown)}")
            return self._copy_dir(src_shown, src, dst_shown, dst, s, d)
        if dst_shown.endswith("/") and (d is None or not st.S_ISDIR(d.st_mode)):
            return self.err(f"cannot create regular file {quoteaf(dst_shown)}: Not a directory")
        if d is not None and st.S_ISDIR(d.st_mode) and not st.S_ISLNK(s.st_mode):
            return self.err(f"cannot overwrite directory {quoteaf(dst_shown)} "
                            f"with non-directory")
        if d is not None and same_file(s, d) and not st.S_ISLNK(s.st_mode):
            return self.err(f"{quoteaf(src_shown)} and {quoteaf(dst_shown)} are the same file")
        if self.o.no_clobber and (d is not None or fs.islink(dst)):
            return True
        if self.o.update and d is not None and _mtime_ns(d) >= _mtime_ns(s):
            return True
        if st.S_ISLNK(s.st_mode):
            return self._copy_link(src_shown, src, dst_shown, dst)
        return self._copy_file(src_shown, src, dst_shown, dst, s, d)

    def _say(self, src_shown: str, dst_shown: str) -> None:
        if self.o.verbose:
            write_line(self.inv, f"{quoteaf(src_shown)} -> {quoteaf(dst_shown)}")

    def _copy_link(self, src_shown: str, src: str, dst_shown: str, dst: str) -> bool:
        fs = self.fs
        try:
            target = fs.readlink(src)
        except OSError as e:
            return self.err(f"cannot read symbolic link {quoteaf(src_shown)}: {strerror(e)}")
        if link_escapes(self.inv, target, dst):
            return self.err(f"cannot create symbolic link {quoteaf(dst_shown)}: "
                            "Operation not permitted")
        if fs.islink(dst) or fs.exists(dst):
            try:
                fs.unlink(dst)
            except OSError as e:
                return self.err(f"cannot remove {quoteaf(dst_shown)}: {strerror(e)}")
            if self.o.verbose:
                write_line(self.inv, f"removed {quoteaf(dst_shown)}")
        try:
            fs.symlink(target, dst)
        except OSError as e:
            return self.err(f"cannot create symbolic link {quoteaf(dst_shown)}: {strerror(e)}")
        self._say(src_shown, dst_shown)
        return True

    def _copy_file(self, src_shown: str, src: str, dst_shown: str, dst: str, s: os.stat_result,
                   d: os.stat_result | None) -> bool:
        fs = self.fs
        try:
            fin = fs.open(src, "rb")
        except OSError as e:
            return self.err(f"cannot open {quoteaf(src_shown)} for reading: {strerror(e)}")
        with fin:
            try:
                fout = fs.open(dst, "wb")
            except OSError as e:
                if not (self.o.force and d is not None):
                    return self.err(f"cannot create regular file {quoteaf(dst_shown)}: "
                                    f"{strerror(e)}")
                try:
                    fs.unlink(dst)
                    fout = fs.open(dst, "wb")
                    d = None
                except OSError as e2:
                    return self.err(f"cannot create regular file {quoteaf(dst_shown)}: "
                                    f"{strerror(e2)}")
            with fout:
                while True:
                    self.inv.cancel.check()
                    data = fin.read(CHUNK)
                    if not data:
                        break
                    fout.write(data)
        self._say(src_shown, dst_shown)
        try:
            if self.o.preserve_mode:
                fs.chmod(dst, st.S_IMODE(s.st_mode))
            elif d is None:
                fs.chmod(dst, st.S_IMODE(s.st_mode) & 0o777 & ~UMASK)
            if self.o.preserve_times:
                fs.utime(dst, ns=(_atime_ns(s), _mtime_ns(s)))
        except OSError as e:
            return self.err(f"preserving permissions for {quoteaf(dst_shown)}: {strerror(e)}")
        return True

    def _copy_dir(self, src_shown: str, src: str, dst_shown: str, dst: str, s: os.stat_result,
                  d: os.stat_result | None) -> bool:
        fs = self.fs
        created = False
        if d is None:
            try:
                fs.mkdir(dst, 0o700)
                created = True
            except OSError as e:
                return self.err(f"cannot create directory {quoteaf(dst_shown)}: {strerror(e)}")
            self._say(src_shown, dst_shown)
        try:
            names = sorted(fs.listdir(src))
        except OSError as e:
            return self.err(f"cannot access {quoteaf(src_shown)}: {strerror(e)}")
        ok = True
        for name in names:
            child_dst = dst.rstrip("/") + "/" + name
            ok = self.copy(child_name(src_shown, name), src.rstrip("/") + "/" + name,
                           child_name(dst_shown, name), child_dst, top=False) and ok
        try:
            if self.o.preserve_mode:
                fs.chmod(dst, st.S_IMODE(s.st_mode))
            elif created:
                fs.chmod(dst, st.S_IMODE(s.st_mode) & ~UMASK)
            if self.o.preserve_times:
                fs.utime(dst, ns=(_atime_ns(s), _mtime_ns(s)))
        except OSError as e:
            return self.err(f"preserving permissions for {quoteaf(dst_shown)}: {strerror(e)}")
        return ok


def same_file(a: os.stat_result, b: os.stat_result) -> bool:
    """Whether two status results name one file (an inode of 0 is no identity)."""
    return bool(a.st_ino) and a.st_ino == b.st_ino and a.st_dev == b.st_dev


def is_inside(fs: VFS, src: str, dst: str) -> bool:
    """Whether ``dst`` is ``src`` or lies below it (after resolving what exists)."""
    try:
        real_src = fs.realpath(src)
    except OSError:
        real_src = src
    parent = dst.rsplit("/", 1)[0] or "/"
    try:
        real_dst = fs.realpath(parent).rstrip("/") + "/" + dst.rsplit("/", 1)[1]
    except OSError:
        real_dst = dst
    return real_dst == real_src or real_dst.startswith(real_src.rstrip("/") + "/")


def _mtime_ns(s: os.stat_result) -> int:
    v = getattr(s, "st_mtime_ns", None)
    return int(v) if v is not None else int(s.st_mtime * 1e9)


def _atime_ns(s: os.stat_result) -> int:
    v = getattr(s, "st_atime_ns", None)
    return int(v) if v is not None else int(s.st_atime * 1e9)


def errno_of(e: OSError) -> int:
    return e.errno or errno.EIO
