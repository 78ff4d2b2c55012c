"""od: dump bytes in octal, hex, decimal, float and character formats (GNU layout).

Fields of several types line up the way GNU spreads padding; repeated lines collapse
to ``*`` unless ``-v``.  Input streams through in blocks of ``-w`` bytes.
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Iterator

from vshell.command import Exit, Invocation
from vshell.commands._lib import textio as tio
from vshell.records import record

_NAMES = ("nul soh stx etx eot enq ack bel bs ht nl vt ff cr so si dle dc1 dc2 dc3 dc4 nak syn "
          "etb can em sub esc fs gs rs us sp").split()
_CESC = {0: "\\0", 7: "\\a", 8: "\\b", 12: "\\f", 10: "\\n", 13: "\\r", 9: "\\t", 11: "\\v"}
_INT_WIDTH = {("o", 1): 3, ("o", 2): 6, ("o", 4): 11, ("o", 8): 22,
              ("x", 1): 2, ("x", 2): 4, ("x", 4): 8, ("x", 8): 16,
              ("d", 1): 4, ("d", 2): 6, ("d", 4): 11, ("d", 8): 20,
              ("u", 1): 3, ("u", 2): 5, ("u", 4): 10, ("u", 8): 20}
_SIZES = {"C": 1, "S": 2, "I": 4, "L": 8}
_FSIZES = {"F": 4, "D": 8, "L": 16}


@record
class Spec:
    kind: str  # o x d u f a c
    size: int
    width: int  # field width without padding
    trailer: bool = False
    pad: int = 0


def _parse_type(inv: Invocation, text: str) -> list[Spec]:
    specs = []
    s = text
    while s:
        c = s[0]
        s = s[1:]
        if c in "aс" or c == "a" or c == "c":
            sp = Spec(c, 1, 3)
        elif c in "doux":
            size = 4
            m = re.match(r"\d+", s)
            if m:
                size = int(m.group(0))
                s = s[m.end():]
                if size not in (1, 2, 4, 8):
                    raise Exit(1, f"invalid type string {tio.quote(text)};\nthis system doesn't "
                               f"provide a {size}-byte integral type")
            elif s[:1] in _SIZES:
                size = _SIZES[s[0]]
                s = s[1:]
            sp = Spec(c, size, _INT_WIDTH[(c, size)])
        elif c == "f":
            size = 8
            m = re.match(r"\d+", s)
            if m:
                size = int(m.group(0))
                s = s[m.end():]
                if size not in (4, 8, 16):
                    raise Exit(1, f"invalid type string {tio.quote(text)};\nthis system doesn't "
                               f"provide a {size}-byte floating point type")
            elif s[:1] in _FSIZES:
                size = _FSIZES[s[0]]
                s = s[1:]
            if size == 16:
                raise Exit(1, "long double output (-t fL) is not supported by vshell")
            sp = Spec("f", size, 15 if size == 4 else 24)
        else:
            raise Exit(1, f"invalid character '{c}' in type string {tio.quote(text)}")
        if s.startswith("z"):
            sp.trailer = True
            s = s[1:]
        specs.append(sp)
    return specs


def _fmt_float(x: float, size: int) -> str:
    if math.isnan(x):
        return "-nan" if math.copysign(1, x) < 0 else "nan"
    if math.isinf(x):
        return "-inf" if x < 0 else "inf"
    tiny = 1.1754943508222875e-38 if size == 4 else 2.2250738585072014e-308
    start = 1 if abs(x) < tiny else (6 if size == 4 else 15)
    for p in range(start, 20):
        s = f"{x:.{p}g}"
        v = float(s)
        if size == 4:
            v = struct.unpack("<f", struct.pack("<f", v))[0]
        if v == x:
            return s
    return repr(x)


def _render(sp: Spec, block: bytes) -> list[str]:
    n = len(block) // sp.size
    if sp.kind == "c":
        out = []
        for b in block:
            if b in _CESC:
                out.append(_CESC[b])
            elif 32 <= b < 127:
                out.append(chr(b))
            else:
                out.append(f"{b:03o}")
        return out
    if sp.kind == "a":
        out = []
        for b in block:
            b &= 0x7F
            out.append(_NAMES[b] if b <= 32 else ("del" if b == 127 else chr(b)))
        return out
    if sp.kind == "f":
        vals = struct.unpack(f"<{n}{'f' if sp.size == 4 else 'd'}", block[: n * sp.size])
        return [_fmt_float(v, sp.size) for v in vals]
    code = {1: "b", 2: "h", 4: "i", 8: "q"}[sp.size]
    if sp.kind != "d":
        code = code.upper()
    vals = struct.unpack(f"<{n}{code}", block[: n * sp.size])
    if sp.kind == "o":
        return [f"{v:0{sp.width}o}" for v in vals]
    if sp.kind == "x":
        return [f"{v:0{sp.width}x}" for v in vals]
    return [str(v) for v in vals]


def run(inv: Invocation) -> int:
    opts = tio.options(inv, "A:j:N:t:vw::abcdfhilosxDeFHIOLSX", [
        "address-radix=", "skip-bytes=", "read-bytes=", "format=", "output-duplicates",
        "width=?", "traditional", "endian="])
    radix = "o"
    skip = 0
    limit: int | None = None
    specs: list[Spec] = []
    verbose = False
    width: int | None = None
    legacy = {"-a": "a", "-b": "o1", "-c": "c", "-d": "u2", "-f": "fF", "-i": "dI", "-l": "dL",
              "-o": "o2", "-s": "d2", "-x": "x2", "-D": "u4", "-e": "fD", "-F": "fD",
              "-h": "x2", "-H": "x4", "-I": "dL", "-L": "dL", "-O": "o4", "-X": "x4"}
    for k, v in opts.items:
        if k in ("-A", "--address-radix"):
            if not v or len(v) != 1 or v not in "doxn":
                raise Exit(1, f"invalid output address radix '{v}'; it must be one character "
                           "from [doxn]")
            radix = v
        elif k in ("-j", "--skip-bytes"):
            n = _num(v or "")
            if n is None:
                raise Exit(1, f"invalid -j argument {tio.quote(v or '')}")
            skip = n
        elif k in ("-N", "--read-bytes"):
            n = _num(v or "")
            if n is None:
                raise Exit(1, f"invalid -N argument {tio.quote(v or '')}")
            limit = n
        elif k in ("-t", "--format"):
            specs.extend(_parse_type(inv, v or ""))
        elif k in ("-v", "--output-duplicates"):
            verbose = True
        elif k in ("-w", "--width"):
            if v is None:
                width = 32
            else:
                n = _num(v)
                if n is None or n == 0:
                    raise Exit(1, f"invalid -w argument {tio.quote(v)}")
                width = n
        elif k == "-S":
            raise Exit(1, "option -S is not supported by vshell")
        elif k in legacy:
            specs.extend(_parse_type(inv, legacy[k]))
        elif k in ("--traditional", "--endian"):
            raise Exit(1, f"option {k} is not supported by vshell")
    if not specs:
        specs = _parse_type(inv, "o2")
    lcm = 1
    for sp in specs:
        lcm = lcm * sp.size // math.gcd(lcm, sp.size)
    if width is None:
        bpb = max(16, lcm) if 16 % lcm == 0 else lcm * (16 // lcm or 1)
    else:
        bpb = width
        if width % lcm:
            inv.error(f"warning: invalid width {width}; using {lcm} instead")
            bpb = lcm
    wpb = max((sp.width + 1) * (bpb // sp.size) for sp in specs)
    for sp in specs:
        sp.pad = wpb - sp.width * (bpb // sp.size)
    addr_w = {"o": 7, "d": 7, "x": 6, "n": 0}[radix]

    def addr(n: int) -> str:
        if radix == "o":
            return f"{n:07o}"
        if radix == "d":
            return f"{n:07d}"
        if radix == "x":
            return f"{n:06x}"
        return ""

    source = tio.Concatenated(
        inv, opts.operands or ["-"],
        open_error=lambda name, e: f"{tio.squote(name)}: {tio.strerror(e)}",
        read_error=lambda name, e: f"{tio.squote(name)}: read error: {tio.strerror(e)}")
    stream = iter(source)
    # skip
    left = skip
    pending = b""
    if left:
        for data in stream:
            if len(data) > left:
                pending = data[left:]
                left = 0
                break
            left -= len(data)
        if left:
            inv.error("cannot skip past end of combined input")
            return 1
    offset = skip
    prev: bytes | None = None
    starred = False
    out: list[str] = []
    remaining = limit

    def blocks() -> Iterator[bytes]:
        nonlocal pending, remaining
        buf = pending
        for data in _chain(buf, stream):
            buf = data if buf is data else buf + data if buf else data
            while len(buf) >= bpb:
                blk = buf[:bpb]
                buf = buf[bpb:]
                if remaining is not None:
                    if remaining <= 0:
                        return
                    if len(blk) > remaining:
                        yield blk[:remaining]
                        remaining = 0
                        return
                    remaining -= len(blk)
                yield blk
            if remaining is not None and remaining <= 0:
                return
        if buf:
            if remaining is not None:
                buf = buf[:remaining]
            if buf:
                yield buf

    for blk in blocks():
        if not verbose and prev is not None and blk == prev and len(blk) == bpb:
            if not starred:
                out.append("*\n")
                starred = True
            offset += len(blk)
            continue
        starred = False
        prev = blk
        for i, sp in enumerate(specs):
            n_fields = (len(blk) + sp.size - 1) // sp.size
            data = blk + b"\0" * (n_fields * sp.size - len(blk))
            vals = _render(sp, data)
            line = [addr(offset) if i == 0 else " " * addr_w]
            fields = bpb // sp.size
            pad_rem = sp.pad
            for j, v in enumerate(vals):
                ii = fields - j
                nxt = sp.pad * (ii - 1) // fields
                line.append(v.rjust(sp.width + pad_rem - nxt))
                pad_rem = nxt
            if sp.trailer:
                blank = 0
                for j in range(len(vals), fields):
                    ii = fields - j
                    nxt = sp.pad * (ii - 1) // fields
                    blank += sp.width + pad_rem - nxt
                    pad_rem = nxt
                line.append(" " * blank)
                line.append("  >" + "".join(chr(b) if 32 <= b < 127 else "." for b in blk) + "<")
            out.append("".join(line) + "\n")
        offset += len(blk)
        if len(out) > 256:
            inv.stdout.write("".join(out).encode())
            out = []
    if radix != "n":
        out.append(addr(offset) + "\n")
    inv.stdout.write("".join(out).encode())
    return source.status


def _chain(first: bytes, rest: Iterator[bytes]) -> Iterator[bytes]:
    if first:
        yield first
    yield from rest


def _num(v: str) -> int | None:
    s = v.strip()
    try:
        if s.lower().startswith("0x"):
            return int(s[2:], 16)
        if s.startswith("0") and len(s) > 1 and s.isdigit():
            return int(s, 8)
    except ValueError:
        return None
    return tio.parse_size(s)
