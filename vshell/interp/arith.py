"""Evaluator for shell arithmetic with bash's semantics.

64-bit wraparound, C operators with bash precedence, short-circuit without side effects,
variables whose values are themselves expressions, and bash's exact error messages (the
interpreter prints ``EXPR: MESSAGE``; :class:`ArithError` carries both parts).
The parser lives in :mod:`vshell.syntax.arith`; this module only walks its trees.
"""

from __future__ import annotations

import re
import sys
from typing import Protocol

from vshell.syntax.arith import (
    INT_MIN,
    Assign,
    Binary,
    Cond,
    Err,
    IncDec,
    Logical,
    Node,
    Num,
    Seq,
    Unary,
    Var,
    parse,
    wrap,
)

__all__ = ["ArithContext", "ArithError", "evaluate"]

MAX_RECURSION = 1024  # bash's MAX_EXPR_RECURSION_LEVEL
_PLAIN_INT = re.compile(r"[1-9][0-9]{0,17}|0")


class ArithError(Exception):
    """An arithmetic failure; ``str()`` is bash's message after ``EXPR: ``.

    ``expr`` is the expression bash names in the diagnostic: usually the text given to
    :func:`evaluate` without leading blanks, but the value of a variable when the failure
    is inside it, and the text cut after a bad constant (``08+1`` reports ``08``).
    """

    def __init__(self, message: str, token: str, expr: str) -> None:
        self.message = message
        self.token = token
        self.expr = expr
        super().__init__(f'{message} (error token is "{token}")')


class ArithContext(Protocol):
    """What the evaluator needs from the shell: variable access and ``set -u``.

    An implementation may also define ``resolve_subscript(name, subscript) -> str``,
    returning the canonical subscript (the evaluated index of an indexed array, the key
    text of an associative one).  When present it is called once for ``a[i++]++`` and
    ``a[i++] += 1`` so that the subscript's side effects happen once, as in bash.
    """

    def get(self, name: str, subscript: str | None) -> str | None:
        """Raw value of the variable or element, None when unset."""

    def set(self, name: str, subscript: str | None, value: int) -> None:
        """Assign an integer result to the variable or element."""

    def nounset_error(self, name: str) -> None:
        """Called for an unset variable used as 0; raise when ``set -u`` is on.

        For an element reference (``a[3]``) ``name`` is the array name: bash only
        complains when the array variable itself is unset, not a missing element.
        """


def evaluate(expr: str, ctx: ArithContext) -> int:
    """Evaluate ``expr`` (already expanded: no ``$x`` left to substitute) as bash does."""
    if sys.getrecursionlimit() < 12000:
        # nested variable values recurse once per level; bash allows 1024 levels
        sys.setrecursionlimit(12000)
    try:
        return _Evaluator(ctx).text(expr, 1)
    except RecursionError:
        raise ArithError("expression recursion level exceeded", expr, expr.lstrip(" \t")) from None


