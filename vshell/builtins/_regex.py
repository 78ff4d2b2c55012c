"""POSIX basic/extended regular expressions (with GNU extensions) on top of Python's ``re``.

Shared by grep, sed, expr and awk.  The entry points:

``translate(pattern, *, extended, icase=False, ...) -> re.Pattern``
    Compile a BRE (``extended=False``) or ERE into a Python regex.  ``binary=True`` asks
    for a ``re.Pattern[bytes]`` that runs on raw input bytes (raises :class:`NeedsText` when
    the pattern needs character semantics in a UTF-8 locale -- ``.``, negated brackets,
    non-ASCII classes, word escapes); otherwise the pattern is a ``re.Pattern[str]`` for
    text decoded with :func:`decode` (latin-1 in the C locale, so one byte = one char;
    UTF-8 with ``surrogateescape`` in a UTF-8 locale, so invalid bytes survive a round trip
    and are matched by nothing but themselves).
``compile_posix(...) -> Compiled``
    The same, plus what the translation found out (group count, GNU warnings, whether
    leftmost-longest may differ from Python's leftmost-first).
``RegexError``
    A syntax error; ``str(e)`` is glibc's message (``Unmatched ( or \\(`` ...).

Dialects: ``strict=False`` is grep's (GNU dfa: a leading ``*``/``+``/``?``/``{`` in an ERE
is ignored with a warning, a malformed ERE interval or an unmatched ``)`` is literal);
``strict=True`` is sed's (glibc regcomp: those are errors).  ``eol`` is the record
terminator for line-oriented callers (grep): ``.`` and negated classes never match it and
``^``/``$`` match at its boundaries, so one regex can scan a buffer of many records.
``eol=None`` (sed, awk, expr) lets ``.`` match newline and anchors the whole subject
(``multiline=True``: sed's ``M`` flag).

Other options: ``gnu_escapes`` (sed: ``\\n \\t \\f \\v \\a \\r`` in the pattern),
``posix`` (sed --posix: ``\\+ \\? \\|`` are literals), ``group_offset`` (renumber groups
and back-references when several patterns are joined into one regex, as grep -e a -e b).

Why ``str`` by default: awk, expr and sed work on characters, and decoding once per
buffer is cheap (the latin-1 / surrogateescape codecs are lossless); grep asks for
``binary=True`` first and keeps raw bytes whenever the pattern allows it.

Leftmost-longest: POSIX picks the longest of the leftmost matches, Python the first
alternative that succeeds.  Alternations of plain literals are reordered longest first
(exact for a top-level alternation); any other alternation whose branches may differ in
length marks the result ``longest=True``, and :meth:`Compiled.search` then extends a match
by trying longer end points (:func:`search_longest`; skipped when the pattern has
end-of-line or word-boundary assertions, which Python would evaluate against the
truncated subject).  Which text each group captures follows Python's backtracking, not
glibc's rules, so captures can differ where the whole match agrees (``(a|ab)(c|bcd)(d*)``
on ``abcd``: glibc ``a``/``bcd``/empty, vshell ``ab``/``c``/``d``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from vshell.records import field, record

__all__ = [
    "Compiled",
    "NeedsText",
    "RegexError",
    "compile_posix",
    "decode",
    "encode",
    "is_utf8_locale",
    "search_longest",
    "translate",
]

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


class RegexError(ValueError):
    """A regular expression that does not compile; the message is glibc's."""


class NeedsText(Exception):
    """``binary=True`` was asked for a pattern that needs character (UTF-8) semantics."""


# ---------------------------------------------------------------- locale and text


def is_utf8_locale(env: Mapping[str, str]) -> bool:
    """True when the locale (LC_ALL > LC_CTYPE > LANG) names a UTF-8 codeset."""
    for name in ("LC_ALL", "LC_CTYPE", "LANG"):
        value = env.get(name)
        if value:
            low = value.lower()
            return "utf-8" in low or "utf8" in low
    return False


def decode(data: bytes, utf8: bool) -> str:
    """Bytes to the text the str patterns run on (lossless: see :func:`encode`)."""
    if utf8:
        return data.decode("utf-8", "surrogateescape")
    return data.decode("latin-1")


