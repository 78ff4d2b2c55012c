"""Alias expansion, done the way bash does it: on the source text, at command position,
before the line is parsed.

bash's lexer substitutes an alias for an unquoted word in command position; an alias
whose value ends in a blank makes the next word a command position too; an alias is not
expanded again inside its own expansion.  vshell rewrites the text of the next line(s)
it is about to parse and keeps a map back to the original offsets.
"""

from __future__ import annotations

import re

from vshell.syntax.words import find_close_paren, skip_construct

_WORD_END = frozenset(" \t\n;&|()<>")
_CMD_START_WORDS = frozenset(("then", "do", "else", "elif", "if", "while", "until", "!",
                              "{", "time"))
_ASSIGN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")


class Expansion:
    """Expanded text and the substitutions made (for mapping offsets back)."""

    def __init__(self, text: str, subs: list[tuple[int, int, int]]) -> None:
        self.text = text
        self.subs = subs  # (expanded_start, original_len, expanded_len), in order

    def inside_substitution(self, pos: int) -> bool:
        return any(start < pos < start + new_len for start, _, new_len in self.subs)

    def to_original(self, pos: int) -> int:
        delta = 0
        for start, orig_len, new_len in self.subs:
            if pos >= start + new_len:
                delta += new_len - orig_len
            elif pos > start:
                return start - delta + orig_len
        return pos - delta


def expand(source: str, aliases: dict[str, str]) -> Expansion:
    out: list[str] = []
    subs: list[tuple[int, int, int]] = []
    _scan(source, aliases, out, subs, frozenset(), True)
    return Expansion("".join(out), subs)


def _scan(s: str, aliases: dict[str, str], out: list[str], subs: list[tuple[int, int, int]],
          active: frozenset[str], cmd_pos: bool) -> bool:
    """Copy ``s`` to ``out`` substituting aliases; returns the command-position state at end.

    Besides separators and reserved words, the places where a command starts that only
    the grammar tells are followed: a function's body after ``name()`` or ``function
    name``, and the commands of a ``case`` item after its pattern's ``)`` (the subject, the
    ``in`` and the patterns themselves are never commands)."""
    i = 0
    n = len(s)
    pending_heredocs: list[str] = []
    depth = 0  # parentheses opened in this text (not a case pattern's) and not closed yet
    function_name = False  # the word after `function`, the name: then a command position
    # the `case` commands this text is inside, each at: "subject", "in", "pattern", "body"
    cases: list[str] = []
    while i < n:
        c = s[i]
        if c in " \t":
            out.append(c)
            i += 1
            continue
        if c == "\\" and s.startswith("\n", i + 1):  # a line continuation is a blank here
            out.append("\\\n")
            i += 2
            continue
        if c == "\n":
            out.append(c)
            i += 1
            if pending_heredocs:
                i = _copy_heredocs(s, i, pending_heredocs, out)
                pending_heredocs = []
            cmd_pos = True
            continue
        if c == "#" and (i == 0 or s[i - 1] in " \t\n;&|()"):
            k = s.find("\n", i)
            k = n if k < 0 else k
            out.append(s[i:k])
            i = k
            continue
        in_pattern = bool(cases) and cases[-1] == "pattern"
        if c in ";&|(":
            j = i + 1
            while j < n and s[j] in ";&|":
                j += 1
            op = s[i:j]
            out.append(op)
            i = j
            if in_pattern:  # `(a|b)`: the pattern's own parenthesis and alternatives
                continue
            if cases and cases[-1] == "body" and op in (";;", ";&", ";;&"):
                cases[-1] = "pattern"  # the next item's pattern
                cmd_pos = False
                continue
            depth += c == "("
            cmd_pos = True
            continue
        if c == ")":
            # after `name()` a function's body follows, after a case pattern its commands:
            # both are command positions; after a subshell's `)` only an operator may follow
            empty = bool(out) and out[-1] == "("
            out.append(c)
            i += 1
            if in_pattern:
                cases[-1] = "body"
                cmd_pos = True
            elif empty or depth == 0:
                depth = max(depth - 1, 0)
                cmd_pos = True
            else:
                depth -= 1
                cmd_pos = False
            continue
        if c in "<>":
            j = i + 1
            while j < n and s[j] in "<>&|-":
                j += 1
            op = s[i:j]
            out.append(op)
            i = j
            while i < n and s[i] in " \t":
                out.append(s[i])
                i += 1
            k = _word_end(s, i)
            word = s[i:k]
            out.append(word)
            if op in ("<<", "<<-"):
                pending_heredocs.append(("-" if op == "<<-" else "") + word)
            i = k
            continue
        k = _word_end(s, i)
        word = s[i:k]
        if cases and cases[-1] != "body":
            state = cases[-1]
            if state == "subject":
                cases[-1] = "in"
            elif state == "in" and word == "in":
                cases[-1] = "pattern"
            elif state == "pattern" and word == "esac":
                cases.pop()
                cmd_pos = False
            out.append(word)
            i = k
            continue
        if cmd_pos and not function_name and word in aliases and word not in active:
            value = aliases[word]
            start = sum(len(x) for x in out)
            inner: list[str] = []
            inner_subs: list[tuple[int, int, int]] = []
            next_cmd = _scan(value, aliases, inner, inner_subs, active | {word}, True)
            text = "".join(inner)
            out.append(text)
            subs.append((start, k - i, len(text)))
            i = k
            cmd_pos = value.endswith((" ", "\t")) or next_cmd
            continue
        out.append(word)
        i = k
        if function_name:
            function_name = False
            continue
        if cmd_pos and word == "case":
            cases.append("subject")
            cmd_pos = False
            continue
        if cmd_pos and word == "esac" and cases:
            cases.pop()
            cmd_pos = False
            continue
        if cmd_pos and word == "function":
            function_name = True
            continue
        if cmd_pos and (_ASSIGN.match(word) or word in _CMD_START_WORDS):
            continue
        cmd_pos = False
    return cmd_pos


def _word_end(s: str, i: int) -> int:
    n = len(s)
    j = i
    while j < n and s[j] not in _WORD_END:
        c = s[j]
        k = skip_construct(s, j)
        if k != j:
            j = k
            continue
        if c in "@!+*?" and j + 1 < n and s[j + 1] == "(":
            j = find_close_paren(s, j + 2) + 1
            continue
        j += 1
    return max(j, i + 1) if j == i and j < n else j


def _copy_heredocs(s: str, i: int, delims: list[str], out: list[str]) -> int:
    for d in delims:
        strip = d.startswith("-")
        word = d[1:] if strip else d
        word = word.replace("'", "").replace('"', "").replace("\\", "")
        while i < len(s):
            k = s.find("\n", i)
            line = s[i:] if k < 0 else s[i:k]
            end = len(s) if k < 0 else k + 1
            out.append(s[i:end])
            i = end
            if (line.lstrip("\t") if strip else line) == word:
                break
    return i
