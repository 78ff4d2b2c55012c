"""awk values: numbers are floats, strings are ``str``; input-derived strings are StrNum.

``StrNum`` marks a string that came from input (fields, getline, split, ARGV, ENVIRON,
-v): it compares as a number when it looks like one (POSIX "numeric string").  The
uninitialised value ``UNINIT`` is both "" and 0.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

from vshell.commands.awk import format as cformat


class StrNum(str):
    """A string from input: numeric comparisons apply when it looks numeric."""

    __slots__ = ()


class _Uninit(StrNum):
    __slots__ = ()


UNINIT = _Uninit("")

_NUM_PREFIX = re.compile(
    r"[ \t\n\r\f\v]*([-+]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|(?i:[-+](?:inf|nan))))"
)
_LOOKS = re.compile(
    r"[ \t\n\r\f\v]*[-+]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|(?i:[-+](?:inf|nan)))"
    r"[ \t\n\r\f\v]*\Z"
)


def str2num(s: str) -> float:
    """awk's string-to-number: the longest numeric prefix, 0 when there is none."""
    try:
        x = float(s)
    except ValueError:
        m = _NUM_PREFIX.match(s)
        return float(m.group(1)) if m else 0.0
    if x - x != 0 or "_" in s or not s.isascii():
        m = _NUM_PREFIX.match(s)
        return float(m.group(1)) if m else 0.0
    return x


def to_num(v: object) -> float:
    if type(v) is float:
        return v
    return str2num(v)  # type: ignore[arg-type]  # not a float: a str


def looks_numeric(s: str) -> bool:
    """Is input string ``s`` a numeric string (compares numerically)?"""
    if s is UNINIT:
        return True
    try:
        x = float(s)
    except ValueError:
        return False
    if x - x != 0 or "_" in s or not s.isascii():
        return _LOOKS.match(s) is not None
    return True


def num2str_fmt(x: float, fmt: str) -> str:
    """A number as a string: integral values as integers, others through ``fmt``."""
    if x.is_integer():
        return str(int(x))
    if x != x:
        return "-nan" if math.copysign(1.0, x) < 0 else "+nan"
    if math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    try:
        return fmt % x
    except (TypeError, ValueError):
        return sprintf(fmt, [x], lambda: "%.6g")


def to_str(v: object, convfmt: str = "%.6g") -> str:
    if type(v) is float:
        return num2str_fmt(v, convfmt)
    return v  # type: ignore[return-value]  # not a float: a str


def to_bool(v: object) -> bool:
    t = type(v)
    if t is float:
        return v != 0.0
    if t is str:
        return v != ""
    if v is UNINIT:
        return False
    if looks_numeric(v):  # type: ignore[arg-type]  # not a float: a str
        return str2num(v) != 0.0  # type: ignore[arg-type]  # not a float: a str
    return v != ""


def compare(a: object, b: object, convfmt: str) -> int:
    """-1, 0 or 1: numerically when both are numbers or numeric strings, else as strings."""
    ta, tb = type(a), type(b)
    # a number, or a strnum (input data) that looks like one; a plain string never is
    an = ta is float or (ta is not str and looks_numeric(a))  # type: ignore[arg-type]
    bn = tb is float or (tb is not str and looks_numeric(b))  # type: ignore[arg-type]
    if an and bn:
        x = a if ta is float else str2num(a)  # type: ignore[arg-type]  # not a float: a str
        y = b if tb is float else str2num(b)  # type: ignore[arg-type]  # not a float: a str
        return (x > y) - (x < y)  # type: ignore[operator]  # not a float: a str
    s = a if ta is not float else num2str_fmt(a, convfmt)  # type: ignore[arg-type]  # not a float: a str
    t = b if tb is not float else num2str_fmt(b, convfmt)  # type: ignore[arg-type]  # not a float: a str
    return (s > t) - (s < t)  # type: ignore[operator]  # not a float: a str


def _is_number(v: object) -> bool:
    return type(v) is float or (isinstance(v, StrNum) and looks_numeric(v))


_CONVERSIONS = cformat.Conversions(to_num, to_str, _is_number)


def sprintf(fmt: str, args: list[object], convfmt: Callable[[], str]) -> str:
    """awk's sprintf over awk values (see ``format.sprintf``)."""
    return cformat.sprintf(fmt, args, convfmt, _CONVERSIONS)
