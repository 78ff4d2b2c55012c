"""gzip, gunzip, zcat (GNU gzip: -c -d -f -k -l -n -N -q -t -v -1..-9 -S SUF).

Compression streams through zlib with GNU's header layout (name and mtime unless -n);
the bytes need not equal GNU gzip's but any gzip reads them.  Decompression handles
multi-member files and warns about trailing garbage as GNU does.  Output files get the
input's mode and modification time; the input is removed unless -k or -c.
"""

from __future__ import annotations

import os
import struct
import zlib
from typing import IO

from vshell.command import Invocation
from vshell.commands._lib.futil import CHUNK, enc, strerror
from vshell.commands._lib.helptext import help_text
from vshell.commands._lib.opts import parse

OUT_CHUNK = 1 << 20
"""The most one decompression call returns: 64 KiB of zeros compressed expand to 64 MiB."""

HELP = help_text("gzip")

SUFFIXES = [".gz", "-gz", ".z", "-z", "_z", ".Z"]


class Gz:
    def __init__(self, inv: Invocation, decompress: bool = False, stdout: bool = False) -> None:
        self.inv = inv
        o = parse(inv, "cdfklnNqS:tv123456789",
                  ["stdout", "to-stdout", "decompress", "uncompress", "force", "keep", "list",
                   "no-name", "name", "quiet", "suffix=", "test", "verbose", "fast", "best",
                   "rsyncable", "synchronous"], help_text=HELP)
        self.stdout = stdout or o.has("-c", "--stdout", "--to-stdout")
        self.decompress = decompress or o.has("-d", "--decompress", "--uncompress")
        self.force = o.has("-f", "--force")
        self.keep = o.has("-k", "--keep")
        self.list = o.has("-l", "--list")
        self.test = o.has("-t", "--test")
        self.quiet = o.has("-q", "--quiet")
        self.verbose = o.has("-v", "--verbose") and not self.quiet
        self.save_name = True
        self.level = 6
        for key, _ in o.items:
            if key in ("-n", "--no-name"):
                self.save_name = False
            elif key in ("-N", "--name"):
                self.save_name = True
            elif key == "--fast":
                self.level = 1
            elif key == "--best":
                self.level = 9
            elif len(key) == 2 and key[1].isdigit():
                self.level = int(key[1])
        self.suffix = o.last("-S", "--suffix") or ".gz"
        self.files = o.operands
        self.status = 0
        self.list_totals = [0, 0, 0]
        self.listed = 0

    def warn(self, text: str) -> None:
        if not self.quiet:
            self.inv.error(text)
        if self.status == 0:
            self.status = 2

    def fail(self, text: str) -> None:
        self.inv.error(text)
        self.status = 1

    # --- compression -------------------------------------------------------------------
    def compress_stream(self, src: IO[bytes], dst: IO[bytes], name: str, mtime: int) -> int:
        flags = 0x08 if name and self.save_name else 0
        xfl = 2 if self.level == 9 else (4 if self.level == 1 else 0)
        header = b"\x1f\x8b\x08" + bytes([flags]) + struct.pack("<I", mtime if self.save_name
                                                                 else 0) + bytes([xfl, 3])
        if flags:
            header += name.encode("latin-1", "replace") + b"\0"
        dst.write(header)
        comp = zlib.compressobj(self.level, zlib.DEFLATED, -15, 9)
        crc = 0
        size = 0
        out = 0
        while True:
            self.inv.cancel.check()
            data = src.read(CHUNK)
            if not data:
                break
            crc = zlib.crc32(data, crc)
            size += len(data)
            piece = comp.compress(data)
            out += len(piece)
            dst.write(piece)
        tail = comp.flush()
        out += len(tail)
        dst.write(tail + struct.pack("<II", crc, size & 0xFFFFFFFF))
        return size - out if size else 0

    # --- decompression -----------------------------------------------------------------
    def decompress_stream(self, src: IO[bytes], dst: IO[bytes] | None, shown: str) -> bool:
        """Decompress every member; False (and a message) if the data is not gzip."""
        pending = src.read(CHUNK)
        first = True
        while True:
            if not pending:
                more = src.read(CHUNK)
                if not more:
                    return True
                pending = more
            if len(pending) < 2:
                pending += src.read(CHUNK)
            if pending[:2] != b"\x1f\x8b":
                if first:
                    self.inv.stderr.write(enc(f"\ngzip: {shown}: not in gzip format\n"))
                    self.status = 1
                    return False
                if not self.quiet:
                    self.inv.stderr.write(enc(f"\ngzip: {shown}: decompression OK, "
                                              "trailing garbage ignored\n"))
                self.status = self.status or 2
                return True
            d = zlib.decompressobj(31)
            data = pending
            try:
                while True:
                    self.inv.cancel.check()
                    out = d.decompress(data, OUT_CHUNK)  # a bomb expands a piece at a time
                    if out and dst is not None:
                        dst.write(out)
                    if d.eof:
                        pending = d.unused_data
                        break
                    if d.unconsumed_tail or len(out) == OUT_CHUNK:
                        data = d.unconsumed_tail  # more output waits on this input
                        continue
                    data = src.read(CHUNK)
                    if not data:
                        self.fail(f"{shown}: unexpected end of file")
                        return False
            except zlib.error as e:
                msg = "invalid compressed data--crc error" if "check" in str(e) else (
                    "invalid compressed data--format violated")
                self.fail(f"{shown}: {msg}")
                return False
            first = False

    # --- files ---------------------------------------------------------------------------
    def run(self) -> int:
        if not self.files:
            self.files = ["-"]
        for name in self.files:
            self.inv.cancel.check()
            try:
                self.one(name)
            except BrokenPipeError:
                raise  # the reader went away: SIGPIPE's silent 141, as GNU gzip
            except OSError as e:
                self.fail(f"{name}: {strerror(e)}")
        if self.list and self.listed > 1:
            c, u, h = self.list_totals
            self._list_line(c, u, h, "(totals)")
        return self.status

    def one(self, name: str) -> None:
        fs = self.inv.fs
        if name == "-":
            if self.list:
                data = self.inv.stdin.read()
                self._list(data, "stdout", None)
                return
            if self.decompress or self.test:
                self.decompress_stream(self.inv.stdin, None if self.test else self.inv.stdout,
                                       "stdin")
            else:
                self.compress_stream(self.inv.stdin, self.inv.stdout, "", 0)
            return
        path = self.inv.abs(name)
        try:
            s = fs.stat(path)
        except OSError as e:
            self.fail(f"{name}: {strerror(e)}")
            return
        import stat as st

        if st.S_ISDIR(s.st_mode):
            self.warn(f"{name} is a directory -- ignored")
            return
        if self.list:
            with fs.open(path, "rb") as f:
                head = f.read(4096)
                if s.st_size > len(head):  # only the header and the size trailer matter
                    f.seek(s.st_size - 4)
                    tail = f.read(4)
                    self._list(head, _strip_suffix(name, self.suffix) or name, name,
                               size=s.st_size, trailer=tail)
                else:
                    self._list(head, _strip_suffix(name, self.suffix) or name, name)
            return
        if self.decompress or self.test:
            target = _strip_suffix(name, self.suffix)
            if target is None and not (self.stdout or self.test):
                self.warn(f"{name}: unknown suffix -- ignored")
                return
            with fs.open(path, "rb") as src:
                if self.test:
                    self.decompress_stream(src, None, name)
                    return
                if self.stdout:
                    self.decompress_stream(src, self.inv.stdout, name)
                    return
                assert target is not None
                self._to_file(src, name, target, s, decompress=True)
            return
        if any(name.endswith(sfx) for sfx in [self.suffix, *SUFFIXES]) and not self.stdout:
            if not self.quiet:
                self.inv.error(f"{name} already has {self.suffix} suffix -- unchanged")
            return
        with fs.open(path, "rb") as src:
            if self.stdout:
                self.compress_stream(src, self.inv.stdout, _base(name), int(s.st_mtime))
                return
            self._to_file(src, name, name + self.suffix, s, decompress=False)

    def _to_file(self, src: IO[bytes], name: str, target: str, s: os.stat_result,
                 decompress: bool) -> None:
        fs = self.inv.fs
        tpath = self.inv.abs(target)
        if fs.exists(tpath) or fs.islink(tpath):
            if not self.force:
                self.warn(f"{target} already exists;\tnot overwritten")
                return
            fs.unlink(tpath)
        ok = True
        with fs.open(tpath, "wb") as dst:
            if decompress:
                ok = self.decompress_stream(src, dst, name)
                saved = 0
            else:
                saved = self.compress_stream(src, dst, _base(name), int(s.st_mtime))
        if not ok:
            fs.unlink(tpath)
            return
        import stat as st

        fs.chmod(tpath, st.S_IMODE(s.st_mode))
        mtime_ns = getattr(s, "st_mtime_ns", None) or int(s.st_mtime * 1e9)
        atime_ns = getattr(s, "st_atime_ns", None) or int(s.st_atime * 1e9)
        fs.utime(tpath, ns=(atime_ns, mtime_ns))
        if self.verbose:
            insize = s.st_size
            if decompress:
                outsize = fs.stat(tpath).st_size
                ratio = _ratio(outsize - (insize - _header_len(name, src)), outsize)
                what = "replaced with"
            else:
                ratio = _ratio(saved, insize)
                what = "created" if self.keep else "replaced with"
            self.inv.stderr.write(enc(f"{name}:\t{ratio} -- {what} {target}\n"))
        if not self.keep:
            fs.unlink(self.inv.abs(name))

    def _list(self, data: bytes, shown: str, name: str | None, size: int | None = None,
              trailer: bytes | None = None) -> None:
        if data[:2] != b"\x1f\x8b" or len(data) < 18:
            self.fail(f"{name or 'stdin'}: not in gzip format")
            return
        usize = struct.unpack("<I", trailer if trailer is not None else data[-4:])[0]
        header = _gzip_header_len(data) + 8
        if size is not None:
            data = data[:0]
        total = size if size is not None else len(data)
        if self.listed == 0:
            self.inv.stdout.write(b"         compressed        uncompressed  ratio "
                                  b"uncompressed_name\n")
        self._list_line(total, usize, header, shown)
        self.list_totals[0] += total
        self.list_totals[1] += usize
        self.list_totals[2] = header
        self.listed += 1

    def _list_line(self, comp: int, usize: int, header: int, shown: str) -> None:
        ratio = _ratio(usize - (comp - header), usize)
        self.inv.stdout.write(enc(f"{comp:>19} {usize:>19} {ratio} {shown}\n"))


