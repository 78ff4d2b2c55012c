"""Raw-text scanners used where bashlex's own word reader stops too early.

bashlex reads ordinary words faithfully, but it knows nothing of ``((…))``, ``[[…]]``,
``name=(…)``, ``name[i + 1]=v`` or extglob groups.  These helpers find the *end* of such
spans in the source with bash's quoting rules, so the shim can hand bashlex a single token
whose text is exactly ``source[start:end]``.  Nothing here interprets the text.  The quote
rules themselves are :mod:`vshell.syntax.quotes`, shared with the word lexer.
"""

from __future__ import annotations

import re

from vshell.syntax import lexemes, quotes
from vshell.syntax.quotes import ScanEOF, skip_ansi, skip_backquote, skip_single

BLANKS = " \t"
WORD_BREAKS = " \t\n;&|<>()"
EXTGLOB_CHARS = "@!+*?"

NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def skip_double(src: str, i: int) -> int:
    """``i`` is just after an opening ``"``; nested ``$(…)``, ``${…}`` and backquotes count."""
    return quotes.skip_double(src, i, _dollar_in_dquote)


def _dollar_in_dquote(src: str, i: int) -> int:
    return skip_dollar(src, i, in_dquote=True)


def skip_dollar(src: str, i: int, in_dquote: bool = False) -> int:
    """``src[i]`` is ``$``; return the end of the expansion that starts there."""
    nxt = src[i + 1 : i + 2]
    if nxt == "(":
        if src.startswith("((", i + 1):  # arithmetic (or commands in a subshell)
            return match_paren(src, i + 1) + 1
        return command_body_end(src, i + 2) + 1
    if nxt == "{":
        return match_brace(src, i + 1) + 1
    if nxt == "[":
        return match_bracket(src, i + 1) + 1
    if in_dquote:
        return i + 1
    if nxt == "'":
        return skip_ansi(src, i + 2)
    if nxt == '"':
        return skip_double(src, i + 2)
    return i + 1


def skip_quoted(src: str, i: int) -> int | None:
    """Skip a quote / expansion / escape starting at ``i``; None when ``src[i]`` is plain."""
    c = src[i]
    if c == "\\":
        return i + 2
    if c == "'":
        return skip_single(src, i + 1)
    if c == '"':
        return skip_double(src, i + 1)
    if c == "`":
        return skip_backquote(src, i + 1)
    if c == "$":
        return skip_dollar(src, i)
    return None


def _skip_strict(src: str, i: int) -> int:
    k = skip_quoted(src, i)
    return i if k is None else k


def command_body_end(src: str, i: int) -> int:
    """The index of the ``)`` closing a command list that starts at ``i`` (a ``$(`` or
    ``<(`` body), read as bash's reader does (:mod:`vshell.syntax.lexemes`)."""
    end = lexemes.body_end(src, i, _skip_strict)
    if end is None:
        raise ScanEOF(")", i - 1)
    return end


def match_paren(src: str, i: int) -> int:
    """``src[i]`` is ``(``; return the index of its matching ``)``.

    Quotes, nested expansions and ``#`` comments (at word start) are skipped.  This is a
    bracket matcher, not a command parser: ``case`` arms inside are not understood.
    """
    return _match_pair(src, i, "(", ")", comments=True)


def _match_pair(src: str, i: int, opener: str, closer: str, *, comments: bool = False) -> int:
    """``src[i]`` is ``opener``; return the index of its matching ``closer`` (quotes and
    nested expansions skipped, and with ``comments`` also ``#`` comments at word start)."""
    n = len(src)
    depth = 0
    j = i
    while j < n:
        c = src[j]
        if c == opener:
            depth += 1
            j += 1
        elif c == closer:
            depth -= 1
            if depth == 0:
                return j
            j += 1
        elif comments and c == "#" and (j == 0 or src[j - 1] in " \t\n;&|("):
            nl = src.find("\n", j)
            j = n if nl < 0 else nl
        else:
            k = skip_quoted(src, j)
            j = j + 1 if k is None else k
    raise ScanEOF(closer, i)


def match_brace(src: str, i: int) -> int:
    """``src[i]`` is ``{`` of ``${``; return the index of its matching ``}``."""
    return _match_pair(src, i, "{", "}")


