"""base64: encode or decode (RFC 4648) with GNU's wrapping and error handling."""

from __future__ import annotations

import binascii
import re

from vshell.command import Exit, Invocation
from vshell.commands._lib import textio as tio

_ALPHA = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_GARBAGE = bytes(b for b in range(256) if b not in _ALPHA + b"=")
_GROUPS = re.compile(rb"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")


def run(inv: Invocation) -> int:
    opts = tio.options(inv, "diw:", ["decode", "ignore-garbage", "wrap="])
    decode = opts.has("-d", "--decode")
    ignore = opts.has("-i", "--ignore-garbage")
    wrap = 76
    w = opts.last("-w", "--wrap")
    if w is not None:
        if not w.isdigit():
            raise Exit(1, f"invalid wrap size: {tio.quote(w)}")
        wrap = int(w)
    ops = opts.operands
    if len(ops) > 1:
        raise tio.usage_error(inv, f"extra operand {tio.quote(ops[1])}")
    name = ops[0] if ops else "-"
    try:
        f = tio.open_input(inv, name)
    except IsADirectoryError:
        raise Exit(1, "read error: Is a directory") from None
    except OSError as e:
        raise Exit(1, f"{tio.squote(name)}: {tio.strerror(e)}") from None
    try:
        if decode:
            return _decode(inv, f, ignore)
        _encode(inv, f, wrap)
    except IsADirectoryError:
        raise Exit(1, "read error: Is a directory") from None
    finally:
        tio.close_input(inv, f)
    return 0


def _encode(inv: Invocation, f, wrap: int) -> None:
    out = inv.stdout
    carry = b""
    pending = b""
    col = 0
    for data in tio.chunks(inv, f):
        data = carry + data
        cut = len(data) - len(data) % 3
        carry = data[cut:]
        enc = binascii.b2a_base64(data[:cut], newline=False)
        if wrap == 0:
            out.write(enc)
            continue
        pending += enc
        n = (len(pending) // wrap) * wrap
        if n:
            body = pending[:n]
            out.write(b"\n".join(body[i:i + wrap] for i in range(0, n, wrap)) + b"\n")
            pending = pending[n:]
    tail = pending + (binascii.b2a_base64(carry, newline=False) if carry else b"")
    if wrap == 0:
        out.write(tail)
        return
    if tail:
        out.write(b"\n".join(tail[i:i + wrap] for i in range(0, len(tail), wrap)) + b"\n")
    del col


def _decode(inv: Invocation, f, ignore: bool) -> int:
    out = inv.stdout
    buf = b""
    for data in tio.chunks(inv, f):
        buf += data.translate(None, _GARBAGE if ignore else b"\n")
        while buf:
            m = _GROUPS.match(buf)
            end = m.end() if m else 0
            if not end:
                break
            out.write(binascii.a2b_base64(buf[:end]))
            buf = buf[end:]
        if _bad(buf):
            return _fail(inv, buf)
    if buf:
        return _fail(inv, buf)
    return 0


def _bad(rest: bytes) -> bool:
    """True when ``rest`` (what follows the complete groups) can never become valid."""
    if len(rest) >= 4:
        return True
    return any(c not in _ALPHA for c in rest)


def _fail(inv: Invocation, rest: bytes) -> int:
    # decode the valid leading part of a broken group, as GNU does
    lead = b""
    for c in rest[:4]:
        if c in _ALPHA:
            lead += bytes([c])
        else:
            break
    if len(lead) >= 2:
        pad = lead[: (len(lead) // 4) * 4 + 4][:4]
        try:
            out = binascii.a2b_base64(pad + b"=" * (4 - len(pad)) if len(pad) < 4 else pad)
            inv.stdout.write(out[: (len(lead) * 6) // 8])
        except binascii.Error:
            pass
    raise Exit(1, "invalid input")