def encode(text: str, utf8: bool) -> bytes:
    """The inverse of :func:`decode`."""
    if utf8:
        return text.encode("utf-8", "surrogateescape")
    return text.encode("latin-1", "replace")


# ---------------------------------------------------------------- character classes

_ASCII_CLASSES: dict[str, str] = {
    "alpha": "A-Za-z",
    "digit": "0-9",
    "alnum": "0-9A-Za-z",
    "upper": "A-Z",
    "lower": "a-z",
    "space": " \t\n\r\f\v",
    "blank": " \t",
    "punct": "!-/:-@[-`{-~",
    "print": " -~",
    "graph": "!-~",
    "cntrl": "\x00-\x1f\x7f",
    "xdigit": "0-9A-Fa-f",
}
# Classes whose members in a UTF-8 locale are ASCII only (for the bytes fast path).
_ASCII_ONLY = {"digit", "xdigit", "blank", "space", "cntrl"}

_unicode_cache: dict[str, list[tuple[int, int]]] = {}


def _unicode_ranges(name: str) -> list[tuple[int, int]]:
    """Non-ASCII members (BMP) of a class in a UTF-8 locale, from Python's predicates."""
    got = _unicode_cache.get(name)
    if got is not None:
        return got
    preds = {
        "alpha": str.isalpha,
        "alnum": str.isalnum,
        "upper": str.isupper,
        "lower": str.islower,
        "punct": lambda c: c.isprintable() and not c.isalnum() and not c.isspace(),
        "print": str.isprintable,
        "graph": lambda c: c.isprintable() and not c.isspace(),
    }
    pred = preds.get(name)
    ranges: list[tuple[int, int]] = []
    if pred is not None:
        start = -1
        for cp in range(0xA0, 0x10000):
            ok = not (0xD800 <= cp <= 0xDFFF) and pred(chr(cp))
            if ok and start < 0:
                start = cp
            elif not ok and start >= 0:
                ranges.append((start, cp - 1))
                start = -1
        if start >= 0:
            ranges.append((start, 0xFFFF))
    _unicode_cache[name] = ranges
    return ranges


def _esc(cp: int) -> str:
    """A code point as a Python regex atom/class member that is never special."""
    if cp < 0x80 and (chr(cp).isalnum() or chr(cp) == "_"):
        return chr(cp)
    if cp < 0x100:
        return f"\\x{cp:02x}"
    if cp < 0x10000:
        return f"\\u{cp:04x}"
    return f"\\U{cp:08x}"


# ---------------------------------------------------------------- the translator


@record
class Compiled:
    """A translated pattern: the Python regex and what the translation learnt."""

    regex: re.Pattern
    source: str
    binary: bool
    groups: int
    warnings: list[str] = field(default_factory=list)
    longest: bool = False
    end_sensitive: bool = False
    width: int | None = None  # length of every match in characters, when fixed

    def search(self, subject, pos: int = 0, endpos: int | None = None) -> re.Match | None:
        """Leftmost(-longest where cheap and safe) match in ``subject[pos:endpos]``."""
        if self.longest and not self.end_sensitive:
            return search_longest(self.regex, subject, pos, endpos)
        if endpos is None:
            return self.regex.search(subject, pos)
        return self.regex.search(subject, pos, endpos)


@record
class _Atom:
    src: str
    lit: str | None = None  # the literal text it matches (plain literals only)
    width: int | None = None  # fixed width in characters, if known
    quantified: bool = False
    anchor: bool = False
    closure: str | None = None  # "star": matches L* for some L; "plus": L+


@record
class _Frame:
    branches: list[list[_Atom]]
    atoms: list[_Atom]
    group: int  # group number (0 = top level)


