"""Parse the POSIX dialects (BRE, ERE, awk, bash ``=~``) with GNU's extensions into the
shared tree (:mod:`vshell.text.regex.ast`).

Dialect rules, as the GNU tools apply them:

* ``bre``: ``\\( \\) \\{ \\} \\| \\+ \\?`` are operators (the last three are literals with
  ``posix``); ``*`` first in a branch or group is literal; ``^``/``$`` anchor only first/last.
* ``ere``: ``strict`` (sed -E, glibc regcomp) errors on a leading quantifier, a malformed
  interval or an unmatched ``)``; lenient (grep, GNU dfa) ignores the quantifier with a
  warning and takes the others literally.
* ``bash``: ERE as glibc regcomp takes it (strict).
* ``awk``: ERE where a leading quantifier and a malformed interval are literal, escapes
  (``\\n \\t \\ddd \\xhh \\/ \\"``) work inside brackets too, and ``\\y`` is a word boundary.
"""

from __future__ import annotations

from vshell.text import posix_class
from vshell.text.regex.ast import Alt, Assert, Backref, Cat, Group, Lit, Node, Range, Repeat, Set

RE_DUP_MAX = 0x7FFF

# glibc's messages, verbatim.
EBRACK = "Unmatched [, [^, [:, [., or [="
EPAREN = "Unmatched ( or \\("
ERPAREN = "Unmatched ) or \\)"
EBRACE = "Unmatched \\{"
BADBR = "Invalid content of \\{\\}"
ESUBREG = "Invalid back reference"
BADRPT = "Invalid preceding regular expression"
EESCAPE = "Trailing backslash"
ERANGE = "Invalid range end"
ECTYPE = "Invalid character class name"
ECOLLATE = "Invalid collation character"
ESIZE = "Regular expression too big"

_C_ESCAPES = {"n": 10, "t": 9, "r": 13, "f": 12, "v": 11, "a": 7}
_HEX = "0123456789abcdefABCDEF"
WORD_ASCII: list[Range] = [(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)]
SPACE: list[Range] = [(0x09, 0x0D), (0x20, 0x20)]


class RegexError(ValueError):
    """A regular expression that does not compile; the message is glibc's."""


def word_ranges(utf8: bool) -> list[Range]:
    """What ``\\w`` matches: alphanumerics and ``_`` (every script's in a UTF-8 locale)."""
    if not utf8:
        return list(WORD_ASCII)
    return list(WORD_ASCII) + list(posix_class.unicode_ranges("alnum"))


