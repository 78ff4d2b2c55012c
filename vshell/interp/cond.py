"""Conditional expressions: the ``test`` / ``[`` builtin and ``[[ … ]]``.

Both share the primaries (file tests through the VFS, string and integer comparisons);
``[[`` adds pattern matching, ``=~`` and short-circuit ``&&`` / ``||`` over unexpanded
words.
"""

from __future__ import annotations

import os
import re
import stat as _stat
from typing import TYPE_CHECKING

from vshell.interp.state import ShellError

if TYPE_CHECKING:
    from vshell.interp.shell import Shell

UNARY = frozenset("-a -b -c -d -e -f -g -h -k -p -r -s -t -u -w -x -G -L -N -O -S -z -n -o -v -R"
                  .split())
BINARY = frozenset("= == != < > -eq -ne -lt -le -gt -ge -nt -ot -ef".split())
INT_OPS = {"-eq": "==", "-ne": "!=", "-lt": "<", "-le": "<=", "-gt": ">", "-ge": ">="}


class TestError(ShellError):
    def __init__(self, message: str) -> None:
        super().__init__(message, status=2)


def file_test(sh: Shell, op: str, path: str) -> bool:
    fs = sh.ctx.fs.bind(sh.fds)
    if path == "":
        return False
    full = sh.abspath(path)
    if op == "-t":
        return False
    try:
        if op in ("-h", "-L"):
            return _stat.S_ISLNK(fs.lstat(full).st_mode)
        st = fs.stat(full)
    except (OSError, ValueError):
        return False
    m = st.st_mode
    if op in ("-e", "-a"):
        return True
    if op == "-f":
        return _stat.S_ISREG(m)
    if op == "-d":
        return _stat.S_ISDIR(m)
    if op == "-b":
        return _stat.S_ISBLK(m)
    if op == "-c":
        return _stat.S_ISCHR(m)
    if op == "-p":
        return _stat.S_ISFIFO(m)
    if op == "-S":
        return _stat.S_ISSOCK(m)
    if op == "-s":
        return st.st_size > 0
    if op == "-g":
        return bool(m & _stat.S_ISGID)
    if op == "-u":
        return bool(m & _stat.S_ISUID)
    if op == "-k":
        return bool(m & _stat.S_ISVTX)
    if op == "-r":
        return fs.access(full, os.R_OK)
    if op == "-w":
        return fs.access(full, os.W_OK)
    if op == "-x":
        return fs.access(full, os.X_OK)
    if op in ("-O", "-G"):
        return True
    if op == "-N":
        return st.st_mtime > st.st_atime
    return False


def unary(sh: Shell, op: str, arg: str) -> bool:
    if op == "-z":
        return arg == ""
    if op == "-n":
        return arg != ""
    if op == "-o":
        from vshell.interp.state import SET_OPTIONS

        if arg not in SET_OPTIONS:
            return False
        return bool(sh.state.options.get(arg))
    if op == "-v":
        return _var_is_set(sh, arg)
    if op == "-R":
        sh.state.lookup(arg)
        _, raw = sh.state._find(arg)
        return raw is not None and "n" in raw.attrs
    if op == "-t":
        return False
    return file_test(sh, op, arg)


def _var_is_set(sh: Shell, name: str) -> bool:
    m = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)(?:\[(.*)\])?", name, re.S)
    if not m:
        if name.isdigit():
            return 0 < int(name) <= len(sh.state.positional)
        return False
    base, sub = m.group(1), m.group(2)
    st = sh.state
    if sub is None:
        return st.is_set(base)
    v = st.lookup(base)
    if v is None or not isinstance(v.value, dict):
        if v is not None and isinstance(v.value, str) and sub in ("0", "@", "*"):
            return True
        return False
    if sub in ("@", "*"):
        return bool(v.value)
    if "A" in v.attrs:
        return sh.expander.word(sub) in v.value
    idx = sh.arith(sh.expander.arith_text(sub), sub)
    if idx < 0:
        idx += (max(v.value) + 1) if v.value else 0  # type: ignore[operator]  # Var.value is dict[int, str] | dict[str, str]; this branch holds one kind
    return idx in v.value


_INTEGER = re.compile(r"[+-]?[0-9]+")


def to_int(sh: Shell, s: str, dbracket: bool) -> int:
    if dbracket:
        return sh.arith(sh.expander.arith_text(s) if "$" in s else s, s)
    t = s.strip()
    if _INTEGER.fullmatch(t):
        return int(t)
    raise TestError(f"{s}: integer expression expected")


