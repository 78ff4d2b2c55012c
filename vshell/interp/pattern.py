"""Bash glob patterns: matching, ``${v#p}``-style trimming and ``${v/p/r}`` substitution.

A pattern string uses one convention throughout vshell: a backslash makes the next
character literal (the interpreter escapes characters that were quoted in the source).
Patterns are parsed once into a small tree and compiled to a Python regular expression.
``!(…)`` cannot be written as a regular expression (it needs "this *substring* does not
match", and ``re`` has no variable-length look-behind), so a pattern containing it gets a
small backtracking matcher with the same ``fullmatch``/``match`` interface instead; so do
the few patterns where bash's matcher has quirks a regex would not reproduce.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any, Protocol

from vshell.records import record

__all__ = [
    "Matcher",
    "compile_pattern",
    "has_magic",
    "match",
    "remove_prefix",
    "remove_suffix",
    "replace",
    "unescape",
]


class Matcher(Protocol):
    """What callers may use on a compiled pattern (an ``re.Pattern`` satisfies it)."""

    pattern: str

    def fullmatch(self, string: str, pos: int = 0, endpos: int = ...) -> Any:
        """A truthy match object when ``string[pos:endpos]`` matches entirely."""

    def match(self, string: str, pos: int = 0, endpos: int = ...) -> Any:
        """A truthy match object when some prefix of ``string[pos:endpos]`` matches."""


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
    cls: str  # a complete regex character class, or "(?!)" when nothing can match


@record(frozen=True)
class _Ext:
    op: str  # one of ? * + @ !
    alts: tuple[tuple[_PNode, ...], ...]


_PNode = _Lit | _Star | _Any | _Bracket | _Ext

# POSIX classes as regex text: a bare class body joins the bracket's own members; a full
# (parenthesized) regex is needed for classes defined by exclusion or that must ignore
# nocase, which bash does not apply to [:upper:] and [:lower:].
_CLASSES = {
    "alpha": r"(?:[^\W\d_])",
    "alnum": r"(?:[^\W_])",
    "digit": "0-9",
    "upper": "(?-i:[A-Z\u00c0-\u00d6\u00d8-\u00de])",
    "lower": "(?-i:[a-z\u00df-\u00f6\u00f8-\u00ff])",
    "space": " \\t\\n\\r\\f\\v",
    "blank": " \\t",
    "punct": "!-/:-@\\[-`{-~",
    "print": "(?:[^\\x00-\\x1f\\x7f])",
    "graph": "(?:[^\\x00-\\x20\\x7f])",
    "cntrl": "\\x00-\\x1f\\x7f",
    "xdigit": "0-9A-Fa-f",
    "word": "\\w",
}


def _parse_bracket(pat: str, i: int) -> tuple[_Bracket, int] | None:
    """Parse ``[...]`` starting at ``pat[i] == '['``; None when it is not a bracket."""
    n = len(pat)
    j = i + 1
    neg = j < n and pat[j] in "!^"
    if neg:
        j += 1
    singles: list[str] = []  # regex-escaped members
    extra: list[str] = []  # alternatives for classes that need their own [...]
    first = True
    while j < n:
        c = pat[j]
        if c == "]" and not first:
            return _Bracket(_make_class(singles, extra, neg)), j + 1
        first = False
        if c == "[" and j + 1 < n and pat[j + 1] in ":=.":
            kind = pat[j + 1]
            end = pat.find(kind + "]", j + 2)
            if end >= 0:
                name = pat[j + 2:end]
                j = end + 2
                if kind == ":":
                    piece = _CLASSES.get(name)
                    if piece is not None:
                        (extra if piece.startswith("(") else singles).append(piece)
                elif len(name) == 1:
                    singles.append(re.escape(name))
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
                singles.append(f"{re.escape(lo)}-{re.escape(hi)}")
            continue
        singles.append(re.escape(lo))
    return None


def _make_class(singles: list[str], extra: list[str], neg: bool) -> str:
    if not extra:
        body = "".join(singles)
        if not body:
            return "(?s:.)" if neg else "(?!)"
        return f"[{'^' if neg else ''}{body}]"
    # classes written as whole regexes are combined with the members by alternation
    parts = list(extra)
    if singles:
        parts.append(f"[{''.join(singles)}]")
    any_of = "(?:" + "|".join(parts) + ")"
    return f"(?:(?!{any_of})(?s:.))" if neg else any_of


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
# compiling to a regular expression


def _star_quirk(nodes: tuple[_PNode, ...], idx: int, ops: str = "@+!") -> bool:
    """Whether the ``*`` at ``idx`` is followed (past ``?``, ``?(…)``, ``*(…)``) by a group
    that bash's matcher treats differently from the plain meaning."""
    for nd in nodes[idx + 1:]:
        if isinstance(nd, (_Any, _Star)) or isinstance(nd, _Ext) and nd.op in "?*":
            continue
        return isinstance(nd, _Ext) and nd.op in ops
    return False