class _Translator:
    def __init__(
        self,
        pattern: str,
        *,
        extended: bool,
        utf8: bool,
        binary: bool,
        eol: str | None,
        multiline: bool,
        strict: bool,
        gnu_escapes: bool,
        group_offset: int,
        icase: bool,
        posix: bool = False,
    ) -> None:
        self.p = pattern
        self.posix = posix
        self.i = 0
        self.ere = extended
        self.utf8 = utf8
        self.binary = binary
        self.eol = eol
        self.multiline = multiline
        self.strict = strict
        self.gnu_escapes = gnu_escapes
        self.offset = group_offset
        self.icase = icase
        self.ngroups = 0
        self.closed: set[int] = set()
        self.warnings: list[str] = []
        self.longest = False
        self.end_sensitive = False  # has assertions that look past a match's end
        self.width: int | None = None  # characters every match has, when fixed

    # -- helpers
    def need_text(self) -> None:
        if self.binary and self.utf8:
            raise NeedsText()

    def lit_atom(self, ch: str) -> _Atom:
        cp = ord(ch)
        if self.binary and self.utf8 and cp >= 0x80:
            if self.icase and ch.lower() != ch.upper():
                self.need_text()
            data = ch.encode("utf-8", "surrogateescape")
            src = "(?:" + "".join(f"\\x{b:02x}" for b in data) + ")"
            return _Atom(src, lit=ch, width=1)
        return _Atom(_esc(cp), lit=ch, width=1)

    def excl(self) -> str:
        """Class members that a negated class / dot must not match."""
        out = ""
        if self.eol is not None:
            out += _esc(ord(self.eol))
        if self.utf8 and not self.binary:
            out += "\\udc80-\\udcff"
        return out

    def dot(self) -> _Atom:
        nxt = self.p[self.i : self.i + 1]
        if self.binary and self.utf8 and nxt != "*":
            self.need_text()
        ex = self.excl()
        if not ex:
            return _Atom("(?s:.)", width=1)
        return _Atom(f"[^{ex}]", width=1)

    def bol(self) -> _Atom:
        if self.eol is None:
            return _Atom("(?m:^)" if self.multiline else "\\A", anchor=True, width=0)
        if self.eol == "\n":
            return _Atom("(?m:^)", anchor=True, width=0)
        return _Atom(f"(?<![^{_esc(ord(self.eol))}])", anchor=True, width=0)

    def eol_atom(self) -> _Atom:
        self.end_sensitive = True
        if self.eol is None:
            return _Atom("(?m:$)" if self.multiline else "\\Z", anchor=True, width=0)
        if self.eol == "\n":
            return _Atom("(?m:$)", anchor=True, width=0)
        return _Atom(f"(?![^{_esc(ord(self.eol))}])", anchor=True, width=0)

    def buf_start(self) -> _Atom:
        return _Atom("\\A", anchor=True, width=0) if self.eol is None else self.bol()

    def buf_end(self) -> _Atom:
        return _Atom("\\Z", anchor=True, width=0) if self.eol is None else self.eol_atom()

    def word_class(self, negate: bool) -> str:
        if not self.utf8:
            return f"[^0-9A-Za-z_{self.excl()}]" if negate else "[0-9A-Za-z_]"
        self.need_text()
        return f"[^\\w{self.excl()}]" if negate else "\\w"

    def space_class(self, negate: bool) -> str:
        members = " \\t\\r\\x0c\\x0b\\n"
        if self.eol == "\n":
            members = " \\t\\r\\x0c\\x0b"
        if negate:
            if self.binary and self.utf8:
                self.need_text()
            return f"[^ \\t\\r\\x0c\\x0b\\n{self.excl()}]"
        return f"[{members}]"

    # -- main loop
    def run(self) -> str:
        stack: list[_Frame] = []
        cur = _Frame([], [], 0)
        p = self.p
        n = len(p)
        ere = self.ere
        while self.i < n:
            c = p[self.i]
            self.i += 1
            if c == "\\":
                if self.i >= n:
                    raise RegexError(EESCAPE)
                d = p[self.i]
                self.i += 1
                if not ere and d == "(":
                    stack.append(cur)
                    self.ngroups += 1
                    cur = _Frame([], [], self.ngroups)
                    continue
                if not ere and d == ")":
                    if not stack:
                        raise RegexError(ERPAREN)
                    cur = self.close_group(cur, stack)
                    continue
                if not ere and d in "|+?" and self.posix:
                    cur.atoms.append(self.lit_atom(d))
                    continue
                if not ere and d == "|":
                    cur.branches.append(cur.atoms)
                    cur.atoms = []
                    continue
                if not ere and d == "{":
                    if self.at_start(cur):
                        if self.strict:
                            raise RegexError(BADRPT)
                        cur.atoms.append(self.lit_atom("{"))
                        continue
                    self.interval(cur, bre=True)
                    continue
                if not ere and d in "+?":
                    if self.at_start(cur):
                        cur.atoms.append(self.lit_atom(d))
                        continue
                    self.quantify(cur, d)
                    continue
                if d.isdigit() and d != "0":
                    num = int(d)
                    if num not in self.closed:
                        raise RegexError(ESUBREG)
                    cur.atoms.append(_Atom(f"(?:\\{num + self.offset})"))
                    continue
                cur.atoms.append(self.escape(d))
                continue
            if c == "[":
                cur.atoms.append(self.bracket())
                continue
            if c == ".":
                cur.atoms.append(self.dot())
                continue
            if c == "*":
                if self.at_start(cur):
                    if not ere:
                        cur.atoms.append(self.lit_atom("*"))
                        continue
                    if self.strict:
                        raise RegexError(BADRPT)
                    self.warnings.append("* at start of expression")
                    continue
                self.quantify(cur, "*")
                continue
            if ere and c in "+?":
                if self.at_start(cur):
                    if self.strict:
                        raise RegexError(BADRPT)
                    self.warnings.append(f"{c} at start of expression")
                    continue
                self.quantify(cur, c)
                continue
            if ere and c == "{":
                if self.at_start(cur):
                    if self.strict:
                        raise RegexError(BADRPT)
                    save = self.i
                    if self.interval_spec(bre=False) is not None:
                        self.warnings.append("{...} at start of expression")
                        continue
                    self.i = save
                    cur.atoms.append(self.lit_atom("{"))
                    continue
                self.interval(cur, bre=False)
                continue
            if ere and c == "(":
                stack.append(cur)
                self.ngroups += 1
                cur = _Frame([], [], self.ngroups)
                continue
            if ere and c == ")":
                if not stack:
                    if self.strict:
                        raise RegexError(ERPAREN)
                    cur.atoms.append(self.lit_atom(")"))
                    continue
                cur = self.close_group(cur, stack)
                continue
            if ere and c == "|":
                cur.branches.append(cur.atoms)
                cur.atoms = []
                continue
            if c == "^":
                if ere or not cur.atoms:
                    cur.atoms.append(self.bol())
                else:
                    cur.atoms.append(self.lit_atom("^"))
                continue
            if c == "$":
                if ere or self.at_bre_end():
                    cur.atoms.append(self.eol_atom())
                else:
                    cur.atoms.append(self.lit_atom("$"))
                continue
            cur.atoms.append(self.lit_atom(c))
        if stack:
            raise RegexError(EPAREN)
        self.width = self.frame_width(cur)
        return self.join(cur)

    def at_start(self, cur: _Frame) -> bool:
        """Whether a repetition operator here has nothing to repeat."""
        if not cur.atoms:
            return True
        return len(cur.atoms) == 1 and cur.atoms[0].src == self.bol().src

    def at_bre_end(self) -> bool:
        rest = self.p[self.i :]
        return rest == "" or rest.startswith(("\\)", "\\|"))

    def escape(self, d: str) -> _Atom:
        if d == "w":
            return _Atom(self.word_class(False), width=1)
        if d == "W":
            return _Atom(self.word_class(True), width=1)
        if d == "s":
            return _Atom(self.space_class(False), width=1)
        if d == "S":
            return _Atom(self.space_class(True), width=1)
        if d in "bB<>":
            self.end_sensitive = True
            if self.utf8:
                self.need_text()
            src = {"b": "\\b", "B": "\\B", "<": "\\b(?=\\w)", ">": "\\b(?<=\\w)"}[d]
            return _Atom(src, anchor=True, width=0)
        if d == "`":
            return self.buf_start()
        if d == "'":
            return self.buf_end()
        if self.gnu_escapes:
            special = {"n": "\n", "t": "\t", "f": "\f", "v": "\v", "a": "\a", "r": "\r"}
            if d in special:
                return self.lit_atom(special[d])
        return self.lit_atom(d)

    def close_group(self, cur: _Frame, stack: list[_Frame]) -> _Frame:
        inner = self.join(cur)
        self.closed.add(cur.group)
        outer = stack.pop()
        width = self.frame_width(cur)
        only = cur.atoms[0] if not cur.branches and len(cur.atoms) == 1 else None
        closure = only.closure if only is not None else None
        outer.atoms.append(_Atom(f"({inner})", width=width, closure=closure))
        return outer

    @staticmethod
    def branch_lit(atoms: list[_Atom]) -> str | None:
        out = ""
        for a in atoms:
            if a.lit is None or a.quantified:
                return None
            out += a.lit
        return out

    @staticmethod
    def branch_width(atoms: list[_Atom]) -> int | None:
        total = 0
        for a in atoms:
            if a.width is None:
                return None
            total += a.width
        return total

    def frame_width(self, frame: _Frame) -> int | None:
        branches = frame.branches + [frame.atoms]
        widths = {self.branch_width(b) for b in branches}
        if len(widths) == 1:
            return widths.pop()
        return None

    def join(self, frame: _Frame) -> str:
        branches = frame.branches + [frame.atoms]
        if len(branches) == 1:
            return "".join(a.src for a in branches[0])
        lits = [self.branch_lit(b) for b in branches]
        if all(x is not None for x in lits):
            order = sorted(range(len(branches)), key=lambda k: -len(lits[k] or ""))
            branches = [branches[k] for k in order]
            if frame.group != 0 and len({len(x or "") for x in lits}) > 1:
                # exact alone, but what follows the group may prefer a shorter branch
                self.longest = True
        else:
            widths = {self.branch_width(b) for b in branches}
            if len(widths) != 1 or None in widths:
                self.longest = True
        return "|".join("".join(a.src for a in b) for b in branches)

    def quantify(self, cur: _Frame, q: str) -> None:
        atom = cur.atoms[-1]
        if atom.quantified and self.strict and not self.ere:
            raise RegexError(BADRPT)
        if q in ("*", "+") and atom.closure is not None:
            # `(X*)*`, `(X+)+`, `X**`, `((X+)*)+`: repeating what already matches L* (or
            # L+) matches the same strings, but a backtracking matcher tries every way of
            # splitting a run — exponential time, during which Python's re never yields
            # the interpreter.  Keep the one repeat; a group still captures the whole run,
            # as POSIX's longest first iteration does.
            if q == "*" and atom.closure == "plus":
                cur.atoms[-1] = _Atom(f"(?:{atom.src})?", quantified=True, closure="star")
            return
        src = atom.src
        if atom.quantified or atom.anchor:
            src = f"(?:{src})"
        closure = {"*": "star", "+": "plus"}.get(q)
        cur.atoms[-1] = _Atom(src + q, quantified=True, closure=closure)

    def interval_spec(self, bre: bool) -> tuple[int, int | None] | None:
        """Parse ``m,n}`` (or ``m,n\\}``) after the brace; None = not an interval (ERE)."""
        p = self.p
        j = self.i
        n = len(p)
        close = "\\}" if bre else "}"

        def number(k: int) -> tuple[int, int | None, bool]:
            """(next index, value, bad char seen) reading digits up to ',' or close."""
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

        j, lo, bad = number(j)
        if j >= n:
            if bre or self.strict:
                raise RegexError(EBRACE)
            return None
        if bad:
            if bre or self.strict:
                raise RegexError(BADBR)
            return None
        hi: int | None
        if p[j] == ",":
            j, hi, bad = number(j + 1)
            if j >= n:
                if bre or self.strict:
                    raise RegexError(EBRACE)
                return None
            if bad:
                if bre or self.strict:
                    raise RegexError(BADBR)
                return None
            if p[j] == ",":
                raise RegexError(BADBR)
            if lo is None:
                lo = 0
        else:
            if lo is None:
                raise RegexError(BADBR)
            hi = lo
        if hi is not None and lo > hi:
            raise RegexError(BADBR)
        if (hi if hi is not None else lo) > RE_DUP_MAX:
            raise RegexError(ESIZE)
        self.i = j + len(close)
        return lo, hi

    def interval(self, cur: _Frame, bre: bool) -> None:
        save = self.i
        spec = self.interval_spec(bre)
        if spec is None:
            self.i = save
            cur.atoms.append(self.lit_atom("{"))
            return
        lo, hi = spec
        if hi is None:
            q = f"{{{lo},}}"
        elif lo == hi:
            q = f"{{{lo}}}"
        else:
            q = f"{{{lo},{hi}}}"
        width = cur.atoms[-1].width
        self.quantify(cur, q)
        if hi == lo and width is not None:
            cur.atoms[-1].width = width * lo

    # -- bracket expressions
    def bracket(self) -> _Atom:
        p = self.p
        n = len(p)
        negate = False
        if self.i < n and p[self.i] == "^":
            negate = True
            self.i += 1
        items: list[tuple[int, int]] = []
        extra: list[str] = []  # pre-rendered members (unicode classes)
        first = True
        while True:
            if self.i >= n:
                raise RegexError(EBRACK)
            c = p[self.i]
            if c == "]" and not first:
                self.i += 1
                break
            first = False
            lo = self.bracket_elem(items, extra)
            if lo is None:
                continue
            # a range?
            if (
                self.i + 1 < n
                and p[self.i] == "-"
                and p[self.i + 1] != "]"
            ):
                self.i += 1
                hi = self.bracket_elem(None, None)
                if hi is None:
                    raise RegexError(ERANGE)
                if hi < lo:
                    raise RegexError(ERANGE)
                items.append((lo, hi))
            else:
                items.append((lo, lo))
        has_high = any(hi >= 0x80 for _, hi in items) or bool(extra)
        if self.binary and self.utf8 and (negate or has_high):
            self.need_text()
        if self.binary and self.utf8 and self.icase:
            pass
        body = "".join(
            _esc(lo) if lo == hi else f"{_esc(lo)}-{_esc(hi)}" for lo, hi in items
        ) + "".join(extra)
        if negate:
            return _Atom(f"[^{body}{self.excl()}]", width=1)
        if not body:
            return _Atom("(?!)", width=1)
        return _Atom(f"[{body}]", width=1)

    def bracket_elem(
        self, items: list[tuple[int, int]] | None, extra: list[str] | None
    ) -> int | None:
        """One element; returns its code point, or None when it was a class."""
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
                if items is None:
                    raise RegexError(ERANGE)
                self.add_class(name, items, extra if extra is not None else [])
                return None
            if len(name) != 1:
                raise RegexError(ECOLLATE)
            if kind == "=" and items is not None:
                items.append((ord(name), ord(name)))
                return None
            return ord(name)
        self.i += 1
        return ord(c)

    def add_class(self, name: str, items: list[tuple[int, int]], extra: list[str]) -> None:
        spec = _ASCII_CLASSES.get(name)
        if spec is None:
            raise RegexError(ECTYPE)
        if self.icase and name in ("upper", "lower"):
            spec = _ASCII_CLASSES["alpha"]
        k = 0
        while k < len(spec):
            if k + 2 < len(spec) and spec[k + 1] == "-":
                items.append((ord(spec[k]), ord(spec[k + 2])))
                k += 3
            else:
                items.append((ord(spec[k]), ord(spec[k])))
                k += 1
        if self.eol is not None and name in ("space", "cntrl"):
            eo = ord(self.eol)
            items[:] = _remove(items, eo)
        if self.utf8 and name not in _ASCII_ONLY:
            self.need_text()
            cls = name
            if self.icase and name in ("upper", "lower"):
                cls = "alpha"
            for lo, hi in _unicode_ranges(cls):
                extra.append(f"{_esc(lo)}-{_esc(hi)}" if lo != hi else _esc(lo))


