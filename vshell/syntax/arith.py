"""Parser for shell arithmetic (``$(( ))``, ``(( ))``, ``let``, array subscripts).

Bash does not parse arithmetic ahead of time: its evaluator reads a token, evaluates, reads
the next one.  So the *order* in which errors and side effects appear depends on where the
tokenizer was when something went wrong (``1/0 @`` reports the bad ``@``, ``1/0, @``
reports the division).  To get bash's behaviour from a parse-once tree we mirror its
recursive descent exactly (same token state, same ``lasttok`` bookkeeping) and, when a
syntax error happens, keep the part that was already parsed: the error becomes an
:class:`Err` node placed where bash would have stopped, and the evaluator raises it when
it gets there, after performing every effect bash would have performed first.

Trees are immutable and cached by :func:`parse`, so loops re-evaluate without re-parsing.
"""

from __future__ import annotations

from functools import lru_cache

from vshell.records import record

INT_MIN = -(1 << 63)
_MASK = (1 << 64) - 1


def wrap(v: int) -> int:
    """Reduce a Python int to a 64-bit two's complement value (bash's intmax_t)."""
    v &= _MASK
    return v - (1 << 64) if v >> 63 else v


@record(frozen=True)
class Num:
    """An integer constant (already converted from its base)."""

    value: int


@record(frozen=True)
class Var:
    """A variable or array element reference; ``pos`` is its offset for error tokens."""

    name: str
    subscript: str | None
    pos: int
    noread: bool = False  # bash does not read a name directly followed by ``=``


@record(frozen=True)
class Unary:
    """``+ - ! ~`` applied to an operand."""

    op: str
    operand: Node


@record(frozen=True)
class IncDec:
    """``++x --x x++ x--``; ``post`` tells which value the expression yields."""

    op: str  # "++" or "--"
    target: Var
    post: bool


@record(frozen=True)
class Binary:
    """A binary operator other than ``&& ||``.

    ``err_token`` is the text bash shows in ``(error token is "...")`` if this operation
    fails at run time (division by 0, negative exponent); it depends on where the
    tokenizer stood, so it is recorded at parse time.
    """

    op: str
    left: Node
    right: Node
    err_token: str = ""


@record(frozen=True)
class Logical:
    """``&&`` / ``||``: the right side is evaluated without effects when short-circuited."""

    op: str
    left: Node
    right: Node


@record(frozen=True)
class Cond:
    """``c ? a : b``; ``else_`` is None only in a partial tree (the error is in ``then``)."""

    cond: Node
    then: Node
    else_: Node | None


@record(frozen=True)
class Assign:
    """``x = v`` or ``x op= v`` (op is the operator without ``=``, '' for plain ``=``)."""

    op: str
    target: Var
    value: Node
    err_token: str = ""


@record(frozen=True)
class Seq:
    """Evaluate every item in order, yield the last one (``,`` and partial trees)."""

    items: tuple[Node, ...]


@record(frozen=True)
class Err:
    """A syntax error, raised by the evaluator when it reaches this point.

    ``expr`` is the expression text bash prints before the message (usually the whole
    expression without leading blanks; bash cuts it after a bad number).
    """

    message: str
    token: str
    expr: str


Node = Num | Var | Unary | IncDec | Binary | Logical | Cond | Assign | Seq | Err

# token kinds besides operator strings
_EOF = ""
_NUM = "NUM"
_STR = "STR"
_OPASSIGN = "OP="
_PREINC, _PREDEC, _POSTINC, _POSTDEC = "++x", "--x", "x++", "x--"
_COND = "COND"

_ARITHOPS = frozenset("=><+-*/%!()&|^~?:,")
_MULTIOPS = frozenset(
    ["==", "!=", "<=", ">=", "&&", "||", "<<", ">>", _OPASSIGN, _COND, "**",
     _PREINC, _PREDEC, _POSTINC, _POSTDEC]
)
_NUMCHARS = frozenset("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ@_")
_IDSTART = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_IDCHARS = _IDSTART | frozenset("0123456789")
_CRWS = " \t\n"


