"""The ``printf`` builtin: bash's format language, reused until the arguments run out."""

from __future__ import annotations

import math
import re
import time
from typing import TYPE_CHECKING

from vshell.interp.quoting import printf_q
from vshell.text import escapes

if TYPE_CHECKING:
    from vshell.interp.shell import Shell

STRFTIME_BUFFER = 128  # bytes bash gives one %(...)T expansion, its NUL included
_HEX = re.compile(r"[+-]?0[xX][0-9a-fA-F]+")
_OCTAL = re.compile(r"[+-]?0[0-7]+")
_SPEC = re.compile(r"%([-+ #0'I]*)(\*|\d+)?(?:\.(\*|\d*))?(?:hh|h|ll|l|L|q|j|z|t)?"
                   r"(\([^)]*\)T|[diouxXeEfFgGaAcsbqn%])")


class PrintfError(Exception):
    pass


class _Args:
    def __init__(self, sh: Shell, args: list[str]) -> None:
        self.sh = sh
        self.args = args
        self.i = 0
        self.status = 0

    def more(self) -> bool:
        return self.i < len(self.args)

    def next(self) -> str | None:
        if self.i < len(self.args):
            self.i += 1
            return self.args[self.i - 1]
        return None

    def num(self, conv: str) -> int | float:
        a = self.next()
        if a is None:
            return 0
        return self.parse_num(a, conv)

    def parse_num(self, a: str, conv: str) -> int | float:
        s = a.lstrip()  # strtol skips leading white space, but trailing text is an error
        if s[:1] in ("'", '"'):
            return ord(s[1]) if len(s) > 1 else 0
        value = self._parse_num(a, s.rstrip(), conv)
        if s != s.rstrip() or (a and not s):
            self._bad(a)
        return value

    def _parse_num(self, a: str, s: str, conv: str) -> int | float:
        if conv in "eEfFgGaA":
            try:
                return float(s) if s else 0.0
            except ValueError:
                m = re.match(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", s)
                self._bad(a)
                return float(m.group(0)) if m else 0.0
        try:
            if _HEX.fullmatch(s):
                return int(s, 16)
            if _OCTAL.fullmatch(s):
                return int(s, 8)
            if s == "":
                return 0
            return int(s, 10)
        except ValueError:
            m = re.match(r"[+-]?\d+", s)
            self._bad(a)
            return int(m.group(0)) if m else 0

    def _bad(self, a: str) -> None:
        self.sh.err(f"printf: {a}: invalid number")
        self.status = 1


MAX_FIELD = 1 << 20
"""The widest field width, and the longest numeric precision, printf formats (1 Mi).

bash pads ``printf '%*d' 2000000000 1`` to 2 GB; formatting builds the text in memory, so
past this bound the conversion is refused with a message and status 1 instead of
allocating gigabytes. A ``%s`` precision only cuts and needs no bound."""


MAX_TEXT = 1 << 26
"""The most padding one pass over the format, or one ``-v`` value, may hold (64 Mi): many
wide fields in one format would otherwise add up to gigabytes."""


def _field_too_large(sh: Shell, width: str, prec: str | None, conv: str) -> bool:
    """Say so and return True when a width or precision is past :data:`MAX_FIELD`."""
    for kind, value in (("field width", width),
                        ("precision", prec if conv in "diouxXeEfFgGaA" else None)):
        if value and int(value) > MAX_FIELD:
            sh.err(f"printf: {value}: {kind} too large (vshell's printf takes at most"
                   f" {MAX_FIELD})")
            return True
    return False


def _fmt_int(flags: str, width: str, prec: str | None, conv: str, v: int) -> str:
    if conv in "ouxX" and v < 0:
        v &= (1 << 64) - 1
    if "#" in flags and conv in "oxX":
        # C's alternate forms: 0NNN for octal, 0x only for non-zero hex
        flags = flags.replace("#", "")
        digits = _fmt_int(flags.replace("-", "").replace("0", ""), "", prec, conv, v)
        if conv == "o" and not digits.startswith("0"):
            digits = "0" + digits
        elif conv in "xX" and v != 0:
            digits = ("0x" if conv == "x" else "0X") + digits
        return _pad(digits, flags, width, None) if "0" not in flags or "-" in flags else \
            digits.rjust(int(width or 0), "0") if conv == "o" else \
            digits[:2] + digits[2:].rjust(max(0, int(width or 0) - 2), "0")
    spec = "%" + flags.replace("'", "").replace("I", "") + width
    if prec is not None:
        spec += "." + (prec or "0")
    spec += {"i": "d", "u": "d"}.get(conv, conv)
    try:
        return spec % v
    except (ValueError, OverflowError):
        return str(v)


def _fmt_float(flags: str, width: str, prec: str | None, conv: str, v: float) -> str:
    if conv in "aA":
        h = float(v).hex()
        return h if conv == "a" else h.upper()
    spec = "%" + flags.replace("'", "").replace("I", "") + width
    if prec is not None:
        spec += "." + (prec or "0")
    spec += conv
    try:
        out = spec % v
    except (ValueError, OverflowError):
        out = str(v)
    if math.isinf(v) or math.isnan(v):
        out = out.replace("inf", "inf").replace("INF", "INF")
    return out


def _pad(s: str, flags: str, width: str, prec: str | None) -> str:
    if prec is not None and prec != "":
        s = s[: int(prec)]
    elif prec == "":
        s = ""
    if width:
        w = int(width)
        s = s.ljust(w) if "-" in flags else s.rjust(w)
    return s


class _BadFormat(Exception):
    pass


def _literal(sh: Shell, text: str, mode: str) -> escapes.Decoded:
    """Decode printf escapes, reporting the malformed ones as bash does."""
    dec = escapes.decode(text, mode)
    for msg in dec.errors:
        sh.err(f"printf: {msg}")
    return dec


def format_once(sh: Shell, fmt: str, args: _Args) -> tuple[str, bool]:
    """One pass over the format; returns (text, stop) where stop is a ``\\c`` or NUL."""
    out: list[str] = []
    padding = 0  # characters of field width and precision asked for in this pass
    i = 0
    n = len(fmt)
    while i < n:
        k = fmt.find("%", i)
        # escapes are decoded between conversions only, so "\045d" prints "%d"
        out.append(_literal(sh, fmt[i:] if k < 0 else fmt[i:k], escapes.PRINTF).text)
        if k < 0:
            break
        m = _SPEC.match(fmt, k)
        if m is None:
            bad = fmt[k + 1 : k + 2]
            sh.write_out("".join(out).encode("utf-8", "surrogateescape"))
            if bad:
                m2 = re.match(r"%[-+ #0'I]*(\*|\d+)?(?:\.(\*|\d*))?(.?)", fmt[k:])
                bad = m2.group(3) if m2 and m2.group(3) else bad
                sh.err(f"printf: `{bad}': invalid format character")
            else:
                sh.err("printf: `%': missing format character")
            raise _BadFormat()
        i = m.end()
        flags, width, prec, conv = m.group(1), m.group(2) or "", m.group(3), m.group(4)
        if conv == "%":
            out.append("%")
            continue
        if width == "*":
            w = int(args.num("d"))
            if w < 0:
                flags += "-"
                w = -w
            width = str(w)
        if prec == "*":
            p = int(args.num("d"))
            prec = str(p) if p >= 0 else None
        if _field_too_large(sh, width, prec, conv):
            args.status = 1
            args.next()  # the argument is used up, as when a conversion fails
            continue
        padding += max(int(width or 0), int(prec or 0) if conv in "diouxXeEfFgGaA" else 0)
        if padding > MAX_TEXT:
            sh.err(f"printf: output too long (vshell's printf pads at most {MAX_TEXT} at once)")
            raise _BadFormat()
        if conv.startswith("("):
            tf = conv[1:-2]
            a = args.next()
            if a is None or a.strip() in ("", "-1"):
                t = time.time()
            elif a.strip() == "-2":
                t = time.time() - (time.monotonic() - sh.state.start_time)
            else:
                t = float(args.parse_num(a, "d"))
            from vshell.commands._lib import timefmt as _timefmt

            tz = _timefmt.zone({"TZ": sh.state.exported().get("TZ", "")})
            text = _timefmt.strftime(tf, _timefmt.localtime(t, tz))
            if len(text.encode("utf-8", "surrogateescape")) >= STRFTIME_BUFFER:
                text = ""  # bash's buffer: strftime(3) gives nothing when it does not fit
            out.append(_pad(text, flags, width, prec))
            continue
        if conv in "diouxX":
            v = int(args.num(conv))
            out.append(_fmt_int(flags, width, prec, conv, v))
        elif conv in "eEfFgGaA":
            fv = float(args.num(conv))
            out.append(_fmt_float(flags, width, prec, conv, fv))
        elif conv == "c":
            a = args.next()
            first = a.encode("utf-8", "surrogateescape")[:1] if a else b""
            ch = first.decode("utf-8", "surrogateescape")
            out.append(_pad(ch, flags, width, None))
        elif conv == "s":
            a = args.next()
            out.append(_pad(a or "", flags, width, prec))
        elif conv == "b":
            dec = _literal(sh, args.next() or "", escapes.PRINTF_B)
            out.append(_pad(dec.text, flags, width, prec))
            if dec.stop:
                return "".join(out), True
        elif conv == "q":
            a = args.next()
            out.append(_pad(printf_q(a or ""), flags, width, None))
    return "".join(out), False


def b_printf(sh: Shell, name: str, args: list[str]) -> int:
    var: str | None = None
    while args and args[0].startswith("-") and len(args[0]) > 1:
        if args[0] == "--":
            args = args[1:]
            break
        if args[0] == "-v":
            if len(args) < 2:
                sh.err("printf: -v: option requires an argument")
                return 2
            var = args[1]
            args = args[2:]
            continue
        if args[0].startswith("-v"):
            var = args[0][2:]
            args = args[1:]
            continue
        sh.err(f"printf: {args[0]}: invalid option")
        sh.write_err("printf: usage: printf [-v var] format [arguments]\n")
        return 2
    if not args:
        sh.write_err("printf: usage: printf [-v var] format [arguments]\n")
        return 2
    fmt, rest = args[0], args[1:]
    if var is not None and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(\[.*\])?", var):
        sh.err(f"printf: `{var}': not a valid identifier")
        return 2
    a = _Args(sh, rest)
    chunks: list[str] = []
    held = 0  # characters in chunks
    while True:
        sh.check()  # the format is reused for every group of arguments: one per step
        try:
            text, stop = format_once(sh, fmt, a)
        except _BadFormat:
            if var is None:
                sh.write_out("".join(chunks).encode("utf-8", "surrogateescape"))
            return 1
        chunks.append(text)
        held += len(text)
        if var is not None and held > MAX_TEXT:
            sh.err(f"printf: -v: value too long (vshell's printf makes at most {MAX_TEXT})")
            return 1
        if var is None and held > MAX_FIELD:
            sh.write_out("".join(chunks).encode("utf-8", "surrogateescape"))
            chunks.clear()  # written as it goes: memory stays near one field
            held = 0
        if stop or not a.more() or not _SPEC.search(fmt.replace("%%", "")):
            break
    out = "".join(chunks)
    if var is not None:
        sh.set_var(var, out)
    else:
        sh.write_out(out.encode("utf-8", "surrogateescape"))
    return a.status
