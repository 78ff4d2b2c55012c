"""Evaluator for shell arithmetic with bash's semantics.

64-bit wraparound, C operators with bash precedence, short-circuit without side effects,
variables whose values are themselves expressions, and bash's exact error messages (the
interpreter prints ``EXPR: MESSAGE``; :class:`ArithError` carries both parts).
The parser lives in :mod:`vshell.syntax.arith`; this module only walks its trees.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from sys import getrecursionlimit as _recursion_limit
from typing import Any, Protocol, cast

from vshell.interp.control import RECURSION_ROOM, make_recursion_room
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
    if _recursion_limit() < RECURSION_ROOM:
        make_recursion_room()  # nested values recurse per level, the parser per parenthesis
    try:
        fast = _compiled.get(expr, _UNSEEN)
        if fast is _UNSEEN:
            fast = _compile_text(expr)
        if fast is not None:
            return fast(ctx, expr)
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


# --- compiled expressions ---------------------------------------------------------------
# A loop evaluates the same few expressions (``i < 1000``, ``n + i % 7``) thousands of times.
# The common forms (numbers, plain variables, operators, plain assignments) are turned once
# into nested closures, which do what _Evaluator does without its per-node dispatch; any
# other form (an array element, a short-circuit or ``?:`` whose skipped side is not free of
# effects and errors, a syntax error) returns None and goes through _Evaluator as before.

Compiled = Callable[[ArithContext, str], int]
_compiled: dict[str, Compiled | None] = {}
_UNSEEN: Any = object()
_COMPILED_MAX = 2048


def _compile_text(expr: str) -> Compiled | None:
    tree = parse(expr)
    fn = _compile(tree) if tree is not None else None
    if len(_compiled) >= _COMPILED_MAX:
        _compiled.clear()
    _compiled[expr] = fn
    return fn


def _pure(n: Node) -> bool:
    """Whether skipping ``n`` is the same as evaluating it with noeval set: it reads only,
    and nothing in it can fail when its reads give 0 (``**`` can: a negative exponent)."""
    t = type(n)
    if t is Num:
        return True
    if t is Var:
        return n.subscript is None  # type: ignore[union-attr]  # dispatch on type(x) is C
    if t is Unary:
        return _pure(n.operand)  # type: ignore[union-attr]  # dispatch on type(x) is C
    if t is Binary or t is Logical:
        return n.op != "**" and _pure(n.left) and _pure(n.right)  # type: ignore[union-attr]  # dispatch on type(x) is C
    if t is Cond:
        assert isinstance(n, Cond)
        return _pure(n.cond) and _pure(n.then) and (n.else_ is None or _pure(n.else_))
    return False


def _read_var(name: str) -> Compiled:
    def read(ctx: ArithContext, expr: str) -> int:
        raw = ctx.get(name, None)
        if raw is None:
            ctx.nounset_error(name)
            return 0
        if _PLAIN_INT.fullmatch(raw):
            return int(raw)
        if not raw.strip(" \t\n"):
            return 0
        return _Evaluator(ctx).text(raw, 2)  # a value that is an expression: as read() does

    return read


_FAST_OPS: dict[str, Callable[[int, int], int]] = {
    "+": lambda a, b: wrap(a + b),
    "-": lambda a, b: wrap(a - b),
    "*": lambda a, b: wrap(a * b),
    "<": lambda a, b: int(a < b),
    ">": lambda a, b: int(a > b),
    "<=": lambda a, b: int(a <= b),
    ">=": lambda a, b: int(a >= b),
    "==": lambda a, b: int(a == b),
    "!=": lambda a, b: int(a != b),
    "&": lambda a, b: a & b,
    "|": lambda a, b: a | b,
    "^": lambda a, b: a ^ b,
}


_INT_MAX = (1 << 63) - 1


def _binary(op: str, token: str, left: Compiled, right: Compiled) -> Compiled:
    # the commonest operators in closures of their own: no second call per operation, and
    # a sum that stays in range is not wrapped
    if op == "+":
        def add(ctx: ArithContext, expr: str) -> int:
            r = left(ctx, expr) + right(ctx, expr)
            return r if INT_MIN <= r <= _INT_MAX else wrap(r)
        return add
    if op == "-":
        def sub(ctx: ArithContext, expr: str) -> int:
            r = left(ctx, expr) - right(ctx, expr)
            return r if INT_MIN <= r <= _INT_MAX else wrap(r)
        return sub
    if op == "<":
        return lambda ctx, expr: 1 if left(ctx, expr) < right(ctx, expr) else 0
    if op in ("/", "%"):
        modulo = op == "%"

        def divide(ctx: ArithContext, expr: str) -> int:
            a, b = left(ctx, expr), right(ctx, expr)
            if a >= 0 and b > 0:  # C's truncation is Python's floor here
                return a % b if modulo else a // b
            return _apply(op, a, b, token, expr, False)  # signs, division by 0, INT_MIN/-1
        return divide
    fast = _FAST_OPS.get(op)
    if fast is not None:
        return lambda ctx, expr: fast(left(ctx, expr), right(ctx, expr))
    return lambda ctx, expr: _apply(op, left(ctx, expr), right(ctx, expr), token, expr, False)


def _compile(n: Node) -> Compiled | None:  # noqa: C901 - one branch per node kind
    t = type(n)
    if t is Num:
        assert isinstance(n, Num)
        value = n.value
        return lambda ctx, expr: value
    if t is Var:
        assert isinstance(n, Var)
        if n.subscript is not None or n.noread:
            return None
        return _read_var(n.name)
    if t is Binary:
        assert isinstance(n, Binary)
        left, right = _compile(n.left), _compile(n.right)
        if left is None or right is None:
            return None
        return _binary(n.op, n.err_token, left, right)
    if t is Unary:
        assert isinstance(n, Unary)
        inner = _compile(n.operand)
        if inner is None:
            return None
        if n.op == "-":
            return lambda ctx, expr: wrap(-inner(ctx, expr))
        if n.op == "!":
            return lambda ctx, expr: int(inner(ctx, expr) == 0)
        if n.op == "~":
            return lambda ctx, expr: ~inner(ctx, expr)
        return inner
    if t is Logical:
        assert isinstance(n, Logical)
        if not _pure(n.right):
            return None
        left, right = _compile(n.left), _compile(n.right)
        if left is None or right is None:
            return None
        if n.op == "||":
            return lambda ctx, expr: 1 if left(ctx, expr) != 0 else int(right(ctx, expr) != 0)
        return lambda ctx, expr: int(right(ctx, expr) != 0) if left(ctx, expr) != 0 else 0
    if t is Cond:
        assert isinstance(n, Cond)
        if n.else_ is None or not (_pure(n.then) and _pure(n.else_)):
            return None
        c, a, b = _compile(n.cond), _compile(n.then), _compile(n.else_)
        if c is None or a is None or b is None:
            return None
        return lambda ctx, expr: a(ctx, expr) if c(ctx, expr) else b(ctx, expr)
    if t is Assign:
        assert isinstance(n, Assign)
        if n.target.subscript is not None:
            return None
        value_fn = _compile(n.value)
        if value_fn is None:
            return None
        name, op, token = n.target.name, n.op, n.err_token
        if op and n.target.noread:
            return None  # read as 0 by _Evaluator.read: left to it
        if not op:
            def assign(ctx: ArithContext, expr: str) -> int:
                v = value_fn(ctx, expr)
                ctx.set(name, None, v)
                return v
            return assign
        read = _read_var(name)

        def update(ctx: ArithContext, expr: str) -> int:
            old = read(ctx, expr)
            v = _apply(op, old, value_fn(ctx, expr), token, expr, False)
            ctx.set(name, None, v)
            return v
        return update
    if t is IncDec:
        assert isinstance(n, IncDec)
        if n.target.subscript is not None or n.target.noread:
            return None
        name, step, post = n.target.name, 1 if n.op == "++" else -1, n.post
        read = _read_var(name)

        def incdec(ctx: ArithContext, expr: str) -> int:
            old = read(ctx, expr)
            new = old + step
            if not INT_MIN <= new <= _INT_MAX:
                new = wrap(new)
            ctx.set(name, None, new)
            return old if post else new
        return incdec
    if t is Seq:
        assert isinstance(n, Seq)
        fns = [_compile(item) for item in n.items]
        if any(f is None for f in fns):
            return None
        steps = cast("list[Compiled]", fns)

        def seq(ctx: ArithContext, expr: str) -> int:
            v = 0
            for f in steps:
                v = f(ctx, expr)
            return v
        return seq
    return None  # Err: the evaluator raises it with its message
