"""rev: reverse the characters of each line (util-linux), UTF-8 aware."""

from __future__ import annotations

from typing import IO

from vshell.command import Invocation
from vshell.commands._lib import textio as tio


def run(inv: Invocation) -> int:
    opts = tio.options(inv, "0", ["zero"])
    eol = b"\0" if opts.has("-0", "--zero") else b"\n"
    def write_reversed(f: IO[bytes]) -> None:
        for batch in _batches(inv, f, eol):
            inv.stdout.write(batch)

    return tio.each_input(
        inv, opts.operands, write_reversed,
        open_error=lambda name, e: f"cannot open {name}: {tio.strerror(e)}",
        read_error=lambda name, e: f"{name}: {tio.strerror(e)}")

def _batches(inv: Invocation, f, eol: bytes):
    tail = b""
    for data in tio.chunks(inv, f):
        data = tail + data
        parts = data.split(eol)
        tail = parts.pop()
        if parts:
            yield eol.join(_rev(p) for p in parts) + eol
    if tail:
        yield _rev(tail)


def _rev(line: bytes) -> bytes:
    if line.isascii():
        return line[::-1]
    return line.decode("utf-8", "surrogateescape")[::-1].encode("utf-8", "surrogateescape")
