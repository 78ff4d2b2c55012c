"""Every user-supplied regular expression in vshell: one parser for the POSIX dialects, run
by RE2 in linear time (``longest_match``: POSIX leftmost-longest, as GNU grep/sed/awk).

``compile(pattern, dialect, ...) -> Regex`` with ``dialect`` one of ``bre`` (grep -G, sed,
expr), ``ere`` (grep -E, sed -E, find -regex), ``awk`` and ``bash`` (``[[ =~ ]]``), or
``perl`` (grep -P: RE2's own Perl-like syntax, leftmost-first; what RE2 refuses --
look-around, back-references -- is an error, never a backtracking run).

Why RE2: Python's ``re`` backtracks (``(a|aa)*b`` takes exponential time) while holding
the GIL, so one pattern could freeze every thread of the host.  RE2 matches in linear time
and releases the GIL while it scans bytes; subjects are therefore always handed to it as
bytes (a ``str`` is encoded once per call, offsets are mapped back).  Only a pattern with
back-references, which no automaton can run, goes to :mod:`.backtrack`, whose work budget
turns a blow-up into :class:`TooComplex` (``regular expression too complex``).

Subjects: ``bytes`` (UTF-8 in a UTF-8 locale, one byte per character in the C locale) or
the ``str`` the text commands decode them to (UTF-8 with ``surrogateescape``, or latin-1).
An invalid byte is matched by nothing but itself, as in GNU.  ``\\<``/``\\>`` become RE2's
``\\b`` with the neighbouring atom narrowed to word characters; where that cannot be said
(``o*\\>``) the pattern runs on the budgeted backtracker.  Known approximation: RE2's
``\\b``/``\\B`` (and so ``\\<``/``\\>``) know ASCII word characters only.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import re2
from re2 import _re2

from vshell.text.regex import backtrack, linear, shortcut
from vshell.text.regex.ast import (
    Alt,
    Assert,
    Cat,
    Group,
    Lit,
    Node,
    Set,
    has_backref,
    matches_empty,
    width,
)
from vshell.text.regex.emit import Emitter
from vshell.text.regex.parse import ESIZE, RegexError, parse, word_ranges

__all__ = [
    "TOO_COMPLEX",
    "Match",
    "Regex",
    "RegexError",
    "TooComplex",
    "cancellable",
    "compile",
    "compile_syntax",
    "compile_many",
    "decode",
    "encode",
    "is_utf8_locale",
]

TooComplex = backtrack.TooComplex
cancellable = backtrack.cancellable
TOO_COMPLEX = "regular expression too complex"
"""GNU-style wording for a back-reference search that ran out of its work budget."""

_UNANCHORED = _re2.RE2.Anchor.UNANCHORED
_ANCHOR_START = _re2.RE2.Anchor.ANCHOR_START
_ANCHOR_BOTH = _re2.RE2.Anchor.ANCHOR_BOTH
_NUL_SWAP = bytes.maketrans(b"\x00\n", b"\n\x00")
MAX_MEM = 64 << 20
SCAN_CHUNK = 4 << 20  # the most one `re` scan of a grep buffer may cover (a few ms)


def is_utf8_locale(env: Mapping[str, str]) -> bool:
    """True when the locale (LC_ALL > LC_CTYPE > LANG) names a UTF-8 codeset."""
    for name in ("LC_ALL", "LC_CTYPE", "LANG"):
        value = env.get(name)
        if value:
            low = value.lower()
            return "utf-8" in low or "utf8" in low
    return False


def decode(data: bytes, utf8: bool) -> str:
    """Bytes to the text commands work on (lossless: see :func:`encode`)."""
    if utf8:
        return data.decode("utf-8", "surrogateescape")
    return data.decode("latin-1")


def encode(text: str, utf8: bool) -> bytes:
    """The inverse of :func:`decode`."""
    if utf8:
        return text.encode("utf-8", "surrogateescape")
    return text.encode("latin-1", "replace")


class _Text:
    """A ``str`` subject as the bytes RE2 scans, with offsets mapped both ways.

    Mapping is incremental from the last position asked, so a left-to-right scan costs
    linear time in all.
    """

    __slots__ = ("s", "b", "ident", "c", "o")

    def __init__(self, s: str, utf8: bool) -> None:
        self.s = s
        if not utf8:
            self.b = s.encode("latin-1", "replace")
            self.ident = True
        elif s.isascii():
            self.b = s.encode("ascii")
            self.ident = True
        else:
            self.b = s.encode("utf-8", "surrogateescape")
            self.ident = False
        self.c = 0  # a char offset and
        self.o = 0  # its byte offset

    def to_byte(self, ci: int) -> int:
        if self.ident:
            return ci
        if ci >= self.c:
            self.o += len(self.s[self.c : ci].encode("utf-8", "surrogateescape"))
        else:
            self.o -= len(self.s[ci : self.c].encode("utf-8", "surrogateescape"))
        self.c = ci
        return self.o

    def to_char(self, bi: int) -> int:
        if self.ident or bi < 0:
            return bi
        if bi >= self.o:
            self.c += len(self.b[self.o : bi].decode("utf-8", "surrogateescape"))
        else:
            self.c -= len(self.b[bi : self.o].decode("utf-8", "surrogateescape"))
        self.o = bi
        return self.c


class Match:
    """One match: spans in the subject's own units (characters of a str, bytes of bytes)."""

    __slots__ = ("re", "string", "_spans")

    def __init__(self, regex: Regex, string, spans: list[tuple[int, int]]) -> None:
        self.re = regex
        self.string = string
        self._spans = spans

    def span(self, g: int = 0) -> tuple[int, int]:
        return self._spans[g]

    def start(self, g: int = 0) -> int:
        return self._spans[g][0]

    def end(self, g: int = 0) -> int:
        return self._spans[g][1]

    def group(self, *gs: int):
        if len(gs) > 1:
            return tuple(self.group(g) for g in gs)
        s, e = self._spans[gs[0] if gs else 0]
        return None if s < 0 else self.string[s:e]

    def groups(self, default=None) -> tuple:
        return tuple(
            default if s < 0 else self.string[s:e] for s, e in self._spans[1:]
        )

    def __repr__(self) -> str:
        return f"<vshell.text.regex.Match span={self.span()} match={self.group()!r}>"


