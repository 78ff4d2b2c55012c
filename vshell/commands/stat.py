"""stat: display file status (GNU coreutils: default and terse output, -c/--format,
--printf, -L).  Birth time is not known through the VFS: it prints as ``-`` / ``0``, as GNU
does on a file system without it.  Owner names follow ls (0 is root, others numeric).
"""

from __future__ import annotations

import os
import re
import stat as st
from typing import Any

from vshell.command import Exit, Invocation
from vshell.commands._lib.futil import (
    enc,
    quoteaf,
    strerror,
)
from vshell.commands._lib.helptext import help_text
from vshell.commands._lib.opts import parse
from vshell.commands._lib.statfields import by_letter, kind_letter
from vshell.commands._lib.timefmt import WIDTH_MAX, localtime, strftime, zone
from vshell.text.numarg import INT_MAX

HELP = help_text("stat")

DEFAULT = (
    "  File: %N\n  Size: %-10s\tBlocks: %-10b IO Block: %-6o %F\n"
    "Device: %Hd,%Ld\tInode: %-11i Links: %h\n"
    "Access: (%04a/%10.10A)  Uid: (%5u/%8U)   Gid: (%5g/%8G)\n"
    "Access: %x\nModify: %y\nChange: %z\n Birth: %w\n"
)
DEFAULT_DEV = (
    "  File: %N\n  Size: %-10s\tBlocks: %-10b IO Block: %-6o %F\n"
    "Device: %Hd,%Ld\tInode: %-11i Links: %-5h Device type: %Hr,%Lr\n"
    "Access: (%04a/%10.10A)  Uid: (%5u/%8U)   Gid: (%5g/%8G)\n"
    "Access: %x\nModify: %y\nChange: %z\n Birth: %w\n"
)
TERSE = "%n %s %b %f %u %g %D %i %h %t %T %X %Y %Z %W %o\n"

_DIRECTIVE = re.compile(r"%([-#0 +']*)(\d*)(?:\.(\d*))?([HL]?)([a-zA-Z%])")
_ESCAPES = {"a": "\a", "b": "\b", "e": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t",
            "v": "\v", "\\": "\\", '"': '"'}


_TYPE_NAMES = {"f": "regular file", "d": "directory", "l": "symbolic link", "p": "fifo",
               "s": "socket", "c": "character special file", "b": "block special file"}


def file_type(s: Any) -> str:
    """%F: GNU's name for the file type."""
    kind = kind_letter(s.st_mode)
    if kind == "f" and s.st_size == 0:
        return "regular empty file"
    return _TYPE_NAMES.get(kind, "weird file")


def _unescape(text: str) -> str:
    def sub(m: re.Match[str]) -> str:
        body = m.group(1)
        if body[0] in "01234567":
            return chr(int(body, 8) & 0xFF)
        if body[0] == "x":
            return chr(int(body[1:], 16))
        return _ESCAPES.get(body, "\\" + body)

    return re.sub(r"\\([0-7]{1,3}|x[0-9a-fA-F]{1,2}|.)", sub, text)


class _Radix:
    """A number that prints in octal or hex (``%a``, ``%f``, ``%D``…) with printf flags."""

    def __init__(self, value: int, kind: str) -> None:
        self.value, self.kind = value, kind


# -c's letters for plain stat fields (find -printf's are others: its %n is our %h)
_FIELD_OF = by_letter(s="size", b="blocks", A="mode_string", u="uid", g="gid", U="user",
                      G="group", h="nlink", i="ino")