class _Partial(Exception):
    """Carries the partial tree up the recursive descent after a syntax error."""

    def __init__(self, node: Node) -> None:
        super().__init__()
        self.node = node


def _digit_value(c: str, base: int) -> int:
    if c.isdigit():
        return ord(c) - 48
    if "a" <= c <= "z":
        return ord(c) - 87
    if "A" <= c <= "Z":
        return ord(c) - (55 if base <= 36 else 29)
    return 62 if c == "@" else 63


def _strlong(num: str) -> int | str:
    """Convert a constant as bash's strlong does; return an error message on failure."""
    base, val, found, i = 10, 0, False, 0
    if num[0] == "0":
        i = 1
        if len(num) == 1:
            return 0
        if num[1] in "xX":
            base, i = 16, 2
        else:
            base = 8
        found = True
    n = len(num)
    while i < n:
        c = num[i]
        i += 1
        if c == "#":
            if found:
                return "invalid number"
            if val < 2 or val > 64:
                return "invalid arithmetic base"
            base, val, found = val, 0, True
            if i >= n or num[i] not in _NUMCHARS:
                return "invalid integer constant"
            continue
        d = _digit_value(c, base)
        if d >= base:
            return "value too great for base"
        val = wrap(val * base + d)
    return val


def _skip_subscript(s: str, i: int) -> int:
    """Index of the ``]`` closing the ``[`` at ``s[i]``, or -1 (quotes and nesting kept)."""
    depth, n = 0, len(s)
    while i < n:
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c in "'\"":
            j = s.find(c, i + 1)
            if j < 0:
                return -1
            i = j + 1
            continue
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


