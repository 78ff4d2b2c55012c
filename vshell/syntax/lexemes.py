"""Walking raw shell source the way bash's reader splits it, before any parsing.

Two readers need to know, in text bash has not parsed yet, where a command starts and
where a ``$( … )`` body ends: the alias expander (an alias is substituted only for a word
at a command position) and the scanners that find the ``)`` closing a command
substitution.  Both depend on the same facts of bash's grammar, kept here once:

- ``#`` starts a comment only at the start of a word (``$#`` and ``a#b`` are words);
- a ``case`` item's pattern ends at its ``)``, which closes nothing (``$(case x in x)
  …;; esac)``); the subject, ``in`` and the patterns are never commands, the item's
  commands are;
- a here-document's body, up to its delimiter line, is text (a ``)`` there closes
  nothing: ``$(cat <<EOF`` … ``:)`` … ``EOF)``);
- a function's body follows ``name()`` and ``function name``; ``((…))`` and ``[[ … ]]`` at
  a command position and a compound assignment ``a=(…)`` hold no commands.

Quoted text and ``$``-forms inside a word are stepped over by the caller's ``skip`` (the
parser shim's strict one, which fails at an unclosed quote, or the word lexer's lenient
one), which is how the two differ; the walk itself is the same for both.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeAlias

__all__ = ["Walker", "body_end", "balanced_end"]

# skip(s, j): the index after the quote, escape or $-form starting at s[j], else j
Skip: TypeAlias = "Callable[[str, int], int]"

_META = frozenset(" \t\n;&|()<>")
# words after which the next word still starts a command
_KEEPS_COMMAND = frozenset(("then", "do", "else", "elif", "if", "while", "until", "!", "{",
                            "time"))
_EXTGLOB = frozenset("@!+*?")
_NAME_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_NAME_CHARS = _NAME_START | frozenset("0123456789")
_CASE_ENDS = (";;&", ";;", ";&")


def balanced_end(s: str, i: int, skip: Skip, comments: bool = False) -> int | None:
    """The index of the ``)`` closing the ``(`` just before ``i``, counting parentheses and
    stepping over quotes (and with ``comments``, ``#`` comments at the start of a word):
    for text that is not commands (``((…))``, ``@(…)``; an array's ``(…)``, which may
    hold comments); None when the source ends first."""
    depth = 1
    n = len(s)
    j = i
    while j < n:
        k = skip(s, j)
        if k != j:
            j = k
            continue
        c = s[j]
        if comments and c == "#" and (j == i or s[j - 1] in _META):
            k = s.find("\n", j)
            j = n if k < 0 else k
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return j
        j += 1
    return None


def _assignment_name_end(word: str) -> int | None:
    """In ``NAME=…``, ``NAME+=…`` or ``NAME[SUB]=…``: the index of the ``=``; else None."""
    if not word or word[0] not in _NAME_START:
        return None
    j = 1
    while j < len(word) and word[j] in _NAME_CHARS:
        j += 1
    if word[j : j + 1] == "[":
        close = word.find("]", j)
        if close < 0:
            return None
        j = close + 1
    if word[j : j + 1] == "+":
        j += 1
    return j if word[j : j + 1] == "=" else None


def _unquote_delimiter(raw: str) -> str:
    return raw.replace("'", "").replace('"', "").replace("\\", "")


class Walker:
    """One pass over ``s`` from ``i``: :meth:`next` gives each lexeme as ``(kind, start,
    end, command)``: kind is ``blank`` (blanks and line continuations), ``newline``,
    ``heredoc`` (the bodies read after a newline), ``comment``, ``word``, ``op`` (an
    operator or a redirection), ``close`` (a ``)`` this walk did not open), or ``special``
    (a whole ``((…))`` or ``[[ … ]]`` command); ``command`` is True for a word at a command
    position.  :attr:`command` says whether the next word starts a command; a caller that
    substitutes text (an alias) may set it."""

    def __init__(self, s: str, i: int, skip: Skip, command: bool = True) -> None:
        self.s = s
        self.i = i
        self.skip = skip
        self.command = command
        self.depth = 0  # parentheses opened in this walk, not case patterns', not closed
        self.cases: list[str] = []  # each open `case`: subject, in, pattern or body
        self._heredocs: list[tuple[str, bool]] = []  # (delimiter, strip tabs) pending
        self._target = ""  # the redirection operator whose target word comes next
        self._function_name = False  # the next word names a function (`function NAME`)
        self._cond = False  # inside `[[ … ]]`
        self._last = ""  # the last op or word read (`(` then `)`: a function's `()`)

    def next(self) -> tuple[str, int, int, bool] | None:
        s, i = self.s, self.i
        n = len(s)
        if i >= n:
            return None
        c = s[i]
        if c in " \t" or (c == "\\" and s.startswith("\n", i + 1)):
            j = i
            while j < n and (s[j] in " \t" or (s[j] == "\\" and s.startswith("\n", j + 1))):
                j += 1 if s[j] != "\\" else 2
            return self._emit("blank", i, j, False)
        if c == "\n":
            self.command = True
            if self._heredocs:
                end = self._skip_heredocs(i + 1)
                self._heredocs = []
                return self._emit("heredoc", i, end, False)
            return self._emit("newline", i, i + 1, False)
        if c == "#":
            j = s.find("\n", i)
            return self._emit("comment", i, n if j < 0 else j, False)
        if c in "<>" or (c == "&" and s.startswith(">", i + 1)):
            return self._redirection(i)
        if c in ";&|":
            j = i + 1
            while j < n and s[j] in ";&|":
                j += 1
            op = s[i:j]
            state = self.cases[-1] if self.cases else ""
            if state == "pattern":  # `a|b)`: alternatives of a pattern
                return self._emit("op", i, j, False)
            if state == "body" and op in _CASE_ENDS:
                self.cases[-1] = "pattern"
                self.command = False
                return self._emit("op", i, j, False)
            self.command = True
            return self._emit("op", i, j, False)
        if c == "(":
            if self.cases and self.cases[-1] == "pattern":  # `(x)`: the pattern's own
                return self._emit("op", i, i + 1, False)
            if self.command and s.startswith("((", i) and not self._cond:
                close = balanced_end(s, i + 1, self.skip)
                if close is not None and s[close - 1] == ")":  # `((…))`: arithmetic
                    self.command = False
                    return self._emit("special", i, close + 1, False)
            self.depth += 1
            self.command = True
            return self._emit("op", i, i + 1, False)
        if c == ")":
            if self.cases and self.cases[-1] == "pattern":
                self.cases[-1] = "body"
                self.command = True
                return self._emit("op", i, i + 1, False)
            if self.depth == 0:
                self.command = True  # what a caller scanning a case's lines sees
                return self._emit("close", i, i + 1, False)
            self.depth -= 1
            self.command = self._last == "("  # `name()`: the function's body follows
            return self._emit("op", i, i + 1, False)
        return self._word(i)

    def _emit(self, kind: str, start: int, end: int, command: bool) -> tuple[str, int, int, bool]:
        self.i = end
        if kind in ("op", "word", "close"):
            self._last = self.s[start:end]
        return kind, start, end, command

    def _redirection(self, i: int) -> tuple[str, int, int, bool]:
        s = self.s
        j = i + 1
        while j < len(s) and s[j] in "<>&|-":
            j += 1
        op = s[i:j]
        if op.startswith("<<<"):
            op = "<<<"
            j = i + 3
        if op in ("<", ">") and s.startswith("(", j):  # `<(…)`: a process substitution
            end = body_end(s, j + 1, self.skip)
            return self._emit("word", i, len(s) if end is None else end + 1, False)
        self._target = op
        return self._emit("op", i, j, False)

    def _word(self, i: int) -> tuple[str, int, int, bool]:
        s, n = self.s, len(self.s)
        j = i
        while j < n and s[j] not in _META:
            k = self.skip(s, j)
            if k != j:
                j = k
                continue
            if s[j] in _EXTGLOB and s.startswith("(", j + 1):
                end = balanced_end(s, j + 2, self.skip)
                j = n if end is None else end + 1
                continue
            j += 1
        j = max(j, i + 1)
        word = s[i:j]
        if self._target:  # a redirection's target: the command position is unchanged
            op, self._target = self._target, ""
            if op in ("<<", "<<-"):
                self._heredocs.append((_unquote_delimiter(word), op == "<<-"))
            return self._emit("word", i, j, False)
        if (s.startswith(("<", ">"), j) and word.isdigit()) or (
                s.startswith(("<", ">"), j) and word.startswith("{") and word.endswith("}")):
            return self._emit("word", i, j, False)  # `2>`, `{fd}>`: the redirection's
        if self._cond:
            if word == "]]":
                self._cond = False
                self.command = False
            return self._emit("word", i, j, False)
        if self.cases and self.cases[-1] != "body":
            state = self.cases[-1]
            if state == "subject":
                self.cases[-1] = "in"
            elif state == "in" and word == "in":
                self.cases[-1] = "pattern"
            elif state == "pattern" and word == "esac":
                self.cases.pop()
                self.command = False
            return self._emit("word", i, j, False)
        if self._function_name:
            self._function_name = False
            self.command = True
            return self._emit("word", i, j, False)
        command = self.command
        if not command:
            return self._emit("word", i, j, False)
        eq = _assignment_name_end(word)
        if eq is not None:
            if eq == len(word) - 1 and s.startswith("(", j):  # `a=(…)`: a compound value
                end = balanced_end(s, j + 1, self.skip, comments=True)
                j = n if end is None else end + 1
            return self._emit("word", i, j, False)  # a prefix assignment: a command follows
        if word == "case":
            self.cases.append("subject")
            self.command = False
        elif word == "esac" and self.cases:
            self.cases.pop()
            self.command = False
        elif word == "function":
            self._function_name = True
            self.command = False
        elif word == "[[":
            self._cond = True
            self.command = False
        elif word not in _KEEPS_COMMAND:
            self.command = False
        return self._emit("word", i, j, True)

    def _skip_heredocs(self, i: int) -> int:
        """The index after the bodies of the here-documents pending at a newline."""
        s, n = self.s, len(self.s)
        for delimiter, strip in self._heredocs:
            while i < n:
                k = s.find("\n", i)
                line = s[i:] if k < 0 else s[i:k]
                i = n if k < 0 else k + 1
                if (line.lstrip("\t") if strip else line) == delimiter:
                    break
        return i


def body_end(s: str, i: int, skip: Skip) -> int | None:
    """The index of the ``)`` that closes a command list starting at ``i`` (the body of
    ``$(``, ``<(`` or ``(``), or None when the source ends first."""
    walker = Walker(s, i, skip)
    while True:
        lexeme = walker.next()
        if lexeme is None:
            return None
        if lexeme[0] == "close":
            return lexeme[1]