class _Stat:
    def __init__(self, inv: Invocation, name: str, s: Any, default: bool) -> None:
        self.inv, self.name, self.s, self.default = inv, name, s, default
        self.tz = zone(inv.env)

    def _time(self, which: str) -> tuple[int, int]:
        ns = getattr(self.s, f"st_{which}_ns", None)
        if ns is None:
            ns = int(getattr(self.s, f"st_{which}") * 1e9)
        return divmod(int(ns), 1_000_000_000)

    def value(self, conv: str, hl: str) -> int | str | _Radix:
        s = self.s
        field = _FIELD_OF.get(conv)
        if field is not None:
            return field(s)
        if conv == "n":
            return self.name
        if conv == "N":
            q = (lambda x: x) if self.default else quoteaf
            text = q(self.name)
            if st.S_ISLNK(s.st_mode):
                try:
                    text += " -> " + q(self.inv.fs.readlink(self.inv.abs(self.name)))
                except OSError:
                    pass
            return text
        if conv == "B":
            return 512
        if conv == "o":
            return int(getattr(s, "st_blksize", 4096) or 4096)
        if conv == "a":
            return _Radix(st.S_IMODE(s.st_mode), "o")
        if conv == "f":
            return _Radix(s.st_mode, "x")
        if conv == "F":
            return file_type(s)
        if conv == "d":
            dev = int(getattr(s, "st_dev", 0) or 0)
            if hl == "H":
                return os.major(dev)
            if hl == "L":
                return os.minor(dev)
            return dev
        if conv == "D":
            return _Radix(int(getattr(s, "st_dev", 0) or 0), "x")
        if conv in "rRtT":
            rdev = int(getattr(s, "st_rdev", 0) or 0)
            if conv == "R":
                return _Radix(rdev, "x")
            if conv == "r":
                if hl == "H":
                    return os.major(rdev)
                if hl == "L":
                    return os.minor(rdev)
                return rdev
            return _Radix(os.major(rdev) if conv == "t" else os.minor(rdev), "x")
        if conv in "xyz":
            which = {"x": "atime", "y": "mtime", "z": "ctime"}[conv]
            secs, ns = self._time(which)
            return strftime("%Y-%m-%d %H:%M:%S.%N %z", localtime(secs, self.tz), ns)
        if conv in "XYZ":
            which = {"X": "atime", "Y": "mtime", "Z": "ctime"}[conv]
            return self._time(which)[0]
        if conv == "w":
            return "-"
        if conv == "W":
            return 0
        if conv == "m":
            try:
                mount = self.inv.fs.mount_for(self.inv.abs(self.name))[0]
                return str(getattr(mount, "vpath", None) or getattr(mount, "path", "/"))
            except (OSError, ValueError, AttributeError):
                return "/"
        if conv == "C":
            return "?"
        return "?"

    def render(self, fmt: str) -> str:
        def sub(m: re.Match[str]) -> str:
            flags, width, prec, hl, conv = m.groups()
            if conv == "%":
                return "%"
            sizes = [int(t) for t in (width, prec) if t and len(t) <= 12] + [
                1 << 40 for t in (width, prec) if t and len(t) > 12]
            if any(n > INT_MAX for n in sizes):
                return ""  # GNU: printf refuses the directive, stat prints nothing for it
            if any(n > WIDTH_MAX for n in sizes):
                raise Exit(1, "memory exhausted")
            v = self.value(conv, hl)
            if isinstance(v, _Radix):
                spec = "%" + flags.replace("'", "") + width + ("." + prec if prec else "") + v.kind
                return spec % v.value
            if isinstance(v, int):
                spec = "%" + flags.replace("'", "") + width + ("." + prec if prec else "") + "d"
                return spec % v
            spec = "%" + flags.replace("'", "").replace("0", "") + width + (
                "." + prec if prec is not None and prec != "" else "") + "s"
            return spec % v

        return _DIRECTIVE.sub(sub, fmt)


def run(inv: Invocation) -> int:
    opts = parse(inv, "Lc:tf", ["dereference", "format=", "printf=", "terse",
                                "file-system", "cached="], help_text=HELP)
    if opts.has("-f", "--file-system"):
        inv.error("file system status (-f) is not supported in the sandbox")
        return 1
    deref = opts.has("-L", "--dereference")
    fmt: str | None = None
    newline = True
    for key, val in opts.items:
        if key in ("-c", "--format"):
            fmt, newline = val or "", True
        elif key == "--printf":
            fmt, newline = _unescape(val or ""), False
    terse = opts.has("-t", "--terse")
    opts.required(inv)
    status = 0
    for op in opts.operands:
        inv.cancel.check()
        try:
            path = inv.abs(op)
            s = inv.fs.stat(path) if deref else inv.fs.lstat(path)
        except OSError as e:
            inv.error(f"cannot statx {quoteaf(op)}: {strerror(e)}")
            status = 1
            continue
        if fmt is not None:
            text = _Stat(inv, op, s, False).render(fmt) + ("\n" if newline else "")
        elif terse:
            text = _Stat(inv, op, s, False).render(TERSE)
        else:
            dev = st.S_ISCHR(s.st_mode) or st.S_ISBLK(s.st_mode)
            text = _Stat(inv, op, s, True).render(DEFAULT_DEV if dev else DEFAULT)
        inv.stdout.write(enc(text))
    return status
