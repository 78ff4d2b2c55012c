"""The public parser API: ``parse``, ``parse_partial``, ``is_complete`` and ``ParseError``.

bashlex (behind :mod:`vshell.syntax.shim.base`) is imported on first use, so importing
``vshell.syntax`` stays cheap.  Like bash, the source is read one top-level command at a
time; a syntax error stops the reading, and the commands before it are complete.
"""

from __future__ import annotations

from vshell.records import record
from vshell.syntax import ast

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    from vshell.syntax.adapter import Adapter


@record
class BadSubst(Exception):
    """A ``${…}`` the shell cannot read: bash's "bad substitution".  (Raised by the word
    lexer, vshell.syntax.words; defined here, with ParseError, so the shell can catch it
    without importing the lexer before a word needs it.)"""

    text: str

    def __str__(self) -> str:
        return f"{self.text}: bad substitution"


class ParseError(Exception):
    """A syntax error worded as bash words it, with a 1-based line and column.

    ``token`` is the offending token's text (or the missing closing quote / bracket), None
    at a plain end of file.  ``str(e)`` is the message alone.
    """

    def __init__(
        self,
        message: str,
        line: int = 1,
        col: int = 1,
        token: str | None = None,
        *,
        at_eof: bool = False,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col
        self.token = token
        self.at_eof = at_eof

    def __str__(self) -> str:
        return self.message


def parse(source: str, first_line: int = 1) -> ast.Script:
    """Parse a whole script; raise :class:`ParseError` on the first syntax error.

    ``first_line`` numbers the source's first line: a piece of a longer script (the next
    command of a piped one, a ``$( )`` body) counts on from where it sits."""
    script, error, _ = _read(source, first_line)
    if error is not None:
        raise error
    return script


def parse_partial(
    source: str, first_line: int = 1
) -> tuple[ast.Script, ParseError | None]:
    """The complete top-level commands before the first syntax error, and that error.

    This is how bash runs a script: commands before a syntax error still run.
    """
    script, error, _ = _read(source, first_line)
    return script, error


def is_complete(source: str) -> bool:
    """False when ``source`` only fails because input ended early (the REPL's PS2 case)."""
    if _continues(source.removesuffix("\n")):
        return False
    _, error, heredoc_eof = _read(source)
    if error is not None:
        return not error.at_eof
    return not heredoc_eof


def _continues(body: str) -> bool:
    """Whether ``body`` ends in a live ``\\`` line continuation (not one in a comment)."""
    trailing = len(body) - len(body.rstrip("\\"))
    if trailing % 2 == 0:
        return False
    from vshell.syntax.shim import scan

    line = body[body.rfind("\n") + 1 :]
    i = 0
    while i < len(line):
        c = line[i]
        if c in " \t;&|<>()":
            i += 1
        elif c == "#":
            return False
        else:
            try:
                i = max(scan.scan_word(line, i), i + 1)
            except scan.ScanEOF:
                return True
    return True


# Parsed scripts by (text, first line).  An agent sends the same commands again, a loop runs
# the same ``$( )`` body on every pass, and a function's body is parsed once per call site:
# parsing is most of the cost of a short command.  The tree is never changed once built
# (the interpreter only reads it), so one tree serves every run.  Only clean parses are
# kept (an error's exception object is raised, and so changed, by its caller), and only
# texts up to _CACHE_TEXT characters, at most _CACHE_ENTRIES of them.
_CACHE_ENTRIES = 512
_CACHE_TEXT = 16384
_cache: dict[tuple[str, int], tuple[ast.Script, bool]] = {}


def _read(source: str, first_line: int = 1) -> tuple[ast.Script, ParseError | None, bool]:
    """Parse top-level commands until the end or the first error (cached when clean)."""
    key = (source, first_line)
    hit = _cache.get(key)
    if hit is not None:
        return hit[0], None, hit[1]
    script, error, heredoc_eof = _read_uncached(source, first_line)
    if error is None and len(source) <= _CACHE_TEXT:
        if len(_cache) >= _CACHE_ENTRIES:
            del _cache[next(iter(_cache))]  # the oldest entry: a FIFO is enough here
        _cache[key] = (script, heredoc_eof)
    return script, error, heredoc_eof


def _read_uncached(source: str, first_line: int = 1
                   ) -> tuple[ast.Script, ParseError | None, bool]:
    """Parse top-level commands until the end or the first error."""
    from vshell.syntax.simple import parse_simple

    simple = parse_simple(source, first_line)  # a one-liner of plain words: no bashlex
    if simple is not None:
        return simple, None, False
    return _read_full(source, first_line)


def _read_full(source: str, first_line: int = 1) -> tuple[ast.Script, ParseError | None, bool]:
    """:func:`_read` through bashlex, for every script."""
    from vshell.syntax.adapter import Adapter
    from vshell.syntax.shim.base import ShimError
    from vshell.syntax.shim.reader import CommandReader

    script = ast.CommandList()
    reader = CommandReader(source)
    adapter = Adapter(source, reader.heredocs, first_line)
    try:
        while True:
            tree = reader.next()
            if tree is None:
                break
            script.items.extend(adapter.script(tree))
    except ShimError as e:
        return script, _error(source, adapter, e.message, e.pos, e.eof, e.token), False
    except RecursionError:
        deep = _error(source, adapter, "syntax error: nesting too deep", 0, False, None)
        return script, deep, False
    except Exception:  # noqa: BLE001 - never let a bashlex exception escape
        pos = min(reader.tok._shell_input_line_index, len(source))
        return script, _error(source, adapter, "syntax error", pos, False, None), False
    return script, None, reader.heredoc_eof


def _error(
    source: str, adapter: Adapter, message: str, pos: int, eof: bool, token: str | None
) -> ParseError:
    """Build a ParseError, placing end-of-file errors on the line after the last one."""
    pos = max(0, min(pos, len(source)))
    if eof and _reported_at_eof(source, pos, token):
        line = source.count("\n") + (1 if source.endswith("\n") else 2) + adapter.first_line - 1
        return ParseError(message, line, 1, token, at_eof=True)
    line = adapter.line(pos)
    col = pos - (source.rfind("\n", 0, pos) + 1) + 1
    return ParseError(message, line, col, token, at_eof=eof)


def _reported_at_eof(source: str, pos: int, token: str | None) -> bool:
    """Whether bash reports this end-of-input error on the last line or where it opened.

    bash names the opening line for quotes and bracketed words, but the end of input for
    a missing keyword and for ``$(`` / ``<(`` (whose body it parses as commands).
    """
    if token is None or token == "]]":
        return True
    if token != ")":
        return False
    return source[pos : pos + 1] == "(" and source[pos - 1 : pos] in ("$", "<", ">") and (
        source[pos + 1 : pos + 2] != "("
    )
