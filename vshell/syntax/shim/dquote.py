"""A linear reader for the body of a double-quoted string, for the shim's tokenizer.

bashlex reads a ``"…"`` one character at a time and grows the text with ``ret += c``,
which CPython copies every time here: a 1 MB string took 13 s. This reader takes the same
steps for the characters that matter (``\\``, ``$``, a backquote, the closing quote) and
the same nested readers for ``$(…)``, ``${…}``, ``$[…]`` and backquotes, but takes every
run of other characters in one slice, and joins the pieces once at the end.
"""

from __future__ import annotations

import re
from typing import Any

from vshell.syntax.shim.base import btok

_PLAIN = re.compile(r'[^\\"$`]+')
"""Characters with no meaning inside double quotes (a `\\`-newline needs `\\`)."""


def read_double_quoted(tok: Any, *, parsingcommand: bool = False, allowesc: bool = False,
                       dquote: bool = False, firstclose: bool = False) -> str:
    """The text after an opening ``"`` up to and including its closing ``"``.

    ``tok`` is the tokenizer, positioned just after the opening quote; on return it is just
    after the closing one. The keyword arguments are bashlex's, passed on to a nested
    backquote as bashlex passes them.
    """
    src: str = tok._shell_input_line
    start_line = tok._line_number
    parts: list[str] = []
    escaped = False  # the previous character was a backslash
    dollar = False  # the previous character was an unescaped `$`
    while True:
        if not escaped and not dollar and tok._eol_ungetc_lookahead is None:
            m = _PLAIN.match(src, tok._shell_input_line_index)
            if m is not None:
                parts.append(m.group())
                tok._shell_input_line_index = m.end()
        c = tok._getc(not escaped)
        if c is None:
            raise btok.MatchedPairError(start_line, "unexpected EOF while looking for "
                                        "matching '\"'", tok)
        if escaped:  # taken as it is; a `$` after a backslash opens nothing
            escaped = False
            parts.append(c)
            continue
        parts.append(c)
        if c == '"':
            return "".join(parts)
        if c == "\\":
            escaped = True
        elif c == "`":
            parts.append(tok._parse_matched_pair(None, "`", "`", parsingcommand=parsingcommand,
                                                 allowesc=allowesc, dquote=dquote,
                                                 firstclose=firstclose))
        elif dollar and c == "(":
            parts.append(tok._parse_comsub(None, "(", ")", parsingcommand=True, dquote=False))
        elif dollar and c == "{":
            parts.append(tok._parse_matched_pair(None, "{", "}", firstclose=True, dquote=True,
                                                 dolbrace=True))
        elif dollar and c == "[":
            parts.append(tok._parse_matched_pair(None, "[", "]", dquote=True))
        dollar = c == "$"
