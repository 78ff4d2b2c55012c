"""Glob patterns with modes, matched in time linear in the subject (no backtracking).

A pattern string uses one convention throughout vshell: a backslash makes the next
character literal.  It is parsed into a small tree, then built into a regular-language
term (characters, concatenation, alternation, star, *complement* for ``!(…)`` and
*intersection*) that is matched by Brzozowski derivatives: each subject character turns
the current term into its derivative, memoized per (term, character), so matching is a
lazily built DFA walk — one dictionary look-up per character once a state is known, and
never more than one new state per character.  Complement makes ``!(…)`` and nested
extglobs exact; intersection expresses bash's own treatment of a ``*`` before a group.

Modes (see :class:`Mode`): *pathname* (``*``, ``?`` and brackets never match ``/``, a
name's leading dot must be matched literally unless ``dotglob``), shell patterns
(``case``, ``[[ == ]]``, parameter operations), extglob on or off, case folding
(``nocasematch``/``nocaseglob``/``find -iname``), and fnmatch(3) as ``find -name`` and
``-path`` use it (no extglob, ``*`` crosses ``/``, dots are ordinary).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from vshell.records import record
from vshell.text import posix_class

__all__ = [
    "Glob",
    "Mode",
    "compile_fnmatch",
    "compile_glob",
    "fnmatch",
    "fnmatch_suffix",
    "has_magic",
    "match",
    "remove_prefix",
    "remove_suffix",
    "replace",
    "unescape",
]


@record(frozen=True)
class Mode:
    """How a pattern is read and matched (cf. mvdan/sh ``pattern.Mode``)."""

    extglob: bool = True
    nocase: bool = False
    pathname: bool = False  # wildcards stop at "/", leading dots need a literal "."
    dotglob: bool = False
    bash_star: bool = True  # bash's handling of "*" before an extglob group (see _Builder)


FNMATCH = Mode(extglob=False, bash_star=False)


# ---------------------------------------------------------------------------------------
# parsing


@record(frozen=True)
class _Lit:
    text: str


@record(frozen=True)
class _Star:
    pass


@record(frozen=True)
class _Any:
    pass


@record(frozen=True)
class _Bracket:
    neg: bool
    chars: frozenset[str]
    spans: tuple[tuple[str, str], ...]
    classes: tuple[str, ...]


@record(frozen=True)
class _Ext:
    op: str  # one of ? * + @ !
    alts: tuple[tuple[_PNode, ...], ...]


_PNode = _Lit | _Star | _Any | _Bracket | _Ext

_CLASS_NAMES = posix_class.NAMES | {"word"}  # bash adds [:word:] (alnum and "_")


def _parse_bracket(pat: str, i: int) -> tuple[_Bracket, int] | None:
    """Parse ``[...]`` starting at ``pat[i] == '['``; None when it is not a bracket."""
    n = len(pat)
    j = i + 1
    neg = j < n and pat[j] in "!^"
    if neg:
        j += 1
    chars: set[str] = set()
    spans: list[tuple[str, str]] = []
    classes: list[str] = []
    first = True
    while j < n:
        c = pat[j]
        if c == "]" and not first:
            return _Bracket(neg, frozenset(chars), tuple(spans), tuple(classes)), j + 1
        first = False
        if c == "[" and j + 1 < n and pat[j + 1] in ":=.":
            kind = pat[j + 1]
            end = pat.find(kind + "]", j + 2)
            if end >= 0:
                name = pat[j + 2:end]
                j = end + 2
                if kind == ":":
                    if name in _CLASS_NAMES:
                        classes.append(name)
                elif len(name) == 1:
                    chars.add(name)
                continue
        if c == "\\" and j + 1 < n:
            j += 1
            c = pat[j]
        lo = c
        j += 1
        if j + 1 < n and pat[j] == "-" and pat[j + 1] != "]":
            hi = pat[j + 1]
            j += 2
            if hi == "\\" and j < n:
                hi = pat[j]
                j += 1
            if lo <= hi:
                spans.append((lo, hi))
            continue
        chars.add(lo)
    return None


def _ext_end(pat: str, i: int) -> tuple[list[str], int] | None:
    """Split the body of an extglob group whose ``(`` is at ``pat[i]`` at top-level ``|``."""
    depth, j, n, start = 0, i + 1, len(pat), i + 1
    alts: list[str] = []
    while j < n:
        c = pat[j]
        if c == "\\":
            j += 2
            continue
        if c == "[":
            b = _parse_bracket(pat, j)
            if b is not None:
                j = b[1]
                continue
        elif c == "(":
            depth += 1
        elif c == ")":
            if depth == 0:
                alts.append(pat[start:j])
                return alts, j + 1
            depth -= 1
        elif c == "|" and depth == 0:
            alts.append(pat[start:j])
            start = j + 1
        j += 1
    return None


@lru_cache(maxsize=1024)
def _parse(pat: str, extglob: bool) -> tuple[_PNode, ...]:
    out: list[_PNode] = []
    lit: list[str] = []

    def push(node: _PNode) -> None:
        if lit:
            out.append(_Lit("".join(lit)))
            lit.clear()
        if isinstance(node, _Star) and out and isinstance(out[-1], _Star):
            return
        out.append(node)

    i, n = 0, len(pat)
    while i < n:
        c = pat[i]
        if c == "\\":
            lit.append(pat[i + 1] if i + 1 < n else "\\")
            i += 2
            continue
        if extglob and c in "?*+@!" and i + 1 < n and pat[i + 1] == "(":
            ext = _ext_end(pat, i + 1)
            if ext is not None:
                alts, end = ext
                push(_Ext(c, tuple(_parse(a, extglob) for a in alts)))
                i = end
                continue
        if c == "*":
            push(_Star())
        elif c == "?":
            push(_Any())
        elif c == "[" and (b := _parse_bracket(pat, i)) is not None:
            push(b[0])
            i = b[1]
            continue
        else:
            lit.append(c)
        i += 1
    if lit:
        out.append(_Lit("".join(lit)))
    return tuple(out)


def has_magic(pat: str, extglob: bool = True) -> bool:
    """True when bash would glob the word: an unescaped ``*`` or ``?``, a ``[`` with an
    unescaped ``]`` somewhere after it (even ``[]``), or an extglob opener."""
    i, n = 0, len(pat)
    bracket = False
    while i < n:
        c = pat[i]
        if c == "\\":
            i += 2
            continue
        if c in "*?":
            return True
        if c == "[":
            bracket = True
        elif c == "]" and bracket:
            return True
        elif extglob and c in "+@!" and i + 1 < n and pat[i + 1] == "(":
            return True
        i += 1
    return False


def unescape(pat: str) -> str:
    """The literal text of a pattern: what a glob word that matched nothing becomes."""
    if "\\" not in pat:
        return pat
    out: list[str] = []
    i, n = 0, len(pat)
    while i < n:
        if pat[i] == "\\" and i + 1 < n:
            out.append(pat[i + 1])
            i += 2
        else:
            out.append(pat[i])
            i += 1
    return "".join(out)


# ---------------------------------------------------------------------------------------
# character predicates


def _in_class(name: str, c: str) -> bool:
    cp = ord(c)
    if name == "word":
        return c == "_" or posix_class.is_member("alnum", cp, True)
    return posix_class.is_member(name, cp, True)


def _bracket_test(b: _Bracket, nocase: bool, slash_ok: bool) -> Callable[[str], bool]:
    """A predicate for one bracket expression.  Case folding applies to characters and
    ranges but not to ``[:upper:]``/``[:lower:]``, as in bash."""

    def plain(c: str) -> bool:
        if c in b.chars:
            return True
        if any(lo <= c <= hi for lo, hi in b.spans):
            return True
        return any(_in_class(name, c) for name in b.classes)

    def member(c: str) -> bool:
        if plain(c):
            return True
        if nocase:
            for v in (c.lower(), c.upper()):
                if v != c and (v in b.chars or any(lo <= v <= hi for lo, hi in b.spans)):
                    return True
        return False

    def test(c: str) -> bool:
        if c == "/" and not slash_ok:
            return False
        return member(c) != b.neg

    return test


# ---------------------------------------------------------------------------------------
# terms: hash-consed nodes of a regular language with complement and intersection

_EMPTY, _EPS, _CHR, _CAT, _ALT, _STAR, _NOT, _AND = range(8)


class _Terms:
    """The term table of one compiled pattern, and the memoized derivative."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.nodes: list[tuple[Any, ...]] = []
        self.ids: dict[tuple[Any, ...], int] = {}
        self.nullable: list[bool] = []
        self.preds: list[tuple[Callable[[str], bool], bool]] = []  # (test, is a wildcard)
        # the derivative memo: one row per term, keyed by the character ("." + NUL for a
        # strict leading dot); rows of strings and ints stay out of the cyclic GC's way
        self.rows: list[dict[str, int]] = []
        self.memo_size = 0
        self.empty = self._make((_EMPTY,), False)
        self.eps = self._make((_EPS,), True)

    def _make(self, key: tuple[Any, ...], nullable: bool) -> int:
        tid = self.ids.get(key)
        if tid is None:
            with self._lock:  # compiled patterns are shared by every thread's runs
                tid = self.ids.get(key)
                if tid is None:
                    self.nodes.append(key)
                    self.nullable.append(nullable)
                    self.rows.append({})
                    tid = self.ids[key] = len(self.nodes) - 1
        return tid

    def pred(self, test: Callable[[str], bool], wild: bool) -> int:
        with self._lock:
            self.preds.append((test, wild))
            pid = len(self.preds) - 1
        return self._make((_CHR, pid), False)

    def cat(self, a: int, b: int) -> int:
        if a == self.empty or b == self.empty:
            return self.empty
        if a == self.eps:
            return b
        if b == self.eps:
            return a
        if self.nodes[a][0] != _CAT:
            return self._make((_CAT, a, b), self.nullable[a] and self.nullable[b])
        chain = []  # keep concatenation right-nested: (x·y)·b becomes x·(y·b)
        while self.nodes[a][0] == _CAT:
            chain.append(self.nodes[a][1])
            a = self.nodes[a][2]
        chain.append(a)
        for x in reversed(chain):
            b = self._make((_CAT, x, b), self.nullable[x] and self.nullable[b])
        return b

    def alt(self, items: list[int] | tuple[int, ...]) -> int:
        flat: set[int] = set()
        for t in items:
            nt = self.nodes[t]
            if nt[0] == _ALT:
                flat.update(nt[1])
            elif t != self.empty:
                flat.add(t)
        if not flat:
            return self.empty
        if len(flat) == 1:
            return next(iter(flat))
        members = tuple(sorted(flat))
        return self._make((_ALT, members), any(self.nullable[t] for t in members))

    def conj(self, items: list[int]) -> int:
        flat: set[int] = set()
        for t in items:
            nt = self.nodes[t]
            if t == self.empty:
                return self.empty
            if nt[0] == _AND:
                flat.update(nt[1])
            else:
                flat.add(t)
        if len(flat) == 1:
            return next(iter(flat))
        members = tuple(sorted(flat))
        return self._make((_AND, members), all(self.nullable[t] for t in members))

    def star(self, a: int) -> int:
        if a in (self.empty, self.eps):
            return self.eps
        if self.nodes[a][0] == _STAR:
            return a
        return self._make((_STAR, a), True)

    def neg(self, a: int, slash_ok: bool) -> int:
        """Strings not in ``a`` (without a ``/`` unless ``slash_ok``)."""
        return self._make((_NOT, a, slash_ok), not self.nullable[a])

    def deriv(self, t: int, c: str, strict: bool) -> int:
        """The term for what may follow ``c``.  ``strict``: ``c`` is a name's leading dot,
        which wildcards and ``!(…)`` may not take."""
        key = c + "\0" if strict else c
        row = self.rows[t]
        got = row.get(key)
        if got is None:
            got = row[key] = self._deriv(t, c, strict)
            self.memo_size += 1
        return got

    def _deriv(self, t: int, c: str, strict: bool) -> int:
        node = self.nodes[t]
        kind = node[0]
        if kind == _CHR:
            test, wild = self.preds[node[1]]
            return self.eps if not (strict and wild) and test(c) else self.empty
        if kind == _CAT:
            # walk the chain while its heads can be empty, without recursing along it
            parts: list[int] = []
            while node[0] == _CAT:
                a, b = node[1], node[2]
                if strict and self.nodes[a][0] == _NOT:
                    break
                parts.append(self.cat(self.deriv(a, c, strict), b))
                if not self.nullable[a]:
                    return self.alt(parts)
                node = self.nodes[b]
                t = b
            else:
                parts.append(self.deriv(t, c, strict))
            return self.alt(parts)
        if kind == _ALT:
            return self.alt([self.deriv(x, c, strict) for x in node[1]])
        if kind == _AND:
            return self.conj([self.deriv(x, c, strict) for x in node[1]])
        if kind == _STAR:
            return self.cat(self.deriv(node[1], c, strict), t)
        if kind == _NOT:
            if strict or (c == "/" and not node[2]):
                return self.empty
            return self.neg(self.deriv(node[1], c, False), node[2])
        return self.empty  # _EMPTY, _EPS

    def reverse(self, t: int, memo: dict[int, int] | None = None) -> int:
        """The term for the reversed language (used to match suffixes right to left)."""
        memo = {} if memo is None else memo
        got = memo.get(t)
        if got is not None:
            return got
        node = self.nodes[t]
        kind = node[0]
        if kind == _CAT:
            chain = [node[1]]
            rest = node[2]
            while self.nodes[rest][0] == _CAT:
                chain.append(self.nodes[rest][1])
                rest = self.nodes[rest][2]
            chain.append(rest)
            r = self.reverse(chain[0], memo)
            for part in chain[1:]:
                r = self.cat(self.reverse(part, memo), r)
        elif kind == _ALT:
            r = self.alt([self.reverse(x, memo) for x in node[1]])
        elif kind == _AND:
            r = self.conj([self.reverse(x, memo) for x in node[1]])
        elif kind == _STAR:
            r = self.star(self.reverse(node[1], memo))
        elif kind == _NOT:
            r = self.neg(self.reverse(node[1], memo), node[2])
        else:
            r = t
        memo[t] = r
        return r


class _Builder:
    """Turns a parsed pattern into a term.

    bash's matcher (``sm_loop.c``) gives a ``*`` a meaning of its own when what follows
    it (past ``?`` and ``?(…)``/``*(…)``) is an ``@( +( !(`` group: it steps over each
    ``?`` (one character each), tries each ``?(…)``/``*(…)`` group once where it stands,
    then tries the rest only at positions where a character remains, and at the very end
    of the subject lets ``*!(…)`` match outright (outside any group).  With
    ``Mode.bash_star`` that is reproduced by intersecting the rest with "non-empty".
    """

    def __init__(self, terms: _Terms, mode: Mode) -> None:
        self.t = terms
        self.mode = mode
        slash_ok = not mode.pathname
        self.slash_ok = slash_ok
        self.any = terms.pred((lambda c: c != "/") if not slash_ok else (lambda c: True), True)
        self.sigma_star = terms.star(self.any)
        every = terms.pred(lambda c: True, True)
        self.nonempty = terms.cat(every, terms.star(every))
        self._chars: dict[str, int] = {}

    def char(self, ch: str) -> int:
        tid = self._chars.get(ch)
        if tid is None:
            if self.mode.nocase and ch.lower() != ch.upper():
                variants = {ch, ch.lower(), ch.upper()}
                tid = self.t.pred(variants.__contains__, False)
            else:
                tid = self.t.pred(ch.__eq__, False)
            self._chars[ch] = tid
        return tid

    def seq(self, nodes: tuple[_PNode, ...], idx: int, top: bool) -> int:
        """The term for ``nodes[idx:]`` (``top``: not inside a group)."""
        return self._suffixes(nodes, top)[idx]

    def _suffixes(self, nodes: tuple[_PNode, ...], top: bool) -> list[int]:
        """Terms for every suffix of ``nodes``, built right to left without recursion
        (a pattern may have thousands of nodes)."""
        t = self.t
        suf = [t.eps] * (len(nodes) + 1)
        for idx in range(len(nodes) - 1, -1, -1):
            nd = nodes[idx]
            rest = suf[idx + 1]
            if isinstance(nd, _Lit):
                for ch in reversed(nd.text):
                    rest = t.cat(self.char(ch), rest)
                suf[idx] = rest
            elif isinstance(nd, _Any):
                suf[idx] = t.cat(self.any, rest)
            elif isinstance(nd, _Bracket):
                b = t.pred(_bracket_test(nd, self.mode.nocase, self.slash_ok), True)
                suf[idx] = t.cat(b, rest)
            elif isinstance(nd, _Star):
                suf[idx] = self.star(nodes, idx, top, suf)
            else:
                suf[idx] = t.cat(self.group(nd), rest)
        return suf

    def group(self, nd: _Ext) -> int:
        t = self.t
        body = t.alt([self.seq(a, 0, False) for a in nd.alts])
        if nd.op == "@":
            return body
        if nd.op == "?":
            return t.alt([body, t.eps])
        if nd.op == "*":
            return t.star(body)
        if nd.op == "+":
            return t.cat(body, t.star(body))
        return t.neg(body, self.slash_ok)

    def star(self, nodes: tuple[_PNode, ...], idx: int, top: bool, suf: list[int]) -> int:
        t = self.t
        if not (self.mode.bash_star and _star_quirk(nodes, idx)):
            return t.cat(self.sigma_star, suf[idx + 1])
        options: list[int] = []
        prefix = t.eps  # the "?"s stepped over so far, in order
        j = idx + 1
        while j < len(nodes):
            nd = nodes[j]
            if isinstance(nd, _Any):
                prefix = t.cat(prefix, self.any)
            elif isinstance(nd, _Ext) and nd.op == "?":
                options.append(t.cat(prefix, suf[j]))
            elif isinstance(nd, _Ext) and nd.op == "*":
                rest = t.conj([suf[j], self.nonempty])
                options.append(t.cat(prefix, t.cat(self.sigma_star, rest)))
            elif not isinstance(nd, _Star):
                break
            j += 1
        nxt = nodes[j]  # an @( +( !( group: _star_quirk guarantees it
        assert isinstance(nxt, _Ext)
        rest = t.conj([suf[j], self.nonempty])
        options.append(t.cat(prefix, t.cat(self.sigma_star, rest)))
        if nxt.op == "!" and top:
            options.append(prefix)  # bash 5.2: "*!(…)" at the end of the subject matches
        return t.alt(options)


def _star_quirk(nodes: tuple[_PNode, ...], idx: int) -> bool:
    """Whether the ``*`` at ``idx`` is followed (past ``?``, ``?(…)``, ``*(…)``) by an
    ``@( +( !(`` group, which bash's matcher treats differently from the plain meaning."""
    for nd in nodes[idx + 1:]:
        if isinstance(nd, (_Any, _Star)) or isinstance(nd, _Ext) and nd.op in "?*":
            continue
        return isinstance(nd, _Ext) and nd.op in "@+!"
    return False


# ---------------------------------------------------------------------------------------
# the compiled pattern


class _Match:
    """The small part of ``re.Match`` that callers use."""

    __slots__ = ("_span", "string")

    def __init__(self, string: str, start: int, end: int) -> None:
        self.string = string
        self._span = (start, end)

    def span(self) -> tuple[int, int]:
        return self._span

    def start(self) -> int:
        return self._span[0]

    def end(self) -> int:
        return self._span[1]

    def group(self, n: int = 0) -> str:
        return self.string[self._span[0]:self._span[1]]


# Past these sizes a pattern's term table and derivative memo are rebuilt from scratch
# between matches: the lazily built DFA stays a cache, never a memory leak.
_TERM_CAP = 50_000
_MEMO_CAP = 200_000


class Glob:
    """A compiled pattern.  ``fullmatch``/``match`` take the ``re.Pattern`` arguments;
    the scanning methods give every end (or start) at once, in one pass."""

    def __init__(self, pattern: str, mode: Mode) -> None:
        self.pattern = pattern
        self.mode = mode
        self._nodes = _parse(pattern, mode.extglob)
        # the pattern's text when it has no wildcard and no case folding (a fast path)
        self.literal: str | None = None
        if not mode.nocase and all(isinstance(nd, _Lit) for nd in self._nodes):
            self.literal = "".join(nd.text for nd in self._nodes if isinstance(nd, _Lit))
        self._build()

    def _build(self) -> None:
        self._t = _Terms()
        self._start = _Builder(self._t, self.mode).seq(self._nodes, 0, True)
        self._rev: int | None = None
        self._found: int | None = None

    def _state(self) -> _Terms:
        if len(self._t.nodes) > _TERM_CAP or self._t.memo_size > _MEMO_CAP:
            self._build()  # bound memory: a fresh table between matches
        return self._t

    def _strict(self, s: str, i: int) -> bool:
        m = self.mode
        return m.pathname and not m.dotglob and s[i] == "." and (i == 0 or s[i - 1] == "/")

    def _run(self, s: str, pos: int, end: int, ends: list[int] | None = None) -> int:
        """The state the DFA reaches over ``s[pos:end]`` (the dead state: stopped early).

        With ``ends``, every ``k`` (ascending) such that ``s[pos:k]`` matches is appended.
        """
        t = self._state()
        cur = self._start
        nullable, rows, dead = t.nullable, t.rows, t.empty
        pathname = self.mode.pathname and not self.mode.dotglob
        if ends is not None and nullable[cur]:
            ends.append(pos)
        for i in range(pos, end):
            c = s[i]
            strict = pathname and c == "." and (i == pos or s[i - 1] == "/")
            nxt = rows[cur].get(c + "\0" if strict else c)
            cur = t.deriv(cur, c, strict) if nxt is None else nxt
            if cur == dead:
                break
            if ends is not None and nullable[cur]:
                ends.append(i + 1)
        return cur

    def _forward(self, s: str, pos: int, end: int) -> list[int]:
        """Ends ``k`` (ascending) such that ``s[pos:k]`` matches."""
        ends: list[int] = []
        self._run(s, pos, end, ends)
        return ends

    def fullmatch(self, string: str, pos: int = 0, endpos: int | None = None) -> _Match | None:
        end = len(string) if endpos is None else min(endpos, len(string))
        if self.literal is not None:
            ok = end - pos == len(self.literal) and string.startswith(self.literal, pos)
            return _Match(string, pos, end) if ok else None
        cur = self._run(string, pos, end)
        return _Match(string, pos, end) if self._t.nullable[cur] else None

    def match(self, string: str, pos: int = 0, endpos: int | None = None) -> _Match | None:
        """The longest prefix of ``string[pos:endpos]`` that matches."""
        end = len(string) if endpos is None else min(endpos, len(string))
        ends = self._forward(string, pos, end)
        return _Match(string, pos, ends[-1]) if ends else None

    def prefix_ends(self, s: str) -> list[int]:
        """Every ``k`` with ``s[:k]`` matching, ascending."""
        return self._forward(s, 0, len(s))

    def suffix_starts(self, s: str) -> list[int]:
        """Every ``k`` with ``s[k:]`` matching, descending (one right-to-left pass)."""
        t = self._state()
        if self._rev is None:
            self._rev = t.reverse(self._start)
        cur = self._rev
        n = len(s)
        out = [n] if t.nullable[cur] else []
        rows, dead = t.rows, t.empty
        for i in range(n - 1, -1, -1):
            c = s[i]
            nxt = rows[cur].get(c)
            cur = t.deriv(cur, c, False) if nxt is None else nxt
            if cur == dead:
                break
            if t.nullable[cur]:
                out.append(i)
        return out

    def match_starts(self, s: str) -> list[bool]:
        """``starts[i]``: some ``s[i:k]`` matches (one right-to-left pass over
        ``Σ*·reverse(pattern)``)."""
        t = self._state()
        if self._found is None:
            every = t.pred(lambda c: True, True)
            self._found = t.cat(t.star(every), t.reverse(self._start))
        cur = self._found
        n = len(s)
        starts = [False] * (n + 1)
        starts[n] = t.nullable[cur]
        rows = t.rows
        for i in range(n - 1, -1, -1):
            c = s[i]
            nxt = rows[cur].get(c)
            cur = t.deriv(cur, c, False) if nxt is None else nxt
            starts[i] = t.nullable[cur]
        return starts

    def longest_at(self, s: str, i: int, end: int) -> int | None:
        """The end of the longest match starting at ``i``, or None."""
        ends = self._forward(s, i, end)
        return ends[-1] if ends else None


@lru_cache(maxsize=256)
def _compile(pattern: str, mode: Mode) -> Glob:
    return Glob(pattern, mode)


def compile_glob(
    pat: str,
    *,
    extglob: bool = True,
    nocase: bool = False,
    pathname: bool = False,
    dotglob: bool = False,
) -> Glob:
    """Compile a shell pattern for an anchored match (``.fullmatch(s)``); cached."""
    return _compile_flags(pat, extglob, nocase, pathname, dotglob)


@lru_cache(maxsize=256)
def _compile_flags(pat: str, extglob: bool, nocase: bool, pathname: bool, dotglob: bool
                   ) -> Glob:
    """The cache in front of _compile keyed by plain flags: hashing them is much cheaper
    than hashing a Mode record (every ``case`` and ``[[ == ]]`` comes through here)."""
    return _compile(pat, Mode(extglob=extglob, nocase=nocase, pathname=pathname,
                              dotglob=dotglob))


def compile_fnmatch(pattern: str, icase: bool = False) -> Glob:
    """fnmatch(3) without flags but FNM_CASEFOLD, as ``find -name``/``-path`` and ``tar
    --exclude`` use it: no extglob, ``*`` and ``?`` match ``/`` and leading dots."""
    return _compile(pattern, Mode(extglob=False, nocase=icase, bash_star=False))


def fnmatch(pattern: str, name: str, icase: bool = False) -> bool:
    """Whether ``name`` matches ``pattern`` as :func:`compile_fnmatch` reads it."""
    return compile_fnmatch(pattern, icase).fullmatch(name) is not None


def fnmatch_suffix(pattern: str, name: str, icase: bool = False) -> bool:
    """Whether the whole ``name`` or a trailing part of it that follows a ``/`` matches:
    the unanchored wildcard match GNU ``grep --include/--exclude`` applies to command-line
    file names (observed: ``/a.c`` matches ``q//a.c``, ``a.c`` matches it too)."""
    rx = compile_fnmatch(pattern, icase)
    if rx.fullmatch(name) is not None:
        return True
    i = name.find("/")
    while i != -1:
        if rx.fullmatch(name, i + 1) is not None:
            return True
        i = name.find("/", i + 1)
    return False



# ---------------------------------------------------------------------------------------
# operations used by parameter expansion and [[ ]] / case


def match(pat: str, s: str, **flags: bool) -> bool:
    """Whether ``s`` matches the pattern entirely (``[[ s == pat ]]``, ``case``)."""
    return compile_glob(pat, **flags).fullmatch(s) is not None


_NO_PATTERN_CHAR = frozenset("*?[]\\()|").isdisjoint
"""Whether a text has no character that makes a pattern (or an extglob, or an escape)."""


def _star_literal(pat: str, flags: dict[str, bool]) -> tuple[bool, str] | None:
    """``(True, LIT)`` for the pattern ``*LIT``, ``(False, LIT)`` for ``LIT*``, where LIT is
    literal text, as ``${path##*/}``, ``${file%.*}`` and ``${v#*=}`` are; None otherwise.
    Such a pattern needs no automaton: the shortest and longest matches are found with
    ``str.find`` and ``str.rfind``."""
    if len(pat) < 1 or flags.get("nocase"):
        return None
    if pat[0] == "*":
        rest = pat[1:]
        return (True, rest) if _NO_PATTERN_CHAR(rest) else None
    if pat[-1] == "*":
        rest = pat[:-1]
        return (False, rest) if _NO_PATTERN_CHAR(rest) else None
    return None


def remove_prefix(value: str, pat: str, longest: bool, **flags: bool) -> str:
    """``${v#pat}`` (shortest) / ``${v##pat}`` (longest): one left-to-right pass."""
    shape = _star_literal(pat, flags)
    if shape is not None:
        lead, lit = shape
        if lead:  # *LIT: up to the first (shortest) or last (longest) LIT
            i = value.rfind(lit) if longest else value.find(lit)
            return value if i < 0 else value[i + len(lit):]
        if not value.startswith(lit):  # LIT*: LIT itself, or all of it
            return value
        return "" if longest else value[len(lit):]
    g = compile_glob(pat, **flags)
    if g.literal is not None:
        return value[len(g.literal):] if value.startswith(g.literal) else value
    ends = g.prefix_ends(value)
    if not ends:
        return value
    return value[ends[-1] if longest else ends[0]:]


def remove_suffix(value: str, pat: str, longest: bool, **flags: bool) -> str:
    """``${v%pat}`` (shortest) / ``${v%%pat}`` (longest): one right-to-left pass."""
    shape = _star_literal(pat, flags)
    if shape is not None:
        lead, lit = shape
        if not lead:  # LIT*: from the last (shortest) or first (longest) LIT
            i = value.find(lit) if longest else value.rfind(lit)
            return value if i < 0 else value[:i]
        if not value.endswith(lit):  # *LIT: LIT itself, or all of it
            return value
        return "" if longest else value[:len(value) - len(lit)]
    g = compile_glob(pat, **flags)
    if g.literal is not None:
        return value[:len(value) - len(g.literal)] if value.endswith(g.literal) else value
    starts = g.suffix_starts(value)
    if not starts:
        return value
    return value[:starts[-1] if longest else starts[0]]


def _expand_rep(rep: str, matched: str, ampersand: bool) -> str:
    if not ampersand:
        return rep
    out: list[str] = []
    i, n = 0, len(rep)
    while i < n:
        c = rep[i]
        if c == "\\" and i + 1 < n:
            out.append(rep[i + 1])
            i += 2
            continue
        out.append(matched if c == "&" else c)
        i += 1
    return "".join(out)


def _prefilter(pat: str, mode: str, extglob: bool) -> str:
    """The pattern bash first tries on the whole value before looking for a match.

    Bash wraps the pattern in ``*`` (``*pat*``, ``pat*`` for ``#``, ``*pat`` for ``%``)
    and gives up when that fails.  Normally this changes nothing, but together with its
    quirk after ``*`` it decides cases like ``${v/%@()/X}``, so we do the same.
    """
    # like bash: a pattern whose raw first and last characters are stars is used as it
    # is, even when the last star is escaped (so "*\\*" only matches at the very end)
    star_lead = pat.startswith("*") and not (extglob and pat.startswith("*("))
    if star_lead and pat.endswith("*"):
        return pat
    escaped = False
    if pat.endswith("*"):
        body = pat[:-1]
        escaped = (len(body) - len(body.rstrip("\\"))) % 2 == 1
    out = pat
    if mode != "#" and not star_lead:
        out = "*" + out
    if mode != "%" and (not pat.endswith("*") or escaped):
        out = out + "*"
    return out


def replace(
    value: str, pat: str, rep: str, mode: str = "", *, ampersand: bool = False,
    check: Callable[[], None] | None = None, **flags: bool
) -> str:
    """``${v/pat/rep}``: mode '' first match, '/' every match, '#' at start, '%' at end.

    Matches are the longest at the leftmost position, as bash finds them.  The possible
    starts come from one right-to-left pass; each match's end from a left-to-right run
    that stops as soon as no longer match is possible (at worst O(n²) cheap steps for
    ``//`` with a pattern that stays alive to the end but matches short).  With
    ``ampersand`` (bash 5.2's ``patsub_replacement``) an ``&`` in ``rep`` stands for the
    matched text and a backslash makes the next character literal.  ``check`` (the run's
    cancellation check) is called before each search, so a timeout ends a long ``//``.
    """
    n = len(value)
    if mode in ("#", "%") and pat == "":
        return rep + value if mode == "#" else value + rep
    if pat == "":
        return value
    # plain text (no backslash: bash's pre-check treats those specially) is found by the
    # string methods at C speed
    lit = None if "\\" in pat else compile_glob(pat, **flags).literal
    if lit:
        if mode == "#":
            return _expand_rep(rep, lit, ampersand) + value[len(lit):] if value.startswith(
                lit) else value
        if mode == "%":
            return value[:n - len(lit)] + _expand_rep(rep, lit, ampersand) if value.endswith(
                lit) else value
        return value.replace(lit, _expand_rep(rep, lit, ampersand), -1 if mode == "/" else 1)
    pre = compile_glob(_prefilter(pat, mode, flags.get("extglob", True)), **flags)
    # pre_ok[i]: bash's check of the rest of the value, redone before each search
    pre_ok = pre.suffix_starts(value)
    if not pre_ok or pre_ok[-1] != 0:
        return value
    rx = compile_glob(pat, **flags)
    # bash lets a match start at the end of the value only for patterns starting with *
    at_end = pat.startswith("*")
    if mode == "#":
        if n == 0 and not at_end:
            return value
        ends = rx.prefix_ends(value)
        if not ends:
            return value
        k = ends[-1]
        return _expand_rep(rep, value[:k], ampersand) + value[k:]
    if mode == "%":
        starts = rx.suffix_starts(value)
        if not starts:
            return value
        k = starts[-1]
        return value[:k] + _expand_rep(rep, value[k:], ampersand)
    if n == 0:
        return _expand_rep(rep, "", ampersand) if at_end and rx.fullmatch("") else value
    pre_set = set(pre_ok)
    can_start = rx.match_starts(value)
    last = n if at_end else n - 1
    out: list[str] = []
    i = 0
    s = 0
    while i < n:
        if check is not None:
            check()
        if i and i not in pre_set:
            break
        s = max(s, i)
        while s <= last and not can_start[s]:
            s += 1
        if s > last:
            break
        e = rx.longest_at(value, s, n)
        assert e is not None
        out.append(value[i:s])
        out.append(_expand_rep(rep, value[s:e], ampersand))
        if e == s:
            if e < n:
                out.append(value[e])
            e += 1
        i = e
        if mode != "/":
            break
    out.append(value[i:])
    return "".join(out)