class Regex:
    """A compiled pattern.  ``search``/``match``/``fullmatch``/``finditer``/``subn``/``split``
    follow Python's ``re`` where they can; empty matches follow GNU (none right where the
    previous match ended)."""

    def __init__(
        self, tree: Node | None, groups: int, *, utf8: bool, icase: bool, eol: str | None,
        multiline: bool, warnings: list[str], source: str | None = None,
        perl: bool = False, budget: int = backtrack.DEFAULT_BUDGET, span_group: int = 0,
    ) -> None:
        self.span_group = span_group
        self._local = threading.local()
        self._plain = False  # RE2 runs it and spans need no adjusting (set below)
        self._linear: re.Pattern[str] | None = None  # see .linear: short str subjects
        self.groups = groups
        self.utf8 = utf8
        self.icase = icase
        self.eol = eol
        self.warnings = warnings
        self.width = width(tree) if tree is not None else None
        self.can_match_empty = tree is None or matches_empty(tree)
        self.swap = eol == "\0"
        self.approx = False
        self._bt: backtrack.Program | None = None
        self._re2: Any = None  # re2's compiled RE2 (an untyped C extension)
        self.literal = None if icase or tree is None else _literal_text(tree)
        self._literal_bytes = None if self.literal is None else encode(self.literal, utf8)
        simple = None if icase else tree  # the tree the literal shortcuts read, if any
        self._required = shortcut.required_literal(simple) if simple is not None else None
        prefix = shortcut.prefix_literal(simple) if simple is not None else None
        self._prefix = None if prefix is None else encode(prefix, utf8)
        self._prefix_text = prefix
        self._attempt: Callable[[str, int], object] | None = None  # see _make_test
        self._attempt_lines: re.Pattern[bytes] | None = None  # see count_lines
        self._runs = None  # see _count_by_tails
        self._verified: list = [None]  # see prime: records known to match
        self._line_twin: Callable[[], Regex] | None = None  # set by compile()
        self._exact = (shortcut.exact_set(simple) if simple is not None and eol is None
                       and not multiline else None)
        if tree is not None and has_backref(tree):
            self.source = None
            self._bt = backtrack.Program(
                tree, groups, icase=icase, utf8=utf8, eol=eol, multiline=multiline,
                budget=budget,
            )
            return
        if source is None:
            assert tree is not None
            em = Emitter(utf8=utf8, eol=None if eol is None else ord(eol), multiline=multiline)
            source = em.emit(tree)
            if em.approx:  # a \< or \> RE2 cannot say exactly (``o*\>``): the exact,
                self.source = None  # budgeted engine runs it rather than a wrong answer
                self._bt = backtrack.Program(
                    tree, groups, icase=icase, utf8=utf8, eol=eol, multiline=multiline,
                    budget=budget,
                )
                return
        self.source = source
        self._re2 = _build(source, utf8=utf8, icase=icase, perl=perl)
        self.groups = self._re2.NumberOfCapturingGroups()
        self._plain = not span_group
        self._linear = None
        rest = (shortcut.after_prefix(tree) if tree is not None and prefix is not None
                and not span_group else [])
        if rest:  # (a bare literal has its own paths)
            if eol is None:
                attempt = linear.compile_attempt(rest, utf8=utf8)
                self._attempt = None if attempt is None else attempt.match
            elif eol == "\n" and self._prefix is not None:
                self._attempt_lines = linear.compile_first_attempt_lines(
                    self._prefix, rest, utf8=utf8)
        if tree is not None and not span_group and eol is None:
            self._linear = linear.compile_linear(
                tree, utf8=utf8, icase=icase, eol=eol, multiline=multiline)
        self.test = self._make_test()  # type: ignore[method-assign,assignment]  # a per-pattern fast test

    @property
    def backtracking(self) -> bool:
        """Whether this pattern runs on the bounded backtracker (it has back-references)."""
        return self._bt is not None

    def prepare(self, data: bytes) -> bytes:
        """The bytes RE2 should scan for ``data`` (NUL and newline swapped for ``-z``)."""
        return data.translate(_NUL_SWAP) if self.swap else data

    # -- matching
    def _spans(self, subject, pos: int, endpos: int | None, anchor) -> list | None:
        spans = self._raw_spans(subject, pos, endpos, anchor)
        if spans is not None and self.span_group:
            return [spans[self.span_group], *spans[1:]]
        return spans

    def _raw_spans(self, subject, pos: int, endpos: int | None, anchor) -> list | None:
        if self._bt is not None:
            return self._bt_spans(subject, pos, endpos, anchor)
        if isinstance(subject, bytes | bytearray | memoryview):
            end = len(subject) if endpos is None else min(endpos, len(subject))
            if pos > end:
                return None
            spans = self._re2.Match(anchor, subject, pos, end)
            return None if spans[0][0] < 0 else spans
        n = len(subject)
        end = n if endpos is None else min(endpos, n)
        if pos > end:
            return None
        same = self._same_offsets(subject)
        if same is not None:
            spans = self._re2.Match(anchor, same, pos, end)
            return None if spans[0][0] < 0 else spans
        t = self._text(subject)
        spans = self._re2.Match(anchor, t.b, t.to_byte(pos), t.to_byte(end))
        if spans[0][0] < 0:
            return None
        if t.ident:
            return spans
        return [(t.to_char(s), t.to_char(e)) if s >= 0 else (-1, -1) for s, e in spans]

    def _bt_spans(self, subject, pos: int, endpos: int | None, anchor) -> list | None:
        assert self._bt is not None
        if isinstance(subject, str):
            return self._bt_run(subject, pos, endpos, anchor)
        data = bytes(subject)
        text = decode(data, self.utf8)
        if not self.utf8 or data.isascii():
            return self._bt_run(text, pos, endpos, anchor)
        t = _Text(text, True)
        cpos = len(decode(data[:pos], True))
        cend = None if endpos is None else len(decode(data[:endpos], True))
        got = self._bt_run(text, cpos, cend, anchor)
        if got is None:
            return None
        return [(t.to_byte(s), t.to_byte(e)) if s >= 0 else (-1, -1) for s, e in got]

    def _bt_run(self, s: str, pos: int, endpos: int | None, anchor) -> list | None:
        assert self._bt is not None
        got = self._bt.search(s, pos, endpos, anchored=anchor is not _UNANCHORED)
        if got is not None and anchor is _ANCHOR_BOTH:
            end = len(s) if endpos is None else endpos
            if got[0][1] != end:
                return None  # the longest match is the only candidate POSIX would keep
        return got

    def search(self, subject, pos: int = 0, endpos: int | None = None) -> Match | None:
        """The leftmost-longest match in ``subject[pos:endpos]``; TooComplex possible."""
        if self._plain and subject.__class__ is str:  # the per-line hot path of sed and awk
            lin = self._linear
            if lin is not None and len(subject) <= linear.MAX_SUBJECT:
                return lin.search(subject, pos) if endpos is None else lin.search(
                    subject, pos, endpos)  # type: ignore[return-value]  # the linear engine returns re.Match, which quacks as our Match
            data = self._same_offsets(subject)
            if data is not None:
                n = len(data)
                end = n if endpos is None or endpos > n else endpos
                if pos > end:
                    return None
                spans = self._re2.Match(_UNANCHORED, data, pos, end)
                return None if spans[0][0] < 0 else Match(self, subject, spans)
        spans = self._spans(subject, pos, endpos, _UNANCHORED)
        return None if spans is None else Match(self, subject, spans)

    def test(self, subject) -> bool:
        """Whether ``subject`` holds a match (awk's ``~``): ``search(subject) is not None``,
        answered without an engine call when a shortcut (:mod:`.shortcut`) can.  Replaced
        per instance by :meth:`_make_test`'s closure (the per-record hot path)."""
        return self.search(subject) is not None

    def _make_test(self) -> Callable[[Any], bool]:
        exact, req, search = self._exact, self._required, self.search
        if exact is not None:
            def test_exact(subject) -> bool:
                if subject.__class__ is str:
                    return subject in exact
                return search(subject) is not None
            return test_exact
        plain = self._plain and self._linear is None and self._re2 is not None
        engine = self._re2.Match if plain else None
        utf8 = self.utf8

        verified = self._verified
        attempt, prefix = self._attempt, self._prefix_text
        skip = len(prefix) if prefix is not None else 0

        def test(subject) -> bool:
            if subject.__class__ is str:
                if req is not None and req not in subject:
                    return False
                if attempt is not None and len(subject) <= linear.MAX_SUBJECT:
                    i = subject.find(prefix)  # type: ignore[arg-type]
                    if i < 0:
                        return False  # every match begins with the prefix
                    if attempt(subject, i + skip) is not None:
                        return True  # (a failed attempt proves nothing: RE2 decides)
                known = verified[0]
                if known is not None and subject in known:
                    return True
                if engine is not None and len(subject) <= 4096:
                    if subject.isascii():  # byte and character offsets agree
                        data = subject.encode("ascii")
                    elif not utf8:
                        data = subject.encode("latin-1", "replace")
                    else:
                        return search(subject) is not None
                    return engine(_UNANCHORED, data, 0, len(data))[0][0] >= 0
            return search(subject) is not None
        return test

    def match(self, subject, pos: int = 0, endpos: int | None = None) -> Match | None:
        """The longest match starting at ``pos``."""
        spans = self._spans(subject, pos, endpos, _ANCHOR_START)
        return None if spans is None else Match(self, subject, spans)

    def fullmatch(self, subject, pos: int = 0, endpos: int | None = None) -> Match | None:
        spans = self._spans(subject, pos, endpos, _ANCHOR_BOTH)
        return None if spans is None else Match(self, subject, spans)

    def finditer(self, subject, pos: int = 0, endpos: int | None = None) -> Iterator[Match]:
        """Successive matches; an empty one right where the previous match ended is
        skipped (GNU's rule for ``s///g``, ``gsub`` and ``grep -o``)."""
        n = len(subject) if endpos is None else endpos
        if self._plain and subject.__class__ is str:
            lin = self._linear
            if (lin is not None and not self.can_match_empty
                    and len(subject) <= linear.MAX_SUBJECT):
                yield from lin.finditer(subject, pos, n)  # type: ignore[misc]  # re.Match objects quack as our Match
                return
            data = self._same_offsets(subject)
            if data is not None:
                for found in self._iter_spans(data, pos, n):
                    yield Match(self, subject, found)
            else:
                yield from self._finditer_text(subject, pos, n)
            return
        prev_end = -1
        while pos <= n:
            spans = self._spans(subject, pos, n, _UNANCHORED)
            if spans is None:
                return
            s, e = spans[0]
            if s == e == prev_end:
                pos = s + 1
                continue
            yield Match(self, subject, spans)
            prev_end = e
            pos = e if e > s else e + 1

    def _same_offsets(self, subject: str) -> bytes | None:
        """``subject`` as bytes with the same offsets (C locale, or ASCII text), else None."""
        if len(subject) > 4096:  # a chunk searched many times: encode it once
            t = self._text(subject)
            return t.b if t.ident else None
        if not self.utf8:
            return subject.encode("latin-1", "replace")
        if subject.isascii():
            return subject.encode("ascii")
        return None

    def _text(self, subject: str) -> _Text:
        """The encoded form of ``subject``, kept for the next call on the same string (awk's
        record buffer, sed's pattern space are searched many times)."""
        last = getattr(self._local, "text", None)
        if last is not None and last.s is subject:
            return last
        t = _Text(subject, self.utf8)
        if len(subject) > 64:
            self._local.text = t  # per thread: a _Text's offset cursor is mutable
        return t

    def _iter_spans(self, data: bytes, pos: int, n: int) -> Iterator[list]:
        """Successive matches' spans in ``data`` (GNU's empty-match rule)."""
        match = self._re2.Match
        prev_end = -1
        while pos <= n:
            spans = match(_UNANCHORED, data, pos, n)
            s, e = spans[0]
            if s < 0:
                return
            if s == e == prev_end:
                pos = s + 1
                continue
            yield spans
            prev_end = e
            pos = e if e > s else e + 1

    def _finditer_text(self, subject: str, pos: int, n: int) -> Iterator[Match]:
        t = self._text(subject)
        data = t.b
        bpos, bend = t.to_byte(pos), t.to_byte(n)
        prev_end = -1
        match = self._re2.Match
        while bpos <= bend:
            spans = match(_UNANCHORED, data, bpos, bend)
            s, e = spans[0]
            if s < 0:
                return
            if s == e == prev_end:
                bpos = s + 1 if t.ident else t.to_byte(t.to_char(s) + 1)
                continue
            prev_end = e
            if e > s:
                bpos = e
            elif t.ident:
                bpos = e + 1
            else:
                bpos = t.to_byte(t.to_char(e) + 1)
            if t.ident:
                yield Match(self, subject, spans)
            else:
                yield Match(self, subject, [
                    (t.to_char(a), t.to_char(b)) if a >= 0 else (-1, -1) for a, b in spans
                ])

    def lines(self, data: bytes, pos: int, end: int, eol: bytes) -> Iterator[tuple[int, int]]:
        """Spans (start, end before ``eol``) of the records of ``data[pos:end]`` holding a
        match -- grep's hot loop: one RE2 call per selected line, none for the others.
        ``data`` ends with ``eol`` and the pattern was compiled with that ``eol``."""
        find = data.find
        rfind = data.rfind
        match = self._re2.Match if self._re2 is not None else None
        lit = self._literal_bytes if not self.span_group and not self.swap else None
        if lit and end - pos <= SCAN_CHUNK:
            # A literal then the rest of its line: ``re`` cannot backtrack here (the run
            # stops at the first terminator) and scans the whole buffer in one C call.
            for m in _literal_line_scanner(lit, eol).finditer(data, pos, end):
                s = m.start()
                k = rfind(eol, pos, s)
                yield (k + 1 if k >= 0 else pos), m.end() - 1
            return
        while pos < end:
            if lit is not None:
                s = find(lit, pos, end)
            elif match is not None:
                s = match(_UNANCHORED, data, pos, end)[0][0]
            else:
                hit = self.search(data, pos, end)
                s = -1 if hit is None else hit.start()
            if s < 0 or s >= end:
                return
            k = rfind(eol, pos, s)
            nl = find(eol, s, end)
            if nl < 0:
                nl = end
            yield (k + 1 if k >= 0 else pos), nl
            pos = nl + 1

    def first_per_line(self, subject: str) -> Iterator[list[tuple[int, int]]] | None:
        """The spans of the first match on each line of ``subject`` that has one (sed's
        ``s/re/rep/`` without ``g``): one engine call per such line, the rest of the line
        never searched.  None when offsets need mapping (the caller uses :meth:`finditer`).
        The pattern has the eol contract (eol ``\n``)."""
        if self._re2 is None or self.span_group or self.eol != "\n":
            return None
        data = self._same_offsets(subject)
        if data is None:
            return None
        return self._first_per_line(data)

    def _first_per_line(self, data: bytes) -> Iterator[list[tuple[int, int]]]:
        match = self._re2.Match
        find = data.find
        n = len(data)
        pos = 0
        while pos <= n:
            spans = match(_UNANCHORED, data, pos, n)
            if spans[0][0] < 0:
                return
            e = spans[0][1]
            yield spans
            pos = find(b"\n", e) + 1
            if pos <= 0:
                return

    def prime(self, records: list[str]) -> None:
        """Let :meth:`test` answer a batch of records (awk's lines) without an engine call
        per record.  The records that can match (holding the required literal) are joined
        by newlines and checked by the line-oriented twin of this pattern, one RE2 call per
        run of matching records; those are remembered *by value*, so the answer stays
        sound for any later subject (or thread) that equals one.  Records with a newline
        (another RS) are left to :meth:`test`."""
        self._verified[0] = None
        twin = self._line_twin
        if twin is None or not records or self._attempt is not None:
            return  # (with an attempt, test rarely needs RE2: priming would cost more)
        req = self._required
        cands = records if req is None else [r for r in records if req in r]
        if not cands:
            return
        buf = encode("\n".join(cands), self.utf8) + b"\n"
        if len(buf) > SCAN_CHUNK or buf.count(b"\n") != len(cands):
            return
        try:
            line = twin()
            if line._re2 is None or line.span_group:
                return
            run = line._runs_re2().Match
        except RegexError:
            return  # (the twin's run pattern too big for RE2: no shortcut)
        count = buf.count
        find = buf.find
        n = len(buf)
        matched: list[str] = []
        p = i = 0
        while p < n:
            e = max(run(_ANCHOR_START, buf, p, n)[0][1], p)
            k = count(b"\n", p, e)
            matched += cands[i:i + k]
            if e >= n:
                break
            i += k + 1  # the record at e is left to the engine (test's own call)
            p = find(b"\n", e) + 1
        if matched:
            self._verified[0] = frozenset(matched)

    def _runs_re2(self):
        """The pattern for a run of lines that each hold a match (eol contract)."""
        runs = self._runs
        if runs is None:
            assert self.source is not None
            runs = self._runs = _build(
                "(?:[^\n]*(?:" + self.source + ")[^\n]*\n)*", utf8=self.utf8,
                icase=self.icase, perl=False)
        return runs

    def count_lines(self, data: bytes, pos: int, end: int, eol: bytes) -> int:
        """How many records :meth:`lines` would yield (grep -c), without a Python loop per
        record for literal patterns."""
        lit = self._literal_bytes if not self.span_group and not self.swap else None
        if lit and len(lit) == 1 and lit != eol:
            # one byte (grep -c 7): keep only it and the terminators; a line holds it when
            # "byte, terminator" ends it there -- a translate and a count, both in C
            kept = data[pos:end].translate(None, _all_bytes_but(lit + eol))
            return kept.count(lit + eol)
        if lit and end - pos <= SCAN_CHUNK:
            return len(_literal_line_scanner(lit, eol).findall(data, pos, end))
        if (self._prefix is not None and self._re2 is not None and not self.span_group
                and eol == b"\n" and self.eol == "\n" and end - pos <= SCAN_CHUNK):
            scan = self._attempt_lines
            if scan is None:
                return self._count_by_tails(
                    _literal_line_scanner(self._prefix, b"\n").findall(data, pos, end))
            # One attempt per line at the prefix: b"" for a line it settled, else the rest
            # of the line, which RE2 decides (as a tail from the prefix).
            found = scan.findall(data, pos, end)
            settled = found.count(b"")
            if settled == len(found):
                return settled
            prefix = self._prefix
            return settled + self._count_by_tails([prefix + t for t in found if t])
        if self._re2 is None or self.span_group:
            return sum(1 for _ in self.lines(data, pos, end, eol))
        # One engine call per counted line and nothing else in Python: the match's end, then
        # the next terminator (a match never spans one: the pattern has the eol contract).
        match = self._re2.Match
        find = data.find
        n = 0
        while pos < end:
            s, e = match(_UNANCHORED, data, pos, end)[0]
            if s < 0 or s >= end:
                break  # (an empty match at ``end`` is past the last record)
            n += 1
            pos = find(eol, e, end) + 1
            if pos <= 0:
                break
        return n

    def _count_by_tails(self, tails: list[bytes]) -> int:
        """count_lines for a pattern every match of which begins with the prefix literal:
        a line matches exactly when its tail from the prefix's first occurrence does (a
        ``tail``, newline included).  One ``re`` scan (a literal then the rest of its line:
        no backtracking) gathers the tails; one RE2 call then checks the longest run of
        matching tails, so the calls are one plus one per tail that does not match (each
        verified by the pattern itself)."""
        if not tails:
            return 0
        buf = b"".join(tails)
        run = self._runs_re2().Match
        match = self._re2.Match
        count = buf.count
        find = buf.find
        n = len(buf)
        p = 0
        k = 0
        while p < n:
            e = run(_ANCHOR_START, buf, p, n)[0][1]
            if e >= n and p == 0:
                return len(tails)  # every tail matches (the common case)
            if e < p:
                e = p
            k += count(b"\n", p, e)
            if e >= n:
                break
            nl = find(b"\n", e) + 1  # the run stopped at this tail: the pattern decides
            if match(_UNANCHORED, buf, e, nl)[0][0] >= 0:
                k += 1
            p = nl
        return k

    def subn(self, repl: str | Callable[[Match], str], subject, count: int = 0) -> tuple:
        """Replace matches (all, or the first ``count``); ``repl`` is a function of the
        match or a template with ``\\g<n>``/``\\n`` group references and ``\\\\``."""
        expand = repl if callable(repl) else _template(repl)
        literal = getattr(expand, "literal", None)
        if self.literal is not None and literal is not None and isinstance(subject, str):
            n = subject.count(self.literal)
            if count and n > count:
                n = count
            return (subject.replace(self.literal, literal, n) if n else subject), n
        lin = self._linear
        if (lin is not None and not self.can_match_empty and subject.__class__ is str
                and len(subject) <= linear.MAX_SUBJECT):
            return lin.subn(repl, subject, count)  # type: ignore[arg-type]  # a callable repl reads only what re.Match has too
        if self._re2 is not None and not self.span_group and isinstance(subject, str):
            same = self._same_offsets(subject)
            if same is not None:
                return self._subn_same(expand, subject, same, count)
        out = []
        last = 0
        done = 0
        for m in self.finditer(subject):
            s, e = m.span()
            out.append(subject[last:s])
            out.append(expand(m))
            last = e
            done += 1
            if count and done >= count:
                break
        if not done:
            return subject, 0
        out.append(subject[last:])
        return subject[:0].join(out), done

    def _subn_same(self, expand, subject: str, data: bytes, count: int) -> tuple:
        """:meth:`subn` when byte and character offsets agree: one RE2 call per match."""
        literal = getattr(expand, "literal", None)
        match = self._re2.Match
        n = len(data)
        pos = 0
        prev_end = -1
        last = 0
        done = 0
        out: list[str] = []
        while pos <= n:
            spans = match(_UNANCHORED, data, pos, n)
            s, e = spans[0]
            if s < 0:
                break
            if s == e == prev_end:
                pos = s + 1
                continue
            out.append(subject[last:s])
            out.append(literal if literal is not None else expand(Match(self, subject, spans)))
            last = e
            prev_end = e
            done += 1
            if count and done >= count:
                break
            pos = e if e > s else e + 1
        if not done:
            return subject, 0
        out.append(subject[last:])
        return "".join(out), done

    def sub(self, repl, subject, count: int = 0):
        return self.subn(repl, subject, count)[0]

    def split(self, subject) -> list:
        """Pieces between non-empty matches (awk's field and record splitting)."""
        lin = self._linear
        if (lin is not None and not self.can_match_empty and subject.__class__ is str
                and len(subject) <= linear.MAX_SUBJECT):
            return lin.split(subject)
        parts = []
        last = 0
        data = self._same_offsets(subject) if self._plain and subject.__class__ is str else None
        if data is not None:
            for spans in self._iter_spans(data, 0, len(data)):
                s, e = spans[0]
                if s != e:
                    parts.append(subject[last:s])
                    last = e
            parts.append(subject[last:])
            return parts
        for m in self.finditer(subject):
            s, e = m.span()
            if s == e:
                continue
            parts.append(subject[last:s])
            last = e
        parts.append(subject[last:])
        return parts


