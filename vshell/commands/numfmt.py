"""numfmt: convert numbers to and from human-readable strings (GNU coreutils 9.1).

Arithmetic is exact (``decimal``) where GNU uses long double, so the rounding GNU applies
(``--round``, default from-zero) acts on the true value.  Fields, auto-padding of fields
with leading blanks, ``--format``'s odd prefix rule and the ``--invalid`` modes follow
GNU's numfmt.c; ``--debug`` is not supported.
"""

from __future__ import annotations

import decimal
import math
from decimal import Decimal

from vshell.command import Exit, Invocation
from vshell.commands._lib import opts as _opts
from vshell.commands._lib import textio as tio
from vshell.commands._lib.futil import enc
from vshell.commands._lib.helptext import help_text
from vshell.commands._lib.textio import quote

_CTX = decimal.Context(prec=80, rounding=decimal.ROUND_HALF_EVEN)
_POWERS = "KMGTPEZY"
_SCALES = ("none", "si", "iec", "iec-i")
_ROUNDS = ("up", "down", "from-zero", "towards-zero", "nearest")
_INVALID = ("abort", "fail", "warn", "ignore")
MAX_UNSCALED_DIGITS = 18
MAX_ACCEPTABLE_DIGITS = 27

HELP = help_text("numfmt")

_LONG = ["delimiter=", "field=", "format=", "from=", "from-unit=", "grouping", "header=?",
         "invalid=", "padding=", "round=", "suffix=", "to=", "to-unit=", "zero-terminated"]


class _Abort(Exception):
    """--invalid=abort met a bad number: stop with status 2 after what was printed."""


class _Settings:
    def __init__(self) -> None:
        self.scale_from = "none"
        self.scale_to = "none"
        self.from_unit = Decimal(1)
        self.to_unit = Decimal(1)
        self.round = "from-zero"
        self.suffix: str | None = None
        self.padding = 0
        self.left = False
        self.zero_width = 0
        self.precision = -1  # user precision from --format
        self.prefix = ""
        self.fmt_suffix = ""
        self.delimiter: str | None = None
        self.fields: list[tuple[int, int]] = [(1, 1)]
        self.invalid = "abort"
        self.header = 0


def run(inv: Invocation) -> int:
    opts = _opts.parse(inv, "d:z", _LONG, help_text=HELP)
    s = _Settings()
    for key, value in opts.items:
        value = value or ""
        if key == "--from":
            s.scale_from = _choice(inv, value, "--from", ("none", "auto", *_SCALES[1:]))
        elif key == "--to":
            s.scale_to = _choice(inv, value, "--to", _SCALES)
        elif key == "--round":
            s.round = _choice(inv, value, "--round", _ROUNDS)
        elif key == "--invalid":
            s.invalid = _choice(inv, value, "--invalid", _INVALID)
        elif key in ("--from-unit", "--to-unit"):
            unit = _unit(value)
            if unit is None:
                raise Exit(1, f"invalid unit size: {quote(value)}")
            setattr(s, key[2:].replace("-", "_"), unit)
        elif key == "--padding":
            try:
                n = int(value)
            except ValueError:
                n = 0
            if n == 0:
                raise Exit(1, f"invalid padding value {quote(value)}")
            s.padding, s.left = abs(n), n < 0
        elif key == "--suffix":
            s.suffix = value
        elif key in ("-d", "--delimiter"):
            if len(value) > 1:
                raise Exit(1, "the delimiter must be a single character")
            s.delimiter = value or "\0"
        elif key == "--field":
            s.fields = _fields(inv, value)
        elif key == "--header":
            if key == "--header" and value == "":
                s.header = 1
            elif value.isdigit() and int(value) > 0:
                s.header = int(value)
            else:
                raise Exit(1, f"invalid header value {quote(value)}")
        elif key == "--grouping":
            pass  # the sandbox's C.UTF-8 locale has no thousands separator
    fmt = opts.last("--format")
    if fmt is not None:
        _parse_format(s, fmt)
    if opts.has("--grouping") and s.scale_to != "none":
        raise Exit(1, "grouping cannot be combined with --to")
    eol = b"\0" if opts.has("-z", "--zero-terminated") else b"\n"
    ok = True
    try:
        if opts.operands:
            for op in opts.operands:
                ok &= _line(inv, s, op)
                inv.stdout.write(eol)
        else:
            for n, rec in enumerate(tio.records(inv, inv.stdin, eol)):
                has_eol = rec.endswith(eol)
                text = (rec[:-1] if has_eol else rec).decode("utf-8", "surrogateescape")
                if n < s.header:
                    inv.stdout.write(rec if has_eol else rec + eol)
                    continue
                ok &= _line(inv, s, text)
                inv.stdout.write(eol)
    except _Abort:
        return 2
    return 0 if ok or s.invalid in ("warn", "ignore") else 2