def match_bracket(src: str, i: int) -> int:
    """``src[i]`` is ``[``; return the index of its matching ``]``."""
    return _match_pair(src, i, "[", "]")


def scan_word(src: str, i: int, breaks: str = WORD_BREAKS) -> int:
    """Return the end of the shell word starting at ``i`` (extglob groups included)."""
    n = len(src)
    j = i
    while j < n:
        c = src[j]
        if c in breaks:
            if c == "(" and j > i and src[j - 1] in EXTGLOB_CHARS:
                j = match_paren(src, j) + 1
                continue
            if c in "<>" and j == i and src[j + 1 : j + 2] == "(":
                j = command_body_end(src, j + 2) + 1
                continue
            break
        k = skip_quoted(src, j)
        j = j + 1 if k is None else k
    return min(j, n)


def match_arith(src: str, i: int) -> int | None:
    """``src[i:i+2]`` is ``((``; return the index just past the closing ``))``.

    None when the parentheses do not close as ``))`` (bash then reads nested subshells);
    ScanEOF when the source ends first.
    """
    n = len(src)
    depth = 0
    j = i + 2
    while j < n:
        c = src[j]
        if c == "(":
            depth += 1
            j += 1
        elif c == ")":
            if depth == 0:
                return j + 2 if src[j + 1 : j + 2] == ")" else None
            depth -= 1
            j += 1
        else:
            try:
                k = skip_quoted(src, j)
            except ScanEOF:
                return None
            j = j + 1 if k is None else k
    raise ScanEOF(")", i)


def _name_and_operator(src: str, i: int, subscript: bool = False) -> int | None:
    """If ``name``, ``name[sub]`` (required when ``subscript``) then an optional ``+`` start
    at ``i``, the index after them, where an assignment's ``=`` would stand."""
    m = NAME_RE.match(src, i)
    if not m:
        return None
    j = m.end()
    if src[j : j + 1] == "[":
        try:
            j = match_bracket(src, j) + 1
        except ScanEOF:
            return None
    elif subscript:
        return None
    if src[j : j + 1] == "+":
        j += 1
    return j


def compound_assign_prefix(src: str, i: int) -> int | None:
    """If ``name=(``, ``name+=(`` or ``name[sub]=(`` starts at ``i``, return the ``(`` index."""
    j = _name_and_operator(src, i)
    return j + 1 if j is not None and src[j : j + 2] == "=(" else None


def assignment_end(src: str, i: int) -> int | None:
    """If ``name=``, ``name+=``, ``name[sub]=`` or ``name[sub]+=`` starts at ``i``, the
    index just after the ``=``."""
    j = _name_and_operator(src, i)
    return j + 1 if j is not None and src[j : j + 1] == "=" else None


def subscript_assign_end(src: str, i: int) -> int | None:
    """If ``name[sub]=`` or ``name[sub]+=`` starts at ``i``, return the index after ``=``."""
    j = _name_and_operator(src, i, subscript=True)
    return j + 1 if j is not None and src[j : j + 1] == "=" else None


def _filler_end(src: str, j: int, end: int) -> int:
    """Past the blank, escaped newline or comment at ``j`` inside an array literal that ends
    at ``end``; ``j`` itself when a word or an operator starts there."""
    c = src[j]
    if c in " \t\n":
        return j + 1
    if c == "\\" and src[j + 1 : j + 2] == "\n":
        return j + 2
    if c == "#":
        nl = src.find("\n", j, end)
        return end if nl < 0 else nl
    return j


def split_array_elements(src: str, i: int, end: int) -> list[tuple[int, int]]:
    """Spans of the element words between ``(`` at ``i`` and ``)`` at ``end``."""
    spans: list[tuple[int, int]] = []
    j = i + 1
    while j < end:
        k = _filler_end(src, j, end)
        if k != j:
            j = k
        else:
            k = scan_word(src, j)
            if k == j:
                k = j + 1
            spans.append((j, min(k, end)))
            j = k
    return spans