@functools.lru_cache(maxsize=64)
def _all_bytes_but(kept: bytes) -> bytes:
    """The ``delete`` argument of ``bytes.translate`` that keeps only ``kept``."""
    return bytes(b for b in range(256) if b not in kept)


@functools.lru_cache(maxsize=64)
def _literal_line_scanner(lit: bytes, eol: bytes) -> re.Pattern[bytes]:
    e = re.escape(eol)
    return re.compile(re.escape(lit) + b"[^" + e + b"]*" + e)


def _literal_text(tree: Node) -> str | None:
    """The text a pattern of plain characters matches (str.find/replace can run it)."""
    items = tree.items if isinstance(tree, Cat) else [tree]
    if not items or not all(isinstance(n, Lit) for n in items):
        return None
    text = "".join(chr(n.cp) for n in items)  # type: ignore[union-attr]  # every item was just checked to be a Lit
    return None if any("\ud800" <= c <= "\udfff" for c in text) else text


@functools.lru_cache(maxsize=256)
def _template(repl: str) -> Callable[[Match], str]:
    pieces: list[str | int] = []
    for m in re.finditer(r"\\g<(\d+)>|\\(\d)|\\(.)|([^\\]+)", repl, re.S):
        if m.group(1) is not None:
            pieces.append(int(m.group(1)))
        elif m.group(2) is not None:
            pieces.append(int(m.group(2)))
        elif m.group(3) is not None:
            pieces.append(m.group(3))
        else:
            pieces.append(m.group(4))

    def expand(m: Match) -> str:
        return "".join(p if isinstance(p, str) else (m.group(p) or "") for p in pieces)

    if all(isinstance(p, str) for p in pieces):
        expand.literal = "".join(str(p) for p in pieces)  # type: ignore[attr-defined]  # the fast path subn reads
    return expand


