"""expand and unexpand: convert tabs to spaces and back, with GNU's tab-stop lists."""

from __future__ import annotations

import re
from collections.abc import Callable

from vshell.command import Exit, Invocation
from vshell.commands._lib import textio as tio
from vshell.text.numarg import UINTMAX_MAX

_MAX_PAD = 1 << 30  # bytes of spaces one tab may become


class Stops:
    def __init__(self) -> None:
        self.size = 0
        self.stops: list[int] = []
        self.extend = 0
        self.increment = 0

    def add(self, inv: Invocation, spec: str) -> None:
        for item in re.split(r"[,\s]+", spec):
            if item == "":
                continue
            prefix = ""
            if item[0] in "/+":
                prefix, item = item[0], item[1:]
            if not item.isdigit():
                bad = item if prefix == "" else prefix + item
                raise Exit(1, f"tab size contains invalid character(s): {tio.quote(bad)}")
            n = int(item)
            if n > UINTMAX_MAX:
                raise Exit(1, f"tab stop is too large {tio.quote(item)}")
            if prefix == "/":
                self.extend = n
                continue
            if prefix == "+":
                self.increment = n
                continue
            if n == 0:
                raise Exit(1, "tab size cannot be 0")
            if self.stops and n <= self.stops[-1]:
                raise Exit(1, "tab sizes must be ascending")
            self.stops.append(n)

    def finish(self) -> None:
        if len(self.stops) == 1 and not (self.extend or self.increment):
            self.size = self.stops[0]
            self.stops = []
        elif not self.stops and not (self.extend or self.increment):
            self.size = 8

    def next(self, col: int, idx: list[int]) -> int | None:
        if self.size:
            return col + self.size - col % self.size
        while idx[0] < len(self.stops):
            t = self.stops[idx[0]]
            if col < t:
                return t
            idx[0] += 1
        if self.extend:
            return col + self.extend - col % self.extend
        if self.increment:
            end = self.stops[-1] if self.stops else 0
            return col + self.increment - (col - end) % self.increment
        return None


def _parse(inv: Invocation, unexpand: bool):
    short = "it:" if not unexpand else "at:"
    long = ["initial", "tabs="] if not unexpand else ["all", "first-only", "tabs="]
    opts = tio.options(inv, short + "0123456789", long)
    stops = Stops()
    legacy = ""
    for k, v in opts.items:
        if k in ("-t", "--tabs"):
            if legacy:
                stops.add(inv, legacy)
                legacy = ""
            stops.add(inv, v or "")
        elif len(k) == 2 and k[1].isdigit():
            legacy += k[1]
        elif legacy:
            stops.add(inv, legacy)
            legacy = ""
    if legacy:
        stops.add(inv, legacy)
    stops.finish()
    return opts, stops


def expand(inv: Invocation) -> int:
    opts, stops = _parse(inv, False)
    initial = opts.has("-i", "--initial")
    return _each(inv, opts.operands, lambda line: _expand_line(line, stops, initial))


def _expand_line(line: bytes, stops: Stops, initial: bool) -> bytes:
    if b"\t" not in line and b"\b" not in line:
        return line
    out = bytearray()
    col = 0
    idx = [0]
    convert = True
    for tok in re.split(rb"([\t\b])", line):
        if not tok:
            continue
        if tok == b"\t" and convert:
            nxt = stops.next(col, idx)
            if nxt is None:
                nxt = col + 1
            if nxt - col > _MAX_PAD:  # GNU would write spaces for hours; refuse instead
                raise Exit(1, f"tab stop too large to expand (vshell pads at most {_MAX_PAD})")
            out += b" " * (nxt - col)
            col = nxt
            continue
        if tok == b"\b":
            col = col - 1 if col > 0 else 0
            out += tok
            continue
        out += tok
        col += len(tok)
        if initial and tok.strip(b" "):
            convert = False
        elif initial and tok == b"\t":
            pass
    return bytes(out)


def unexpand(inv: Invocation) -> int:
    opts, stops = _parse(inv, True)
    all_blanks = opts.has("-a", "--all") or opts.has("-t", "--tabs")
    if opts.has("--first-only"):
        all_blanks = False
    return _each(inv, opts.operands, lambda line: _unexpand_line(line, stops, all_blanks))


def _unexpand_line(line: bytes, stops: Stops, entire: bool) -> bytes:
    """GNU unexpand's state machine over one line (runs of non-blanks copied in bulk)."""
    if b"\t" not in line and b"  " not in line:
        return line
    out = bytearray()
    pending = bytearray()
    col = 0
    idx = [0]
    convert = True
    prev_blank = False
    one_before = False
    for m in re.finditer(rb"[ \t\b]|[^ \t\b]+", line):
        tok = m.group(0)
        if not convert:
            out += line[m.start():]
            return bytes(out)
        c = tok[0]
        blank = c in (32, 9) and len(tok) == 1
        if blank:
            nxt = stops.next(col, idx)
            if nxt is None:
                convert = False
            else:
                if c == 9:
                    col = nxt
                    if pending:
                        pending[0] = 9
                else:
                    col += 1
                    if not (prev_blank and col == nxt):
                        if col == nxt:
                            one_before = True
                        pending.append(c)
                        prev_blank = True
                        continue
                    if pending:
                        pending[0] = 9
                    tok = b"\t"
                pending = pending[:1] if one_before else bytearray()
        elif c == 8 and len(tok) == 1:
            col = col - 1 if col > 0 else 0
        else:
            col += len(tok)
        if pending:
            if len(pending) > 1 and one_before:
                pending[0] = 9
            out += pending
            pending = bytearray()
            one_before = False
        prev_blank = blank
        convert = convert and (entire or blank)
        out += tok
    if pending:
        if len(pending) > 1 and one_before:
            pending[0] = 9
        out += pending
    return bytes(out)


def _each(inv: Invocation, names: list[str], fn: Callable[[bytes], bytes]) -> int:
    return tio.each_input(inv, names, lambda f: tio.map_lines(inv, f, fn))
