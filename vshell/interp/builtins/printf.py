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
        self.stopped = False  # a %b argument held a \c: output ends there

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
        if a.isdigit() and a.isascii() and (a[0] != "0" or len(a) == 1):
            return float(a) if conv in "eEfFgGaA" else int(a)  # plain decimal: the common case
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


class _Conv:
    """One conversion of a format, with what does not depend on its argument worked out."""

    __slots__ = ("flags", "width", "prec", "conv", "plain_s", "static", "too_large", "pad",
                 "pyspec")

    def __init__(self, flags: str, width: str, prec: str | None, conv: str) -> None:
        self.flags, self.width, self.prec, self.conv = flags, width, prec, conv
        self.plain_s = conv == "s" and not width and prec is None  # printed as it is
        self.static = width != "*" and prec != "*"
        self.too_large = False
        self.pad = 0
        self.pyspec: str | None = None  # Python's %-spec of an integer conversion
        if self.static:
            self.too_large = any(
                value and int(value) > MAX_FIELD
                for value in (width, prec if conv in "diouxXeEfFgGaA" else None))
            if not self.too_large:
                self.pad = max(int(width or 0),
                               int(prec or 0) if conv in "diouxXeEfFgGaA" else 0)
            if conv in "diouxX" and "#" not in flags:
                spec = "%" + flags.replace("'", "").replace("I", "") + width
                if prec is not None:
                    spec += "." + (prec or "0")
                self.pyspec = spec + {"i": "d", "u": "d"}.get(conv, conv)


class _Escapes:
    """A literal part of a format whose escapes bash complains about (on every pass)."""

    __slots__ = ("text", "errors")

    def __init__(self, text: str, errors: tuple[str, ...]) -> None:
        self.text = text
        self.errors = errors


class _Bad:
    """A ``%`` that starts no conversion: the pass stops there with bash's message."""

    __slots__ = ("message",)

    def __init__(self, message: str) -> None:
        self.message = message


_Piece = str | _Conv | _Escapes | _Bad


class _Format:
    """A format string split once into literal text (escapes decoded) and conversions."""

    __slots__ = ("pieces", "repeats")

    def __init__(self, fmt: str) -> None:
        pieces: list[_Piece] = []
        i = 0
        n = len(fmt)
        while i < n:
            k = fmt.find("%", i)
            # escapes are decoded between conversions only, so "\045d" prints "%d"
            dec = escapes.decode(fmt[i:] if k < 0 else fmt[i:k], escapes.PRINTF)
            if dec.errors:
                pieces.append(_Escapes(dec.text, dec.errors))
            elif dec.text:
                pieces.append(dec.text)
            if k < 0:
                break
            m = _SPEC.match(fmt, k)
            if m is None:
                bad = fmt[k + 1 : k + 2]
                if bad:
                    m2 = re.match(r"%[-+ #0'I]*(\*|\d+)?(?:\.(\*|\d*))?(.?)", fmt[k:])
                    bad = m2.group(3) if m2 and m2.group(3) else bad
                    pieces.append(_Bad(f"printf: `{bad}': invalid format character"))
                else:
                    pieces.append(_Bad("printf: `%': missing format character"))
                break
            i = m.end()
            conv = m.group(4)
            if conv == "%" and (m.group(1) or m.group(2) or m.group(3) is not None):
                # bash: only a bare "%%" is a percent sign ("%5%" would loop for ever)
                pieces.append(_Bad("printf: `%': invalid format character"))
                break
            if conv == "%":
                pieces.append("%")
            else:
                pieces.append(_Conv(m.group(1), m.group(2) or "", m.group(3), conv))
        # neighbouring plain texts joined: one append each
        merged: list[_Piece] = []
        for piece in pieces:
            last = merged[-1] if merged else None
            if isinstance(piece, str) and isinstance(last, str):
                merged[-1] = last + piece
            else:
                merged.append(piece)
        self.pieces = tuple(merged)
        # bash reuses the format while arguments remain and it has a conversion
        self.repeats = _SPEC.search(fmt.replace("%%", "")) is not None


