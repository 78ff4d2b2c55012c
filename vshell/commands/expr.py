"""expr: evaluate expressions (GNU coreutils ``expr``): arithmetic on arbitrary-precision
integers, comparisons, ``|`` ``&``, ``STRING : REGEX`` (an anchored BRE), match, substr,
index, length and ``+ TOKEN``.  Exit status 0 (non-null, non-zero), 1 (null or 0),
2 (invalid expression), 3 (other errors, such as a bad regex).

Integers are exact up to ``MAX_DIGITS`` digits (GNU's GMP build has no bound); past that an
operand or result is refused (status 3), so no big-int operation holds the GIL for long."""

from __future__ import annotations

import re
from collections.abc import Callable

from vshell.command import Exit, Invocation
from vshell.commands._lib.bigdigits import approx_digits, to_int, to_str
from vshell.commands._lib.futil import enc, quote
from vshell.commands._lib.helptext import help_text
from vshell.text import regex

HELP = help_text("expr")

_INT = re.compile(r"-?\d+\Z")
MAX_DIGITS = 20_000
"""Digits an integer may have; a product or quotient of two such takes milliseconds."""
Value = int | str


def _is_int(v: Value) -> bool:
    return isinstance(v, int) or bool(_INT.match(v))


def _to_int(v: Value) -> int:
    if isinstance(v, int):
        return v
    if _INT.match(v):
        if len(v) > MAX_DIGITS + 1:
            raise _too_long()
        return -to_int(v[1:]) if v.startswith("-") else to_int(v)
    raise Exit(2, "non-integer argument")


def _too_long() -> Exit:
    return Exit(3, f"number too long (vshell's expr keeps at most {MAX_DIGITS} digits)")


def _fit(v: int) -> int:
    """``v``, or the limit error when it has more than MAX_DIGITS digits."""
    if approx_digits(v) > MAX_DIGITS + 1:
        raise _too_long()
    return v


def _null(v: Value) -> bool:
    """GNU's null(): 0, the empty string, or a string of zeros (optionally after '-')."""
    if isinstance(v, int):
        return v == 0
    if v == "":
        return True
    digits = v[1:] if v.startswith("-") else v
    return digits != "" and set(digits) == {"0"}


def _str(v: Value) -> str:
    return to_str(v) if isinstance(v, int) else v


class _Parser:
    def __init__(self, args: list[str]) -> None:
        self.a = args
        self.i = 0

    def peek(self) -> str | None:
        return self.a[self.i] if self.i < len(self.a) else None

    def take(self) -> str:
        if self.i >= len(self.a):
            prev = self.a[self.i - 1] if self.i else ""
            raise Exit(2, f"syntax error: missing argument after {quote(prev)}")
        t = self.a[self.i]
        self.i += 1
        return t

    def parse(self) -> Value:
        v = self.or_()
        if self.i < len(self.a):
            raise Exit(2, f"syntax error: unexpected argument {quote(self.a[self.i])}")
        return v

    def _level(self, ops: tuple[str, ...], operand: Callable[[], Value],
               combine: Callable[[str, Value, Value], Value]) -> Value:
        """One left-associative level: operands of the next tighter level joined by ``ops``."""
        left = operand()
        while self.peek() in ops:
            op = self.take()
            left = combine(op, left, operand())
        return left

    def or_(self) -> Value:
        return self._level(("|",), self.and_, _or)

    def and_(self) -> Value:
        return self._level(("&",), self.cmp, _and)

    def cmp(self) -> Value:
        return self._level(("<", "<=", "=", "==", "!=", ">=", ">"), self.add, _compare)

    def add(self) -> Value:
        return self._level(("+", "-"), self.mul, _add)

    def mul(self) -> Value:
        return self._level(("*", "/", "%"), self.match, _mul)

    def match(self) -> Value:
        return self._level((":",), self.primary, _match)

    def primary(self) -> Value:
        if self.i >= len(self.a):
            prev = self.a[self.i - 1] if self.i else ""
            raise Exit(2, f"syntax error: missing argument after {quote(prev)}")
        tok = self.take()
        if tok == "(":
            v = self.or_()
            if self.peek() != ")":
                if self.peek() is None:
                    raise Exit(2, f"syntax error: expecting ')' after {quote(self.a[-1])}")
                raise Exit(2, f"syntax error: expecting ')' instead of {quote(self.a[self.i])}")
            self.take()
            return v
        if tok == ")":
            raise Exit(2, "syntax error: unexpected ')'")
        if tok == "+":
            return self.take()
        if tok == "match":
            s = _str(self.primary())
            return _regex_match(s, _str(self.primary()))
        if tok == "substr":
            s = _str(self.primary())
            pos, length = self.primary(), self.primary()
            try:
                p, n = _to_int(pos), _to_int(length)
            except Exit:
                return ""
            if p < 1 or n < 1:
                return ""
            return s[p - 1 : p - 1 + n]
        if tok == "index":
            s = _str(self.primary())
            chars = _str(self.primary())
            for idx, ch in enumerate(s, 1):
                if ch in chars:
                    return idx
            return 0
        if tok == "length":
            return len(_str(self.primary()))
        return tok


