"""The word lexer: raw shell word text → a tree of parts the interpreter expands.

bashlex gives word boundaries; what is inside a word (quotes, ``$'…'``, ``${…}`` with its
operators, ``$(…)``, backticks, ``$((…))``, ``<(…)``, tildes) is read here, the way bash's
``subst.c`` reads a WORD_DESC's text.
"""

from __future__ import annotations

from functools import lru_cache

from vshell.records import record
from vshell.syntax import lexemes
from vshell.syntax.parser import BadSubst
from vshell.syntax.quotes import or_end, skip_backquote, skip_double, skip_single
from vshell.text import escapes

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    from collections.abc import Iterator


@record
class Lit:
    """Unquoted literal text from the source (subject to globbing, not to splitting)."""

    text: str


@record
class Quoted:
    """Quoted literal text: single quotes, a backslash escape, ``$'…'`` or text in ``"…"``."""

    text: str


@record
class DQ:
    """A double-quoted string: its parts are Quoted text and expansions."""

    parts: list[Part]


@record
class Param:
    """A parameter expansion ``$name`` / ``${…}``.

    ``prefix`` is ``#`` (length) or ``!`` (indirection / keys / name list); ``index`` the
    raw subscript; ``op`` the operator (``:-``, ``#``, ``//``, ``:`` slice, ``@Q`` …);
    ``arg`` / ``arg2`` the operand words as parts (``arg2`` is the replacement of ``/`` or the
    length of a slice).  ``raw`` is the whole source text, for error messages.
    """

    name: str
    index: str | None = None
    prefix: str | None = None
    op: str | None = None
    arg: list[Part] | None = None
    arg2: list[Part] | None = None
    raw: str = ""
    braced: bool = False


@record
class CmdSub:
    source: str
    backtick: bool = False


@record
class ArithSub:
    """``$((…))`` / ``$[…]``: the inner text, itself expanded before evaluation."""

    parts: list[Part]
    raw: str = ""


@record
class ProcSub:
    op: str  # '<' or '>'
    source: str


@record
class Tilde:
    user: str


Part = Lit | Quoted | DQ | Param | CmdSub | ArithSub | ProcSub | Tilde

SPECIAL_PARAMS = frozenset("@*#?-$!0123456789")
_NAME_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_NAME_CHARS = _NAME_START | frozenset("0123456789")


def skip_quote(s: str, i: int) -> int:
    """Index after the quoted string starting at s[i] (a quote char), or len(s)."""
    if s[i] == "'":
        return or_end(skip_single, s, i + 1)
    return or_end(_skip_double, s, i + 1)


def _skip_double(s: str, i: int) -> int:
    return skip_double(s, i, _dollar_in_dquote)


def _dollar_in_dquote(s: str, i: int) -> int:
    """Inside ``"…"`` only ``$(…)`` and ``${…}`` are stepped over whole."""
    if i + 1 < len(s) and s[i + 1] in "({":
        return skip_dollar(s, i)
    return i + 1


def skip_backtick(s: str, i: int) -> int:
    """Index after the backquoted text starting at s[i] (a backquote), or len(s)."""
    return or_end(skip_backquote, s, i + 1)


def skip_dollar(s: str, i: int) -> int:
    """Index after a ``$(``, ``$((``, ``${`` or ``$[`` construct starting at s[i] == '$'."""
    opener = s[i + 1]
    if opener == "(":
        if s.startswith("(", i + 2):  # $((…)): arithmetic, or commands in a subshell
            close = find_close_arith(s, i + 3)  # the inner `(`'s
            if s.startswith(")", close + 1):
                return close + 2
        return find_close_paren(s, i + 2) + 1
    if opener == "{":
        return find_close_brace(s, i + 2) + 1
    if opener == "[":
        depth = 1
        j = i + 2
        while j < len(s):
            if s[j] == "[":
                depth += 1
            elif s[j] == "]":
                depth -= 1
                if depth == 0:
                    return j + 1
            j += 1
        return len(s)
    return i + 1