def binary(sh: Shell, op: str, a: str, b: str, *, dbracket: bool = False) -> bool:
    if op in ("=", "=="):
        return a == b
    if op == "!=":
        return a != b
    if op == "<":
        return a.encode("utf-8", "surrogateescape") < b.encode("utf-8", "surrogateescape")
    if op == ">":
        return a.encode("utf-8", "surrogateescape") > b.encode("utf-8", "surrogateescape")
    if op in INT_OPS:
        x, y = to_int(sh, a, dbracket), to_int(sh, b, dbracket)
        return {"==": x == y, "!=": x != y, "<": x < y, "<=": x <= y, ">": x > y,
                ">=": x >= y}[INT_OPS[op]]
    fs = sh.ctx.fs
    if op in ("-nt", "-ot"):
        try:
            ma = fs.stat(sh.abspath(a)).st_mtime_ns
        except OSError:
            ma = None
        try:
            mb = fs.stat(sh.abspath(b)).st_mtime_ns
        except OSError:
            mb = None
        if op == "-nt":
            return ma is not None and (mb is None or ma > mb)
        return mb is not None and (ma is None or ma < mb)
    if op == "-ef":
        try:
            sa = fs.stat(sh.abspath(a))
            sb = fs.stat(sh.abspath(b))
        except OSError:
            return False
        return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)
    raise TestError(f"{op}: binary operator expected")


# --- test / [ -------------------------------------------------------------------------------
class _TestParser:
    def __init__(self, sh: Shell, args: list[str]) -> None:
        self.sh = sh
        self.args = args
        self.i = 0

    def parse(self) -> bool:
        if not self.args:
            return False
        v = self._expr_n(self.args)
        return v

    def _expr_n(self, args: list[str]) -> bool:
        n = len(args)
        if n == 0:
            return False
        if n == 1:
            return args[0] != ""
        if n == 2:
            if args[0] == "!":
                return args[1] == ""
            if args[0] in UNARY:
                return unary(self.sh, args[0], args[1])
            raise TestError(f"{args[0]}: unary operator expected")
        if n == 3:
            if args[1] in BINARY:
                return binary(self.sh, args[1], args[0], args[2])
            if args[1] == "-a":
                return args[0] != "" and args[2] != ""
            if args[1] == "-o":
                return args[0] != "" or args[2] != ""
            if args[0] == "!":
                return not self._expr_n(args[1:])
            if args[0] == "(" and args[2] == ")":
                return args[1] != ""
            raise TestError(f"{args[1]}: binary operator expected")
        if n == 4:
            if args[0] == "!":
                return not self._expr_n(args[1:])
            if args[0] == "(" and args[3] == ")":
                return self._expr_n(args[1:3])
        self.args = args
        self.i = 0
        v = self._or()
        if self.i < len(self.args):
            raise TestError(f"{self.args[self.i]}: unexpected argument" if self.args[self.i]
                            != ")" else "too many arguments")
        return v

    def _peek(self) -> str | None:
        return self.args[self.i] if self.i < len(self.args) else None

    def _or(self) -> bool:
        v = self._and()
        while self._peek() == "-o":
            self.i += 1
            r = self._and()
            v = v or r
        return v

    def _and(self) -> bool:
        v = self._not()
        while self._peek() == "-a":
            self.i += 1
            r = self._not()
            v = v and r
        return v

    def _not(self) -> bool:
        if self._peek() == "!":
            self.i += 1
            return not self._not()
        return self._primary()

    def _primary(self) -> bool:
        a = self._peek()
        if a is None:
            raise TestError("argument expected")
        if a == "(":
            self.i += 1
            v = self._or()
            if self._peek() != ")":
                raise TestError("`)' expected")
            self.i += 1
            return v
        if self.i + 2 < len(self.args) + 1 and self.i + 1 < len(self.args) and \
                self.args[self.i + 1] in BINARY and self.i + 2 < len(self.args):
            op = self.args[self.i + 1]
            b = self.args[self.i + 2]
            self.i += 3
            return binary(self.sh, op, a, b)
        if a in UNARY and self.i + 1 < len(self.args):
            self.i += 2
            return unary(self.sh, a, self.args[self.i - 1])
        self.i += 1
        return a != ""


def builtin_test(sh: Shell, name: str, args: list[str]) -> int:
    if name == "[":
        if not args or args[-1] != "]":
            sh.err("[: missing `]'")
            return 2
        args = args[:-1]
    try:
        return 0 if _TestParser(sh, list(args)).parse() else 1
    except TestError as e:
        sh.err(f"{name}: {e.message}")
        return 2


# --- [[ ]] ------------------------------------------------------------------------------------
def _shown_pattern(sh: Shell, raw: str) -> str:
    """A ``[[ == ]]`` pattern as ``set -x`` shows it: every quoted character escaped."""
    from vshell.interp.expand import BREAK, QUO, lex_word

    out = []
    for seg in sh.expander.parts(lex_word(raw), quoted=False):
        if seg is BREAK:
            out.append(" ")
        elif seg[1] == QUO:
            out.append("".join("\\" + c for c in seg[0]))
        else:
            out.append(seg[0])
    return "".join(out)


