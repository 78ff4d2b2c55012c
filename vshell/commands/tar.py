"""tar: create, list and extract archives (GNU tar subset: -c -x -t -f -z -j -J -v -C -O
--exclude --strip-components, old-style ``tar czf``), built on :mod:`tarfile` over VFS
file objects.

Member names are untrusted: a leading ``/`` (or ``../``) is removed with GNU's message,
names still containing ``..`` are refused, and nothing is ever written through a symbolic
link met on the way (a symlink member cannot redirect a later member).  Extraction goes
through the VFS only, so mounts, read-only rules and deny patterns hold.  Directories are
archived in sorted order (GNU uses readdir order).
"""

from __future__ import annotations

import gzip
import io
import stat as st
import tarfile
from collections.abc import Callable
from typing import IO

from vshell.command import Exit, Invocation
from vshell.commands._lib.copy import link_escapes
from vshell.commands._lib.futil import child_name, enc, group_name, owner_name, strerror
from vshell.commands._lib.helptext import help_text
from vshell.commands._lib.opts import parse
from vshell.commands._lib.textio import chunks
from vshell.commands._lib.timefmt import localtime, strftime, zone
from vshell.text.glob import fnmatch

GZIP_LEVEL = 6  # gzip's default, what ``tar cz`` gets from GNU tar

HELP = help_text("tar")


