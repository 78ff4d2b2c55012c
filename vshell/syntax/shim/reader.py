"""Grammar actions and the driver: one top-level command (``inputunit``) at a time.

Each bashlex production gets an action that builds a :class:`GNode`; syntax errors and
bashlex's internal exceptions become :class:`ShimError` with bash's wording.
"""

from __future__ import annotations

import copy
from typing import Any

from vshell.syntax.shim import scan
from vshell.syntax.shim.base import (
    GNode,
    HereDocBody,
    ShimError,
    Token,
    bparser,
    byacc,
    eof_error,
)
from vshell.syntax.shim.tokens import Tokenizer


class _TokenError(Exception):
    def __init__(self, tok: Any) -> None:
        super().__init__("syntax error")
        self.tok = tok


def _make_action(name: str) -> Any:
    def action(p: Any) -> None:
        kids: list[Any] = []
        for sym in p.slice[1:]:
            kids.append(sym if isinstance(sym, Token) else sym.value)
        p[0] = GNode(name, kids)
        if name == "inputunit":
            p.accept()

    return action


def _on_error(tok: Any) -> None:
    raise _TokenError(tok)


def _build_parser() -> Any:
    base = bparser.yaccparser
    prods = []
    for prod in base.productions:
        mine = copy.copy(prod)
        if prod.name != "S'":
            mine.callable = _make_action(prod.name)
        prods.append(mine)
    parser = copy.copy(base)
    parser.productions = tuple(prods)
    parser.errorfunc = _on_error
    return parser


_PARSER = _build_parser()


def _token_text(src: str, tok: Any) -> str:
    if tok.type == "NEWLINE":
        return "newline"
    lexpos = getattr(tok, "lexpos", None)
    end = getattr(tok, "endlexpos", None)
    if isinstance(lexpos, int) and isinstance(end, int) and end > lexpos:
        return src[lexpos:end]
    return str(tok.value)


class CommandReader:
    """Reads one top-level command (a bashlex ``inputunit``) at a time from ``src``."""

    def __init__(self, src: str, depth: int = 0) -> None:
        self.src = src
        self.tok = Tokenizer(src, depth, read_body=read_all)

    @property
    def heredocs(self) -> dict[int, HereDocBody]:
        return self.tok.vs_heredocs

    @property
    def heredoc_eof(self) -> bool:
        return self.tok.vs_heredoc_eof

    def next(self) -> GNode | None:
        """The next top-level command's tree, or None at end of input.  Raises ShimError."""
        tok = self.tok
        src = self.src
        if tok._shell_input_line_index >= len(tok._shell_input_line) and not tok.vs_queue:
            return None
        parser = copy.copy(_PARSER)
        try:
            tree = parser.parse(lexer=tok, context=self)
        except ShimError:
            raise
        except _TokenError as e:
            t = e.tok
            if t is None or t.type == "$end" or getattr(t, "lexpos", None) is None:
                raise ShimError("syntax error: unexpected end of file", len(src), True) from None
            text = _token_text(tok._shell_input_line, t)
            raise ShimError(
                f"syntax error near unexpected token `{text}'", t.lexpos, False, text
            ) from None
        except byacc.YaccError as e:  # pragma: no cover - defensive
            raise ShimError("syntax error", tok._shell_input_line_index, False) from e
        except Exception as e:  # noqa: BLE001 - bashlex internals raise anything
            raise _convert_internal(e, tok) from None
        tok.vs_reset()
        return tree if isinstance(tree, GNode) else None


def _convert_internal(e: Exception, tok: Tokenizer) -> ShimError:
    """Turn a bashlex tokenizer exception into a ShimError with bash's wording.

    bashlex reports an unclosed quote or bracket as MatchedPairError, but sometimes just
    runs off the end of the input (IndexError); either way our own scanner, run from the
    start of the current token, names what was left open.
    """
    msg = str(getattr(e, "message", "") or e)
    src = tok._shell_input_line
    pos = min(tok._shell_input_line_index, len(tok.vs_source))
    start = tok._positions[-1] if tok._positions else pos
    marker = "unexpected EOF while looking for matching "
    close: str | None = None
    if marker in msg:
        close = msg.split(marker, 1)[1].strip()
        if len(close) >= 3 and close[0] in "'\"" and close[-1] == close[0]:
            close = close[1:-1]
        close = close.replace("\\'", "'")
    try:
        scan.scan_word(src, start)
    except scan.ScanEOF as opened:
        start = opened.start
        close = close or opened.close
    if close is not None:
        return eof_error(close, start)
    if isinstance(e, IndexError) and tok._shell_input_line_index >= len(src) - 1:
        return ShimError("syntax error: unexpected end of file", len(tok.vs_source), True)
    return ShimError("syntax error", pos, False)


def read_all(src: str, depth: int) -> None:
    """Read every command of ``src`` (a command substitution's body) and keep none: the
    tokenizer's check that the body parses."""
    reader = CommandReader(src, depth)
    while reader.next() is not None:
        pass
