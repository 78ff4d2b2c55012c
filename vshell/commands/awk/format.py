"""printf/sprintf formatting with C's conversions, as awk applies them to awk values.

The formatter knows nothing of awk's value types: ``values.py`` (which needs the formatter
for an odd CONVFMT) hands it a :class:`Conversions` that reads a value as a number, as a
string, or as a character code, so the two modules import in one direction only.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

from vshell.records import record

_SPEC = re.compile(
    r"%([-+ #0']*)(\*|\d+)?(?:\.(\*|\d*))?(?:hh|h|ll|l|L|q|j|z|t)?([cdiouxXeEfFgGs%])"
)
# a conversion: flags, width ("*" or digits), precision ("*", digits or ""), letter, offset
Spec = tuple[str, str | None, str | None, str, int]
_parsed: dict[str, list[str | Spec]] = {}


class NotEnoughArgs(Exception):
    """printf ran out of arguments (gawk: fatal); ``pos`` is the conversion's offset."""

    def __init__(self, pos: int) -> None:
        super().__init__(pos)
        self.pos = pos

    def message(self, fmt: str) -> str:
        """gawk's fatal message, pointing at the conversion that had no argument."""
        return (
            "not enough arguments to satisfy format string\n"
            f"\t`{fmt}'\n\t{' ' * (self.pos + 1)}^ ran out for this one"
        )


@record(frozen=True)
class Conversions:
    """How the formatter reads an awk value (given by ``values.py``)."""

    number: Callable[[object], float]
    string: Callable[[object, str], str]
    # %c: a value that is a number prints the character of that code, a string its first
    is_number: Callable[[object], bool]


def _parse(fmt: str) -> list[str | Spec]:
    """Literal strings and (flags, width, prec, conv) tuples."""
    cached = _parsed.get(fmt)
    if cached is not None:
        return cached
    parts: list[str | Spec] = []
    pos = 0
    while True:
        i = fmt.find("%", pos)
        if i < 0:
            if pos < len(fmt):
                parts.append(fmt[pos:])
            break
        if i > pos:
            parts.append(fmt[pos:i])
        m = _SPEC.match(fmt, i)
        if m is None:
            # not a conversion: print it as is (gawk warns)
            parts.append(fmt[i : i + 1] if i + 1 >= len(fmt) else fmt[i : i + 2])
            pos = i + 2
            continue
        flags, width, prec, conv = m.groups()
        flags = flags.replace("'", "")
        if conv == "%":
            parts.append("%")
        else:
            parts.append((flags, width, prec, conv, i))
        pos = m.end()
    if len(_parsed) > 200:
        _parsed.clear()
    _parsed[fmt] = parts
    return parts


def _special(x: float, flags: str) -> str:
    if math.isnan(x):
        return "-nan" if math.copysign(1.0, x) < 0 else ("+nan" if "+" in flags else "nan")
    if x > 0:
        return "+inf" if "+" in flags else "inf"
    return "-inf"


def sprintf(
    fmt: str, args: list[object], convfmt: Callable[[], str], conv_of: Conversions
) -> str:
    """Format ``args`` (awk values) with ``fmt``; running out of arguments is NotEnoughArgs."""
    to_num, to_str = conv_of.number, conv_of.string
    out: list[str] = []
    ai = 0
    nargs = len(args)
    for part in _parse(fmt):
        if isinstance(part, str):
            out.append(part)
            continue
        flags, width, prec, conv, at = part
        if ai >= nargs:
            raise NotEnoughArgs(at)
        if width == "*":
            w = int(to_num(args[ai])) if ai < nargs else 0
            ai += 1
            if w < 0:
                flags += "-"
                w = -w
            width = str(w)
        if prec == "*":
            p = int(to_num(args[ai])) if ai < nargs else 0
            ai += 1
            prec = str(p) if p >= 0 else None
        arg = args[ai] if ai < nargs else None
        ai += 1
        spec = "%" + flags + (width or "") + ("." + prec if prec is not None else "")
        if conv == "s":
            s = "" if arg is None else to_str(arg, convfmt())
            out.append((spec + "s") % s)
        elif conv == "c":
            if arg is None:
                ch = ""
            elif conv_of.is_number(arg):
                code = int(to_num(arg))
                try:
                    ch = chr(code) if code >= 0 else ""
                except (ValueError, OverflowError):
                    ch = chr(code & 0xFF)
            else:
                s = str(arg)
                ch = s[:1]
            out.append(("%" + flags.replace("0", "") + (width or "") + "s") % ch)
        else:
            x = 0.0 if arg is None else to_num(arg)
            if conv in "diouxX":
                if math.isnan(x) or math.isinf(x):
                    s = _special(x, flags)
                    out.append(("%" + flags.replace("0", "") + (width or "") + "s") % s)
                    continue
                n = int(x)
                if conv in "ouxX" and n < 0:
                    n += 1 << 64
                c = "d" if conv in "iu" else conv
                if c == "o" and "#" in flags:
                    text = ("%" + flags.replace("#", "") + (width or "") + "s") % (
                        "0" + format(n, "o") if n else "0"
                    )
                    out.append(text)
                    continue
                if prec is not None and prec != "" and c == "d" and n == 0 and int(prec) == 0:
                    out.append(("%" + flags.replace("0", "") + (width or "") + "s") % "")
                    continue
                if prec is not None and "0" in flags:
                    spec = spec.replace("0", "", 1) if flags.count("0") else spec
                out.append((spec + c) % n)
            else:
                if math.isnan(x) or math.isinf(x):
                    s = _special(x, flags)
                    out.append(("%" + flags.replace("0", "") + (width or "") + "s") % s)
                    continue
                out.append((spec + conv) % x)
    return "".join(out)