def skip_construct(s: str, j: int) -> int:
    """If s[j] opens a backslash escape, a quote, backticks or a ``$(``/``${``/``$[`` form,
    the index after it; otherwise j.  The lexer's scanners step over quoted text here (the
    quote rules themselves are :mod:`vshell.syntax.quotes`, shared with the parser shim)."""
    c = s[j]
    if c == "\\":
        return j + 2
    if c in "'\"":
        return skip_quote(s, j)
    if c == "`":
        return skip_backtick(s, j)
    if c == "$" and j + 1 < len(s) and s[j + 1] in "({[":
        return skip_dollar(s, j)
    return j


def bare_chars(s: str, i: int) -> Iterator[tuple[int, str]]:
    """Each (index, character) of s from i that stands outside quotes, escapes and
    ``$``-forms: the scanners that look for one unquoted delimiter walk this."""
    j, n = i, len(s)
    while j < n:
        k = skip_construct(s, j)
        if k != j:
            j = k
            continue
        yield j, s[j]
        j += 1


def find_close_paren(s: str, i: int) -> int:
    """Index of the ``)`` closing a command list that starts at i (the body of ``$(``,
    ``<(`` or ``(``), read as bash's reader does (see :mod:`vshell.syntax.lexemes`), or
    len(s) when none does."""
    end = lexemes.body_end(s, i, skip_construct)
    return len(s) if end is None else end


def find_close_arith(s: str, i: int) -> int:
    """Index of the ``)`` closing the ``(`` just before i in text that is not commands
    (``$((…))``, ``@(…)``): parentheses counted, quotes stepped over; len(s) if none."""
    end = lexemes.balanced_end(s, i, skip_construct)
    return len(s) if end is None else end


def find_close_array(s: str, i: int) -> int:
    """Index of the ``)`` closing an array's ``(…)`` whose content starts at i (``#``
    comments may stand in it); len(s) if none."""
    end = lexemes.balanced_end(s, i, skip_construct, comments=True)
    return len(s) if end is None else end


def find_close_brace(s: str, i: int) -> int:
    """Index of the ``}`` closing a ``${`` whose content starts at i.

    As in bash's expansion, a bare ``{`` does not nest: ``${x:-{a}b}`` is ``${x:-{a}``
    followed by ``b}``.  Quotes and nested ``$(…)``/``${…}`` are stepped over whole.
    """
    for j, c in bare_chars(s, i):
        if c == "}":
            return j
    return len(s)


def decode_ansi_c(s: str, i: int) -> tuple[str, int]:
    """Decode ``$'…'`` content starting after the opening quote; return (text, index after).

    A NUL ends the string, as in bash (its strings are C strings).
    """
    text, end = _decode_ansi_c(s, i)
    nul = text.find("\x00")
    return text if nul < 0 else text[:nul], end


def _decode_ansi_c(s: str, i: int) -> tuple[str, int]:
    """Find the closing quote (a backslash escapes the next character), then decode."""
    n = len(s)
    j = i
    while j < n and s[j] != "'":
        j += 2 if s[j] == "\\" else 1
    end = min(j, n)
    return escapes.decode(s[i:end], escapes.ANSI_C).text, min(j + 1, n)


