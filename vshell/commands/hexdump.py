"""hexdump (util-linux): the default, -C, -x, -c, -b, -d and -o displays, -n, -s, -v."""

from __future__ import annotations

import struct

from vshell.command import Exit, Invocation
from vshell.commands._lib import textio as tio

_CESC = {0: " \\0", 7: " \\a", 8: " \\b", 12: " \\f", 10: " \\n", 13: " \\r", 9: " \\t",
         11: " \\v"}


def _fmt_line(kind: str, blk: bytes) -> str:
    if kind == "C":
        hx = " ".join(f"{b:02x}" for b in blk[:8])
        if len(blk) > 8:
            hx += "  " + " ".join(f"{b:02x}" for b in blk[8:])
        hx = hx.ljust(48)
        asc = "".join(chr(b) if 32 <= b < 127 else "." for b in blk)
        return "  " + hx + "  |" + asc + "|"
    if kind in ("c", "b"):
        parts = []
        for b in blk:
            if kind == "b":
                parts.append(f" {b:03o}")
            elif b in _CESC:
                parts.append(" " + _CESC[b])
            elif 32 <= b < 127:
                parts.append("   " + chr(b))
            else:
                parts.append(f" {b:03o}")
        return "".join(parts).ljust(64)
    data = blk + b"\0" * (len(blk) % 2)
    words = struct.unpack(f"<{len(data) // 2}H", data)
    if kind == "default":
        return "".join(f" {w:04x}" for w in words).ljust(40)
    if kind == "x":
        return "".join(f"    {w:04x}" for w in words).ljust(64)
    if kind == "d":
        return "".join(f"   {w:05d}" for w in words).ljust(64)
    return "".join(f"  {w:06o}" for w in words).ljust(64)


# The display options and the kind of line each adds (in the order given).
_KIND_OF = {
    "-C": "C", "--canonical": "C",
    "-x": "x", "--two-bytes-hex": "x",
    "-c": "c", "--one-byte-char": "c",
    "-b": "b", "--one-byte-octal": "b",
    "-d": "d", "--two-bytes-decimal": "d",
    "-o": "o", "--two-bytes-octal": "o",
}


def run(inv: Invocation) -> int:
    opts = tio.options(inv, "bcCdn:os:vxL::e:f:", [
        "one-byte-octal", "one-byte-char", "canonical", "two-bytes-decimal", "length=",
        "two-bytes-octal", "skip=", "no-squeezing", "two-bytes-hex", "color=?", "format=",
        "format-file="])
    kinds: list[str] = []
    length = None
    skip = 0
    verbose = False
    for k, v in opts.items:
        if k in _KIND_OF:
            kinds.append(_KIND_OF[k])
        elif k in ("-n", "--length"):
            length = tio.parse_size(v or "")
            if length is None:
                raise Exit(1, f"failed to parse length: '{v}'")
        elif k in ("-s", "--skip"):
            n = tio.parse_size(v or "")
            if n is None:
                raise Exit(1, f"failed to parse offset: '{v}'")
            skip = n
        elif k in ("-v", "--no-squeezing"):
            verbose = True
        elif k in ("-e", "--format", "-f", "--format-file"):
            raise Exit(1, "custom formats (-e/-f) are not supported by vshell")
    kinds = kinds or ["default"]
    names = opts.operands or ["-"]
    source = tio.Concatenated(inv, names,
                              open_error=lambda name, e: f"{name}: {tio.strerror(e)}")

    if length == 0:
        return 0
    canon = kinds[-1] == "C"
    addr_fmt = "%08x" if canon else "%07x"
    out: list[str] = []
    offset = skip
    prev = None
    starred = False
    buf = b""
    left = length
    to_skip = skip

    def emit(blk: bytes) -> None:
        nonlocal prev, starred, offset
        if not verbose and prev == blk and len(blk) == 16:
            if not starred:
                out.append("*\n")
                starred = True
            offset += 16
            return
        starred = False
        prev = blk
        for kind in kinds:
            out.append(("%08x" if kind == "C" else "%07x") % offset + _fmt_line(kind, blk)
                       + "\n")
        offset += len(blk)

    offset = 0
    for data in source:
        if to_skip:
            if len(data) <= to_skip:
                to_skip -= len(data)
                offset += len(data)
                continue
            offset += to_skip
            data = data[to_skip:]
            to_skip = 0
        if left is not None:
            data = data[:left]
            left -= len(data)
        buf += data
        n = len(buf) - len(buf) % 16
        for i in range(0, n, 16):
            emit(buf[i:i + 16])
        buf = buf[n:]
        if len(out) > 512:
            inv.stdout.write("".join(out).encode())
            out.clear()
        if left == 0:
            break
    if buf:
        emit(buf)
    if source.unopened == len(names):
        inv.stdout.write("".join(out).encode())
        inv.error("all input file arguments failed")
        return 1
    if offset and length != 0:
        out.append(addr_fmt % offset + "\n")
    inv.stdout.write("".join(out).encode())
    return source.status