class Tar:
    def __init__(self, inv: Invocation) -> None:
        self.inv = inv
        args = list(inv.args)
        if args and not args[0].startswith("-") and args[0]:
            args[0] = "-" + args[0]
        o = parse(inv, "ctxf:C:OvzjJpmkaS", [
            "create", "list", "extract", "get", "file=", "directory=", "to-stdout", "verbose",
            "gzip", "gunzip", "bzip2", "xz", "exclude=", "strip-components=",
            "preserve-permissions",
            "same-permissions", "touch", "keep-old-files", "auto-compress", "no-same-owner",
            "same-owner", "numeric-owner", "overwrite", "sort=", "wildcards", "no-recursion",
        ], args=args, help_text=HELP, usage_status=2)
        self.mode = ""
        for key, _ in o.items:
            m = {"-c": "c", "--create": "c", "-t": "t", "--list": "t", "-x": "x",
                 "--extract": "x", "--get": "x"}.get(key)
            if m:
                if self.mode and self.mode != m:
                    inv.stderr.write(b"tar: You may not specify more than one '-Acdtrux', "
                                     b"'--delete' or  '--test-label' option\n"
                                     b"Try 'tar --help' or 'tar --usage' for more information.\n")
                    raise Exit(2)
                self.mode = m
        if not self.mode:
            inv.stderr.write(b"tar: You must specify one of the '-Acdtrux', '--delete' or "
                             b"'--test-label' options\n"
                             b"Try 'tar --help' or 'tar --usage' for more information.\n")
            raise Exit(2)
        self.archive = o.last("-f", "--file") or "-"
        self.directory = o.last("-C", "--directory")
        self.to_stdout = o.has("-O", "--to-stdout")
        self.verbose = o.count("-v", "--verbose")
        self.compress = ""
        for key, _ in o.items:
            if key in ("-z", "--gzip", "--gunzip"):
                self.compress = "gz"
            elif key in ("-j", "--bzip2"):
                self.compress = "bz2"
            elif key in ("-J", "--xz"):
                self.compress = "xz"
        if o.has("-a", "--auto-compress") and self.mode == "c":
            for sfx, kind in ((".gz", "gz"), (".tgz", "gz"), (".bz2", "bz2"), (".xz", "xz")):
                if self.archive.endswith(sfx):
                    self.compress = kind
        self.excludes = o.all("--exclude")
        self.keep_old = o.has("-k", "--keep-old-files")
        self.touch = o.has("-m", "--touch")
        self.no_recursion = o.has("--no-recursion")
        strip = o.last("--strip-components")
        self.strip = 0
        if strip is not None:
            if not strip.isdigit():
                raise Exit(2, f"Invalid number of elements: '{strip}'")
            self.strip = int(strip)
        self.operands = o.operands
        self.status = 0
        self.said_strip: set[str] = set()
        # verbose listings go to stderr when the archive itself is on stdout
        self.vout: IO[bytes] = inv.stderr if (self.mode == "c" and self.archive == "-") \
            else inv.stdout
        self.ugswidth = 19

    def error(self, text: str) -> None:
        self.inv.error(text)
        self.status = 2

    def base(self) -> str:
        if self.directory is None:
            return self.inv.dir
        return self.inv.abs(self.directory)

    def excluded(self, name: str) -> bool:
        if not self.excludes:
            return False
        parts = name.rstrip("/").split("/")
        pieces = ["/".join(parts[i : j + 1]) for i in range(len(parts))
                  for j in range(i, len(parts))]
        return any(fnmatch(p, t) for p in self.excludes for t in pieces)

    # --- create --------------------------------------------------------------------------
    def create(self) -> None:
        if not self.operands:
            self.inv.stderr.write(b"tar: Cowardly refusing to create an empty archive\n"
                                  b"Try 'tar --help' or 'tar --usage' for more information.\n")
            raise Exit(2)
        out = self._open_out()
        sink: IO[bytes] | gzip.GzipFile = out
        mode = "w|" + self.compress if self.compress else "w|"
        if self.compress == "gz":
            # tarfile's stream mode deflates at level 9; GNU tar pipes through gzip -6
            sink = gzip.GzipFile(fileobj=out, mode="wb", compresslevel=GZIP_LEVEL, mtime=0)
            mode = "w|"
        try:
            with tarfile.open(fileobj=sink, mode=mode,  # type: ignore[call-overload]  # w|, w|bz2 or w|xz
                              format=tarfile.GNU_FORMAT) as tf:
                for op in self.operands:
                    self.inv.cancel.check()
                    base = self.base()
                    path = op if op.startswith("/") else base.rstrip("/") + "/" + op
                    self._add(tf, op, self.inv.abs(path), top=True)
        finally:
            try:
                if sink is not out:
                    sink.close()  # the gzip trailer; ``out`` itself stays open
            finally:
                if out is not self.inv.stdout:
                    out.close()

    def _open_out(self) -> IO[bytes]:
        if self.archive == "-":
            return self.inv.stdout
        try:
            return self.inv.fs.open(self.inv.abs(self.archive), "wb")
        except OSError as e:
            self.inv.error(f"{self.archive}: Cannot open: {strerror(e)}")
            self.inv.error("Error is not recoverable: exiting now")
            raise Exit(2) from None

    def _member_name(self, name: str) -> str:
        stripped = name
        while True:
            if stripped.startswith("/"):
                prefix = "/"
                stripped = stripped.lstrip("/")
            elif stripped.startswith("../"):
                prefix = "../"
                while stripped.startswith("../"):
                    stripped = stripped[3:]
            else:
                break
            if prefix not in self.said_strip:
                self.said_strip.add(prefix)
                self.inv.error(f"Removing leading `{prefix}' from member names")
        return stripped

    def _add(self, tf: tarfile.TarFile, shown: str, path: str, top: bool) -> None:
        fs = self.inv.fs
        if self.excluded(shown):
            return
        try:
            s = fs.lstat(path)
        except OSError as e:
            self.error(f"{shown}: Cannot stat: {strerror(e)}")
            return
        name = self._member_name(shown)
        info = tarfile.TarInfo(name)
        info.mode = st.S_IMODE(s.st_mode)
        info.mtime = int(s.st_mtime)
        info.uid, info.gid = int(s.st_uid), int(s.st_gid)
        info.uname = owner_name(s.st_uid) if s.st_uid == 0 else ""
        info.gname = group_name(s.st_gid) if s.st_gid == 0 else ""
        if st.S_ISDIR(s.st_mode):
            info.type = tarfile.DIRTYPE
            info.name = name.rstrip("/") + "/" if name else "./"
            tf.addfile(info)
            self._say(info.name, info)
            if self.no_recursion:
                return
            try:
                names = sorted(fs.listdir(path), key=enc)
            except OSError as e:
                self.error(f"{shown}: Cannot open: {strerror(e)}")
                return
            for child in names:
                self.inv.cancel.check()
                child_shown = child_name(shown, child)
                self._add(tf, child_shown, path.rstrip("/") + "/" + child, False)
        elif st.S_ISLNK(s.st_mode):
            info.type = tarfile.SYMTYPE
            info.linkname = fs.readlink(path)
            tf.addfile(info)
            self._say(name, info)
        elif st.S_ISREG(s.st_mode):
            info.size = s.st_size
            try:
                with fs.open(path, "rb") as f:
                    tf.addfile(info, _Limited(f, s.st_size, self.inv.cancel.check))
            except OSError as e:
                self.error(f"{shown}: Cannot open: {strerror(e)}")
                return
            self._say(name, info)
        else:
            self.error(f"{shown}: socket ignored" if st.S_ISSOCK(s.st_mode)
                       else f"{shown}: Cannot add file of this type")

    def _say(self, name: str, info: tarfile.TarInfo) -> None:
        if not self.verbose:
            return
        if self.verbose > 1:
            self.vout.write(enc(self._long(info)) + b"\n")
        else:
            self.vout.write(enc(name) + b"\n")

    def _long(self, info: tarfile.TarInfo) -> str:
        kind = {tarfile.DIRTYPE: "d", tarfile.SYMTYPE: "l", tarfile.LNKTYPE: "h",
                tarfile.CHRTYPE: "c", tarfile.BLKTYPE: "b", tarfile.FIFOTYPE: "p"}.get(
            info.type, "-")
        mode = kind + st.filemode(info.mode | st.S_IFREG)[1:]
        user = info.uname or str(info.uid)
        group = info.gname or str(info.gid)
        ug = f"{user}/{group}"
        size = str(info.size if info.type in (tarfile.REGTYPE, tarfile.AREGTYPE) else 0)
        self.ugswidth = max(self.ugswidth, len(ug) + 1 + len(size))
        pad = self.ugswidth - len(ug)
        when = strftime("%Y-%m-%d %H:%M", localtime(info.mtime, zone(self.inv.env)))
        text = f"{mode} {ug}{size:>{pad}} {when} {_shown(info)}"
        if info.type == tarfile.SYMTYPE:
            text += " -> " + info.linkname
        elif info.type == tarfile.LNKTYPE:
            text += " link to " + info.linkname
        return text

    # --- read ----------------------------------------------------------------------------
    def _open_in(self) -> tarfile.TarFile:
        if self.archive == "-":
            try:  # a pipe: read it as a stream (compression detected on the fly)
                return tarfile.open(fileobj=self.inv.stdin, mode="r|*")
            except (tarfile.TarError, EOFError, OSError):
                self.inv.error("This does not look like a tar archive")
                self.inv.error("Exiting with failure status due to previous errors")
                raise Exit(2) from None
        else:
            try:
                fobj = self.inv.fs.open(self.inv.abs(self.archive), "rb")
            except OSError as e:
                self.inv.error(f"{self.archive}: Cannot open: {strerror(e)}")
                self.inv.error("Error is not recoverable: exiting now")
                raise Exit(2) from None
        try:
            return tarfile.open(fileobj=fobj, mode="r:*")
        except (tarfile.TarError, EOFError, OSError):
            self.inv.error("This does not look like a tar archive")
            self.inv.error("Exiting with failure status due to previous errors")
            raise Exit(2) from None

    def _wanted(self, name: str) -> bool:
        if self.excluded(name):
            return False
        if not self.operands:
            return True
        clean = name.rstrip("/")
        for op in self.operands:
            o = op.rstrip("/")
            if clean == o or clean.startswith(o + "/") or fnmatch(o, clean):
                self.matched.add(op)
                return True
        return False

    def list_or_extract(self) -> None:
        self.matched: set[str] = set()
        tf = self._open_in()
        dir_times: list[tuple[str, int, int]] = []
        with tf:
            try:
                for info in tf:
                    self.inv.cancel.check()
                    if not self._wanted(info.name):
                        continue
                    if self.mode == "t":
                        if self.verbose:
                            self.inv.stdout.write(enc(self._long(info)) + b"\n")
                        else:
                            self.inv.stdout.write(enc(_shown(info)) + b"\n")
                        continue
                    self._extract(tf, info, dir_times)
            except tarfile.TarError as e:
                self.error(f"{e}")
        for path, mode, mtime in reversed(dir_times):
            try:
                self.inv.fs.chmod(path, mode)
                if not self.touch:
                    self.inv.fs.utime(path, (mtime, mtime))
            except OSError:
                pass
        for op in self.operands:
            if op not in self.matched:
                self.error(f"{op}: Not found in archive")

    def _safe_name(self, info: tarfile.TarInfo) -> str | None:
        name = self._member_name(info.name)
        parts = [p for p in name.split("/") if p not in ("", ".")]
        if ".." in parts or ".." in info.name.split("/"):
            self.error(f"{info.name}: Member name contains '..'")
            return None
        if self.strip:
            if len(parts) <= self.strip:
                return None
            parts = parts[self.strip :]
        return "/".join(parts)

    def _extract(self, tf: tarfile.TarFile, info: tarfile.TarInfo,
                 dir_times: list[tuple[str, int, int]]) -> None:
        rel = self._safe_name(info)
        if rel is None or rel == "":
            if rel == "" and info.isdir() and not self.strip:
                pass
            return
        if self.verbose and not self.to_stdout:
            self.inv.stdout.write(enc(self._long(info) if self.verbose > 1 else _shown(info))
                                  + b"\n")
        if self.to_stdout:
            if info.isreg():
                src = tf.extractfile(info)
                if src is not None:
                    _copy(self.inv, src, self.inv.stdout)
            return
        fs = self.inv.fs
        base = self.base().rstrip("/")
        target = base + "/" + rel
        if not self._parents_ok(base, rel):
            return
        try:
            if info.isdir():
                if not fs.isdir(target) or fs.islink(target):
                    fs.makedirs(target, exist_ok=True)
                dir_times.append((target, info.mode & 0o7777, int(info.mtime)))
                return
            if fs.islink(target) or fs.exists(target):
                if self.keep_old:
                    self.error(f"{rel}: Cannot open: File exists")
                    return
                if fs.isdir(target) and not fs.islink(target):
                    if info.isdir():
                        return
                    fs.rmdir(target)
                else:
                    fs.unlink(target)
            if info.issym():
                if link_escapes(self.inv, info.linkname, target):
                    self.error(f"{rel}: Cannot create symlink to {info.linkname!r}: "
                               "Operation not permitted (it points outside the mount)")
                    return
                fs.symlink(info.linkname, target)
                return
            if info.islnk():
                link_rel = self._member_name(info.linkname)
                parts = [p for p in link_rel.split("/") if p not in ("", ".")]
                if ".." in parts:
                    self.error(f"{rel}: Cannot hard link to '{info.linkname}': Invalid argument")
                    return
                if self.strip:
                    parts = parts[self.strip :]
                fs.link(base + "/" + "/".join(parts), target)
                return
            if not info.isreg():
                self.error(f"{rel}: Cannot create special file (not supported in the sandbox)")
                return
            src = tf.extractfile(info)
            with fs.open(target, "wb") as dst:
                if src is not None:
                    _copy(self.inv, src, dst)
            fs.chmod(target, info.mode & 0o7777)
            if not self.touch:
                fs.utime(target, (int(info.mtime), int(info.mtime)))
        except OSError as e:
            self.error(f"{rel}: Cannot open: {strerror(e)}")

    def _parents_ok(self, base: str, rel: str) -> bool:
        """Create missing parents; refuse to go through a symbolic link or a non-directory."""
        fs = self.inv.fs
        parts = rel.split("/")[:-1]
        cur = base
        for i, part in enumerate(parts):
            cur = cur + "/" + part
            if fs.islink(cur):
                shown = "/".join(parts[: i + 1])
                self.error(f"{rel}: Cannot open: {shown} is a symbolic link; "
                           "not extracting through it")
                return False
            if not fs.exists(cur):
                try:
                    fs.mkdir(cur)
                except OSError as e:
                    self.error(f"{rel}: Cannot mkdir: {strerror(e)}")
                    return False
            elif not fs.isdir(cur):
                self.error(f"{rel}: Cannot open: Not a directory")
                return False
        return True

    def run(self) -> int:
        if self.mode == "c":
            self.create()
        else:
            self.list_or_extract()
        if self.status:
            self.inv.error("Exiting with failure status due to previous errors")
        return self.status