def _regex_match(s: str, pattern: str) -> Value:
    """``STRING : REGEX``: a BRE anchored at the start (GNU's ``\\+ \\? \\|`` included)."""
    try:
        rx = regex.compile(pattern, "bre", gnu_escapes=True)
        m = rx.match(s)
    except regex.RegexError as e:
        raise Exit(2, str(e)) from None
    except regex.TooComplex:
        raise Exit(2, regex.TOO_COMPLEX) from None
    if rx.groups:
        if not m or m.group(1) is None:
            return ""
        return m.group(1)
    return len(m.group(0)) if m else 0



def _or(op: str, left: Value, right: Value) -> Value:
    if _null(left):
        return right if not _null(right) else 0
    return left


def _and(op: str, left: Value, right: Value) -> Value:
    return 0 if _null(left) or _null(right) else left


def _compare(op: str, left: Value, right: Value) -> Value:
    if _is_int(left) and _is_int(right):
        a: object = _to_int(left)
        b: object = _to_int(right)
    else:
        a, b = enc(_str(left)), enc(_str(right))
    result = {
        "<": a < b, "<=": a <= b, "=": a == b, "==": a == b,  # type: ignore[operator]  # both ints or both bytes
        "!=": a != b, ">=": a >= b, ">": a > b,  # type: ignore[operator]  # both ints or both bytes
    }[op]
    return 1 if result else 0


def _add(op: str, left: Value, right: Value) -> Value:
    a, b = _to_int(left), _to_int(right)
    return _fit(a + b if op == "+" else a - b)


def _mul(op: str, left: Value, right: Value) -> Value:
    a, b = _to_int(left), _to_int(right)
    if op == "*":
        return _fit(a * b)
    if b == 0:
        raise Exit(2, "division by zero")
    q = abs(a) // abs(b)
    if (a < 0) != (b < 0):
        q = -q
    return q if op == "/" else a - b * q


def _match(op: str, left: Value, right: Value) -> Value:
    return _regex_match(_str(left), _str(right))


def run(inv: Invocation) -> int:
    """The command; a back-reference search inside it stops with the run's timeout."""
    with regex.cancellable(inv.cancel.check):
        return _run(inv)


def _run(inv: Invocation) -> int:
    args = list(inv.args)
    if args[:1] == ["--help"]:
        inv.stdout.write(HELP.encode())
        return 0
    if args[:1] == ["--"]:
        args = args[1:]
    if not args:
        inv.stderr.write(b"expr: missing operand\nTry 'expr --help' for more information.\n")
        return 2
    value = _Parser(args).parse()
    inv.stdout.write(enc(_str(value)) + b"\n")
    return 1 if _null(value) else 0