def _needs_backtracking(nodes: tuple[_PNode, ...]) -> bool:
    """``!(…)`` anywhere, or a ``*`` before ``@( +( !(`` (see :class:`_Backtracker`)."""
    for idx, nd in enumerate(nodes):
        if isinstance(nd, _Star) and _star_quirk(nodes, idx):
            return True
        if isinstance(nd, _Ext) and (nd.op == "!" or any(_needs_backtracking(a) for a in nd.alts)):
            return True
    return False


def _starts_with_dot(nodes: tuple[_PNode, ...]) -> bool:
    if not nodes:
        return False
    first = nodes[0]
    if isinstance(first, _Lit):
        return first.text.startswith(".")
    if isinstance(first, _Ext) and first.op != "!":
        return any(_starts_with_dot(a) for a in first.alts)
    return False


@record(frozen=True)
class _Opts:
    pathname: bool
    dotglob: bool


def _rx(nodes: tuple[_PNode, ...], o: _Opts, name_start: bool) -> str:
    """Regex text for a node sequence; ``name_start``: the first node begins a name."""
    guard = o.pathname and not o.dotglob
    out: list[str] = []
    for nd in nodes:
        if isinstance(nd, _Lit):
            out.append(re.escape(nd.text))
            name_start = nd.text.endswith("/")
            continue
        if name_start and guard and not (isinstance(nd, _Ext) and _starts_with_dot((nd,))):
            out.append(r"(?!\.)")  # a name's leading dot is only matched literally
        name_start = False
        if isinstance(nd, _Star):
            out.append("[^/]*" if o.pathname else ".*")
        elif isinstance(nd, _Any):
            out.append("[^/]" if o.pathname else ".")
        elif isinstance(nd, _Bracket):
            out.append(("(?!/)" if o.pathname else "") + nd.cls)
        else:
            body = "|".join(_rx(a, o, False) for a in nd.alts)
            suffix = {"@": "", "?": "?", "*": "*", "+": "+"}[nd.op]
            out.append(f"(?:{body}){suffix}")
    return "".join(out)


def _max_len(nodes: tuple[_PNode, ...]) -> int | None:
    """Longest text the nodes can match, None when unbounded (bounds the match search)."""
    total = 0
    for nd in nodes:
        if isinstance(nd, _Lit):
            total += len(nd.text)
        elif isinstance(nd, (_Any, _Bracket)):
            total += 1
        elif isinstance(nd, _Star) or (isinstance(nd, _Ext) and nd.op in "*+!"):
            return None
        else:
            assert isinstance(nd, _Ext)
            lens = [_max_len(a) for a in nd.alts]
            if any(x is None for x in lens):
                return None
            total += max(lens, default=0)  # type: ignore[type-var]
    return total


@lru_cache(maxsize=1024)
def compile_pattern(
    pat: str,
    *,
    extglob: bool = True,
    nocase: bool = False,
    pathname: bool = False,
    dotglob: bool = False,
) -> Matcher:
    """Compile a pattern for an anchored full match (use ``.fullmatch(s)``).

    ``pathname``: wildcards and brackets never match ``/``, and a ``.`` starting a name
    must be matched by a literal dot unless ``dotglob``.  The result is an ``re.Pattern``
    except for patterns using ``!(…)``, which get an object with the same
    ``fullmatch(string, pos, endpos)`` and ``match`` methods.
    """
    nodes = _parse(pat, extglob)
    o = _Opts(pathname, dotglob)
    if _needs_backtracking(nodes):
        return _Backtracker(pat, nodes, o, nocase)
    flags = re.DOTALL | (re.IGNORECASE if nocase else 0)
    return re.compile(_rx(nodes, o, True), flags)


