"""POSIX character classes (``[:alpha:]`` …): the one table every matcher uses.

A class is described as code-point ranges so that any engine (RE2, a glob matcher, ``tr``)
can build its own form from it.  In the C locale a class holds ASCII only; in a UTF-8
locale the non-ASCII members come from Python's Unicode predicates (what glibc's tables
give for the common scripts).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

__all__ = ["ASCII_ONLY", "NAMES", "ascii_ranges", "is_member", "ranges", "unicode_ranges"]

Range = tuple[int, int]

_ASCII: dict[str, tuple[Range, ...]] = {
    "alpha": ((0x41, 0x5A), (0x61, 0x7A)),
    "digit": ((0x30, 0x39),),
    "alnum": ((0x30, 0x39), (0x41, 0x5A), (0x61, 0x7A)),
    "upper": ((0x41, 0x5A),),
    "lower": ((0x61, 0x7A),),
    "space": ((0x09, 0x0D), (0x20, 0x20)),
    "blank": ((0x09, 0x09), (0x20, 0x20)),
    "punct": ((0x21, 0x2F), (0x3A, 0x40), (0x5B, 0x60), (0x7B, 0x7E)),
    "print": ((0x20, 0x7E),),
    "graph": ((0x21, 0x7E),),
    "cntrl": ((0x00, 0x1F), (0x7F, 0x7F)),
    "xdigit": ((0x30, 0x39), (0x41, 0x46), (0x61, 0x66)),
}

NAMES: frozenset[str] = frozenset(_ASCII)
"""The twelve class names POSIX defines."""

ASCII_ONLY: frozenset[str] = frozenset({"digit", "xdigit", "blank", "space", "cntrl"})
"""Classes with no members past ASCII even in a UTF-8 locale (a bytes fast path is exact)."""

_PREDICATES: dict[str, Callable[[str], bool]] = {
    "alpha": str.isalpha,
    "alnum": str.isalnum,
    "upper": str.isupper,
    "lower": str.islower,
    "punct": lambda c: c.isprintable() and not c.isalnum() and not c.isspace(),
    "print": str.isprintable,
    "graph": lambda c: c.isprintable() and not c.isspace(),
}


def ascii_ranges(name: str) -> tuple[Range, ...]:
    """The class's members in the C locale; KeyError for a name that is not a class."""
    return _ASCII[name]


@cache
def unicode_ranges(name: str) -> tuple[Range, ...]:
    """Members past ASCII (U+00A0 to U+FFFF) in a UTF-8 locale; empty for ASCII-only classes."""
    pred = _PREDICATES.get(name)
    if pred is None:
        return ()
    out: list[Range] = []
    start = -1
    for cp in range(0xA0, 0x10000):
        ok = not (0xD800 <= cp <= 0xDFFF) and pred(chr(cp))
        if ok and start < 0:
            start = cp
        elif not ok and start >= 0:
            out.append((start, cp - 1))
            start = -1
    if start >= 0:
        out.append((start, 0xFFFF))
    return tuple(out)


def ranges(name: str, utf8: bool) -> tuple[Range, ...]:
    """All members of the class in the given locale, ASCII first."""
    if not utf8:
        return ascii_ranges(name)
    return ascii_ranges(name) + unicode_ranges(name)


def is_member(name: str, cp: int, utf8: bool) -> bool:
    """Whether code point (or byte) ``cp`` belongs to class ``name``."""
    if cp < 0x80 or not utf8:
        return any(lo <= cp <= hi for lo, hi in _ASCII[name])
    pred = _PREDICATES.get(name)
    return pred is not None and pred(chr(cp))
