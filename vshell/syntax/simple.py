"""A parser for the simplest scripts only, so that they run without importing bashlex.

Importing bashlex (with its cached tables) costs about 20 ms, more than the rest of a
``vshell -c true``.  Many scripts an agent runs are one line of plain simple commands
(``ls -la /work``, ``grep -n 'TODO' a.py | head``, ``true``): for those this module builds
the same tree the bashlex path builds (tests/unit/test_syntax_simple.py compares them).
Anything else — a newline inside, an operator other than ``|``, ``&&``, ``||`` and ``;``,
a redirection, a glob, a brace, a tilde, an escape, a ``$`` form other than ``$name``, an
assignment, a reserved word, a declaration builtin — gets None, and the full parser runs.
"""

from __future__ import annotations

from vshell.syntax import ast
from vshell.syntax.reserved import KEYWORDS

__all__ = ["parse_simple"]

_NAME_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_NAME = _NAME_START | frozenset("0123456789")
_PLAIN = _NAME | frozenset("./:,+-@%^")  # unquoted characters that are never syntax
_BLANKS = " \t"
# what the shim treats specially after the command name (``export a=(1 2)`` and the like)
_DECLARATIONS = frozenset(
    {"declare", "typeset", "local", "export", "readonly", "let", "alias", "eval"}
)


def _dollar(source: str, i: int) -> int:
    """The end of ``$name`` at ``i`` (``$`` followed by a name or one digit); -1 otherwise."""
    j = i + 1
    if j < len(source) and source[j] in _NAME_START:
        j += 1
        while j < len(source) and source[j] in _NAME:
            j += 1
        return j
    if j < len(source) and source[j].isdigit() and source[j].isascii():
        return j + 1
    return -1


def _word(source: str, i: int) -> int:
    """The end of the word starting at ``i``; -1 when it holds anything this parser leaves
    to bashlex."""
    n = len(source)
    while i < n:
        c = source[i]
        if c in _PLAIN or c == "=":
            i += 1
        elif c == "$":
            i = _dollar(source, i)
            if i < 0:
                return -1
        elif c == "'":
            close = source.find("'", i + 1)
            if close < 0 or "\n" in source[i:close]:
                return -1
            i = close + 1
        elif c == '"':
            i += 1
            while i < n and source[i] != '"':
                ch = source[i]
                if ch == "$":
                    i = _dollar(source, i)
                    if i < 0:
                        return -1
                elif ch in "\\`!\n":
                    return -1
                else:
                    i += 1
            if i >= n:
                return -1
            i += 1
        else:
            break
    return i


def _tokens(source: str) -> list[tuple[str, int, int]] | None:
    """(kind, start, end) of each token: ``w`` for a word, else the operator; None when the
    text holds anything but blanks, plain words and ``| && || ;``."""
    out: list[tuple[str, int, int]] = []
    i, n = 0, len(source)
    while i < n:
        c = source[i]
        if c in _BLANKS:
            i += 1
        elif source.startswith(("&&", "||"), i):
            out.append((source[i : i + 2], i, i + 2))
            i += 2
        elif c in "|;":
            out.append((c, i, i + 1))
            i += 1
        else:
            end = _word(source, i)
            if end <= i:
                return None
            out.append(("w", i, end))
            i = end
    return out


def parse_simple(source: str, first_line: int = 1) -> ast.CommandList | None:
    """The tree of a one-line list of plain simple commands, else None (use the parser)."""
    body = source[:-1] if source.endswith("\n") else source
    if "\n" in body or not body.strip(_BLANKS):
        return None
    tokens = _tokens(body)
    if not tokens:
        return None
    script = ast.CommandList()
    k, count = 0, len(tokens)
    while k < count:
        start = tokens[k][1]
        pipelines: list[ast.Pipeline] = []
        ops: list[str] = []
        while True:
            commands: list[ast.Command] = []
            while True:
                words: list[ast.Word] = []
                while k < count and tokens[k][0] == "w":
                    _kind, a, b = tokens[k]
                    raw = body[a:b]
                    # a command's first word with '=' may be an assignment
                    if (not words and "=" in raw) or raw in KEYWORDS:
                        return None
                    words.append(ast.Word(raw, a, first_line))
                    k += 1
                if not words or (words[0].raw in _DECLARATIONS and len(words) > 1):
                    return None
                commands.append(ast.SimpleCommand(words=words, line=first_line))
                if k < count and tokens[k][0] == "|":
                    k += 1
                    continue
                break
            pipelines.append(ast.Pipeline(
                commands, stderr_pipes=[False] * (len(commands) - 1), line=first_line,
            ))
            if k < count and tokens[k][0] in ("&&", "||"):
                ops.append(tokens[k][0])
                k += 1
                continue
            break
        end = tokens[k - 1][2]
        andor = ast.AndOr(pipelines[0], list(zip(ops, pipelines[1:], strict=True)),
                          line=first_line)
        script.items.append(ast.ListItem(andor, start=start, end=end))
        if k < count:
            if tokens[k][0] != ";":
                return None
            k += 1
    return script
