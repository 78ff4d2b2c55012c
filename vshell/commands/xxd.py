"""xxd: hex dump (and reverse) in the format of vim's xxd 2022-01-14."""

from __future__ import annotations

import re
from typing import Any

from vshell.command import Exit, Invocation
from vshell.commands._lib import textio as tio
from vshell.commands._lib.helptext import help_text

_USAGE = help_text("xxd")
_VALUED = {"c": "cols", "g": "groupsize", "l": "len", "n": "name", "o": "offset", "s": "seek"}


def _usage(inv: Invocation) -> Exit:
    inv.stderr.write(_USAGE.encode())
    return Exit(1)


def _int(text: str) -> int:
    m = re.match(r"\s*([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9]\d*)", text)
    if not m:
        return 0
    body = m.group(2)
    if body.lower().startswith("0x"):
        n = int(body, 16)
    elif body.startswith("0") and len(body) > 1:
        n = int(body, 8)
    else:
        n = int(body)
    return -n if m.group(1) == "-" else n


def run(inv: Invocation) -> int:
    args = list(inv.args)
    o: dict[str, object] = {"a": False, "b": False, "C": False, "d": False, "e": False,
                            "i": False, "p": False, "r": False, "u": False}
    vals: dict[str, str] = {}
    files: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        i += 1
        if a == "-" or not a.startswith("-") or len(a) == 1:
            files.append(a)
            continue
        if a == "--":
            files.extend(args[i:])
            break
        c = a[1]
        if c in _VALUED:
            full = "-" + _VALUED[c]
            if a[2:] and not full.startswith(a) and not (c == "s" and a == "-seek"):
                value = a[2:]
            else:
                if i >= len(args):
                    raise _usage(inv)
                value = args[i]
                i += 1
            vals[c] = value
        elif c == "p" or a in ("-ps", "-postscript", "-plain"):
            o["p"] = True
        elif c in "abCdeiru" and (len(a) == 2 or a[1:] in (
                "autoskip", "bits", "capitalize", "decimal", "include", "revert", "uppercase")):
            o[c] = True
        elif c == "h":
            raise _usage(inv)
        elif c == "v":
            inv.stderr.write(b"xxd 2022-01-14 by Juergen Weigert et al.\n")
            return 0
        elif c == "E":
            raise Exit(1, "-E (EBCDIC) is not supported by vshell")
        else:
            raise _usage(inv)
    if len(files) > 2:
        raise _usage(inv)
    src = files[0] if files else "-"
    dst = files[1] if len(files) > 1 else None
    try:
        f = tio.open_input(inv, src)
    except OSError as e:
        inv.stderr.write(f"xxd: {src}: {tio.strerror(e)}\n".encode("utf-8", "surrogateescape"))
        return 2
    out_f = None
    if dst is not None and dst != "-":
        try:
            out_f = inv.fs.open(inv.abs(dst), "wb" if not o["r"] else "r+b"
                                if inv.fs.exists(inv.abs(dst)) else "wb")
        except OSError as e:
            inv.stderr.write(f"xxd: {dst}: {tio.strerror(e)}\n".encode())
            return 2
    out = out_f or inv.stdout
    try:
        if o["r"]:
            return _revert(inv, f, out, bool(o["p"]), _int(vals.get("s", "0")),
                           out_f is not None)
        return _dump(inv, f, out, o, vals, src)
    finally:
        tio.close_input(inv, f)
        if out_f is not None:
            out_f.close()