_FORMATS: dict[str, _Format] = {}


def _format(fmt: str) -> _Format:
    """The split form of ``fmt``, made once per format string (a loop prints with the same
    format again and again)."""
    got = _FORMATS.get(fmt)
    if got is None:
        got = _Format(fmt)
        if len(_FORMATS) >= 256:
            _FORMATS.clear()
        _FORMATS[fmt] = got
    return got


def format_once(sh: Shell, fmt: _Format, args: _Args) -> tuple[str, bool]:
    """One pass over the format; returns (text, stop) where stop is a ``\\c`` or NUL."""
    out: list[str] = []
    add = out.append
    padding = 0  # characters of field width and precision asked for in this pass
    for piece in fmt.pieces:
        cls = piece.__class__
        if cls is str:
            add(piece)  # type: ignore[arg-type]  # a str
            continue
        if cls is _Conv:
            spec: _Conv = piece  # type: ignore[assignment]  # checked just above
            if spec.plain_s:
                a = args.next()
                add(a or "")
                continue
            flags, width, prec, conv = spec.flags, spec.width, spec.prec, spec.conv
            if spec.static:
                if spec.too_large:
                    _field_too_large(sh, width, prec, conv)
                    args.status = 1
                    args.next()  # the argument is used up, as when a conversion fails
                    continue
                padding += spec.pad
            else:
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
                padding += max(int(width or 0),
                               int(prec or 0) if conv in "diouxXeEfFgGaA" else 0)
            if padding > MAX_TEXT:
                sh.err(f"printf: output too long (vshell's printf pads at most {MAX_TEXT} at"
                       " once)")
                raise _BadFormat()
            add(_convert(sh, spec, flags, width, prec, conv, args))
            if conv == "b" and args.stopped:
                return "".join(out), True
            continue
        if cls is _Escapes:
            lit: _Escapes = piece  # type: ignore[assignment]  # checked just above
            for msg in lit.errors:
                sh.err(f"printf: {msg}")
            add(lit.text)
            continue
        sh.write_out("".join(out).encode("utf-8", "surrogateescape"))
        sh.err(piece.message)  # type: ignore[union-attr]  # the last kind: _Bad
        raise _BadFormat()
    return "".join(out), False


def _convert(sh: Shell, spec: _Conv, flags: str, width: str, prec: str | None, conv: str,
             args: _Args) -> str:
    """The text of one conversion of the next argument (``%b`` sets ``args.stopped`` at a
    ``\\c``)."""
    if conv in "diouxX":
        v = int(args.num(conv))
        if spec.pyspec is not None:  # a static spec: flags, width and precision as written
            if conv in "ouxX" and v < 0:
                v &= (1 << 64) - 1
            try:
                return spec.pyspec % v
            except (ValueError, OverflowError):
                return str(v)
        return _fmt_int(flags, width, prec, conv, v)
    if conv in "eEfFgGaA":
        return _fmt_float(flags, width, prec, conv, float(args.num(conv)))
    if conv == "s":
        return _pad(args.next() or "", flags, width, prec)
    if conv == "c":
        a = args.next()
        first = a.encode("utf-8", "surrogateescape")[:1] if a else b"\0"  # bash: a NUL
        return _pad(first.decode("utf-8", "surrogateescape"), flags, width, None)
    if conv == "b":
        dec = _literal(sh, args.next() or "", escapes.PRINTF_B)
        args.stopped = dec.stop
        return _pad(dec.text, flags, width, prec)
    if conv == "q":
        return _pad(printf_q(args.next() or ""), flags, width, None)
    # %(fmt)T
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
    return _pad(text, flags, width, prec)


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
    form = _format(fmt)
    chunks: list[str] = []
    held = 0  # characters in chunks
    while True:
        sh.check()  # the format is reused for every group of arguments: one per step
        try:
            text, stop = format_once(sh, form, a)
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
        if stop or not a.more() or not form.repeats:
            break
    out = "".join(chunks)
    if var is not None:
        sh.set_var(var, out)
    else:
        sh.write_out(out.encode("utf-8", "surrogateescape"))
    return a.status