def _build(source: str, *, utf8: bool, icase: bool, perl: bool):
    opts = re2.Options()
    opts.log_errors = False
    opts.max_mem = MAX_MEM
    opts.case_sensitive = not icase
    if not utf8:
        opts.encoding = re2.Options.Encoding.LATIN1
    if perl:
        opts.longest_match = False
        opts.dot_nl = False
    else:
        opts.longest_match = True
    data = source.encode("utf-8") if utf8 else source.encode("latin-1", "replace")
    rx = _re2.RE2(data, opts)
    if not rx.ok():
        err = rx.error().decode("utf-8", "replace")
        if perl:
            raise RegexError(_perl_message(err))
        raise RegexError(ESIZE if "too big" in err or "repetition" in err else
                         "Invalid regular expression")
    return rx


_PCRE_WORDING = [
    ("missing )", "missing closing parenthesis"),
    ("unexpected )", "unmatched closing parenthesis"),
    ("missing ]", "missing terminating ] for character class"),
    ("trailing \\", "\\ at end of pattern"),
    ("missing argument to repetition operator", "quantifier does not follow a repeatable item"),
    ("bad repetition operator", "quantifier does not follow a repeatable item"),
]


def _perl_message(err: str) -> str:
    """PCRE2's wording (what grep -P prints) for RE2's common syntax errors."""
    for re2_text, pcre in _PCRE_WORDING:
        if err.startswith(re2_text):
            return pcre
    m = re.match(r"invalid repetition size: \{(\d+),(\d+)\}", err)
    if m and int(m.group(1)) > int(m.group(2)):
        return "numbers out of order in {} quantifier"
    if "invalid perl operator" in err or "invalid escape" in err or "invalid named" in err:
        return (f"unsupported -P construct ({err}): vshell runs -P on RE2, "
                "which has no look-around or back-references")
    return err.split(":")[0]


