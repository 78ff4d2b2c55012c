"""fold: wrap input lines to a width (GNU: columns count bytes, tabs to 8, -s at blanks)."""

from __future__ import annotations

import re

from vshell.command import Exit, Invocation
from vshell.commands._lib import textio as tio

_SPECIAL = re.compile(rb"[\t\b\r]")


def run(inv: Invocation) -> int:
    opts = tio.options(inv, "bsw:", ["bytes", "spaces", "width="], numeric=True)
    width = 80
    for k, v in opts.items:
        if k in ("-w", "--width", "-NUM"):
            v = v or ""
            try:
                width = int(v)
            except ValueError:
                raise Exit(1, f"invalid number of columns: {tio.quote(v)}") from None
            if width < 1:
                raise Exit(1, f"invalid number of columns: {tio.quote(v)}: "
                           "Numerical result out of range")
    count_bytes = opts.has("-b", "--bytes")
    spaces = opts.has("-s", "--spaces")

    def fold(line: bytes) -> bytes:
        return _fold(line, width, count_bytes, spaces)

    return tio.each_input(inv, opts.operands, lambda f: tio.map_lines(inv, f, fold))


def _fold(line: bytes, w: int, count_bytes: bool, spaces: bool) -> bytes:
    if len(line) <= w and (count_bytes or len(line) <= w and not _SPECIAL.search(line)):
        return line
    if count_bytes or not _SPECIAL.search(line):
        out = []
        pos = 0
        n = len(line)
        while n - pos > w:
            seg = line[pos:pos + w]
            if spaces:
                i = max(seg.rfind(b" "), seg.rfind(b"\t"))
                if i >= 0:
                    out.append(seg[:i + 1])
                    pos += i + 1
                    continue
            out.append(seg)
            pos += w
        out.append(line[pos:])
        return b"\n".join(out)
    return _fold_slow(line, w, spaces)


def _adjust(col: int, c: int) -> int:
    if c == 8:
        return col - 1 if col > 0 else 0
    if c == 13:
        return 0
    if c == 9:
        return col + 8 - col % 8
    return col + 1


def _fold_slow(line: bytes, w: int, spaces: bool) -> bytes:
    """GNU's character loop, used only for lines holding tabs, backspaces or CRs."""
    out = bytearray()
    buf = bytearray()
    col = 0
    i = 0
    n = len(line)
    while i < n:
        c = line[i]
        col = _adjust(col, c)
        if col > w:
            if spaces:
                j = len(buf)
                while j > 0 and buf[j - 1] not in (32, 9):
                    j -= 1
                if j > 0:
                    out += buf[:j] + b"\n"
                    rest = buf[j:]
                    buf = bytearray(rest)
                    col = 0
                    for ch in buf:
                        col = _adjust(col, ch)
                    continue
            if not buf:
                buf.append(c)
                i += 1
                continue
            out += buf + b"\n"
            buf = bytearray()
            col = 0
            continue
        buf.append(c)
        i += 1
    out += buf
    return bytes(out)
