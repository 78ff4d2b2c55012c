"""Stepping over quoted text in raw shell source: the one implementation of each quote rule.

Two readers need it: the parser shim (:mod:`vshell.syntax.shim.scan`), which must find where
a span ends and fails when the source ends inside a quote, and the word lexer
(:mod:`vshell.syntax.words`), which reads text bash already accepted and takes an unclosed
quote as running to the end.  Both use these scanners; :func:`or_end` gives the second its
lenient form.  What counts as a ``$``-construct inside double quotes differs between the two
(the shim's bracket matcher, the lexer's ``case``-aware one), so :func:`skip_double` is given
that step.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeAlias

__all__ = ["ScanEOF", "or_end", "skip_ansi", "skip_backquote", "skip_double", "skip_single"]


class ScanEOF(Exception):
    """The source ended inside a quoted or bracketed span (``close`` is what was wanted)."""

    def __init__(self, close: str, start: int) -> None:
        super().__init__(close)
        self.close = close
        self.start = start


Scanner: TypeAlias = "Callable[[str, int], int]"


def skip_single(src: str, i: int) -> int:
    """``i`` is just after an opening ``'``; return the index after the closing one."""
    j = src.find("'", i)
    if j < 0:
        raise ScanEOF("'", i - 1)
    return j + 1


def _skip_to(src: str, i: int, close: str, eof_at: int | None = None) -> int:
    """The index after the first unescaped ``close`` from ``i`` (a backslash escapes the
    next character); ScanEOF at ``eof_at`` (default: where the scan stopped) if none."""
    n = len(src)
    while i < n:
        c = src[i]
        if c == "\\":
            i += 2
            continue
        if c == close:
            return i + 1
        i += 1
    raise ScanEOF(close, i if eof_at is None else eof_at)


def skip_ansi(src: str, i: int) -> int:
    """``i`` is just after ``$'``; backslash escapes the next character."""
    return _skip_to(src, i, "'")


def skip_backquote(src: str, i: int) -> int:
    """``i`` is just after an opening backquote."""
    return _skip_to(src, i, "`", i - 1)


def skip_double(src: str, i: int, dollar: Scanner) -> int:
    """``i`` is just after an opening ``"``; backquotes nest, and at a ``$`` the scan goes on
    where ``dollar(src, index_of_dollar)`` says the expansion there ends."""
    n = len(src)
    start = i - 1
    while i < n:
        c = src[i]
        if c == "\\":
            i += 2
        elif c == '"':
            return i + 1
        elif c == "`":
            i = skip_backquote(src, i + 1)
        elif c == "$":
            i = dollar(src, i)
        else:
            i += 1
    raise ScanEOF('"', start)


def or_end(scan: Scanner, src: str, i: int) -> int:
    """``scan(src, i)``, or ``len(src)`` when the source ends inside the span."""
    try:
        return scan(src, i)
    except ScanEOF:
        return len(src)