def _shown(info: tarfile.TarInfo) -> str:
    """The member name as GNU tar prints it (tarfile drops a directory's trailing slash)."""
    return info.name + "/" if info.isdir() and not info.name.endswith("/") else info.name


class _Limited(io.RawIOBase):
    """A file object that yields exactly ``size`` bytes (zero-padding if the file shrank).

    tarfile copies a member through it (and through zlib when compressing) in small reads;
    each read checks the run's cancel token, so archiving a huge file stops when asked."""

    def __init__(self, f: IO[bytes], size: int, check: Callable[[], None]) -> None:
        self.f, self.left, self.check = f, size, check

    def readable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        self.check()
        if self.left <= 0:
            return b""
        if n < 0 or n > self.left:
            n = self.left
        data = self.f.read(n)
        if len(data) < n:
            data += b"\0" * (n - len(data))
        self.left -= len(data)
        return data


def _copy(inv: Invocation, src: IO[bytes], dst: IO[bytes]) -> None:
    for data in chunks(inv, src):
        dst.write(data)


def run(inv: Invocation) -> int:
    if not inv.args:
        inv.stderr.write(b"tar: You must specify one of the '-Acdtrux', '--delete' or "
                         b"'--test-label' options\n"
                         b"Try 'tar --help' or 'tar --usage' for more information.\n")
        return 2
    return Tar(inv).run()