class _Parser:
    """Bash's expr.c recursive descent, building nodes instead of values."""

    def __init__(self, text: str) -> None:
        self.s = text
        self.shown = text.lstrip(" \t")  # bash prints the expression without leading blanks
        self.tp = 0
        self.lasttp = 0
        self.curtok = _EOF
        self.lasttok = _EOF
        self.tokval = 0
        self.tokvar: Var | None = None
        self.assigntok = ""

    # -- errors ------------------------------------------------------------------------
    def _token_text(self) -> str:
        return self.s[self.lasttp:]

    def fail(self, msg: str, *done: Node) -> None:
        """Stop parsing: the error fires after the already-parsed ``done`` nodes run."""
        err = Err(msg, self._token_text(), self.shown)
        raise _Partial(Seq((*done, err)) if done else err)

    # -- tokenizer ---------------------------------------------------------------------
    def readtok(self) -> None:
        s, n = self.s, len(self.s)
        cp = self.tp
        while cp < n and s[cp] in _CRWS:
            cp += 1
        if cp >= n:
            self.lasttok, self.curtok, self.tp = self.curtok, _EOF, cp
            return
        start = cp
        self.lasttp = self.tp = start
        c = s[cp]
        cp += 1
        if c in _IDSTART:
            while cp < n and s[cp] in _IDCHARS:
                cp += 1
            name = s[start:cp]
            sub: str | None = None
            if cp < n and s[cp] == "[":
                e = _skip_subscript(s, cp)
                if e < 0:
                    self.fail("bad array subscript")
                sub = s[cp + 1:e]
                cp = e + 1
            # bash peeks at the next token right away, so its lexical errors come first
            saved = (self.curtok, self.lasttok, self.lasttp, self.tokval, self.tokvar,
                     self.assigntok)
            self.tp, self.curtok = cp, _STR
            self.readtok()
            noread = self.curtok == "=" and saved[1] not in (_PREINC, _PREDEC)
            (self.curtok, self.lasttok, self.lasttp, self.tokval, self.tokvar,
             self.assigntok) = saved
            self.tokvar = Var(name, sub, start, noread)
            self.lasttok, self.curtok, self.tp = self.curtok, _STR, cp
            return
        if c.isdigit() and c.isascii():
            while cp < n and (s[cp] in _NUMCHARS or s[cp] == "#"):
                cp += 1
            v = _strlong(s[start:cp])
            if isinstance(v, str):
                # bash NUL-terminates the expression after the number while converting it
                full = self.s
                self.s = s[:cp]
                self.shown = self.s.lstrip(" \t")
                try:
                    self.fail(v)
                finally:
                    self.s, self.shown = full, full.lstrip(" \t")
            self.tokval = v  # type: ignore[assignment]  # a number token carries its int value in tokval (a str otherwise)
            self.lasttok, self.curtok, self.tp = self.curtok, _NUM, cp
            return
        c1 = s[cp] if cp < n else ""
        cp += 1
        tok = c
        if c1 == "=" and c in "=!<>":
            tok = c + "="
        elif c == "<" and c1 == "<" or c == ">" and c1 == ">":
            if cp < n and s[cp] == "=":
                self.assigntok, tok = c * 2, _OPASSIGN
                cp += 1
            else:
                tok = c * 2
        elif c1 == c and c in "&|*":
            tok = c * 2
        elif c in "+-" and c1 == c and self.curtok == _STR:
            tok = _POSTINC if c == "+" else _POSTDEC
        elif c in "+-" and c1 == c and self.curtok == _NUM and self.lasttok in (_PREINC, _PREDEC):
            self.fail(f"{c}{c}: assignment requires lvalue")
        elif c in "+-" and c1 == c:
            xp = cp
            while xp < n and s[xp] in _CRWS:
                xp += 1
            if xp < n and s[xp] in _IDSTART:
                tok = _PREINC if c == "+" else _PREDEC
            else:
                cp -= 1
        elif c1 == "=" and c in "*/%+-&^|":
            self.assigntok, tok = c, _OPASSIGN
        elif c not in _ARITHOPS:
            cp -= 1
            if self.curtok == _EOF or self.curtok in _ARITHOPS or self.curtok in _MULTIOPS:
                self.fail("syntax error: operand expected")
            self.fail("syntax error: invalid arithmetic operator")
        else:
            cp -= 1
        self.lasttok, self.curtok, self.tp = self.curtok, tok, cp

    # -- grammar (one method per bash precedence level) ---------------------------------
    def parse(self) -> Node:
        try:
            self.readtok()
            node = self.comma()
            if self.curtok != _EOF:
                self.fail("syntax error in expression", node)
        except _Partial as p:
            return p.node
        return node

    def comma(self) -> Node:
        items = [self.assign()]
        while self.curtok == ",":
            try:
                self.readtok()
                items.append(self.assign())
            except _Partial as p:
                raise _Partial(Seq((*items, p.node))) from None
        return items[0] if len(items) == 1 else Seq(tuple(items))

    def assign(self) -> Node:
        left = self.cond()
        if self.curtok not in ("=", _OPASSIGN):
            return left
        op = self.assigntok if self.curtok == _OPASSIGN else ""
        if self.lasttok != _STR or not isinstance(left, Var):
            self.fail("attempted assignment to non-variable", left)
        assert isinstance(left, Var)
        try:
            self.readtok()
            value = self.assign()
        except _Partial as p:
            # x op= ... has already read x (that read may fail first); x = ... has not
            raise _Partial(Seq((left, p.node)) if op else p.node) from None
        return Assign(op, left, value, self._token_text())

    def cond(self) -> Node:
        c = self.lor()
        if self.curtok != "?":
            return c
        try:
            self.readtok()
            if self.curtok in (_EOF, ":"):
                self.fail("expression expected")
            then = self.comma()
        except _Partial as p:
            raise _Partial(Cond(c, p.node, None)) from None
        try:
            if self.curtok != ":":
                self.fail("`:' expected for conditional expression")
            self.readtok()
            if self.curtok == _EOF:
                self.fail("expression expected")
            else_ = self.cond()
        except _Partial as p:
            raise _Partial(Cond(c, then, p.node)) from None
        self.lasttok = _COND
        return Cond(c, then, else_)

    def _logical(self, op: str, sub: str) -> Node:
        left = getattr(self, sub)()
        while self.curtok == op:
            try:
                self.readtok()
                right = getattr(self, sub)()
            except _Partial as p:
                raise _Partial(Logical(op, left, p.node)) from None
            left = Logical(op, left, right)
            self.lasttok = op
        return left

    def lor(self) -> Node:
        return self._logical("||", "land")

    def land(self) -> Node:
        return self._logical("&&", "bor")

    def _binary(self, ops: tuple[str, ...], sub: str) -> Node:
        left = getattr(self, sub)()
        while self.curtok in ops:
            op = self.curtok
            stp = self.tp
            try:
                self.readtok()
                right = getattr(self, sub)()
            except _Partial as p:
                raise _Partial(Seq((left, p.node))) from None
            token = ""
            if op in ("/", "%"):
                token = self.s[stp:].lstrip(" \t")
            left = Binary(op, left, right, token)
            self.lasttok = _NUM
        return left

    def bor(self) -> Node:
        return self._binary(("|",), "bxor")

    def bxor(self) -> Node:
        return self._binary(("^",), "band")

    def band(self) -> Node:
        return self._binary(("&",), "eq")

    def eq(self) -> Node:
        return self._binary(("==", "!="), "rel")

    def rel(self) -> Node:
        return self._binary(("<=", ">=", "<", ">"), "shift")

    def shift(self) -> Node:
        return self._binary(("<<", ">>"), "add")

    def add(self) -> Node:
        return self._binary(("+", "-"), "mul")

    def mul(self) -> Node:
        return self._binary(("*", "/", "%"), "power")

    def power(self) -> Node:
        left = self.unary()
        if self.curtok != "**":
            return left
        try:
            self.readtok()
            right = self.power()
        except _Partial as p:
            raise _Partial(Seq((left, p.node))) from None
        self.lasttok = _NUM
        return Binary("**", left, right, self._token_text())

    def unary(self) -> Node:
        op = self.curtok
        if op in ("!", "~", "-", "+"):
            self.readtok()
            node = Unary(op, self.unary())
            self.lasttok = _NUM
            return node
        return self.primary()

    def primary(self) -> Node:
        tok = self.curtok
        if tok in (_PREINC, _PREDEC):
            self.lasttok = tok
            self.readtok()
            if self.curtok != _STR or self.tokvar is None:
                self.fail("identifier expected after pre-increment or pre-decrement")
            assert self.tokvar is not None
            node: Node = IncDec(tok[:2], self.tokvar, False)
            self.curtok = _NUM  # so that ++x=7 is refused
            self.readtok()
            return node
        if tok == "(":
            self.readtok()
            inner = self.comma()
            if self.curtok != ")":
                self.fail("missing `)'", inner)
            try:
                self.readtok()
            except _Partial as p:
                raise _Partial(Seq((inner, p.node))) from None
            return inner
        if tok == _NUM:
            node = Num(self.tokval)
            self.readtok()
            return node
        if tok == _STR:
            var = self.tokvar
            assert var is not None
            saved = (self.tp, self.lasttp, self.curtok, self.lasttok)
            # this read repeats the tokenizer's peek, so it cannot fail
            self.readtok()
            if self.curtok in (_POSTINC, _POSTDEC):
                node = IncDec(self.curtok[1:], var, True)
                self.lasttok, self.curtok = _STR, _NUM  # so that x++=7 is refused
                try:
                    self.readtok()
                except _Partial as p:
                    raise _Partial(Seq((node, p.node))) from None
                return node
            self.tp, self.lasttp, self.curtok, self.lasttok = saved
            self.readtok()
            self.tokvar = var
            return var
        self.fail("syntax error: operand expected")
        raise AssertionError  # unreachable: fail raises


# a cache of a pure function keyed by its input (the tree is never mutated): no session state
@lru_cache(maxsize=2048)
def parse(text: str) -> Node | None:
    """Parse an arithmetic expression; None for an empty (all-blank) one, which is 0.

    Syntax errors are not raised here: they are :class:`Err` nodes inside the returned
    tree, so that the evaluator reproduces bash's order of effects and errors.
    """
    if not text.strip(_CRWS):
        return None
    return _Parser(text).parse()