def _choice(inv: Invocation, value: str, option: str, valid: tuple[str, ...]) -> str:
    if value in valid:
        return value
    matches = [v for v in valid if v.startswith(value)] if value else []
    if len(matches) == 1:
        return matches[0]
    lines = "".join(f"  - {quote(v)}\n" for v in valid)
    inv.stderr.write(enc(f"numfmt: invalid argument {quote(value)} for {quote(option)}\n"
                         f"Valid arguments are:\n{lines}"
                         "Try 'numfmt --help' for more information.\n"))
    raise Exit(1)


def _unit(text: str) -> Decimal | None:
    """--from-unit/--to-unit: a positive integer with an optional K/Ki-style suffix."""
    base, power = 1, 0
    num = text
    if num.endswith("i") and len(num) >= 2 and num[-2] in _POWERS:
        base, power, num = 1024, _POWERS.index(num[-2]) + 1, num[:-2]
    elif num and num[-1] in _POWERS:
        base, power, num = 1000, _POWERS.index(num[-1]) + 1, num[:-1]
    num = num or ("1" if power else "")
    if not num.isdigit() or int(num) == 0:
        return None
    return Decimal(int(num) * base**power)


def _fields(inv: Invocation, spec: str) -> list[tuple[int, int]]:
    def bad(message: str) -> Exit:
        return tio.usage_error(inv, message)

    out: list[tuple[int, int]] = []
    for part in spec.split(","):
        lo_s, dash, hi_s = part.partition("-")
        for t in (lo_s, hi_s):
            if t and not t.isdigit():
                raise bad(f"invalid field value {quote(part)}")
        if not dash:
            if not lo_s or int(lo_s) == 0:
                raise bad("fields are numbered from 1")
            out.append((int(lo_s), int(lo_s)))
            continue
        lo = int(lo_s) if lo_s else 1
        hi = int(hi_s) if hi_s else math.inf
        if lo == 0 or hi == 0:
            raise bad("fields are numbered from 1")
        if hi < lo:
            raise bad("invalid decreasing range")
        out.append((lo, hi))  # type: ignore[arg-type]  # math.inf stands for no upper bound
    return out


def _parse_format(s: _Settings, fmt: str) -> None:
    """GNU's parse_format_string, including its prefix quirk (``%%`` counts as one byte)."""
    i = prefix_len = 0
    while not (i < len(fmt) and fmt[i] == "%" and fmt[i + 1 : i + 2] != "%"):
        if i >= len(fmt):
            raise Exit(1, f"format {quote(fmt)} has no % directive")
        prefix_len += 1
        i += 2 if fmt[i] == "%" else 1
    i += 1
    zero = False
    while True:
        skip = len(fmt[i:]) - len(fmt[i:].lstrip(" "))
        i += skip
        if fmt[i : i + 1] == "'":
            i += 1
        elif fmt[i : i + 1] == "0":
            zero = True
            i += 1
        elif not skip:
            break
    j = i + (1 if fmt[i : i + 1] in ("-", "+") else 0)
    while j < len(fmt) and fmt[j].isdigit():
        j += 1
    digits = fmt[i:j]
    if digits not in ("", "-", "+"):
        pad = int(digits)
        if pad < 0:
            s.left, s.padding = True, -pad
        elif pad > 0:
            if zero:
                s.zero_width = pad
            else:
                s.padding = pad
        i = j
    if i >= len(fmt):
        raise Exit(1, f"format {quote(fmt)} ends in %")
    if fmt[i] == ".":
        i += 1
        if fmt[i : i + 1] in (" ", "\t", "+", "-"):
            raise Exit(1, f"invalid precision in format {quote(fmt)}")
        j = i
        while j < len(fmt) and fmt[j].isdigit():
            j += 1
        s.precision = int(fmt[i:j] or "0")
        i = j
    if fmt[i : i + 1] != "f":
        raise Exit(1, f"invalid format {quote(fmt)}, directive must be %[0]['][-][N][.][N]f")
    i += 1
    k = i
    while k < len(fmt):
        if fmt[k] == "%" and fmt[k + 1 : k + 2] != "%":
            raise Exit(1, f"format {quote(fmt)} has too many % directives")
        k += 2 if fmt[k] == "%" else 1
    s.prefix = fmt[:prefix_len]
    s.fmt_suffix = fmt[i:]