def _remove(items: list[tuple[int, int]], cp: int) -> list[tuple[int, int]]:
    out = []
    for lo, hi in items:
        if lo <= cp <= hi:
            if lo < cp:
                out.append((lo, cp - 1))
            if cp < hi:
                out.append((cp + 1, hi))
        else:
            out.append((lo, hi))
    return out


# ---------------------------------------------------------------- public API

_cache: dict[tuple, Compiled] = {}


def compile_posix(
    pattern: str | bytes,
    *,
    extended: bool,
    icase: bool = False,
    utf8: bool = True,
    binary: bool = False,
    eol: str | None = None,
    multiline: bool = False,
    strict: bool = False,
    gnu_escapes: bool = False,
    group_offset: int = 0,
    wrap: str = "",
    posix: bool = False,
) -> Compiled:
    """Translate and compile; see the module docstring for the options.

    ``pattern`` as bytes is decoded with :func:`decode` first.  ``wrap`` is a format
    string with ``{}`` for the translated source (e.g. ``"(?<!\\w)(?:{})(?!\\w)"``)
    applied before compiling.  ``posix=True`` turns the GNU BRE operators ``\\+ \\? \\|``
    back into literals (sed --posix).  Results are cached.
    """
    if isinstance(pattern, bytes):
        pattern = decode(pattern, utf8)
    key = (pattern, extended, icase, utf8, binary, eol, multiline, strict, gnu_escapes,
           group_offset, wrap, posix)
    got = _cache.get(key)
    if got is not None:
        return got
    tr = _Translator(
        pattern,
        extended=extended,
        utf8=utf8,
        binary=binary,
        eol=eol,
        multiline=multiline,
        strict=strict,
        gnu_escapes=gnu_escapes,
        group_offset=group_offset,
        icase=icase,
        posix=posix,
    )
    source = tr.run()
    if wrap:
        source = wrap.format(source)
    flags = 0
    if icase:
        flags |= re.IGNORECASE
    if not utf8 and not binary:
        flags |= re.ASCII
    try:
        if binary:
            regex = re.compile(source.encode("latin-1"), flags)
        else:
            regex = re.compile(source, flags)
    except re.error as e:  # a construct Python cannot express
        raise RegexError(_python_error(e)) from None
    except (OverflowError, RecursionError):
        raise RegexError(ESIZE) from None
    result = Compiled(
        regex, source, binary, tr.ngroups, tr.warnings, tr.longest, tr.end_sensitive,
        None if wrap else tr.width,
    )
    if len(_cache) > 512:
        _cache.clear()
    _cache[key] = result
    return result