class _Evaluator:
    """Walks a tree; ``noeval`` counts enclosing short-circuited branches."""

    def __init__(self, ctx: ArithContext) -> None:
        self.ctx = ctx
        self.noeval = 0
        self.resolve = getattr(ctx, "resolve_subscript", None)

    def text(self, expr: str, depth: int) -> int:
        tree = parse(expr)
        if tree is None:
            return 0
        return self.node(tree, expr, depth)

    def node(self, n: Node, expr: str, depth: int) -> int:
        t = type(n)
        if t is Num:
            return n.value  # type: ignore[union-attr, return-value]  # dispatch on type(x) is C, which mypy does not narrow
        if t is Var:
            return self.read(n, expr, depth)  # type: ignore[arg-type]  # dispatch on type(x) is C, which mypy does not narrow
        if t is Binary:
            return self.binary(n, expr, depth)  # type: ignore[arg-type]  # dispatch on type(x) is C, which mypy does not narrow
        if t is Unary:
            v = self.node(n.operand, expr, depth)  # type: ignore[union-attr]  # dispatch on type(x) is C, which mypy does not narrow
            op = n.op  # type: ignore[union-attr]  # dispatch on type(x) is C, which mypy does not narrow
            if op == "-":
                return wrap(-v)
            if op == "!":
                return int(v == 0)
            if op == "~":
                return ~v
            return v
        if t is Logical:
            assert isinstance(n, Logical)
            left = self.node(n.left, expr, depth)
            skip = (left != 0) if n.op == "||" else (left == 0)
            self.noeval += skip
            try:
                right = self.node(n.right, expr, depth)
            finally:
                self.noeval -= skip
            if n.op == "||":
                return int(left != 0 or right != 0)
            return int(left != 0 and right != 0)
        if t is Cond:
            assert isinstance(n, Cond)
            c = self.node(n.cond, expr, depth)
            self.noeval += c == 0
            try:
                a = self.node(n.then, expr, depth)
            finally:
                self.noeval -= c == 0
            if n.else_ is None:
                return a
            self.noeval += c != 0
            try:
                b = self.node(n.else_, expr, depth)
            finally:
                self.noeval -= c != 0
            return a if c else b
        if t is Assign:
            return self.assign(n, expr, depth)  # type: ignore[arg-type]  # dispatch on type(x) is C, which mypy does not narrow
        if t is IncDec:
            assert isinstance(n, IncDec)
            target = self.fixed(n.target)
            old = self.read(target, expr, depth)
            new = wrap(old + (1 if n.op == "++" else -1))
            if not self.noeval:
                self.ctx.set(target.name, target.subscript, new)
            return old if n.post else new
        if t is Seq:
            v = 0
            for item in n.items:  # type: ignore[union-attr]  # dispatch on type(x) is C, which mypy does not narrow
                v = self.node(item, expr, depth)
            return v
        assert isinstance(n, Err)
        raise ArithError(n.message, n.token, n.expr)

    def fixed(self, var: Var) -> Var:
        """Resolve an element's subscript once when the variable is both read and set."""
        if var.subscript is None or self.resolve is None or self.noeval:
            return var
        return Var(var.name, self.resolve(var.name, var.subscript), var.pos, var.noread)

    def read(self, var: Var, expr: str, depth: int) -> int:
        if self.noeval or var.noread:
            return 0
        raw = self.ctx.get(var.name, var.subscript)
        if raw is None:
            self.ctx.nounset_error(var.name)
            return 0
        if _PLAIN_INT.fullmatch(raw):
            return int(raw)
        if not raw.strip(" \t\n"):
            return 0
        if depth >= MAX_RECURSION:
            raise ArithError(
                "expression recursion level exceeded", expr[var.pos:], expr.lstrip(" \t")
            )
        return self.text(raw, depth + 1)

    def binary(self, n: Binary, expr: str, depth: int) -> int:
        a = self.node(n.left, expr, depth)
        b = self.node(n.right, expr, depth)
        return _apply(n.op, a, b, n.err_token, expr, bool(self.noeval))

    def assign(self, n: Assign, expr: str, depth: int) -> int:
        target = self.fixed(n.target) if n.op else n.target
        old = self.read(target, expr, depth) if n.op else 0
        value = self.node(n.value, expr, depth)
        if n.op:
            value = _apply(n.op, old, value, n.err_token, expr, bool(self.noeval))
        if not self.noeval:
            self.ctx.set(target.name, target.subscript, value)
        return value


def _apply(op: str, a: int, b: int, token: str, expr: str, noeval: bool) -> int:
    """One binary operation with C/x86 semantics, as bash computes it."""
    if op == "+":
        return wrap(a + b)
    if op == "-":
        return wrap(a - b)
    if op == "*":
        return wrap(a * b)
    if op in ("/", "%"):
        if b == 0:
            if noeval:
                return 0
            raise ArithError("division by 0", token, expr.lstrip(" \t"))
        if a == INT_MIN and b == -1:
            return INT_MIN if op == "/" else 0
        q = abs(a) // abs(b)
        if (a < 0) != (b < 0):
            q = -q
        return q if op == "/" else a - q * b
    if op == "**":
        if b < 0:
            raise ArithError("exponent less than 0", token, expr.lstrip(" \t"))
        return wrap(pow(a, b, 1 << 64))
    if op == "<<":
        return wrap(a << (b & 63))
    if op == ">>":
        return a >> (b & 63)
    if op == "&":
        return a & b
    if op == "|":
        return a | b
    if op == "^":
        return a ^ b
    if op == "==":
        return int(a == b)
    if op == "!=":
        return int(a != b)
    if op == "<":
        return int(a < b)
    if op == ">":
        return int(a > b)
    if op == "<=":
        return int(a <= b)
    if op == ">=":
        return int(a >= b)
    raise AssertionError(op)
