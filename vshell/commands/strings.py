"""strings (GNU binutils): print the runs of printable characters in files."""

from __future__ import annotations

import re

from vshell.command import Exit, Invocation
from vshell.commands._lib import textio as tio
from vshell.text.numarg import UINTMAX_MAX, Count, parse_count

_RX_REPEAT_MAX = 65535


def _min_length(text: str) -> int:
    """binutils reads ``-n`` with ``strtoul`` (base 0) into an ``unsigned int``."""
    body = text.lstrip(" \t\n\v\f\r")
    neg = body.startswith("-")
    n = parse_count(body[1:] if body[:1] in "+-" else body, base=0) if body else None
    if n is None and body:
        raise Exit(1, f"invalid integer argument {text}")
    if n is None:
        n = Count(0)
    value = n.value if not neg or n.overflow else (-n.value) % (UINTMAX_MAX + 1)
    value &= 0xFFFFFFFF
    if value < 1:
        raise Exit(1, f"invalid minimum string length {value}")
    return value


def run(inv: Invocation) -> int:
    opts = tio.options(inv, "afn:t:owde:s:", [
        "all", "print-file-name", "bytes=", "radix=", "encoding=", "output-separator=",
        "include-all-whitespace", "data"], numeric=True)
    minlen = 4
    radix = None
    with_name = False
    sep = b"\n"
    whitespace = False
    for k, v in opts.items:
        if k in ("-n", "--bytes", "-NUM"):
            minlen = _min_length(v or "")
        elif k in ("-t", "--radix"):
            if v not in ("o", "d", "x"):
                raise Exit(1, f"invalid radix: {v}")
            radix = v
        elif k == "-o":
            radix = "o"
        elif k in ("-f", "--print-file-name"):
            with_name = True
        elif k in ("-s", "--output-separator"):
            sep = (v or "").encode("utf-8", "surrogateescape")
        elif k in ("-w", "--include-all-whitespace"):
            whitespace = True
        elif k in ("-e", "--encoding"):
            if v != "s":
                raise Exit(1, "only the default encoding (-e s) is supported by vshell")
    chars = rb"[\x20-\x7e\t\n\r\x0b\x0c]" if whitespace else rb"[\x20-\x7e\t]"
    # the regex engine's repeat counts are bounded; longer minimums filter its matches
    rx = re.compile(chars + b"{%d,}" % min(minlen, _RX_REPEAT_MAX))
    printable = bytes(range(0x20, 0x7F)) + (b"\t\n\r\x0b\x0c" if whitespace else b"\t")
    status = 0
    for name in opts.operands or ["-"]:
        try:
            f = tio.open_input(inv, name)
        except IsADirectoryError:
            inv.stderr.write(f"strings: Warning: '{name}' is a directory\n".encode())
            status = 1
            continue
        except OSError:
            inv.stderr.write(f"strings: '{name}': No such file\n".encode(
                "utf-8", "surrogateescape"))
            status = 1
            continue
        prefix = (("{standard input}" if name == "-" else name) + ": ").encode(
            "utf-8", "surrogateescape") if with_name else b""
        try:
            base = 0
            carry = b""
            for data in tio.chunks(inv, f):
                data = carry + data
                # a run touching the chunk end may continue in the next chunk
                cut = len(data.rstrip(printable))
                body, carry = data[:cut], data[cut:]
                _emit(inv, rx, minlen, body, base, radix, prefix, sep)
                base += len(body)
            if carry:
                _emit(inv, rx, minlen, carry, base, radix, prefix, sep)
        finally:
            tio.close_input(inv, f)
    return status


def _emit(inv: Invocation, rx: re.Pattern[bytes], minlen: int, data: bytes, base: int,
          radix: str | None, prefix: bytes, sep: bytes) -> None:
    if minlen > _RX_REPEAT_MAX:
        if len(data) < minlen:
            return
        matches = [m for m in rx.finditer(data) if len(m.group(0)) >= minlen]
    elif radix is None and not prefix:
        found = rx.findall(data)
        if found:
            inv.stdout.write(sep.join(found) + sep)
        return
    else:
        matches = list(rx.finditer(data))
    out = []
    for m in matches:
        off = b""
        if radix is not None:
            pos = base + m.start()
            off = (("%7o " if radix == "o" else "%7d " if radix == "d" else "%7x ") % pos).encode()
        out.append(prefix + off + m.group(0) + sep)
    if out:
        inv.stdout.write(b"".join(out))
