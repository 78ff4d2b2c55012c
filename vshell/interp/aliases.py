"""Alias expansion, done the way bash does it: on the source text, at command position,
before the line is parsed.

bash's lexer substitutes an alias for an unquoted word in command position; an alias
whose value ends in a blank makes the next word a command position too; an alias is not
expanded again inside its own expansion.  vshell rewrites the text of the next line(s)
it is about to parse and keeps a map back to the original offsets.
"""

from __future__ import annotations

from vshell.syntax.lexemes import Walker
from vshell.syntax.words import skip_construct


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
    """Copy ``s`` to ``out`` substituting aliases for words at a command position (as
    :class:`vshell.syntax.lexemes.Walker` finds them); returns whether the text ends at a
    command position."""
    walker = Walker(s, 0, skip_construct, cmd_pos)
    length = sum(map(len, out))
    while (lexeme := walker.next()) is not None:
        kind, start, end, command = lexeme
        text = s[start:end]
        if command and kind == "word" and text in aliases and text not in active:
            value = aliases[text]
            inner: list[str] = []
            next_cmd = _scan(value, aliases, inner, [], active | {text}, True)
            text = "".join(inner)
            subs.append((length, end - start, len(text)))
            # an alias whose value ends in a blank makes the next word a command position
            walker.command = value.endswith((" ", "\t")) or next_cmd
        out.append(text)
        length += len(text)
    return walker.command
