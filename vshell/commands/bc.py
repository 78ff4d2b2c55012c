"""bc: the arbitrary-precision calculator language, as far as agents use it.

Numbers are exact decimals kept as (integer, scale) pairs and every operation follows
POSIX/GNU bc's scale rules (``+ -`` the larger scale, ``*`` min(sum, max(scale, both)),
``/`` the ``scale`` variable, results truncated, not rounded).  Supported: expressions
with ``+ - * / % ^``, unary minus, comparisons, ``! && ||``, variables (``x``, ``total``),
``= += -= *= /= %= ^=``, ``++``/``--``, ``scale``/``ibase``/``obase`` (2–16), ``last``/``.``,
``sqrt length scale``, strings, comments, ``quit``, and ``-l`` (scale 20 and ``s c a l
e``).  Output follows GNU: no leading zero (``.5``), 68 characters then ``\\``.  ``if``,
``while``, ``for``, ``define``, arrays and ``print``/``read`` are refused with a message
(the line is skipped), never guessed at.

Bounded work: numbers keep at most ``MAX_DIGITS`` digits before and after the point
(``scale`` past it, an exponent or a result that would need more, and a longer literal are
refused as runtime errors, status 1), and the ``-l`` functions work to at most
``MAX_MATH_PREC`` significant digits: GNU bc would compute them for hours, holding the
process, and Python's big-int and decimal arithmetic cannot be interrupted mid-call.
Conversions to and from text go in chunks, and the run's cancel check is called between
operations.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from decimal import Decimal, localcontext
from typing import Any

from vshell.command import Invocation
from vshell.commands._lib.bigdigits import approx_digits, to_int, to_str
from vshell.commands._lib.helptext import help_text
from vshell.commands._lib.opts import parse

HELP = help_text("bc")

_TOKEN = re.compile(
    r"\s*(?:(?P<num>[0-9A-F]+(?:\.[0-9A-F]*)?|\.[0-9A-F]+)|(?P<name>[a-z][a-z0-9_]*)"
    r"|(?P<str>\"[^\"]*\")|(?P<op>\+\+|--|[-+*/%^]=|==|!=|<=|>=|&&|\|\||[-+*/%^=<>!(),;.])"
    r"|(?P<bad>\S))"
)
_UNSUPPORTED = {"if", "while", "for", "define", "print", "read", "halt", "break",
                "continue", "return", "auto", "else", "warranty", "limits"}
MAX_DIGITS = 10_000
"""Digits a number may have on each side of the point (and the largest ``scale``): at this
size one big-int operation takes a few milliseconds, so the GIL is never held long."""
MAX_MATH_PREC = 560
"""Significant digits the ``-l`` functions compute with (enough for ``scale=500``): the
decimal module's ``ln``/``exp`` grow steeply past this and run as one C call."""


class BcError(Exception):
    """A runtime error: GNU prints ``Runtime error (func=(main), adr=N): TEXT``."""


class BcLimit(BcError):
    """A number, scale or precision past vshell's bounds; bc then ends with status 1."""


class BcSyntax(Exception):
    """A syntax error; ``at_end`` when the line ended first (GNU then names the next line)."""

    def __init__(self, message: str, at_end: bool = False) -> None:
        super().__init__(message)
        self.at_end = at_end


class Num:
    """value = v / 10**s, s >= 0."""

    __slots__ = ("s", "v")

    def __init__(self, v: int, s: int = 0) -> None:
        self.v = v
        self.s = s

    def at(self, s: int) -> int:
        """The value scaled to ``s`` digits, truncated toward zero."""
        if s >= self.s:
            return self.v * 10 ** (s - self.s)
        return _tdiv(self.v, 10 ** (self.s - s))

    def int_part(self) -> int:
        return self.at(0)