class WordLexer:
    """Reads one raw word into parts.  ``dq`` lexes the inside of double quotes."""

    def __init__(self, s: str, dq_escapes: str = "") -> None:
        self.s = s
        self.dq_escapes = dq_escapes  # extra characters a backslash quotes inside "…"

    def parse(self, start: int = 0, end: int | None = None, *, dq: bool = False,
              tilde: bool = True, assign: bool = False) -> list[Part]:
        s = self.s
        end = len(s) if end is None else end
        parts: list[Part] = []
        buf: list[str] = []
        i = start

        def flush() -> None:
            if buf:
                text = "".join(buf)
                parts.append(Quoted(text) if dq else Lit(text))
                buf.clear()

        if tilde and not dq and i < end and s[i] == "~":
            j = i + 1
            while j < end and s[j] != "/" and not (assign and s[j] == ":"):
                if s[j] in "'\"\\$`":
                    break
                j += 1
            if j >= end or s[j] == "/" or (assign and s[j] == ":"):
                parts.append(Tilde(s[i + 1 : j]))
                i = j
        while i < end:
            c = s[i]
            if c == "\\":
                if i + 1 >= end:
                    buf.append("\\")
                    i += 1
                    continue
                nxt = s[i + 1]
                if dq:
                    if nxt in '$`"\\\n' or nxt in self.dq_escapes:
                        if nxt != "\n":
                            buf.append(nxt)
                    else:
                        buf.append("\\" + nxt)
                    i += 2
                    continue
                flush()
                if nxt != "\n":
                    parts.append(Quoted(nxt))
                i += 2
                continue
            if c == "'" and not dq:
                flush()
                k = s.find("'", i + 1)
                if k < 0 or k >= end:
                    k = end
                parts.append(Quoted(s[i + 1 : k]))
                i = k + 1
                continue
            if c == '"' and not dq:
                flush()
                k = skip_quote(s, i)
                inner_end = k - 1 if k <= end and s[k - 1] == '"' and k - 1 > i else min(k, end)
                parts.append(DQ(self.parse(i + 1, inner_end, dq=True)))
                i = k
                continue
            if c == "`":
                flush()
                k = skip_backtick(s, i)
                body = s[i + 1 : k - 1 if s[k - 1 : k] == "`" and k - 1 > i else k]
                parts.append(CmdSub(_unescape_backtick(body, dq), backtick=True))
                i = k
                continue
            if c == "$" and i + 1 < end:
                nxt = s[i + 1]
                if nxt == "'" and not dq:
                    flush()
                    text, k = decode_ansi_c(s, i + 2)
                    parts.append(Quoted(text))
                    i = k
                    continue
                if nxt == '"' and not dq:
                    flush()
                    k = skip_quote(s, i + 1)
                    parts.append(DQ(self.parse(i + 2, k - 1, dq=True)))
                    i = k
                    continue
                if nxt == "(":
                    flush()
                    if s.startswith("((", i + 1):
                        close = find_close_arith(s, i + 3)
                        if close + 1 < len(s) and s[close + 1] == ")":
                            # balanced as arithmetic: $(( expr ))
                            inner = s[i + 3 : close]
                            parts.append(ArithSub(WordLexer(inner).parse(dq=True, tilde=False),
                                                  raw=inner))
                            i = close + 2
                            continue
                    close = find_close_paren(s, i + 2)
                    parts.append(CmdSub(s[i + 2 : close]))
                    i = close + 1
                    continue
                if nxt == "[":
                    flush()
                    k = skip_dollar(s, i)
                    inner = s[i + 2 : k - 1]
                    parts.append(ArithSub(WordLexer(inner).parse(dq=True, tilde=False), raw=inner))
                    i = k
                    continue
                if nxt == "{":
                    flush()
                    close = find_close_brace(s, i + 2)
                    parts.append(parse_braced(s[i + 2 : close], dq))
                    i = close + 1
                    continue
                if nxt in _NAME_START:
                    flush()
                    j = i + 1
                    while j < end and s[j] in _NAME_CHARS:
                        j += 1
                    parts.append(Param(s[i + 1 : j], raw=s[i:j]))
                    i = j
                    continue
                if nxt in SPECIAL_PARAMS:
                    flush()
                    parts.append(Param(nxt, raw=s[i : i + 2]))
                    i += 2
                    continue
            if c in "<>" and not dq and i + 1 < end and s[i + 1] == "(":
                flush()
                close = find_close_paren(s, i + 2)
                parts.append(ProcSub(c, s[i + 2 : close]))
                i = close + 1
                continue
            if assign and not dq and c == ":" and i + 1 < end and s[i + 1] == "~":
                buf.append(":")
                flush()
                i += 1
                j = i + 1
                while j < end and s[j] not in "/:'\"\\$`":
                    j += 1
                if j >= end or s[j] in "/:":
                    parts.append(Tilde(s[i + 1 : j]))
                    i = j
                continue
            buf.append(c)
            i += 1
        flush()
        return parts


