"""Numeric option values read the way GNU reads them: bounded, never a Python overflow.

GNU tools parse counts with ``xstrtoumax`` into a ``uintmax_t``: a value past
``UINTMAX_MAX`` is reported as an overflow and the tool either clamps it (``uniq -f``,
``sort -k``, ``head -n``: "as many as there are") or refuses it with its own message
(``shuf -i``, ``tr [c*n]``).  Python's integers have no such ceiling, so a command that
took ``int(text)`` as is would later hand a 70-digit number to ``range``, a regex
repetition or a C call and die with ``OverflowError`` or spin for ever.  Every command
reads its numbers here instead, and decides what an overflow means for it.
"""

from __future__ import annotations

from vshell.records import record

UINTMAX_MAX = (1 << 64) - 1
SIZE_MAX = UINTMAX_MAX
INT_MAX = (1 << 31) - 1

_POW = {"K": 1, "k": 1, "M": 2, "m": 2, "G": 3, "g": 3, "T": 4, "t": 4, "P": 5, "p": 5,
        "E": 6, "e": 6, "Z": 7, "z": 7, "Y": 8, "y": 8, "R": 9, "r": 9, "Q": 10, "q": 10}


@record(frozen=True)
class Count:
    """A parsed unsigned value: ``value`` is clamped to the limit when ``overflow``."""

    value: int
    overflow: bool = False


def clamp(n: int, limit: int = UINTMAX_MAX) -> int:
    """``n`` bounded to ``[0, limit]``: the ceiling a C counter of that width has."""
    return 0 if n < 0 else min(n, limit)


def parse_count(text: str, *, limit: int = UINTMAX_MAX, suffixes: bool = False,
                base: int = 10) -> Count | None:
    """``xstrtoumax``: optional blanks and ``+``, digits (``base`` 8, 10, 16 or 0 = C's
    auto), then with ``suffixes`` one of GNU's size suffixes; None when not a number
    (a ``-`` sign included).  A value above ``limit`` comes back clamped with overflow set.
    """
    s = text.lstrip(" \t\n\v\f\r")
    if s.startswith("+"):
        s = s[1:]
    if base == 0:
        if s[:2] in ("0x", "0X") and len(s) > 2:
            base, s = 16, s[2:]
        elif s.startswith("0") and len(s) > 1:
            base, s = 8, s[1:]
        else:
            base = 10
    digits = "0123456789abcdef"[:base]
    i = 0
    while i < len(s) and s[i].lower() in digits:
        i += 1
    num, suf = s[:i], s[i:]
    if not num:
        return None
    if len(num) > 80:  # far past any limit: no need to build the integer
        return Count(limit, True)
    n = int(num, base)
    if suf:
        mult = suffix_multiplier(suf) if suffixes else None
        if mult is None:
            return None
        n *= mult
    if n > limit:
        return Count(limit, True)
    return Count(n)


def parse_int(text: str, *, low: int = -UINTMAX_MAX - 1, high: int = UINTMAX_MAX) -> int | None:
    """A signed decimal in ``[low, high]`` (``strtoimax`` with a range check), else None."""
    s = text.strip()
    body = s[1:] if s[:1] in "+-" else s
    if not body.isdigit() or not body.isascii() or len(body) > 80:
        return None
    n = int(s)
    return n if low <= n <= high else None


INTMAX_MIN, INTMAX_MAX = -(1 << 63), (1 << 63) - 1


def shell_number(text: str) -> int | None:
    """bash's ``legal_number``: blanks, a sign, decimal digits, blanks, within intmax_t."""
    s = text.strip(" \t\n")
    body = s[1:] if s[:1] in "+-" else s
    if not body or not body.isascii() or not body.isdigit() or len(body) > 20:
        return None
    n = int(s)
    return n if INTMAX_MIN <= n <= INTMAX_MAX else None


def suffix_multiplier(suf: str) -> int | None:
    """What a GNU size suffix multiplies by (``K`` 1024, ``KB`` 1000, ``b`` 512 …); None if
    it is not one."""
    if suf == "b":
        return 512
    if suf == "c":
        return 1
    if suf == "w":
        return 2
    p = _POW.get(suf[0])
    if p is None:
        return None
    rest = suf[1:]
    if rest in ("", "iB"):
        return 1024**p
    if rest == "B":
        return 1000**p
    return None