_cache: dict[tuple, Regex] = {}


def compile(
    pattern: str | bytes, dialect: str, *, icase: bool = False, utf8: bool = True,
    eol: str | None = None, multiline: bool = False, strict: bool = False,
    gnu_escapes: bool = False, posix: bool = False, group_offset: int = 0,
    budget: int = backtrack.DEFAULT_BUDGET,
) -> Regex:
    """Parse and compile ``pattern`` (cached); RegexError with glibc's message if invalid.

    ``eol``: record terminator for line-oriented callers (grep: ``"\\n"`` or ``"\\0"``).
    ``multiline``: sed's ``M`` flag.  ``strict``: glibc regcomp's errors instead of GNU
    dfa's leniency.  ``gnu_escapes``: sed's ``\\n \\t``...  ``posix``: sed --posix.
    """
    if isinstance(pattern, bytes):
        pattern = decode(pattern, utf8)
    key = (pattern, dialect, icase, utf8, eol, multiline, strict, gnu_escapes, posix,
           group_offset, budget)
    got = _cache.get(key)
    if got is not None:
        return got
    if dialect == "perl":
        result = Regex(None, 0, utf8=utf8, icase=icase, eol=eol, multiline=True,
                       warnings=[], source="(?m)" + pattern, perl=True)
    else:
        tree, groups, warnings = parse(
            pattern, dialect, utf8=utf8, strict=strict, gnu_escapes=gnu_escapes,
            posix=posix, group_offset=group_offset,
        )
        result = Regex(tree, groups + group_offset, utf8=utf8, icase=icase, eol=eol,
                       multiline=multiline, warnings=warnings, budget=budget)
        if eol is None and not multiline and not result.backtracking:
            result._line_twin = functools.partial(
                compile, pattern, dialect, icase=icase, utf8=utf8, eol="\n", strict=strict,
                gnu_escapes=gnu_escapes, posix=posix, group_offset=group_offset,
                budget=budget)
    if len(_cache) > 512:
        _cache.clear()
    _cache[key] = result
    return result


