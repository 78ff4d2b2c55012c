"""cat: concatenate files to standard output (GNU coreutils ``cat``).

Without formatting flags the bytes are copied in 64 KiB chunks.  With ``-n -b -s -E -T -v``
the input is processed line by line; the numbering and squeezing state carries across
files exactly as GNU's does (a file without a final newline continues the same line).
"""

from __future__ import annotations

import codecs

from vshell.command import Invocation
from vshell.commands._lib.futil import CHUNK, quotef, strerror
from vshell.commands._lib.helptext import help_text
from vshell.commands._lib.opts import parse
from vshell.lazy import re

HELP = help_text("cat")

LONG = [
    "show-all",
    "number-nonblank",
    "show-ends",
    "number",
    "squeeze-blank",
    "show-tabs",
    "show-nonprinting",
]


def _caret_table(tabs: bool) -> list[bytes]:
    table: list[bytes] = []
    for c in range(256):
        prefix = b""
        if c >= 128:
            prefix, c2 = b"M-", c - 128
        else:
            c2 = c
        if c2 < 32:
            body = b"^" + bytes([c2 + 64])
        elif c2 == 127:
            body = b"^?"
        else:
            body = bytes([c2])
        table.append(prefix + body)
    table[9] = b"^I" if tabs else b"\t"
    table[10] = b"\n"
    return table


class _Formatter:
    """Line-oriented cat with GNU's state machine for numbering and squeezing."""

    def __init__(
        self, number: bool, nonblank: bool, squeeze: bool, ends: bool, tabs: bool, vis: bool
    ) -> None:
        self.number = number or nonblank
        self.nonblank = nonblank
        self.squeeze = squeeze
        self.ends = ends
        self.line = 0
        self.at_start = True
        self.blanks = 0
        self.pattern: re.Pattern[bytes] | None = None
        self.table: list[bytes] = []
        self.cmap: dict[int, str] = {}
        if vis:
            self.table = _caret_table(tabs)
            self.cmap = {i: t.decode("latin-1") for i, t in enumerate(self.table)}
            tab = b"\x09" if tabs else b""
            self.pattern = re.compile(rb"[\x00-\x08" + tab + rb"\x0b-\x1f\x7f-\xff]+")
        elif tabs:
            self.pattern = re.compile(rb"\t+")

    def _render(self, text: bytes) -> bytes:
        if self.pattern is None or not text:
            return text
        if self.table:
            # the charmap codec expands every byte to its ^X / M-X text at C speed
            return codecs.charmap_decode(text, "strict", self.cmap)[0].encode("latin-1")
        return self.pattern.sub(lambda m: b"^I" * len(m.group()), text)

    def feed(self, data: bytes, out: list[bytes]) -> None:
        pieces = data.split(b"\n")
        last = len(pieces) - 1
        for i, piece in enumerate(pieces):
            has_nl = i < last
            if not has_nl and not piece:
                break
            if self.at_start:
                if not piece and has_nl:
                    self.blanks += 1
                    if self.squeeze and self.blanks > 1:
                        continue
                    if self.number and not self.nonblank:
                        self.line += 1
                        out.append(b"%6d\t" % self.line)
                else:
                    self.blanks = 0
                    if self.number:
                        self.line += 1
                        out.append(b"%6d\t" % self.line)
            out.append(self._render(piece))
            if has_nl:
                out.append(b"$\n" if self.ends else b"\n")
                self.at_start = True
            else:
                self.at_start = False


# Each option and the display switches it turns on (-A, -e and -t are shorthands).
_SWITCHES: dict[str, tuple[str, ...]] = {
    "-A": ("vis", "ends", "tabs"), "--show-all": ("vis", "ends", "tabs"),
    "-b": ("nonblank",), "--number-nonblank": ("nonblank",),
    "-e": ("vis", "ends"),
    "-E": ("ends",), "--show-ends": ("ends",),
    "-n": ("number",), "--number": ("number",),
    "-s": ("squeeze",), "--squeeze-blank": ("squeeze",),
    "-t": ("vis", "tabs"),
    "-T": ("tabs",), "--show-tabs": ("tabs",),
    "-v": ("vis",), "--show-nonprinting": ("vis",),
}


def run(inv: Invocation) -> int:
    opts = parse(inv, "AbeEnstTuv", LONG, help_text=HELP)
    on: set[str] = set()
    for key, _ in opts.items:
        on.update(_SWITCHES.get(key, ()))
    number, nonblank, squeeze = "number" in on, "nonblank" in on, "squeeze" in on
    ends, tabs, vis = "ends" in on, "tabs" in on, "vis" in on
    fmt = None
    if number or nonblank or squeeze or ends or tabs or vis:
        fmt = _Formatter(number, nonblank, squeeze, ends, tabs, vis)
    status = 0
    for operand in opts.operands or ["-"]:
        try:
            _cat_one(inv, operand, fmt)
        except BrokenPipeError:
            raise
        except OSError as e:
            inv.error(f"{quotef(operand)}: {strerror(e)}")
            status = 1
    return status


def _cat_one(inv: Invocation, operand: str, fmt: _Formatter | None) -> None:
    if operand == "-":
        src = inv.stdin
        close = None
    else:
        src = inv.fs.open(inv.abs(operand), "rb")
        close = src
    try:
        write = inv.stdout.write
        while True:
            inv.cancel.check()
            data = src.read(CHUNK)
            if not data:
                break
            if fmt is None:
                write(data)
            else:
                out: list[bytes] = []
                fmt.feed(data, out)
                write(b"".join(out))
    finally:
        if close is not None:
            close.close()
