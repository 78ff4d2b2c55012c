"""bashlex 0.18 behind a shim: its grammar and tokenizer, our actions and token fixes.

bashlex's LALR tables and its port of bash's ``read_token`` are kept; everything else is
replaced from the outside, without touching the bashlex modules themselves:

* every grammar production gets our own action, which builds a plain concrete tree
  (:class:`GNode`); the adapter turns that into vshell's AST.  bashlex's own actions (which
  raise ``NotImplementedError`` for case, select, ``((``, ``[[``, time, coproc and assert
  on ``while c⏎do``) never run, and neither does its word expansion (which raises on
  ``$((`` and mis-parses ``$(a && b)``);
* a tokenizer subclass emits ``ARITH_CMD`` / ``ARITH_FOR_EXPRS`` / ``COND_*`` tokens,
  reads compound and subscript assignments, extglob groups and ``{fd}`` redirections as
  single tokens, and reads here-document bodies itself (quoted delimiters, ``<<-``, bodies
  inside compound commands).

The parser is driven one top-level command at a time, like bash.  This module holds the
version guard, the bashlex imports and the shared types; the tokenizer subclass is in
``shim.tokens`` and the grammar actions and driver in ``shim.reader``.
Every other module gets bashlex through here, so the guard and the table cache come first.
"""

from __future__ import annotations

import importlib.util
import os
from typing import Any

from vshell.records import record
from vshell.syntax.shim.cache import import_bashlex_parser

BASHLEX_VERSION = "0.18"


def _check_version() -> None:
    """Refuse any bashlex but the pinned one: the shim patches its private internals."""
    spec = importlib.util.find_spec("bashlex")
    if spec is None or not spec.origin:
        raise ImportError(f"vshell.syntax needs bashlex=={BASHLEX_VERSION}, which is not installed")
    site = os.path.dirname(os.path.dirname(spec.origin))
    found: list[str] = []
    try:
        for entry in os.listdir(site):
            if entry.lower().startswith("bashlex-") and entry.endswith((".dist-info", ".egg-info")):
                found.append(entry[len("bashlex-") :].rsplit(".", 1)[0])
    except OSError:
        pass
    if not found:
        from importlib import metadata

        found = [metadata.version("bashlex")]
    if BASHLEX_VERSION not in found:
        raise ImportError(
            f"vshell.syntax needs bashlex=={BASHLEX_VERSION} exactly (found "
            f"{', '.join(found)}): its shim patches private bashlex internals"
        )


_check_version()
import_bashlex_parser(BASHLEX_VERSION)

from bashlex import flags as _flags  # noqa: E402
from bashlex import parser as bparser  # noqa: E402
from bashlex import state as bstate  # noqa: E402
from bashlex import tokenizer as btok  # noqa: E402
from bashlex import utils as butils  # noqa: E402
from bashlex import yacc as byacc  # noqa: E402

__all__ = [
    "BARE_PREFIXES",
    "BASHLEX_VERSION",
    "DECLARATION_BUILTINS",
    "MAX_DEPTH",
    "PF",
    "REDIR_OPS",
    "TT",
    "WF",
    "WORDISH",
    "GNode",
    "HereDocBody",
    "ShimError",
    "Token",
    "bparser",
    "bstate",
    "btok",
    "butils",
    "byacc",
    "eof_error",
]

TT = btok.tokentype
Token = btok.token
PF = _flags.parser
WF = _flags.word


DECLARATION_BUILTINS = frozenset(
    {"declare", "typeset", "local", "export", "readonly", "let", "alias", "eval"}
)
MAX_DEPTH = 40  # nested $( ) bodies checked at parse time
BARE_PREFIXES = frozenset({TT.TIME, TT.TIMEOPT, TT.TIMEIGN, TT.BANG})
WORDISH = frozenset({TT.WORD, TT.ASSIGNMENT_WORD, TT.NUMBER, TT.REDIR_WORD, TT.DASH})
REDIR_OPS = frozenset(
    {
        TT.LESS, TT.GREATER, TT.GREATER_GREATER, TT.GREATER_BAR, TT.LESS_GREATER,
        TT.LESS_LESS_LESS, TT.LESS_AND, TT.GREATER_AND, TT.AND_GREATER,
        TT.AND_GREATER_GREATER, TT.LESS_LESS, TT.LESS_LESS_MINUS,
    }
)


class GNode:
    """One reduced grammar production: its name and its children (GNode, Token or None)."""

    __slots__ = ("kids", "name")

    def __init__(self, name: str, kids: list[Any]) -> None:
        self.name = name
        self.kids = kids

    def __repr__(self) -> str:
        return f"{self.name}{self.kids!r}"


@record
class HereDocBody:
    body: str
    quoted: bool
    unterminated: bool = False


class ShimError(Exception):
    """A parse failure in terms of the source: what, where, and whether input ran out."""

    def __init__(self, message: str, pos: int, eof: bool, token: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.pos = pos
        self.eof = eof
        self.token = token


def eof_error(close: str, pos: int) -> ShimError:
    return ShimError(f"unexpected EOF while looking for matching `{close}'", pos, True, close)