def _dump(inv: Invocation, f, out, o: dict[str, object], vals: dict[str, str], src: str) -> int:
    plain, include, bits, little = bool(o["p"]), bool(o["i"]), bool(o["b"]), bool(o["e"])
    cols = _int(vals["c"]) if "c" in vals else 0
    if cols <= 0:
        cols = 30 if plain else 12 if include else 6 if bits else 16
    if cols > 256 and not plain:
        raise Exit(1, "invalid number of columns (max. 256).")
    group = _int(vals["g"]) if "g" in vals else (1 if bits else 4 if little else 2)
    if group <= 0 or group > cols:
        group = cols
    length = _int(vals["l"]) if "l" in vals else None
    disp = _int(vals["o"]) if "o" in vals else 0
    seek = 0
    if "s" in vals:
        s = vals["s"].strip()
        rel = s.startswith("+")
        seek = _int(s.lstrip("+"))
        if seek < 0 or (s.startswith("+-")):
            if f is inv.stdin:
                inv.stderr.write(b"xxd: Sorry, cannot seek.\n")
                raise Exit(4)
            try:
                end = f.seek(0, 2)
            except (OSError, AttributeError, ValueError):
                inv.stderr.write(b"xxd: Sorry, cannot seek.\n")
                raise Exit(4) from None
            if end + seek < 0:
                inv.stderr.write(b"xxd: Sorry, cannot seek.\n")
                raise Exit(4)
            seek = end + seek
            f.seek(seek)
        elif seek:
            try:
                f.seek(seek, 1 if rel else 0)
            except (OSError, AttributeError, ValueError):
                left = seek
                while left:
                    d = f.read(min(left, tio.CHUNK))
                    if not d:
                        break
                    left -= len(d)
    hexd = "%02X" if o["u"] else "%02x"
    data_iter = _limited(inv, f, length)
    if plain:
        buf = b""
        lines = []
        for data in data_iter:
            buf += data
            n = len(buf) - len(buf) % cols
            for k in range(0, n, cols):
                h = buf[k:k + cols].hex()
                lines.append(h.upper() if o["u"] else h)
            buf = buf[n:]
            out.write("".join(x + "\n" for x in lines).encode())
            lines = []
        if buf:
            h = buf.hex()
            out.write(((h.upper() if o["u"] else h) + "\n").encode())
        return 0
    if include:
        name = None
        if src != "-" or "n" in vals:
            name = vals.get("n") or re.sub(r"[^A-Za-z0-9]", "_", src)
            if name[:1].isdigit() and "n" not in vals:
                name = "__" + name
            if o["C"]:
                name = name.upper()
            out.write(f"unsigned char {name}[] = {{\n".encode())
        total = 0
        buf = b""
        first = True
        fmt = "0x%02X" if o["u"] else "0x%02x"
        for data in data_iter:
            buf += data
            n = len(buf) - len(buf) % cols
            chunk = []
            for k in range(0, n, cols):
                chunk.append(("" if first else ",\n") + "  " + ", ".join(
                    fmt % b for b in buf[k:k + cols]))
                first = False
            total += n
            buf = buf[n:]
            out.write("".join(chunk).encode())
        if buf:
            out.write((("" if first else ",\n") + "  " + ", ".join(fmt % b for b in buf)).encode())
            total += len(buf)
            first = False
        if not first:
            out.write(b"\n")
        if name is not None:
            suffix = "_LEN" if o["C"] else "_len"
            out.write(f"}};\nunsigned int {name}{suffix} = {total};\n".encode())
        return 0
    # normal dump
    addr = seek + disp
    afmt = "%08d: " if o["d"] else "%08x: "
    per = 9 if bits else 2
    groups = (cols + group - 1) // group
    hexwidth = cols * (8 if bits else 2) + groups
    state: dict[str, Any] = {"zero": 0, "saved": ""}  # a zero-line count and the line held
    res: list[str] = []

    def line_for(chunk: bytes, a: int) -> str:
        parts = []
        for g0 in range(0, len(chunk), group):
            grp = chunk[g0:g0 + group]
            if bits:
                s = " ".join(format(b, "08b") for b in grp).replace(" ", "")
                s = "".join(format(b, "08b") for b in grp)
            else:
                s = "".join(hexd % b for b in (reversed(grp) if little else grp))
            if little and len(grp) < group:
                s = s.rjust(group * (8 if bits else 2))
            parts.append(s)
        hx = " ".join(parts)
        if bits:
            hx = " ".join(parts)
        hx = hx.ljust(hexwidth)
        asc = "".join(chr(b) if 32 <= b < 127 else "." for b in chunk)
        return afmt % a + hx + " " + asc + "\n"

    def emit(line: str, nz: int) -> None:
        if o["a"] and nz == 0 and state["zero"] == 1:
            state["saved"] = line
        if nz or state["zero"] == 0:
            if not nz:
                state["zero"] += 1
            if nz:
                if nz < 0:
                    state["zero"] -= 1
                if state["zero"] == 2:
                    res.append(state["saved"])
                if state["zero"] > 2:
                    res.append("*\n")
            if nz >= 0 or state["zero"] > 0:
                res.append(line)
            if nz:
                state["zero"] = 0
        else:
            state["zero"] += 1

    del per
    buf = b""
    last = ""
    for data in data_iter:
        buf += data
        n = len(buf) - len(buf) % cols
        for k in range(0, n, cols):
            chunk = buf[k:k + cols]
            last = line_for(chunk, addr)
            emit(last, (1 if any(chunk) else 0) if o["a"] else 1)
            addr += cols
        buf = buf[n:]
        if res:
            out.write("".join(res).encode())
            res.clear()
    if buf:
        emit(line_for(buf, addr), 1)
    elif o["a"]:
        emit(last, -1)
    out.write("".join(res).encode())
    return 0


def _limited(inv: Invocation, f, length: int | None):
    left = length
    for data in tio.chunks(inv, f):
        if left is not None:
            if left <= 0:
                return
            data = data[:left]
            left -= len(data)
        yield data


def _revert(inv: Invocation, f, out, plain: bool, offset: int, seekable: bool) -> int:
    data = b"".join(tio.chunks(inv, f)).decode("latin-1")
    pos = 0
    if plain:
        digits = re.sub(r"[^0-9a-fA-F]", "", data)
        out.write(bytes.fromhex(digits[: len(digits) // 2 * 2]))
        return 0
    for line in data.splitlines():
        m = re.match(r"\s*([0-9a-fA-F]+):", line)
        if not m:
            continue
        addr = int(m.group(1), 16) + offset
        body = line[m.end():]
        cut = body.find("  ")
        if cut >= 0:
            body = body[:cut]
        digits = re.sub(r"\s", "", body)
        mm = re.match(r"[0-9a-fA-F]*", digits)
        digits = mm.group(0) if mm else ""
        raw = bytes.fromhex(digits[: len(digits) // 2 * 2])
        if addr > pos:
            if seekable:
                out.seek(addr)
            else:
                out.write(b"\0" * (addr - pos))
            pos = addr
        elif addr < pos and seekable:
            out.seek(addr)
            pos = addr
        out.write(raw)
        pos += len(raw)
    return 0