def _python_error(e: re.error) -> str:
    msg = str(e.msg if hasattr(e, "msg") else e)
    if "group" in msg:
        return ESUBREG
    if "repeat" in msg:
        return BADRPT
    return "Invalid regular expression"


def translate(
    pattern: str | bytes,
    *,
    extended: bool,
    icase: bool = False,
    utf8: bool = True,
    binary: bool = False,
    eol: str | None = None,
    multiline: bool = False,
    strict: bool = False,
    gnu_escapes: bool = False,
    group_offset: int = 0,
) -> re.Pattern:
    """Compile a POSIX BRE/ERE into a Python regex (str, or bytes with ``binary=True``).

    Raises :class:`RegexError` (glibc's message) or, with ``binary=True``,
    :class:`NeedsText`.
    """
    return compile_posix(
        pattern,
        extended=extended,
        icase=icase,
        utf8=utf8,
        binary=binary,
        eol=eol,
        multiline=multiline,
        strict=strict,
        gnu_escapes=gnu_escapes,
        group_offset=group_offset,
    ).regex


def search_longest(
    regex: re.Pattern, subject, pos: int = 0, endpos: int | None = None, limit: int = 4096
) -> re.Match | None:
    """``regex.search`` made leftmost-longest: the longest match at the leftmost start.

    Only needed when :attr:`Compiled.longest` is set.  Tries end points from the farthest
    (at most ``limit`` characters away) down to the first match's end.  ``endpos`` makes
    Python see the subject as ending there, so this is exact only for patterns without
    end-of-line or word-boundary assertions (:attr:`Compiled.end_sensitive`).
    """
    end = len(subject) if endpos is None else endpos
    m = regex.search(subject, pos, end)
    if m is None:
        return None
    start = m.start()
    top = min(end, start + limit)
    for e in range(top, m.end(), -1):
        longer = regex.fullmatch(subject, start, e)
        if longer is not None:
            return longer
    return m