def _unescape_backtick(body: str, dq: bool) -> str:
    """Inside backticks a backslash quotes only ``$``, `` ` ``, ``\\`` (and ``"`` in dquotes)."""
    if "\\" not in body:
        return body
    out: list[str] = []
    i = 0
    specials = '$`\\"' if dq else "$`\\"
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body) and body[i + 1] in specials:
            out.append(body[i + 1])
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


_OPS = (":-", ":=", ":?", ":+", "-", "=", "?", "+", "##", "#", "%%", "%", "//", "/#", "/%", "/",
        "^^", "^", ",,", ",", "@")


def parse_braced(inner: str, dq: bool) -> Param:
    """Parse the text between ``${`` and ``}``."""
    raw = "${" + inner + "}"
    s = inner
    prefix: str | None = None
    i = 0
    if s.startswith("#") and len(s) > 1 and not (len(s) > 2 and s[1] in "#%:=+/^,-?"):
        prefix = "#"
        i = 1
    elif s.startswith("!") and len(s) > 1:
        prefix = "!"
        i = 1
    # name
    j = i
    if j < len(s) and s[j] in _NAME_START:
        while j < len(s) and s[j] in _NAME_CHARS:
            j += 1
    elif j < len(s) and s[j].isdigit():
        while j < len(s) and s[j].isdigit():
            j += 1
    elif j < len(s) and s[j] in SPECIAL_PARAMS:
        j += 1
    name = s[i:j]
    if not name:
        if prefix == "#" and s == "#":
            return Param("#", raw=raw, braced=True)
        raise BadSubst(raw)
    index: str | None = None
    if j < len(s) and s[j] == "[":
        k = _find_bracket(s, j + 1)
        if k < 0:
            raise BadSubst(raw)
        index = s[j + 1 : k]
        j = k + 1
    rest = s[j:]
    if not rest:
        return Param(name, index, prefix, raw=raw, braced=True)
    if prefix == "!" and rest in ("*", "@") and index is None:
        return Param(name, None, "!", op="names" + rest, raw=raw, braced=True)
    if prefix == "#":
        raise BadSubst(raw)
    lex = WordLexer(rest)
    for op in _OPS:
        if rest.startswith(op):
            break
    else:
        if rest.startswith(":"):
            op = ":"
        else:
            raise BadSubst(raw)
    body_start = len(op)
    if op == "@":
        if len(rest) != 2 or rest[1] not in "QEPAaUuLKk":
            raise BadSubst(raw)
        return Param(name, index, prefix, op="@" + rest[1], raw=raw, braced=True)
    if op == ":":
        # ${x:offset[:length]}; a bare ${x:} is bash's "bad substitution"
        if rest == ":":
            raise BadSubst(raw)
        k = _find_top_colon(rest, 1)
        if k < 0:
            return Param(name, index, prefix, op=":", arg=[Lit(rest[1:])], raw=raw, braced=True)
        return Param(name, index, prefix, op=":", arg=[Lit(rest[1:k])],
                     arg2=[Lit(rest[k + 1 :])], raw=raw, braced=True)
    if op in ("/", "//", "/#", "/%"):
        # ${x////y}: a pattern is never empty after "//", so a "/" right there is the pattern
        first = body_start + 1 if op == "//" and rest[body_start:body_start + 1] == "/" else \
            body_start
        k = _find_unescaped_slash(rest, first)
        pat = lex.parse(body_start, k if k >= 0 else len(rest), dq=False, tilde=True)
        rep = lex.parse(k + 1, len(rest), dq=False, tilde=not dq) if k >= 0 else None
        return Param(name, index, prefix, op=op, arg=pat, arg2=rep, raw=raw, braced=True)
    if op in ("#", "##", "%", "%%", "^", "^^", ",", ",,"):
        arg = lex.parse(body_start, len(rest), dq=False, tilde=False)
        return Param(name, index, prefix, op=op, arg=arg, raw=raw, braced=True)
    arg = _parse_default_arg(rest, body_start, dq)
    return Param(name, index, prefix, op=op, arg=arg, raw=raw, braced=True)