def _ratio(saved: int, total: int) -> str:
    if total == 0:
        return "  0.0%"
    value = 100.0 * saved / total
    return f"{value:5.1f}%"


def _gzip_header_len(data: bytes) -> int:
    flags = data[3]
    pos = 10
    if flags & 4:
        pos += 2 + struct.unpack("<H", data[10:12])[0]
    if flags & 8:
        pos = data.index(b"\0", pos) + 1
    if flags & 16:
        pos = data.index(b"\0", pos) + 1
    if flags & 2:
        pos += 2
    return pos


def _header_len(name: str, src: IO[bytes]) -> int:
    try:
        src.seek(0)
        return _gzip_header_len(src.read(4096)) + 8
    except (OSError, ValueError):
        return 18


def _base(name: str) -> str:
    return name.rstrip("/").rsplit("/", 1)[-1]


def _strip_suffix(name: str, suffix: str) -> str | None:
    low = name.lower()
    for sfx in [suffix, *SUFFIXES, ".tgz", ".taz"]:
        if low.endswith(sfx.lower()) and len(name) > len(sfx) and not name[: -len(sfx)].endswith(
                "/"):
            stem = name[: -len(sfx)]
            return stem + ".tar" if sfx in (".tgz", ".taz") else stem
    return None


def gzip(inv: Invocation) -> int:
    return Gz(inv).run()


def gunzip(inv: Invocation) -> int:
    return Gz(inv, decompress=True).run()


def zcat(inv: Invocation) -> int:
    return Gz(inv, decompress=True, stdout=True).run()

