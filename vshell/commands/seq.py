"""seq: print a sequence of numbers, with GNU's precision and width rules.

Arithmetic is exact (``decimal``), so ``seq 0 0.1 1`` ends at 1.0 as GNU's does; integer
sequences are produced in batches by C-level ``str.join`` over ``range``. A ``-f``
field width or precision past ``MAX_FIELD`` is refused (GNU would pad every line to it).
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from vshell.command import Exit, Invocation
from vshell.commands._lib import textio as tio

_NUM = re.compile(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\Z")
_FMT = re.compile(r"%([-+ #0']*)(\d*)(?:\.(\d*))?([aAeEfFgG])")
_BATCH = 4096
MAX_FIELD = 1 << 20
"""The widest field and longest precision ``-f`` formats (as vshell's printf)."""


class _Arg:
    def __init__(self, value: Decimal, prec: int | None, text: str) -> None:
        self.value, self.prec, self.text = value, prec, text


def _scan(inv: Invocation, text: str) -> _Arg:
    m = _NUM.match(text)
    if m:
        body, exp = m.group(1), m.group(2)
        prec = len(body.split(".", 1)[1]) if "." in body else 0
        if exp:
            prec = max(0, prec - int(exp[1:]))
        return _Arg(Decimal(text.strip()), prec, text)
    low = text.strip().lower().lstrip("+-")
    if low in ("inf", "infinity"):
        return _Arg(Decimal(text.strip()), None, text)
    if low == "nan":
        raise _usage(inv, f"invalid \u2018not-a-number\u2019 argument: {tio.quote(text)}")
    try:
        s = text.strip()
        if re.fullmatch(r"[+-]?0[xX][0-9a-fA-F]*\.?[0-9a-fA-F]*(?:[pP][+-]?\d+)?", s) and \
                re.search(r"[0-9a-fA-F]", s[s.lower().index("x") + 1:]):
            return _Arg(Decimal(float.fromhex(s)), 0, text)
    except (ValueError, InvalidOperation):
        pass
    raise _usage(inv, f"invalid floating point argument: {tio.quote(text)}")


def _usage(inv: Invocation, message: str) -> Exit:
    return tio.usage_error(inv, message)


def _split_args(args: list[str]) -> tuple[list[str], list[str]]:
    """Options end at the first operand or at a negative number (GNU's seq rule)."""
    i = 0
    while i < len(args):
        a = args[i]
        if a.startswith("-") and len(a) > 1 and (a[1] == "." or a[1].isdigit()):
            break
        if a == "--" or not a.startswith("-") or a == "-":
            break
        if a.startswith("--"):
            name = a[2:].split("=", 1)[0]
            if "=" not in a and any(n.startswith(name) for n in ("format", "separator")) \
                    and name and not "equal-width".startswith(name):
                i += 1
        elif a[-1] in "fs" and "f" not in a[1:-1] and "s" not in a[1:-1]:
            i += 1
        i += 1
    return args[:i], args[i:]


def run(inv: Invocation) -> int:
    head, rest = _split_args(list(inv.args))
    opts = tio.options(inv, "+f:s:w", ["format=", "separator=", "equal-width"], args=head,
                       permute=False)
    operands = opts.operands + rest
    if operands and operands[0] == "--" and not opts.operands:
        operands = operands[1:]
    fmt = opts.last("-f", "--format")
    sep = (opts.last("-s", "--separator") or "").encode("utf-8", "surrogateescape") \
        if opts.has("-s", "--separator") else b"\n"
    equal = opts.has("-w", "--equal-width")
    if not operands:
        raise _usage(inv, "missing operand")
    if len(operands) > 3:
        raise _usage(inv, f"extra operand {tio.quote(operands[3])}")
    if fmt is not None and equal:
        raise _usage(inv, "format string may not be specified when printing equal width strings")
    args = [_scan(inv, a) for a in operands]
    first = args[0] if len(args) > 1 else _Arg(Decimal(1), 0, "1")
    step = args[1] if len(args) == 3 else _Arg(Decimal(1), 0, "1")
    last = args[-1]
    if step.value == 0:
        raise _usage(inv, f"invalid Zero increment value: {tio.quote(step.text)}")
    if fmt is not None:
        render = _user_format(inv, fmt)
    else:
        if first.prec is None or step.prec is None:
            prec = None
        else:
            prec = max(first.prec, step.prec)
        width = 0
        if equal and prec is not None and last.value.is_finite():
            width = max(len(_fixed(first.value, prec)), len(_fixed(last.value, prec)))
        render = _default_format(prec, width)
    out = inv.stdout
    a, d, z = first.value, step.value, last.value
    if (d > 0 and a > z) or (d < 0 and a < z):
        return 0
    if fmt is None and prec == 0 and not equal and all(
        x == x.to_integral_value() for x in (a, d)
    ) and (z.is_finite()):
        _fast_ints(inv, int(a), int(d), int(z), sep)
        return 0
    i = 0
    pieces: list[str] = []
    started = False
    while True:
        x = a + i * d if a.is_finite() else a
        if (d > 0 and x > z) or (d < 0 and x < z):
            break
        pieces.append(render(x))
        i += 1
        if len(pieces) >= _BATCH:
            inv.cancel.check()
            out.write((sep if started else b"") + sep.join(p.encode() for p in pieces))
            started = True
            pieces = []
        if not x.is_finite():
            if len(pieces) or started:
                # an infinite first value repeats forever (as GNU's does)
                continue
    if pieces:
        out.write((sep if started else b"") + sep.join(p.encode() for p in pieces))
        started = True
    if started:
        out.write(b"\n")
    return 0


def _fast_ints(inv: Invocation, a: int, d: int, z: int, sep: bytes) -> None:
    stop = z + (1 if d > 0 else -1)
    out = inv.stdout
    started = False
    s = sep.decode("utf-8", "surrogateescape")
    span = _BATCH * d
    cur = a
    while (d > 0 and cur < stop) or (d < 0 and cur > stop):
        inv.cancel.check()
        end = cur + span
        if (d > 0 and end > stop) or (d < 0 and end < stop):
            end = stop
        if d == 1 and cur >= 0:
            text = _counting(cur, end - 1, s)
        else:
            text = s.join(map(str, range(cur, end, d)))
        out.write(((s if started else "") + text).encode("utf-8", "surrogateescape"))
        started = True
        cur = end
    if started:
        out.write(b"\n")


_TABLES: list[list[str]] = []


def _counting(a: int, z: int, s: str) -> str:
    """``a`` to ``z`` (0 <= a <= z) joined by ``s``: a thousand numbers that share all but
    their last three digits are one C-level join of a table of those three digits, not a
    ``str`` call each (counting up by one is most of what ``seq`` is asked)."""
    if not _TABLES:
        _TABLES.append([str(i) for i in range(1000)])  # 0 .. 999
        _TABLES.append([f"{i:03d}" for i in range(1000)])  # the three last digits
    small, last3 = _TABLES
    parts: list[str] = []
    if a < 1000:
        parts.append(s.join(small[a : min(z, 999) + 1]))
        a = 1000
    while a <= z:
        high, low = divmod(a, 1000)
        top = min(z - high * 1000, 999)
        prefix = str(high)
        parts.append(prefix + (s + prefix).join(last3[low : top + 1]))
        a = high * 1000 + top + 1
    return s.join(parts)


def _fixed(x: Decimal, prec: int) -> str:
    if not x.is_finite():
        return "-inf" if x < 0 else "inf"
    s = f"{x:.{prec}f}"
    if s.startswith("-") and Decimal(s) == 0:
        return s
    return s


def _default_format(prec: int | None, width: int):
    if prec is None:
        return lambda x: _cfmt("%g", x)

    def render(x: Decimal) -> str:
        s = _fixed(x, prec)
        if width and len(s) < width:
            if s.startswith("-"):
                return "-" + s[1:].rjust(width - 1, "0")
            return s.rjust(width, "0")
        return s

    return render


def _cfmt(spec: str, x: Decimal) -> str:
    f = float(x)
    return spec.replace("'", "") % f


def _user_format(inv: Invocation, fmt: str):
    pos = []
    i = 0
    while True:
        j = fmt.find("%", i)
        if j < 0:
            break
        if fmt[j + 1 : j + 2] == "%":
            i = j + 2
            continue
        m = _FMT.match(fmt, j)
        if not m:
            bad = fmt[j:]
            mm = re.match(r"%[-+ #0']*\d*(?:\.\d*)?(.?)", bad)
            spec = mm.group(0) if mm else "%"
            if not mm or not mm.group(1):
                raise Exit(1, f"format {tio.quote(fmt)} ends in %")
            raise Exit(1, f"format {tio.quote(fmt)} has unknown {spec} directive")
        pos.append(m)
        i = m.end()
    if not pos:
        raise Exit(1, f"format {tio.quote(fmt)} has no % directive")
    if len(pos) > 1:
        raise Exit(1, f"format {tio.quote(fmt)} has too many % directives")
    m = pos[0]
    if max(int(m.group(2) or 0), int(m.group(3) or 0)) > MAX_FIELD:
        raise Exit(1, f"format {tio.quote(fmt)}: field width or precision too large"
                      f" (vshell's seq takes at most {MAX_FIELD})")
    prefix = fmt[: m.start()].replace("%%", "%")
    suffix = fmt[m.end():].replace("%%", "%")
    spec = m.group(0)
    if m.group(4) in "aA":
        spec = spec[:-1] + ("e" if m.group(4) == "a" else "E")

    def render(x: Decimal) -> str:
        return prefix + _cfmt(spec, x) + suffix

    return render