def _tdiv(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


class Calc:
    def __init__(self, mathlib: bool, check: Callable[[], None] = lambda: None) -> None:
        self.check = check  # the run's cancel check, called between operations
        self.vars: dict[str, Num] = {}
        self.scale = 20 if mathlib else 0
        self.ibase = 10
        self.obase = 10
        self.last = Num(0)
        self.mathlib = mathlib
        self.warnings: list[str] = []

    # --- statements -----------------------------------------------------------------
    def run_line(self, line: str, out: list[str]) -> bool:
        """Run one input line; False on ``quit``."""
        toks = [(k, v) for k, v in _tokens(line)]
        pos = 0
        stmts: list[tuple[str, tuple[Any, ...]]] = []
        while pos < len(toks):  # parse the whole line first, as bc compiles it
            if toks[pos] == ("op", ";"):
                pos += 1
                continue
            if toks[pos] == ("name", "quit"):
                stmts.append(("quit", ()))
                break
            node, pos = _Parser(toks, pos).statement()
            stmts.append(("expr", node))
        for kind, node in stmts:
            if kind == "quit":
                return False
            if node[0] == "str":
                out.append(node[1])
                continue
            value = self.eval(node)
            if node[0] != "assign":  # a plain assignment prints nothing
                self.last = value
                out.append(self.format(value) + "\n")
        return True

    # --- evaluation -----------------------------------------------------------------
    def eval(self, node: tuple) -> Num:  # noqa: C901 - one dispatch on the node kind
        self.check()
        kind = node[0]
        if kind == "num":
            return self.literal(node[1])
        if kind == "var":
            return self.get(node[1])
        if kind == "neg":
            x = self.eval(node[1])
            return Num(-x.v, x.s)
        if kind == "not":
            return Num(0 if self.eval(node[1]).v else 1)
        if kind == "and":
            return Num(1 if self.eval(node[1]).v and self.eval(node[2]).v else 0)
        if kind == "or":
            return Num(1 if self.eval(node[1]).v or self.eval(node[2]).v else 0)
        if kind == "bin":
            return self.binary(node[1], self.eval(node[2]), self.eval(node[3]))
        if kind == "cmp":
            a, b = self.eval(node[2]), self.eval(node[3])
            s = max(a.s, b.s)
            left, right = a.at(s), b.at(s)
            ok = {"<": left < right, "<=": left <= right, ">": left > right, ">=": left >= right,
                  "==": left == right, "!=": left != right}[node[1]]
            return Num(1 if ok else 0)
        if kind == "assign":
            op, name, rhs = node[1], node[2], self.eval(node[3])
            value = rhs if op == "=" else self.binary(op[0], self.get(name), rhs)
            self.set(name, value)
            return value
        if kind in ("incdec_pre", "incdec_post"):
            old = self.get(node[2])
            new = self.binary("+" if node[1] == "++" else "-", old, Num(1))
            self.set(node[2], new)
            return new if kind == "incdec_pre" else old
        if kind == "call":
            return self.call(node[1], [self.eval(a) for a in node[2]])
        raise BcSyntax("syntax error")

    def literal(self, text: str) -> Num:
        whole, _, frac = text.partition(".")
        if len(whole) > MAX_DIGITS or len(frac) > MAX_DIGITS:
            raise BcLimit(f"number too long (vshell's bc keeps {MAX_DIGITS} digits)")
        if self.ibase == 10 and all(c in "0123456789." for c in text):
            return Num(to_int((whole or "0") + frac, self.check), len(frac))
        base = self.ibase
        value = 0
        for c in whole:
            value = value * base + int(c, 16)
        if not frac:
            return Num(value)
        s = len(frac)  # bc keeps as many digits as the literal had
        num, den = 0, 1
        for c in frac:
            num = num * base + int(c, 16)
            den *= base
        return Num(value * 10**s + _tdiv(num * 10**s, den), s)

    def get(self, name: str) -> Num:
        if name == "scale":
            return Num(self.scale)
        if name == "ibase":
            return Num(self.ibase)
        if name == "obase":
            return Num(self.obase)
        if name in ("last", "."):
            return self.last
        return self.vars.get(name, Num(0))

    def set(self, name: str, value: Num) -> None:
        if name in ("scale", "ibase", "obase"):
            n = value.int_part()
            if name == "scale":
                if n < 0:
                    raise BcError("negative scale")
                if n > MAX_DIGITS:
                    raise BcLimit(f"scale too large (vshell's bc takes at most {MAX_DIGITS})")
                self.scale = n
            elif not 2 <= n <= 16:
                raise BcError(f"{name} out of range (vshell's bc takes 2 to 16)")
            else:
                setattr(self, name, n)
            return
        if name in ("last", "."):
            self.last = value
            return
        self.vars[name] = value

    def binary(self, op: str, a: Num, b: Num) -> Num:
        self.check()
        return self.fit(self._binary(op, a, b))

    @staticmethod
    def fit(x: Num) -> Num:
        """``x`` itself, or a limit error when its integer part is past ``MAX_DIGITS``."""
        if approx_digits(x.v) - x.s > MAX_DIGITS + 1:
            raise BcLimit(f"number too long (vshell's bc keeps {MAX_DIGITS} digits)")
        return x

    def _binary(self, op: str, a: Num, b: Num) -> Num:
        if op == "+" or op == "-":
            s = max(a.s, b.s)
            return Num(a.at(s) + b.at(s) if op == "+" else a.at(s) - b.at(s), s)
        if op == "*":
            s = min(a.s + b.s, max(self.scale, a.s, b.s))
            return Num(_tdiv(a.v * b.v, 10 ** (a.s + b.s - s)), s)
        if op == "/":
            return self.divide(a, b, self.scale)
        if op == "%":
            q = self.divide(a, b, self.scale)
            s = max(self.scale + b.s, a.s)
            return Num(a.at(s) - _tdiv(q.v * b.v * 10**s, 10 ** (q.s + b.s)), s)
        if op == "^":
            return self.power(a, b)
        raise BcSyntax("syntax error")

    def divide(self, a: Num, b: Num, s: int) -> Num:
        if b.v == 0:
            raise BcError("Divide by zero")
        return Num(_tdiv(a.v * 10 ** (b.s + s), b.v * 10**a.s), s)

    def power(self, a: Num, b: Num) -> Num:
        if b.v % 10**b.s:
            self.warnings.append("non-zero scale in exponent")
        n = b.int_part()
        if n == 0:
            return Num(1)
        magnitude = abs(n) * math.log10(abs(a.v)) if a.v else 0.0  # digits of a.v ** n
        if magnitude > 2 * MAX_DIGITS + a.s * abs(n):
            raise BcLimit(f"exponent too large in raise (vshell's bc keeps {MAX_DIGITS} digits)")
        if n < 0:
            whole = Num(a.v ** -n, a.s * -n)
            return self.divide(Num(1), whole, self.scale)
        s = min(a.s * n, max(self.scale, a.s))
        return Num(_tdiv(a.v**n, 10 ** (a.s * n - s)), s)

    def call(self, name: str, args: list[Num]) -> Num:
        if len(args) != 1:
            raise BcError(f"{name}: wrong number of arguments")
        x = args[0]
        if name == "length":
            return Num(max(len(to_str(abs(x.v), self.check)), x.s) if x.v else max(x.s, 1))
        if name == "scale":
            return Num(x.s)
        if name == "sqrt":
            if x.v < 0:
                raise BcError("Square root of a negative number")
            s = max(self.scale, x.s)
            from math import isqrt

            return Num(isqrt(x.v * 10 ** (2 * s - x.s)), s)
        if self.mathlib and name in ("s", "c", "a", "l", "e"):
            return self.mathfn(name, x)
        raise BcError(f"Function {name} not defined")

    def mathfn(self, name: str, x: Num) -> Num:
        """The -l library: computed with extra digits, then truncated to ``scale``."""
        s = self.scale
        whole = x.int_part()
        digits_in = approx_digits(whole)
        if name == "e" and whole < 0 and digits_in < 8 and -whole * 0.4342944 > s + 2:
            return Num(0, s)  # e(x) < 10**-(s+1): truncated to scale s it is zero
        if name == "e" and whole > 0:
            if digits_in >= 8 or whole * 0.4342944 > MAX_MATH_PREC:
                raise BcLimit(f"e(): result too large (vshell's bc -l computes {MAX_MATH_PREC}"
                              " digits)")
            digits_out = int(whole * 0.4342944) + 1
        elif name in ("s", "c"):
            digits_out = digits_in  # the argument is reduced modulo 2*pi at full length
        else:
            digits_out = 6
        prec = s + digits_out + 30
        if digits_in > MAX_MATH_PREC or prec > MAX_MATH_PREC + 30:
            raise BcLimit(f"{name}(): scale or argument too large (vshell's bc -l computes"
                          f" {MAX_MATH_PREC} digits)")
        with localcontext() as ctx:
            ctx.prec = prec
            d = Decimal(x.v).scaleb(-x.s)
            if name == "l":
                if x.v <= 0:
                    raise BcError("l: argument must be positive")
                r = d.ln()
            elif name == "e":
                r = d.exp()
            else:
                r = _trig(name, d, ctx.prec, self.check)
            scaled = (r.scaleb(s)).to_integral_value(rounding="ROUND_DOWN")
        return Num(int(scaled), s)

    # --- output ---------------------------------------------------------------------
    def format(self, x: Num) -> str:
        text = self._digits(x)
        lines = [text[i:i + 68] + "\\" for i in range(0, len(text) - 68, 68)]
        lines.append(text[len(lines) * 68:])  # GNU: 68 characters and a backslash a line
        return "\n".join(lines)

    def _digits(self, x: Num) -> str:
        if x.v == 0:
            return "0"
        sign = "-" if x.v < 0 else ""
        whole, frac = divmod(abs(x.v), 10**x.s)
        if self.obase == 10:
            head = to_str(whole, self.check) if whole else ""
            return sign + head + ("." + to_str(frac, self.check).rjust(x.s, "0") if x.s else "")
        digits = "0123456789ABCDEF"
        head = ""
        while whole:
            self.check()
            whole, d = divmod(whole, self.obase)
            head = digits[d] + head
        if not x.s:
            return sign + (head or "0")
        out = []
        power = 1
        f = Num(frac, x.s)
        end = 10**x.s  # as many digits as the fraction has decimals
        while power < end:
            self.check()
            scaled = f.v * self.obase
            d, rest = divmod(scaled, 10**x.s)
            out.append(digits[d])
            f = Num(rest, x.s)
            power *= self.obase
        return sign + head + "." + "".join(out)


def _trig(name: str, x: Decimal, prec: int, check: Callable[[], None]) -> Decimal:
    """sin, cos (Taylor series) and atan (argument halving then series) in Decimal."""
    eps = Decimal(10) ** -(prec - 5)
    if name in ("s", "c"):
        pi = _pi(prec)
        x = x % (2 * pi)
        term = x if name == "s" else Decimal(1)
        total, n = term, 1 if name == "s" else 0
        while abs(term) > eps:
            check()
            term = -term * x * x / ((n + 1) * (n + 2))
            n += 2
            total += term
        return total
    halvings = 0
    while abs(x) > Decimal("0.2"):
        x = x / (1 + (1 + x * x).sqrt())
        halvings += 1
    term, total, n = x, x, 1
    while abs(term) > eps:
        check()
        term = -term * x * x
        n += 2
        total += term / n
    return total * (2**halvings)


def _pi(prec: int) -> Decimal:
    """pi by Machin's formula."""
    def arctan_inv(k: int) -> Decimal:
        x = Decimal(1) / k
        term, total, n = x, x, 1
        eps = Decimal(10) ** -(prec + 2)
        while abs(term) > eps:
            term = -term / (k * k)
            n += 2
            total += term / n
        return total

    return 4 * (4 * arctan_inv(5) - arctan_inv(239))


def _tokens(line: str) -> list[tuple[str, str]]:
    out = []
    text = re.sub(r"/\*.*?\*/", " ", line)
    text = re.sub(r"#.*", "", text)
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        if kind is None:
            continue
        value = m.group(kind)
        if kind == "bad":
            raise BcSyntax("syntax error")
        if kind == "name" and value in _UNSUPPORTED:
            raise BcSyntax(f"`{value}' is not supported by vshell's bc")
        out.append((kind, value))
    return out


class _Parser:
    """Precedence climbing over bc's operators (``^`` right-associative, unary minus
    binding tighter than ``^`` as in bc)."""

    def __init__(self, toks: list[tuple[str, str]], pos: int) -> None:
        self.toks = toks
        self.pos = pos

    def peek(self) -> tuple[str, str] | None:
        return self.toks[self.pos] if self.pos < len(self.toks) else None

    def take(self) -> tuple[str, str]:
        tok = self.peek()
        if tok is None:
            raise BcSyntax("syntax error", at_end=True)
        self.pos += 1
        return tok

    def statement(self) -> tuple[tuple, int]:
        tok = self.peek()
        if tok is not None and tok[0] == "str":
            self.pos += 1
            node: tuple = ("str", tok[1][1:-1])
        else:
            node = self.assignment()
        nxt = self.peek()
        if nxt is not None and nxt != ("op", ";"):
            raise BcSyntax("syntax error")
        return node, self.pos

    def assignment(self) -> tuple:
        tok, nxt = self.peek(), self.toks[self.pos + 1] if self.pos + 1 < len(self.toks) else None
        if tok is not None and tok[0] == "name" and nxt is not None and nxt[0] == "op" and \
                nxt[1] in ("=", "+=", "-=", "*=", "/=", "%=", "^="):
            self.pos += 2
            return ("assign", nxt[1], tok[1], self.assignment())
        return self.or_()

    def _chain(self, ops: tuple[str, ...], operand: Callable[[], tuple],
               kind: str | None) -> tuple:
        """A left-associative run of ``ops`` over ``operand``: (kind, l, r) or ("bin", op, l, r)."""
        left = operand()
        while (tok := self.peek()) is not None and tok[0] == "op" and tok[1] in ops:
            self.pos += 1
            right = operand()
            left = (kind, left, right) if kind else ("bin", tok[1], left, right)
        return left

    def or_(self) -> tuple:
        return self._chain(("||",), self.and_, "or")

    def and_(self) -> tuple:
        return self._chain(("&&",), self.not_, "and")

    def not_(self) -> tuple:
        if self.peek() == ("op", "!"):
            self.pos += 1
            return ("not", self.not_())
        return self.compare()

    def compare(self) -> tuple:
        left = self.additive()
        tok = self.peek()
        if tok is not None and tok[0] == "op" and tok[1] in ("<", "<=", ">", ">=", "==", "!="):
            self.pos += 1
            return ("cmp", tok[1], left, self.additive())
        return left

    def additive(self) -> tuple:
        return self._chain(("+", "-"), self.term, None)

    def term(self) -> tuple:
        return self._chain(("*", "/", "%"), self.power, None)

    def power(self) -> tuple:
        base = self.unary()
        if self.peek() == ("op", "^"):
            self.pos += 1
            return ("bin", "^", base, self.power())
        return base

    def unary(self) -> tuple:
        if self.peek() == ("op", "-"):
            self.pos += 1
            return ("neg", self.unary())
        if (tok := self.peek()) in (("op", "++"), ("op", "--")):
            self.pos += 1
            name = self.take()
            if name[0] != "name":
                raise BcSyntax("syntax error")
            return ("incdec_pre", tok[1], name[1])
        return self.postfix()

    def postfix(self) -> tuple:
        tok = self.take()
        if tok[0] == "num":
            return ("num", tok[1])
        if tok == ("op", "("):
            inner = self.assignment()
            if self.take() != ("op", ")"):
                raise BcSyntax("syntax error")
            return inner
        if tok == ("op", "."):
            return ("var", "last")
        if tok[0] == "name":
            if self.peek() == ("op", "("):
                self.pos += 1
                args = []
                if self.peek() != ("op", ")"):
                    args.append(self.assignment())
                    while self.peek() == ("op", ","):
                        self.pos += 1
                        args.append(self.assignment())
                if self.take() != ("op", ")"):
                    raise BcSyntax("syntax error")
                return ("call", tok[1], args)
            nxt = self.peek()
            if nxt in (("op", "++"), ("op", "--")):
                self.pos += 1
                return ("incdec_post", nxt[1], tok[1])
            return ("var", tok[1])
        raise BcSyntax("syntax error")


def run(inv: Invocation) -> int:
    opts = parse(inv, "lqv", ["mathlib", "quiet", "version"], help_text=HELP)
    if opts.has("-v", "--version"):
        inv.stdout.write(b"bc 1.07.1 (vshell)\n")
        return 0
    calc = Calc(opts.has("-l", "--mathlib"), inv.cancel.check)
    status = 0
    sources: list[tuple[str, bytes]] = []
    for name in opts.operands:
        try:
            with inv.fs.open(inv.abs(name), "rb") as f:
                sources.append((name, f.read()))
        except OSError:
            inv.stderr.write(f"File {name} is unavailable.\n".encode())
            return 1
    sources.append(("(standard_in)", inv.stdin.read() if inv.stdin is not None else b""))
    for label, data in sources:
        for lineno, line in enumerate(data.decode("utf-8", "replace").split("\n"), 1):
            inv.cancel.check()
            out: list[str] = []
            try:
                keep_going = calc.run_line(line, out)
            except RecursionError:
                inv.stdout.write("".join(out).encode())
                inv.stderr.write(f"{label} {lineno}: expression nested too deeply\n".encode())
                status = 1
                continue
            except BcSyntax as e:
                inv.stdout.write("".join(out).encode())
                inv.stderr.write(f"{label} {lineno + e.at_end}: {e}\n".encode())
                continue
            except (BcError, ArithmeticError) as e:
                inv.stdout.write("".join(out).encode())
                if not isinstance(e, BcError):  # decimal/float trouble: say it bc's way
                    e = BcLimit("number out of range")
                inv.stderr.write(f"Runtime error (func=(main)): {e}\n".encode())
                if isinstance(e, BcLimit):
                    status = 1
                continue
            finally:
                for w in calc.warnings:
                    inv.stderr.write(f"Runtime warning (func=(main)): {w}\n".encode())
                calc.warnings.clear()
            inv.stdout.write("".join(out).encode())
            if not keep_going:
                return status
    return status