class _Parser:
    def __init__(
        self, pattern: str, dialect: str, *, utf8: bool, strict: bool, gnu_escapes: bool,
        posix: bool, group_offset: int,
    ) -> None:
        self.p = pattern
        self.i = 0
        self.dialect = dialect
        self.ere = dialect != "bre"
        self.awk = dialect == "awk"
        self.strict = strict or dialect == "bash"
        self.utf8 = utf8
        self.gnu_escapes = gnu_escapes or self.awk
        self.posix = posix
        self.offset = group_offset
        self.ngroups = 0
        self.closed: set[int] = set()
        self.warnings: list[str] = []

    # -- structure
    def parse(self) -> Node:
        node = self.alternation(0)
        if self.i < len(self.p):  # only an unmatched ")" stops the top level
            raise RegexError(ERPAREN)
        return node

    def alternation(self, depth: int) -> Node:
        branches = [self.branch(depth)]
        while self.at_bar():
            self.i += 1 if self.ere else 2
            branches.append(self.branch(depth))
        return branches[0] if len(branches) == 1 else Alt(branches)

    def at_bar(self) -> bool:
        p, i = self.p, self.i
        if self.ere:
            return p.startswith("|", i)
        return not self.posix and p.startswith("\\|", i)

    def at_close(self, depth: int) -> bool:
        p, i = self.p, self.i
        if self.ere:
            return depth > 0 and p.startswith(")", i)
        return p.startswith("\\)", i)

    def branch(self, depth: int) -> Node:
        items: list[Node] = []
        p = self.p
        n = len(p)
        while self.i < n and not self.at_bar() and not self.at_close(depth):
            if not self.ere and p.startswith("\\)", self.i):
                break
            if self.quantifier(items):
                continue
            items.append(self.atom(items, depth))
        return items[0] if len(items) == 1 else Cat(items)

    def at_start(self, items: list[Node]) -> bool:
        """Whether a repetition operator here has nothing to repeat."""
        return not items or (len(items) == 1 and items[0] == Assert("bol"))

    # -- repetition
    def quantifier(self, items: list[Node]) -> bool:
        """Consume a quantifier after ``items``; False when the next thing is not one."""
        p, i = self.p, self.i
        c = p[i]
        if c == "*":
            q: tuple[int, int | None] = (0, None)
            size = 1
            if self.at_start(items) and not self.ere:
                return False  # a literal star
        elif self.ere and c in "+?":
            q = (1, None) if c == "+" else (0, 1)
            size = 1
        elif not self.ere and not self.posix and p.startswith(("\\+", "\\?"), i):
            if self.at_start(items):
                return False
            q = (1, None) if p[i + 1] == "+" else (0, 1)
            size = 2
        elif (self.ere and c == "{") or (not self.ere and p.startswith("\\{", i)):
            return self.interval(items)
        else:
            return False
        if self.at_start(items):
            if self.awk:
                return False
            if self.strict:
                raise RegexError(BADRPT)
            self.warnings.append(f"{c} at start of expression")
            self.i += size
            return True
        self.i += size
        self.repeat(items, *q)
        return True

    def repeat(self, items: list[Node], lo: int, hi: int | None) -> None:
        last = items[-1]
        if isinstance(last, Repeat) and self.strict and not self.ere and not self.awk:
            raise RegexError(BADRPT)
        items[-1] = Repeat(last, lo, hi)

    def interval(self, items: list[Node]) -> bool:
        bre = not self.ere
        start = self.i
        self.i += 2 if bre else 1
        if self.at_start(items):
            if self.strict:
                raise RegexError(BADRPT)
            if bre:
                items.append(Lit(123))  # grep: a leading \{ is a literal brace
                return True
            if self.awk or self.interval_spec(bre) is None:
                self.i = start
                return False
            self.warnings.append("{...} at start of expression")
            return True
        spec = self.interval_spec(bre)
        if spec is None:
            self.i = start
            return False
        self.repeat(items, *spec)
        return True

    def interval_spec(self, bre: bool) -> tuple[int, int | None] | None:
        """Parse ``m,n}`` after the brace; None when an ERE brace is just a literal."""
        p, n = self.p, len(self.p)
        close = "\\}" if bre else "}"
        lenient = not bre and not self.strict

        def number(k: int) -> tuple[int, int | None, bool]:
            val: int | None = None
            bad = False
            while True:
                if k >= n:
                    return k, None, True
                if p.startswith(close, k) or p[k] == ",":
                    return k, val, bad
                if p[k].isdigit() and not bad:
                    val = min(RE_DUP_MAX + 1, (val or 0) * 10 + int(p[k]))
                else:
                    bad = True
                k += 1

        j, lo, bad = number(self.i)
        if j >= n or bad:
            if lenient:
                return None
            raise RegexError(EBRACE if j >= n else BADBR)
        hi: int | None
        if p[j] == ",":
            j, hi, bad = number(j + 1)
            if j >= n or bad:
                if lenient:
                    return None
                raise RegexError(EBRACE if j >= n else BADBR)
            if p[j] == ",":
                raise RegexError(BADBR)
            if lo is None:
                if self.awk:
                    return None
                lo = 0
        else:
            if lo is None:
                if lenient:
                    return None
                raise RegexError(BADBR)
            hi = lo
        if hi is not None and lo > hi:
            raise RegexError(BADBR)
        if (hi if hi is not None else lo) > RE_DUP_MAX:
            raise RegexError(ESIZE)
        self.i = j + len(close)
        return lo, hi

    # -- atoms
    def atom(self, items: list[Node], depth: int) -> Node:
        p = self.p
        c = p[self.i]
        self.i += 1
        if c == "\\":
            return self.escape(items, depth)
        if c == "[":
            return self.bracket()
        if c == ".":
            return Set([], negate=True)
        if c == "*":  # BRE's literal leading star, awk's leading quantifiers
            return Lit(42)
        if self.ere and c == "(":
            return self.group(depth)
        if self.ere and c == ")":
            if self.strict:
                raise RegexError(ERPAREN)
            return Lit(41)
        if c == "^":
            if self.ere or not items:
                return Assert("bol")
            return Lit(94)
        if c == "$":
            if self.ere or self.at_bre_end():
                return Assert("eol")
            return Lit(36)
        if self.awk and c in "+?{":
            return Lit(ord(c))
        return Lit(ord(c))

    def at_bre_end(self) -> bool:
        rest = self.p[self.i :]
        return rest == "" or rest.startswith(("\\)", "\\|"))

    def group(self, depth: int) -> Node:
        self.ngroups += 1
        index = self.ngroups
        inner = self.alternation(depth + 1)
        close = ")" if self.ere else "\\)"
        if not self.p.startswith(close, self.i):
            raise RegexError(EPAREN)
        self.i += len(close)
        self.closed.add(index)
        return Group(index + self.offset, inner)

    def escape(self, items: list[Node], depth: int) -> Node:
        p = self.p
        if self.i >= len(p):
            if self.awk:
                return Lit(92)
            raise RegexError(EESCAPE)
        d = p[self.i]
        self.i += 1
        if not self.ere and d == "(":
            return self.group(depth)
        if self.awk:
            got = self.awk_escape(d)
            if got is not None:
                return got
        elif d.isdigit() and d != "0":
            num = int(d)
            if num not in self.closed:
                raise RegexError(ESUBREG)
            return Backref(num + self.offset)
        if d == "w":
            return Set(word_ranges(self.utf8))
        if d == "W":
            return Set(word_ranges(self.utf8), negate=True)
        if d == "s":
            return Set(list(SPACE))
        if d == "S":
            return Set(list(SPACE), negate=True)
        if d == "b" and not self.awk:
            return Assert("word")
        if d == "B":
            return Assert("notword")
        if d == "<":
            return Assert("wordstart")
        if d == ">":
            return Assert("wordend")
        if d == "`":
            return Assert("bufstart")
        if d == "'":
            return Assert("bufend")
        if self.gnu_escapes and d in _C_ESCAPES:
            return Lit(_C_ESCAPES[d])
        return Lit(ord(d))

    def awk_escape(self, d: str) -> Node | None:
        if d == "y":
            return Assert("word")
        if d == "b":
            return Lit(8)
        cp = self.numeric_escape(d)
        return None if cp is None else Lit(cp)

    def numeric_escape(self, d: str) -> int | None:
        """awk's ``\\ddd`` and ``\\xhh`` (the backslash and ``d`` already consumed)."""
        p, n = self.p, len(self.p)
        if d in "01234567":
            k = self.i
            while k < n and k < self.i + 2 and p[k] in "01234567":
                k += 1
            cp = int(d + p[self.i : k], 8)
            self.i = k
            return cp & 0xFF if cp > 0xFF else cp
        if d == "x" and self.i < n and p[self.i] in _HEX:
            k = self.i
            while k < n and k < self.i + 2 and p[k] in _HEX:
                k += 1
            cp = int(p[self.i : k], 16)
            self.i = k
            return cp
        return None

    # -- bracket expressions
    def bracket(self) -> Node:
        p, n = self.p, len(self.p)
        negate = False
        if self.i < n and p[self.i] == "^":
            negate = True
            self.i += 1
        ranges: list[Range] = []
        first = True
        while True:
            if self.i >= n:
                raise RegexError(EBRACK)
            if p[self.i] == "]" and not first:
                self.i += 1
                break
            first = False
            lo = self.bracket_elem(ranges)
            if lo is None:
                continue
            if self.i + 1 < n and p[self.i] == "-" and p[self.i + 1] != "]":
                self.i += 1
                hi = self.bracket_elem(None)
                if hi is None:
                    raise RegexError(ERANGE)
                if hi < lo:
                    if self.awk:
                        continue  # gawk: a reversed range matches nothing
                    raise RegexError(ERANGE)
                ranges.append((lo, hi))
            else:
                ranges.append((lo, lo))
        return Set(ranges, negate)

    def bracket_elem(self, ranges: list[Range] | None) -> int | None:
        """One element: its code point, or None when it was a class (added to ``ranges``)."""
        p = self.p
        c = p[self.i]
        if c == "[" and self.i + 1 < len(p) and p[self.i + 1] in ":.=":
            kind = p[self.i + 1]
            end = p.find(kind + "]", self.i + 2)
            if end < 0:
                raise RegexError(EBRACK)
            name = p[self.i + 2 : end]
            self.i = end + 2
            if kind == ":":
                if ranges is None:
                    raise RegexError(ERANGE)
                if name not in posix_class.NAMES:
                    raise RegexError(ECTYPE)
                ranges.extend(posix_class.ranges(name, self.utf8))
                return None
            if len(name) != 1:
                raise RegexError(ECOLLATE)
            if kind == "=" and ranges is not None:
                ranges.append((ord(name), ord(name)))
                return None
            return ord(name)
        if c == "\\" and self.awk and self.i + 1 < len(p):
            d = p[self.i + 1]
            self.i += 2
            if d in _C_ESCAPES:
                return _C_ESCAPES[d]
            if d == "b":
                return 8
            cp = self.numeric_escape(d)
            return ord(d) if cp is None else cp
        self.i += 1
        return ord(c)


def parse(
    pattern: str, dialect: str, *, utf8: bool = True, strict: bool = False,
    gnu_escapes: bool = False, posix: bool = False, group_offset: int = 0,
) -> tuple[Node, int, list[str]]:
    """The tree for ``pattern``, its group count and GNU's warnings; RegexError if invalid."""
    if dialect not in ("bre", "ere", "awk", "bash"):
        raise ValueError(f"unknown regex dialect {dialect!r}")
    parser = _Parser(
        pattern, dialect, utf8=utf8, strict=strict, gnu_escapes=gnu_escapes, posix=posix,
        group_offset=group_offset,
    )
    try:
        node = parser.parse()
    except RecursionError:
        raise RegexError(ESIZE) from None
    return node, parser.ngroups, parser.warnings