# ---------------------------------------------------------------------------------------
# the backtracking matcher for patterns with !(…)


class _Match:
    """The small part of ``re.Match`` that callers use."""

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


_MEMO_CAP = 500_000


class _Backtracker:
    """Exact-end backtracking matcher, bash's own strategy, for what regex cannot do.

    Used for ``!(…)`` and for a ``*`` directly followed by ``@( +( !(``, where bash's
    matcher only tries the group where a character remains (and, at the very end of the
    subject, lets ``*!(…)`` match outright); those quirks are reproduced here.
    """

    def __init__(self, pat: str, nodes: tuple[_PNode, ...], o: _Opts, nocase: bool) -> None:
        self.pattern = pat
        self.nodes = nodes
        self.o = o
        self.nocase = nocase
        self.flags = re.DOTALL | (re.IGNORECASE if nocase else 0)
        self._cls: dict[str, re.Pattern[str]] = {}
        # literal text every match must contain: a cheap way to reject most subjects
        self._needed: list[str] = []
        for idx, nd in enumerate(nodes):
            if isinstance(nd, _Star) and _star_quirk(nodes, idx, "!"):
                break  # "*!(…)" can match at the end whatever follows (see _Run._star)
            if isinstance(nd, _Lit):
                self._needed.append(nd.text.lower() if nocase else nd.text)
        self._last: tuple[str, _Run] | None = None

    def _run(self, string: str, pos: int, end: int) -> _Run | None:
        if self._needed:
            hay = string[pos:end].lower() if self.nocase else string[pos:end]
            if any(t not in hay for t in self._needed):
                return None
        last = self._last  # the memo stays valid for the same subject (trimming loops)
        if last is not None and last[0] is string:
            return last[1]
        run = _Run(self, string)
        self._last = (string, run)
        return run

    def fullmatch(self, string: str, pos: int = 0, endpos: int | None = None) -> _Match | None:
        end = len(string) if endpos is None else min(endpos, len(string))
        run = self._run(string, pos, end)
        if run is None or not run.m(self.nodes, 0, pos, end, True):
            return None
        return _Match(string, pos, end)

    def match(self, string: str, pos: int = 0, endpos: int | None = None) -> _Match | None:
        end = len(string) if endpos is None else min(endpos, len(string))
        run = self._run(string, pos, end)
        if run is None:
            return None
        for k in range(end, pos - 1, -1):
            if run.m(self.nodes, 0, pos, k, True):
                return _Match(string, pos, k)
        return None

    def bracket(self, cls: str) -> re.Pattern[str]:
        rx = self._cls.get(cls)
        if rx is None:
            rx = self._cls[cls] = re.compile(cls, self.flags)
        return rx