def _split(s: _Settings, line: str) -> list[str]:
    """Fields as GNU cuts them: with the default delimiter a field keeps its leading blanks
    and the one blank after it is printed back as a space."""
    if s.delimiter is not None:
        return line.split(s.delimiter)
    out: list[str] = []
    i = 0
    while True:
        j = i
        while j < len(line) and line[j] in " \t":
            j += 1
        while j < len(line) and line[j] not in " \t":
            j += 1
        out.append(line[i:j])
        if j >= len(line):
            return out
        i = j + 1


def _selected(s: _Settings, n: int) -> bool:
    return any(lo <= n <= hi for lo, hi in s.fields)


def _line(inv: Invocation, s: _Settings, line: str) -> bool:
    ok = True
    sep = enc(s.delimiter if s.delimiter is not None else " ")
    fields = _split(s, line)
    for n, text in enumerate(fields, 1):
        if n > 1:
            inv.stdout.write(sep)
        if not _selected(s, n):
            inv.stdout.write(enc(text))
            continue
        out = _field(inv, s, text, n)
        if out is None:
            ok = False
            inv.stdout.write(enc(text))
        else:
            inv.stdout.write(enc(out))
    return ok


def _complain(inv: Invocation, s: _Settings, message: str) -> None:
    if s.invalid == "ignore":
        return
    inv.error(message)
    if s.invalid == "abort":
        raise _Abort


def _field(inv: Invocation, s: _Settings, text: str, n: int) -> str | None:
    """The converted field, or None after reporting why it is not a number."""
    body = text.lstrip(" \t") if s.delimiter is None else text
    if s.suffix and body.endswith(s.suffix):
        body = body[: -len(s.suffix)]
    parsed = _parse_number(body, s.scale_from)
    if isinstance(parsed, str):
        _complain(inv, s, parsed.replace("@", quote(body)))
        return None
    value, precision, rest = parsed
    if rest:
        _complain(inv, s, f"invalid suffix in input {quote(body)}: {quote(rest)}")
        return None
    value = _CTX.divide(_CTX.multiply(value, s.from_unit), s.to_unit)
    number = _render(inv, s, value, precision)
    if number is None:
        return None
    if s.suffix:
        number += s.suffix
    width = s.padding
    if not width and s.delimiter is None and (n > 1 or text[:1] in (" ", "\t")):
        width = len(text)  # GNU's auto-padding keeps a right-aligned column aligned
    if width and len(number) < width:
        number = number.ljust(width) if s.left else number.rjust(width)
    return s.prefix + number + s.fmt_suffix


