"""Helpers shared by the file commands: GNU's file-name quoting, error text, sizes, reading.

GNU coreutils quote names in diagnostics in two ways: ``quotef``/``quoteaf`` use the
shell-escape style (``'a b'``, ``'x'$'\\n''y'``) and ``quote`` uses the locale style, which
in a UTF-8 locale is ``‘name’`` with C escapes.  Which one a message uses is per tool and per
message, so each command picks the helper matching GNU's output.
"""

from __future__ import annotations

import errno
import os
import unicodedata
from collections.abc import Iterator

from vshell.command import Invocation

CHUNK = 65536

# Characters that force quoting in GNU's shell-escape style (``quotef``).
_SHELL_SPECIAL = set(" \t!\"$&'()*;<=>?[\\^`|:")
_SHELL_SPECIAL_START = _SHELL_SPECIAL | {"#", "~"}
_C_ESCAPES = {7: "a", 8: "b", 12: "f", 10: "n", 13: "r", 9: "t", 11: "v"}


def _segments(name: str) -> list[tuple[bool, str]]:
    """Split ``name`` into (printable, text) runs; undecodable bytes are never printable."""
    out: list[tuple[bool, str]] = []
    for ch in name:
        code = ord(ch)
        if 0xDC80 <= code <= 0xDCFF:  # surrogateescape'd raw byte
            ok, text = False, "\\%03o" % (code - 0xDC00)
        elif code < 32 or code == 127 or unicodedata.category(ch) in ("Cc", "Cs", "Cn"):
            ok = False
            text = (
                "\\" + _C_ESCAPES[code]
                if code in _C_ESCAPES
                else "".join(f"\\{b:03o}" for b in ch.encode("utf-8", "surrogateescape"))
            )
        else:
            ok, text = True, ch
        if out and out[-1][0] == ok:
            out[-1] = (ok, out[-1][1] + text)
        else:
            out.append((ok, text))
    return out


def shell_quote(name: str, always: bool = False) -> str:
    """GNU's shell-escape quoting (``quotef`` when not ``always``, ``quoteaf`` when always)."""
    if name == "":
        return "''"
    segs = _segments(name)
    plain = len(segs) == 1 and segs[0][0]
    if plain:
        needs = always or name[0] in _SHELL_SPECIAL_START or any(c in _SHELL_SPECIAL for c in name)
        if not needs:
            return name
        if "'" in name and not any(c in "\"$`\\!" for c in name):
            return '"' + name + '"'
        return "'" + name.replace("'", "'\\''") + "'"
    parts: list[str] = []
    for i, (ok, text) in enumerate(segs):
        if ok:
            parts.append("'" + text.replace("'", "'\\''") + "'")
        else:
            if i == 0:
                parts.append("''")
            parts.append("$'" + text + "'")
    return "".join(parts)


def quotef(name: str) -> str:
    return shell_quote(name, False)


def quoteaf(name: str) -> str:
    return shell_quote(name, True)


def quote(name: str) -> str:
    """GNU ``quote()`` in a UTF-8 locale: ‘name’ with C-style escapes for unprintables."""
    body = "".join(text for _, text in _segments(name.replace("\\", "\\\\")))
    return "\u2018" + body + "\u2019"


def strerror(exc: OSError) -> str:
    """The strerror text GNU prints for ``exc``."""
    if exc.errno == errno.EROFS:
        return "Read-only file system"
    if exc.errno:
        return os.strerror(exc.errno)
    return exc.strerror or str(exc)


def read_chunks(inv: Invocation, operand: str) -> Iterator[bytes]:
    """Yield the bytes of ``operand`` (``-`` = stdin) in 64 KiB chunks, checking cancel."""
    if operand == "-":
        while True:
            inv.cancel.check()
            data = inv.stdin.read(CHUNK)
            if not data:
                return
            yield data
    with inv.fs.open(inv.abs(operand), "rb") as f:
        while True:
            inv.cancel.check()
            data = f.read(CHUNK)
            if not data:
                return
            yield data


def human(n: int, base: int = 1024, si_suffix: bool = False) -> str:
    """GNU ``human_readable`` with ceiling rounding (``ls -h``, ``du -h``, ``df -h``)."""
    if n < base:
        return str(n)
    units = "KMGTPEZYRQ"
    b = 1
    for unit in units:
        b *= base
        tenths = -(-n * 10 // b)
        if tenths < 100:
            s = "{}.{}".format(*divmod(tenths, 10))
        else:
            whole = -(-n // b)
            if whole >= base and unit != units[-1]:
                continue
            s = str(whole)
        if unit == "K" and base == 1000 and not si_suffix:
            unit = "k"
        return s + unit
    return str(n)


def write_line(inv: Invocation, text: str, end: bytes = b"\n") -> None:
    inv.stdout.write(text.encode("utf-8", "surrogateescape") + end)


def enc(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def dec(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def owner_name(uid: int) -> str:
    """The sandbox never consults the host's user database: uid 0 is ``root``, others numeric."""
    return "root" if uid == 0 else str(uid)


def group_name(gid: int) -> str:
    return "root" if gid == 0 else str(gid)


def invalid_arg(
    inv: Invocation, value: str, option: str, groups: list[list[str]], status: int = 1
) -> Exception:
    """GNU argmatch's complaint about a bad option argument, listing the valid ones."""
    from vshell.command import Exit

    lines = [f"{inv.name}: invalid argument {quote(value)} for {quote(option)}",
             "Valid arguments are:"]
    for group in groups:
        lines.append("  - " + ", ".join(quote(g) for g in group))
    lines.append(f"Try '{inv.name} --help' for more information.")
    inv.stderr.write(enc("\n".join(lines) + "\n"))
    return Exit(status)
