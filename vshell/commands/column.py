"""column (util-linux 2.38): columnate lists, or make a table with -t."""

from __future__ import annotations

import re
from typing import IO

from vshell.command import Exit, Invocation
from vshell.commands._lib import textio as tio
from vshell.commands._lib.width import char_width
from vshell.text.numarg import parse_count


def _width(s: str) -> int:
    if s.isascii() and s.isprintable():
        return len(s)
    return sum(max(char_width(c), 0) for c in s)


def run(inv: Invocation) -> int:
    opts = tio.options(inv, "tc:s:o:xL", ["table", "output-width=", "separator=",
                                         "output-separator=", "fillrows",
                                         "keep-empty-lines"])
    table = opts.has("-t", "--table")
    width_s = opts.last("-c", "--output-width")
    seps = opts.last("-s", "--separator")
    osep = opts.last("-o", "--output-separator", default="  ") or ""
    fillrows = opts.has("-x", "--fillrows")
    keep_empty = opts.has("-L", "--keep-empty-lines")
    if width_s is not None:
        termwidth = _columns_arg(width_s)
    else:
        env = inv.env.get("COLUMNS", "")
        parsed = parse_count(env) if env.isdigit() else None
        termwidth = parsed.value if parsed and parsed.value > 0 else 80
    lines: list[str] = []

    def collect(f: IO[bytes]) -> None:
        for rec in tio.records(inv, f):
            text = rec.decode("utf-8", "surrogateescape").rstrip("\n")
            if not text.strip() and not (keep_empty and table):
                if not text and not keep_empty:
                    continue
                if not text.strip() and not keep_empty:
                    continue
            lines.append(text)

    status = tio.each_input(inv, opts.operands, collect, read_error=None,
                            open_error=lambda name, e: f"{name}: {tio.strerror(e)}")
    out = _table(lines, seps, osep) if table else _columns(lines, termwidth, fillrows)
    inv.stdout.write(out.encode("utf-8", "surrogateescape"))
    return status


def _table(lines: list[str], seps: str | None, osep: str) -> str:
    rows: list[list[str]] = []
    for line in lines:
        if seps is None:
            cells = line.split() if line.strip() else [""]
        else:
            cells = re.split("[" + re.escape(seps) + "]", line)
        rows.append(cells)
    if not rows:
        return ""
    ncols = max(len(r) for r in rows)
    widths = [0] * ncols
    for r in rows:
        for i, c in enumerate(r):
            widths[i] = max(widths[i], _width(c))
    out = []
    for r in rows:
        cells = r + [""] * (ncols - len(r))
        parts = []
        for i, c in enumerate(cells):
            if i < ncols - 1:
                parts.append(c + " " * (widths[i] - _width(c)))
            else:
                parts.append(c)
        out.append(osep.join(parts) + "\n")
    return "".join(out)


def _columns_arg(text: str) -> int:
    """util-linux ``strtou32_or_err``: decimal, 0 to 2^32-1, else its two messages."""
    n = parse_count(text, limit=(1 << 32) - 1)
    if n is not None and not n.overflow:
        return n.value
    body = text.strip()
    if n is not None or (body.startswith("-") and body[1:].isdigit()):
        raise Exit(1, f"invalid columns argument: '{text}': Numerical result out of range")
    raise Exit(1, f"invalid columns argument: '{text}'")


def _columns(items: list[str], termwidth: int, fillrows: bool) -> str:
    if not items:
        return ""
    maxlen = max(_width(x) for x in items)
    maxlen = (maxlen + 8) & ~7
    numcols = min(termwidth // maxlen if maxlen else 1, len(items))
    if numcols <= 1:
        return "".join(x + "\n" for x in items)
    n = len(items)
    out = []

    def pad(item: str, last: bool) -> str:
        if last:
            return item
        w = _width(item)
        tabs = ""
        while w < maxlen:
            tabs += "\t"
            w = (w + 8) & ~7
        return item + tabs

    if fillrows:
        for start in range(0, n, numcols):
            row = items[start:start + numcols]
            out.append("".join(pad(x, i == len(row) - 1) for i, x in enumerate(row)) + "\n")
        return "".join(out)
    numrows = (n + numcols - 1) // numcols
    for r in range(numrows):
        row = [items[c * numrows + r] for c in range(numcols) if c * numrows + r < n]
        out.append("".join(pad(x, i == len(row) - 1) for i, x in enumerate(row)) + "\n")
    return "".join(out)