def compile_many(
    patterns: list[str], dialect: str, *, word: bool = False, line: bool = False, **options,
) -> Regex:
    """Several patterns as one regex matching any of them (grep -e a -e b), with grep's
    ``-w`` (``word``) and ``-x`` (``line``) wrappers; ``dialect`` may also be ``fixed``.

    Groups number on across patterns, so each pattern's back-references stay its own.
    """
    utf8 = options.get("utf8", True)
    key = (tuple(patterns), dialect, word, line, tuple(sorted(options.items())))
    got = _cache.get(key)
    if got is not None:
        return got
    trees: list[Node] = []
    warnings: list[str] = []
    offset = 1 if word else 0
    for p in patterns:
        if dialect == "fixed":
            tree: Node = Cat([Lit(ord(c)) for c in p])
        else:
            tree, groups, warns = parse(
                p, dialect, utf8=utf8, strict=options.get("strict", False),
                gnu_escapes=options.get("gnu_escapes", False),
                posix=options.get("posix", False), group_offset=offset,
            )
            warnings.extend(warns)
            offset += groups
        trees.append(tree)
    if not trees:
        tree = Set([])  # no pattern at all: nothing matches
    else:
        tree = trees[0] if len(trees) == 1 else Alt(trees)
    span_group = 0
    if line:
        tree = Cat([Assert("bol"), tree, Assert("eol")])
    if word:
        # GNU -w: preceded and followed by a non-word character or the line's edge
        edge = Set(word_ranges(utf8), negate=True)
        tree = Cat([Alt([Assert("bol"), edge]), Group(1, tree), Alt([Assert("eol"), edge])])
        span_group = 1
    result = Regex(tree, offset, utf8=utf8, icase=options.get("icase", False),
                   eol=options.get("eol"), multiline=options.get("multiline", False),
                   warnings=warnings, budget=options.get("budget", backtrack.DEFAULT_BUDGET),
                   span_group=span_group)
    if len(_cache) > 512:
        _cache.clear()
    _cache[key] = result
    return result