class _DParser:
    def __init__(self, sh: Shell, words: list[str]) -> None:
        self.sh = sh
        self.w = words
        self.i = 0

    def peek(self) -> str | None:
        return self.w[self.i] if self.i < len(self.w) else None

    def parse(self) -> bool:
        v = self.or_()
        if self.i < len(self.w):
            raise ShellError(f"syntax error in conditional expression: unexpected token "
                             f"`{self.w[self.i]}'", status=2)
        return v

    def or_(self) -> bool:
        v = self.and_()
        while self.peek() == "||":
            self.i += 1
            if v:
                self._skip_and()
            else:
                v = self.and_()
        return v

    def _skip_and(self) -> None:
        # parse without evaluating: consume one and_-expression
        self._skip_until(("||",))

    def _skip_until(self, stops: tuple[str, ...]) -> None:
        """Step over words without evaluating them, up to a ``)`` closing the current group
        or one of ``stops`` outside parentheses (short-circuit evaluation)."""
        depth = 0
        while self.i < len(self.w):
            t = self.w[self.i]
            if t == "(":
                depth += 1
            elif t == ")":
                if depth == 0:
                    return
                depth -= 1
            elif t in stops and depth == 0:
                return
            self.i += 1

    def and_(self) -> bool:
        v = self.not_()
        while self.peek() == "&&":
            self.i += 1
            if not v:
                self._skip_not()
            else:
                v = self.not_()
        return v

    def _skip_not(self) -> None:
        self._skip_until(("||", "&&"))

    def not_(self) -> bool:
        if self.peek() == "!":
            self.i += 1
            self.negations += 1
            try:
                return not self.not_()
            finally:
                self.negations -= 1
        return self.primary()

    negations = 0

    def trace(self, *shown: str) -> None:
        """``set -x``: bash traces each test it evaluates, operands expanded."""
        sh = self.sh
        if sh.state.options.get("xtrace"):
            words = ["!"] * self.negations + list(shown)
            sh.write_err(f"{sh.xtrace_prefix()}[[ {' '.join(words)} ]]\n")

    def primary(self) -> bool:
        sh = self.sh
        ex = sh.expander
        t = self.peek()
        if t is None:
            raise ShellError("unexpected argument to conditional expression", status=2)
        if t == "(":
            self.i += 1
            v = self.or_()
            if self.peek() != ")":
                raise ShellError("syntax error in conditional expression", status=2)
            self.i += 1
            return v
        nxt = self.w[self.i + 1] if self.i + 1 < len(self.w) else None
        if t in UNARY and nxt is not None and nxt not in ("&&", "||", ")"):
            self.i += 2
            arg = ex.word(nxt)
            self.trace(t, arg)
            return unary(sh, t, arg)
        if nxt in BINARY or nxt == "=~":
            if self.i + 2 >= len(self.w):
                raise ShellError(f"unexpected argument `{nxt}' to conditional binary operator",
                                 status=2)
            left = ex.word(t)
            rhs = self.w[self.i + 2]
            self.i += 3
            op = nxt
            if op in ("=", "==", "!="):
                from vshell.text import glob as P

                pat = ex.pattern(rhs)
                if sh.state.options.get("xtrace"):
                    self.trace(left, op, _shown_pattern(sh, rhs))
                hit = P.match(pat, left, extglob=True,
                              nocase=sh.state.shopt.get("nocasematch", False))
                return hit if op != "!=" else not hit
            if op == "=~":
                self.trace(left, op, ex.word(rhs))
                return self._regex(left, rhs)
            right = ex.word(rhs)
            self.trace(left, op, right)
            return binary(sh, op, left, right, dbracket=True)
        self.i += 1
        value = ex.word(t)
        self.trace("-n", value)
        return value != ""

    def _regex(self, left: str, rhs_raw: str) -> bool:
        """``[[ left =~ ERE ]]``: glibc's ERE on RE2 (leftmost-longest, as bash sees it)."""
        import vshell.text.regex as regex

        sh = self.sh
        src = sh.expander.regex_word(rhs_raw)
        try:
            rx = regex.compile(src, "bash", icase=bool(sh.state.shopt.get("nocasematch")))
        except regex.RegexError:
            sh.state.set_array("BASH_REMATCH", {})
            raise _BadRegex() from None
        try:
            with regex.cancellable(sh.ctx.cancel.check):
                m = rx.search(left)
        except regex.TooComplex:
            sh.state.set_array("BASH_REMATCH", {})
            sh.err(regex.TOO_COMPLEX)
            raise _BadRegex() from None
        if not m:
            sh.state.set_array("BASH_REMATCH", {})
            return False
        groups = {0: m.group(0)}
        for k in range(1, rx.groups + 1):
            groups[k] = m.group(k) or ""
        sh.state.set_array("BASH_REMATCH", groups)
        return True


class _BadRegex(Exception):
    """An invalid regex on the right of ``=~``: the test's status is 2 (not a syntax error)."""


def eval_dbracket(sh: Shell, words: list[str]) -> int:
    if not words:
        raise ShellError("syntax error in conditional expression", status=2)
    try:
        return 0 if _DParser(sh, words).parse() else 1
    except _BadRegex:
        return 2