def _parse_number(text: str, scale: str) -> tuple[Decimal, int, str] | str:
    """(value, precision, unparsed rest) or an error message with ``@`` for the quoted text."""
    i = 0
    while i < len(text) and text[i] in " \t":
        i += 1
    neg = text[i : i + 1] == "-"
    if neg:
        i += 1
    j = i
    while j < len(text) and text[j].isdigit():
        j += 1
    int_digits = text[i:j]
    frac = ""
    if text[j : j + 1] == ".":
        k = j + 1
        while k < len(text) and text[k].isdigit():
            k += 1
        frac = text[j + 1 : k]
        if not frac:
            return "invalid number: @"
        j = k
    if not int_digits and not frac:
        return "invalid number: @"
    if len(int_digits.lstrip("0")) > MAX_ACCEPTABLE_DIGITS:
        return "value too large to be converted: @"
    value = Decimal(f"{int_digits or '0'}.{frac or '0'}")
    if neg:
        value = -value
    precision = len(frac)
    rest = text[j:]
    if rest:
        k = 0
        while k < len(rest) and rest[k] in " \t":
            k += 1
        letter = rest[k : k + 1]
        if not letter or letter not in _POWERS:
            return "invalid suffix in input: @"
        if scale == "none":
            return "rejecting suffix in input: @ (consider using --from)"
        base = 1024 if scale in ("iec", "iec-i") else 1000
        rest = rest[k + 1 :]
        if scale == "auto" and rest[:1] == "i":
            base, rest = 1024, rest[1:]
        elif scale == "iec-i":
            if rest[:1] != "i":
                return "missing 'i' suffix in input: @ (e.g Ki/Mi/Gi)"
            rest = rest[1:]
        value = _CTX.multiply(value, Decimal(base) ** (_POWERS.index(letter) + 1))
        precision = 0
    elif scale == "iec-i":
        return "missing 'i' suffix in input: @ (e.g Ki/Mi/Gi)"
    return value, precision, rest


def _round(value: Decimal, method: str) -> Decimal:
    mode = {
        "up": decimal.ROUND_CEILING, "down": decimal.ROUND_FLOOR,
        "from-zero": decimal.ROUND_UP, "towards-zero": decimal.ROUND_DOWN,
        "nearest": decimal.ROUND_HALF_UP,
    }[method]
    return value.to_integral_value(rounding=mode)


def _digits(value: Decimal) -> int:
    """GNU's expld(val, 10): how many times |val| divides by 10 before it is below 10."""
    v, p = abs(value), 0
    while v >= 10:
        v /= 10
        p += 1
    return p


def _fixed(value: Decimal, precision: int, zero_width: int = 0) -> str:
    text = format(value.quantize(Decimal(1).scaleb(-precision), rounding=decimal.ROUND_HALF_EVEN,
                                 context=_CTX), "f")
    if value.is_signed() and not text.startswith("-"):
        text = "-" + text
    if zero_width and len(text) < zero_width:
        sign = "-" if text.startswith("-") else ""
        text = sign + text[len(sign):].rjust(zero_width - len(sign), "0")
    return text


def _render(inv: Invocation, s: _Settings, value: Decimal, precision: int) -> str | None:
    if s.precision != -1:
        precision = s.precision
    x = _digits(value)
    if s.scale_to == "none" and x + precision > MAX_UNSCALED_DIGITS:
        shown = f"{float(value):g}"
        if precision:
            _complain(inv, s, f"value/precision too large to be printed: '{shown}/{precision}'"
                              " (consider using --to)")
        else:
            _complain(inv, s, f"value too large to be printed: '{shown}' (consider using --to)")
        return None
    if x > MAX_ACCEPTABLE_DIGITS - 1:
        _complain(inv, s, f"value too large to be printed: '{float(value):g}'"
                          " (cannot handle values > 999Y)")
        return None
    if s.scale_to == "none":
        scaled = _round(value.scaleb(precision), s.round).scaleb(-precision)
        return _fixed(scaled, precision, s.zero_width)
    base = Decimal(1000 if s.scale_to == "si" else 1024)
    power = 0
    while abs(value) >= base:
        value = _CTX.divide(value, base)
        power += 1
    if s.precision != -1:
        adjust = min(power * 3, s.precision)
    else:
        adjust = 1 if abs(value) < 10 else 0
    value = _round(value.scaleb(adjust), s.round).scaleb(-adjust)
    if abs(value) >= base:
        value = _CTX.divide(value, base)
        power += 1
    show_point = value != 0 and abs(value) < 10 and power > 0
    digits = s.precision if s.precision != -1 else int(show_point)
    text = _fixed(value, digits, s.zero_width)
    if power:
        text += _POWERS[power - 1] + ("i" if s.scale_to == "iec-i" else "")
    return text