class _Run:
    """One subject string: memoized ``m(nodes, idx, i, end)`` = nodes[idx:] match s[i:end]."""

    def __init__(self, bt: _Backtracker, s: str) -> None:
        self.bt = bt
        self.s = s
        self.memo: dict[tuple[int, int, int, int, bool], bool] = {}

    def blocked(self, i: int, at_start: bool) -> bool:
        """A wildcard may not take a ``/`` (pathname) nor a name's leading dot."""
        o = self.bt.o
        if not o.pathname:
            return False
        c = self.s[i]
        if c == "/":
            return True
        return c == "." and not o.dotglob and (at_start or i == 0 or self.s[i - 1] == "/")

    def m(self, seq: tuple[_PNode, ...], idx: int, i: int, end: int, top: bool) -> bool:
        if idx == len(seq):
            return i == end
        key = (id(seq), idx, i, end, top)
        hit = self.memo.get(key)
        if hit is None:
            if len(self.memo) > _MEMO_CAP:
                self.memo.clear()  # a cache only: bound its memory on long subjects
            hit = self.memo[key] = self._m(seq, idx, i, end, top)
        return hit

    def _m(self, seq: tuple[_PNode, ...], idx: int, i: int, end: int, top: bool) -> bool:
        nd = seq[idx]
        s = self.s
        at_start = top and idx == 0
        if isinstance(nd, _Lit):
            k = i + len(nd.text)
            if k > end:
                return False
            ok = s[i:k].lower() == nd.text.lower() if self.bt.nocase else s.startswith(nd.text, i)
            return ok and self.m(seq, idx + 1, k, end, top)
        if isinstance(nd, (_Any, _Bracket)):
            if i >= end or self.blocked(i, at_start):
                return False
            if isinstance(nd, _Bracket) and not self.bt.bracket(nd.cls).fullmatch(s, i, i + 1):
                return False
            return self.m(seq, idx + 1, i + 1, end, top)
        if isinstance(nd, _Star):
            return self._star(seq, idx, i, end, top, at_start)
        assert isinstance(nd, _Ext)
        return self._ext(nd, seq, idx, i, end, top)

    def _star(self, seq: tuple[_PNode, ...], idx: int, i: int, end: int, top: bool,
              at_start: bool) -> bool:
        """A ``*`` the way bash's matcher walks it.

        It first steps over the ``?`` and ``?(…)``/``*(…)`` that follow (each ``?`` takes
        one character; each group is tried once where it stands, then skipped), then tries
        the rest only at positions where a character remains.  With an ordinary rest that
        is the usual meaning; before ``@( +( !(`` it is bash's observable behaviour.
        """
        if i < end and self.blocked(i, at_start):
            if self.s[i] == ".":
                return False  # like bash: a * facing a name's leading dot fails outright
            return self.m(seq, idx + 1, i, end, top)  # before a /, the star can only be empty
        n = i
        j = idx + 1
        while j < len(seq):
            nd = seq[j]
            if isinstance(nd, _Star):
                pass  # consecutive stars collapse
            elif isinstance(nd, _Any):
                if n >= end or self.blocked(n, False):
                    return False
                n += 1
            elif isinstance(nd, _Ext) and nd.op == "?":
                if self.m(seq, j, n, end, top):
                    return True
            elif isinstance(nd, _Ext) and nd.op == "*":
                if any(self.m(seq, j, k, end, top) for k in range(n, end)):
                    return True
            else:
                break
            j += 1
        if j == len(seq):
            # only wildcards were left: the star takes the rest of the name
            return not self.bt.o.pathname or "/" not in self.s[n:end]
        nxt = seq[j]
        if n == end and isinstance(nxt, _Ext) and nxt.op == "!":
            # bash 5.2 decides "*!(…)…" at the end of the subject by a misparse: it
            # matches, except inside the alternatives of an enclosing group
            return top
        stop = end
        if self.bt.o.pathname:
            slash = self.s.find("/", n, end)
            if slash >= 0:
                stop = slash
        q = j
        while q < len(seq) and isinstance(seq[q], (_Lit, _Any, _Bracket)):
            q += 1
        if q < len(seq) and isinstance(seq[q], _Star):
            # glibc's trick, kept by bash: the plain text between two stars is matched at
            # its first fit only, and the next star carries on from there
            for k in range(n, stop):
                e = self._plain(seq, j, q, k, end)
                if e is not None:
                    return self._star(seq, q, e, end, top, False)
            return False
        return any(self.m(seq, j, k, end, top) for k in range(n, stop))

    def _plain(self, seq: tuple[_PNode, ...], j: int, q: int, i: int, end: int) -> int | None:
        """Match the fixed-width nodes ``seq[j:q]`` at ``i``; the end position or None."""
        for nd in seq[j:q]:
            if isinstance(nd, _Lit):
                k = i + len(nd.text)
                if k > end:
                    return None
                t = self.s[i:k]
                if (t.lower() != nd.text.lower()) if self.bt.nocase else (t != nd.text):
                    return None
                i = k
            else:
                if i >= end or self.blocked(i, False):
                    return None
                if isinstance(nd, _Bracket) and not self.bt.bracket(nd.cls).fullmatch(
                    self.s, i, i + 1
                ):
                    return None
                i += 1
        return i

    def _alt(self, nd: _Ext, i: int, k: int) -> bool:
        return any(self.m(alt, 0, i, k, False) for alt in nd.alts)

    def _ext(self, nd: _Ext, seq: tuple[_PNode, ...], idx: int, i: int, end: int,
             top: bool) -> bool:
        if nd.op == "!":
            if top and idx == 0 and i < end and self.blocked(i, True) and self.s[i] != "/":
                return False  # a leading dot is never matched by !(…)
            for k in range(i, end + 1):
                if k > i and self.bt.o.pathname and self.s[k - 1] == "/":
                    break
                if not self._alt(nd, i, k) and self.m(seq, idx + 1, k, end, top):
                    return True
            return False
        if nd.op in "?*" and self.m(seq, idx + 1, i, end, top):
            return True
        if nd.op in "@?":
            return any(
                self._alt(nd, i, k) and self.m(seq, idx + 1, k, end, top)
                for k in range(i, end + 1)
            )
        # * and +: positions reachable by one or more repetitions
        seen: set[int] = set()
        frontier = [i]
        while frontier:
            p = frontier.pop()
            for k in range(p, end + 1):
                if k not in seen and self._alt(nd, p, k) and (k > p or p == i):
                    seen.add(k)
                    frontier.append(k)
        return any(self.m(seq, idx + 1, k, end, top) for k in sorted(seen))