_FIND_ERE = frozenset({"posix-extended", "egrep", "posix-egrep"})
_FIND_AWK = frozenset({"awk", "posix-awk", "gnu-awk"})
_FIND_BASIC = frozenset({"posix-basic", "grep", "sed", "ed"})


def compile_syntax(
    pattern: str, kind: str, *, icase: bool = False, utf8: bool = True,
) -> Regex:
    """A pattern in one of GNU regex's named syntaxes (find's ``-regextype``; ``emacs``,
    the default of find and tac, has ``+ ?`` and ``\\( \\|`` as operators), rewritten
    to ERE first; ``.`` matches newline."""
    if kind in _FIND_AWK:
        return compile(pattern, "awk", icase=icase, utf8=utf8)
    if kind not in _FIND_ERE:
        pattern = _emacs_to_ere(pattern, kind in _FIND_BASIC)
    return compile(pattern, "ere", icase=icase, utf8=utf8)


def _emacs_to_ere(pat: str, basic: bool) -> str:
    """GNU's emacs/basic syntaxes (``\\( \\| \\{`` are operators) in ERE spelling."""
    out = []
    i = 0
    while i < len(pat):
        c = pat[i]
        if c == "\\" and i + 1 < len(pat):
            n = pat[i + 1]
            if n in "()|" or (n in "{}+?" and basic):
                out.append(n)
            else:
                out.append("\\" + n)
            i += 2
            continue
        if c in "()|{}" or (c in "+?" and basic):
            out.append("\\" + c)
        else:
            out.append(c)
        i += 1
    return "".join(out)