def _parse_default_arg(rest: str, start: int, dq: bool) -> list[Part]:
    """The word of ``${x:-word}``; inside double quotes single quotes are literal."""
    if not dq:
        return WordLexer(rest).parse(start, len(rest), dq=False, tilde=True, assign=True)
    # In "…${x:-word}…", the word is read like double-quoted text, except that nested
    # double quotes still group and a backslash also quotes the closing brace.
    lex = WordLexer(rest, dq_escapes="}")
    parts: list[Part] = []
    i = start
    seg = start
    while i < len(rest):
        c = rest[i]
        if c == "\\":
            i += 2
            continue
        if c == '"':
            parts.extend(lex.parse(seg, i, dq=True, tilde=False))
            k = skip_quote(rest, i)
            parts.extend(lex.parse(i + 1, max(i + 1, k - 1), dq=True, tilde=False))
            i = seg = k
            continue
        if c == "$" and i + 1 < len(rest) and rest[i + 1] in "({[":
            i = skip_dollar(rest, i)
            continue
        if c == "`":
            i = skip_backtick(rest, i)
            continue
        i += 1
    parts.extend(lex.parse(seg, len(rest), dq=True, tilde=False))
    return parts


def _find_bracket(s: str, i: int) -> int:
    depth = 1
    for j, c in bare_chars(s, i):
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
            if depth == 0:
                return j
    return -1


def _find_top_colon(s: str, i: int) -> int:
    depth = 0
    for j, c in bare_chars(s, i):
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "?":
            depth += 1
        elif c == ":" and depth > 0:
            depth -= 1
        elif c == ":" and depth == 0:
            return j
    return -1


def _find_unescaped_slash(s: str, i: int) -> int:
    for j, c in bare_chars(s, i):
        if c == "/":
            return j
    return -1


# a cache of a pure function keyed by its input (the parts are never mutated): no session state
@lru_cache(maxsize=4096)
def _lex_cached(raw: str, tilde: bool, assign: bool) -> tuple[Part, ...]:
    return tuple(WordLexer(raw).parse(tilde=tilde, assign=assign))


def lex_word(raw: str, *, tilde: bool = True, assign: bool = False) -> list[Part]:
    """The parts of one raw word (cached: loops re-expand the same words)."""
    return list(_lex_cached(raw, tilde, assign))


def lex_dq(raw: str) -> list[Part]:
    """Parts of text read as if inside double quotes (here-doc bodies, arithmetic)."""
    return WordLexer(raw).parse(dq=True, tilde=False)


def lex_heredoc(raw: str) -> list[Part]:
    """A here-doc body: like double quotes, but ``"`` is an ordinary character."""
    parts: list[Part] = []
    lex = WordLexer(raw)
    i = 0
    buf: list[str] = []
    s = raw
    n = len(s)
    while i < n:
        c = s[i]
        if c == "\\" and i + 1 < n and s[i + 1] in "$`\\\n":
            if s[i + 1] != "\n":
                buf.append(s[i + 1])
            i += 2
            continue
        if c in "$`":
            k = i + 1
            if c == "`":
                k = skip_backtick(s, i)
            elif i + 1 < n and s[i + 1] in "({[":
                k = skip_dollar(s, i)
            elif i + 1 < n and (s[i + 1] in _NAME_START):
                k = i + 1
                while k < n and s[k] in _NAME_CHARS:
                    k += 1
            elif i + 1 < n and s[i + 1] in SPECIAL_PARAMS:
                k = i + 2
            else:
                buf.append(c)
                i += 1
                continue
            if buf:
                parts.append(Quoted("".join(buf)))
                buf.clear()
            parts.extend(lex.parse(i, k, dq=True, tilde=False))
            i = k
            continue
        buf.append(c)
        i += 1
    if buf:
        parts.append(Quoted("".join(buf)))
    return parts


def word_is_quoted(parts: list[Part]) -> bool:
    return any(isinstance(p, (Quoted, DQ)) for p in parts)


__all__ = [
    "Lit", "Quoted", "DQ", "Param", "CmdSub", "ArithSub", "ProcSub", "Tilde", "Part",
    "BadSubst", "lex_word", "lex_dq", "lex_heredoc", "decode_ansi_c", "find_close_paren",
    "find_close_arith", "find_close_array",
    "find_close_brace",
]