# ---------------------------------------------------------------------------------------
# operations used by parameter expansion and [[ ]] / case


def match(pat: str, s: str, **flags: bool) -> bool:
    """Whether ``s`` matches the pattern entirely (``[[ s == pat ]]``, ``case``)."""
    return compile_pattern(pat, **flags).fullmatch(s) is not None


def remove_prefix(value: str, pat: str, longest: bool, **flags: bool) -> str:
    """``${v#pat}`` (shortest) / ``${v##pat}`` (longest)."""
    rx = compile_pattern(pat, **flags)
    n = len(value)
    if rx.match(value) is None:
        return value  # no prefix at all can match
    order = range(n, -1, -1) if longest else range(n + 1)
    for k in order:
        if rx.fullmatch(value, 0, k):
            return value[k:]
    return value


def remove_suffix(value: str, pat: str, longest: bool, **flags: bool) -> str:
    """``${v%pat}`` (shortest) / ``${v%%pat}`` (longest)."""
    rx = compile_pattern(pat, **flags)
    n = len(value)
    order = range(n + 1) if longest else range(n, -1, -1)
    for k in order:
        if rx.fullmatch(value, k, n):
            return value[:k]
    return value


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

    Matches are the longest at the leftmost position, as bash finds them.  With
    ``ampersand`` (bash 5.2's ``patsub_replacement``) an ``&`` in ``rep`` stands for the
    matched text and a backslash makes the next character literal; the caller then
    escapes ``&`` and ``\\`` that were quoted in the source.
    """
    n = len(value)
    if mode in ("#", "%") and pat == "":
        return rep + value if mode == "#" else value + rep
    if pat == "":
        return value
    pre = compile_pattern(_prefilter(pat, mode, flags.get("extglob", True)), **flags)
    if pre.fullmatch(value) is None:
        return value
    rx = compile_pattern(pat, **flags)
    # bash lets a match start at the end of the value only for patterns starting with *
    at_end = pat.startswith("*")
    if mode == "#":
        if n == 0 and not at_end:
            return value
        for k in range(n, -1, -1):
            if rx.fullmatch(value, 0, k):
                return _expand_rep(rep, value[:k], ampersand) + value[k:]
        return value
    if mode == "%":
        for k in range(n + 1):
            if rx.fullmatch(value, k, n):
                return value[:k] + _expand_rep(rep, value[k:], ampersand)
        return value
    if n == 0:
        return _expand_rep(rep, "", ampersand) if at_end and rx.fullmatch("") else value
    bound = _max_len(_parse(pat, flags.get("extglob", True)))
    out: list[str] = []
    i = 0
    while i < n:
        if check is not None:
            check()  # every match costs a scan of the rest: a timeout must reach this loop
        if i and pre.fullmatch(value, i) is None:
            break  # bash re-checks the rest of the value before each search
        found = _longest_at(rx, value, i, n if at_end else n - 1, n, bound)
        if found is None:
            break
        s, e = found
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


def _longest_at(
    rx: Matcher, value: str, start: int, last: int, n: int, bound: int | None
) -> tuple[int, int] | None:
    """The leftmost, then longest, match at or after ``start`` (bash's MATCH_ANY).

    ``rx.match`` (unanchored at the end) cheaply tells whether any match starts at a
    position; only then are the ends tried, longest first, up to the pattern's bound.
    """
    for s in range(start, last + 1):
        if rx.match(value, s, n) is None:
            continue
        top = n if bound is None else min(n, s + bound)
        for e in range(top, s - 1, -1):
            if rx.fullmatch(value, s, e):
                return s, e
    return None