def array_syntax_error(src: str, i: int, end: int) -> tuple[int, str] | None:
    """The first operator token inside the array literal ``src[i:end+1]``, if any.

    bash reads the elements as words; an unquoted ``;``, ``&``, ``|``, ``<``, ``>``, ``(``
    between them is a syntax error.
    """
    j = i + 1
    while j < end:
        c = src[j]
        k = _filler_end(src, j, end)
        if k != j:
            j = k
        elif c in ";&|<>()" and not (c in "<>" and src[j + 1 : j + 2] == "("):
            op = src[j : j + 2] if src[j : j + 2] in ("&&", "||", ";;", ">>", "<<") else c
            return j, op
        else:
            k = scan_word(src, j)
            j = max(k, j + 1)
    return None


def split_top_level(text: str, sep: str) -> list[str]:
    """Split ``text`` on ``sep`` outside quotes and parentheses (for ``for ((a;b;c))``)."""
    parts: list[str] = []
    depth = 0
    start = 0
    j = 0
    n = len(text)
    while j < n:
        c = text[j]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == sep and depth == 0:
            parts.append(text[start:j])
            start = j + 1
        else:
            try:
                k = skip_quoted(text, j)
            except ScanEOF:
                k = None
            if k is not None:
                j = k
                continue
        j += 1
    parts.append(text[start:])
    return parts


_COND_OPS2 = ("&&", "||")


def scan_cond(src: str, i: int) -> tuple[list[tuple[int, int]], int, int]:
    """Split the inside of ``[[`` (``i`` just after it) into word spans.

    Returns ``(spans, close_start, close_end)`` where the ``]]`` is at
    ``src[close_start:close_end]``.  Operators ``( ) ! && || < >`` are words of their own;
    the operand right of ``=~`` runs to a blank at parenthesis depth 0.
    """
    n = len(src)
    spans: list[tuple[int, int]] = []
    j = i
    regex_next = False
    while True:
        while j < n and (src[j] in " \t\n" or src[j : j + 2] == "\\\n"):
            j += 2 if src[j] == "\\" else 1
        if j >= n:
            raise ScanEOF("]]", i)
        c = src[j]
        if src.startswith("]]", j) and (j + 2 >= n or src[j + 2] in WORD_BREAKS):
            return spans, j, j + 2
        if regex_next:
            k = _scan_regex_word(src, j)
            regex_next = False
        elif src[j : j + 2] in _COND_OPS2:
            k = j + 2
        elif c in "()<>;&|":
            k = j + 1
        else:
            k = scan_word(src, j)
            if k == j:
                k = j + 1
        spans.append((j, k))
        if src[j:k] == "=~":
            regex_next = True
        j = k


def _scan_regex_word(src: str, i: int) -> int:
    """The ``=~`` operand: to a blank at depth 0, with ``( ) |`` allowed unquoted."""
    n = len(src)
    depth = 0
    j = i
    while j < n:
        c = src[j]
        if c in " \t\n" and depth == 0:
            break
        if c == "(":
            depth += 1
            j += 1
        elif c == ")":
            if depth == 0:
                break
            depth -= 1
            j += 1
        elif depth == 0 and src.startswith("]]", j) and (j + 2 >= n or src[j + 2] in " \t\n;&|)"):
            break
        else:
            k = skip_quoted(src, j)
            j = j + 1 if k is None else k
    return j


def unquote_delimiter(raw: str) -> tuple[str, bool]:
    """Quote removal for a here-doc delimiter word; returns ``(text, quoted)``."""
    out: list[str] = []
    quoted = False
    j = 0
    n = len(raw)
    while j < n:
        c = raw[j]
        if c == "\\" and j + 1 < n:
            quoted = True
            out.append(raw[j + 1])
            j += 2
        elif c == "'":
            quoted = True
            k = raw.find("'", j + 1)
            k = n if k < 0 else k
            out.append(raw[j + 1 : k])
            j = k + 1
        elif c == '"':
            quoted = True
            k = j + 1
            while k < n and raw[k] != '"':
                if raw[k] == "\\" and k + 1 < n and raw[k + 1] in '"\\$`':
                    out.append(raw[k + 1])
                    k += 2
                    continue
                out.append(raw[k])
                k += 1
            j = k + 1
        elif c == "$" and j + 1 < n and raw[j + 1] in "'\"":
            j += 1
        else:
            out.append(c)
            j += 1
    return "".join(out), quoted
