"""Write the shared tree as RE2 syntax.

The subject is always bytes: UTF-8 in a UTF-8 locale (RE2's own encoding, so ``.`` and a
negated class match one character and never an invalid byte, as in GNU), Latin-1 in the C
locale (one byte, one character).  ``eol`` is the record terminator of line-oriented
callers: no set or ``.`` matches it and ``^``/``$`` match at its boundaries.  A NUL
terminator (``grep -z``) is handled by swapping NUL and newline in pattern and subject, so
that RE2's multi-line anchors serve both.
"""

from __future__ import annotations

from vshell.text.regex.ast import (
    Alt,
    Assert,
    Backref,
    Cat,
    Group,
    Lit,
    Node,
    Range,
    Repeat,
    Set,
    matches_empty,
    ranges_without,
)
from vshell.text.regex.parse import ESIZE, RegexError

RE2_MAX_REPEAT = 1000
_NEVER = "[^\\x00-\\x{10FFFF}]"
_NEVER_LATIN1 = "[^\\x00-\\xff]"


def swap_nul(cp: int) -> int:
    """NUL and newline exchanged (the ``grep -z`` trick); other code points unchanged."""
    return 10 if cp == 0 else 0 if cp == 10 else cp


def normalize(ranges: list[Range]) -> list[Range]:
    """Sorted, merged ranges."""
    out: list[Range] = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            if hi > out[-1][1]:
                out[-1] = (out[-1][0], hi)
        else:
            out.append((lo, hi))
    return out


class Emitter:
    """One pattern's RE2 source; ``approx`` records a GNU operator RE2 only approximates."""

    def __init__(self, *, utf8: bool, eol: int | None, multiline: bool) -> None:
        self.utf8 = utf8
        self.eol = eol
        self.swap = eol == 0
        self.multiline = multiline
        self.approx = False
        self.top = 0x10FFFF if utf8 else 0xFF

    def never(self) -> str:
        return _NEVER if self.utf8 else _NEVER_LATIN1

    def char(self, cp: int) -> str:
        if cp < 0x80 and (chr(cp).isalnum() or cp == 0x5F):
            return chr(cp)
        if cp <= 0xFF:
            return f"\\x{cp:02x}"
        return f"\\x{{{cp:x}}}"

    def lit(self, cp: int) -> str:
        if cp > self.top or (self.utf8 and 0xD800 <= cp <= 0xDFFF):
            return self.never()  # an invalid byte of the pattern, or past Latin-1
        if self.swap:
            cp = swap_nul(cp)
        return self.char(cp)

    def set(self, node: Set) -> str:
        ranges = [
            (lo, min(hi, self.top)) for lo, hi in node.ranges if lo <= self.top
        ]
        if self.utf8:
            ranges = remove_block(ranges, 0xD800, 0xDFFF)
        if self.eol is not None:
            ranges = ranges_without(ranges, self.eol)
        if self.swap:
            has0 = any(lo <= 0 <= hi for lo, hi in ranges)
            has10 = any(lo <= 10 <= hi for lo, hi in ranges)
            ranges = ranges_without(ranges_without(ranges, 0), 10)
            ranges += [(10, 10)] if has0 else []
            ranges += [(0, 0)] if has10 else []
        if node.negate and self.eol is not None:
            ranges.append((10, 10) if self.swap else (self.eol, self.eol))
        ranges = normalize(ranges)
        if node.negate:
            if not ranges:
                return "(?s:.)"
            return "[^" + self.body(ranges) + "]"
        if not ranges:
            return self.never()
        if len(ranges) == 1 and ranges[0][0] == ranges[0][1]:
            return self.char(ranges[0][0])
        return "[" + self.body(ranges) + "]"

    def body(self, ranges: list[Range]) -> str:
        return "".join(
            self.char(lo) if lo == hi else f"{self.char(lo)}-{self.char(hi)}"
            for lo, hi in ranges
        )

    def assertion(self, kind: str) -> str:
        line = self.eol is not None or self.multiline
        if kind == "bol" or (kind == "bufstart" and self.eol is not None):
            return "(?m:^)" if line else "\\A"
        if kind == "eol" or (kind == "bufend" and self.eol is not None):
            return "(?m:$)" if line else "\\z"
        if kind == "bufstart":
            return "\\A"
        if kind == "bufend":
            return "\\z"
        if kind == "notword":
            return "\\B"
        if kind in ("wordstart", "wordend"):
            self.approx = True
        return "\\b"

    def emit(self, node: Node) -> str:
        if isinstance(node, Lit):
            return self.lit(node.cp)
        if isinstance(node, Set):
            return self.set(node)
        if isinstance(node, Assert):
            return self.assertion(node.kind)
        if isinstance(node, Group):
            return "(" + self.emit(node.node) + ")"
        if isinstance(node, Cat):
            return self.cat(node)
        if isinstance(node, Alt):
            return "|".join(self.emit(b) for b in node.branches)
        if isinstance(node, Repeat):
            return self.repeat(node)
        if isinstance(node, Backref):
            raise ValueError("a back-reference cannot be written for RE2")
        raise TypeError(node)

    def cat(self, node: Cat) -> str:
        if not node.items:
            return "(?:)"
        items = list(node.items)
        exact: set[int] = set()  # word assertions RE2's \b expresses exactly here
        for k, item in enumerate(items):
            if not (isinstance(item, Assert) and item.kind in ("wordstart", "wordend")):
                continue
            start = item.kind == "wordstart"
            j = k + 1 if start else k - 1
            if not 0 <= j < len(items):
                continue
            if _word_edge(items[j], start):
                exact.add(k)
                continue
            tight = _word_first(items[j]) if start else _word_last(items[j])
            if tight is not None:  # \<X: a boundary, then X's first char a word one
                items[j] = tight
                exact.add(k)
        out = []
        for k, item in enumerate(items):
            if k in exact:
                out.append("\\b")
                continue
            text = self.emit(item)
            out.append(f"(?:{text})" if isinstance(item, Alt) else text)
        return "".join(out)

    def repeat(self, node: Repeat) -> str:
        inner = self.emit(node.node)
        if not isinstance(node.node, Lit | Set | Group):
            inner = f"(?:{inner})"
        lo, hi = node.lo, node.hi
        if max(lo, hi or 0) > RE2_MAX_REPEAT:
            raise RegexError(ESIZE)
        if (lo, hi) == (0, None):
            return inner + "*"
        if (lo, hi) == (1, None):
            return inner + "+"
        if (lo, hi) == (0, 1):
            return inner + "?"
        if hi is None:
            return f"{inner}{{{lo},}}"
        if lo == hi:
            return f"{inner}{{{lo}}}"
        return f"{inner}{{{lo},{hi}}}"


def remove_block(ranges: list[Range], lo_cut: int, hi_cut: int) -> list[Range]:
    out: list[Range] = []
    for lo, hi in ranges:
        if hi < lo_cut or lo > hi_cut:
            out.append((lo, hi))
            continue
        if lo < lo_cut:
            out.append((lo, lo_cut - 1))
        if hi > hi_cut:
            out.append((hi_cut + 1, hi))
    return out


def _is_word_set(node: Node) -> bool:
    from vshell.text.regex.parse import WORD_ASCII

    if isinstance(node, Lit):
        c = chr(node.cp)
        return node.cp < 0x80 and (c.isalnum() or c == "_")
    if isinstance(node, Set) and not node.negate and node.ranges:
        return all(
            any(wlo <= lo and hi <= whi for wlo, whi in WORD_ASCII) for lo, hi in node.ranges
        )
    return False


def _word_edge(node: Node, first: bool) -> bool:
    """Whether the first (or last) character ``node`` matches is always an ASCII word one."""
    if _is_word_set(node):
        return True
    if isinstance(node, Group):
        return _word_edge(node.node, first)
    if isinstance(node, Repeat):
        return node.lo > 0 and _word_edge(node.node, first)
    if isinstance(node, Cat) and node.items:
        return _word_edge(node.items[0] if first else node.items[-1], first)
    if isinstance(node, Alt):
        return all(_word_edge(b, first) for b in node.branches)
    return False


def _word_only(node: Lit | Set) -> Set:
    """The members of a one-character node that are ASCII word characters."""
    from vshell.text.regex.parse import WORD_ASCII

    if isinstance(node, Lit):
        return Set([(node.cp, node.cp)] if _is_word_set(node) else [])
    if node.negate:
        keep = list(WORD_ASCII)
        for lo, hi in node.ranges:
            keep = remove_block(keep, lo, hi)
        return Set(keep)
    return Set([(max(lo, wlo), min(hi, whi)) for lo, hi in node.ranges
                for wlo, whi in WORD_ASCII if max(lo, wlo) <= min(hi, whi)])


def _word_first(node: Node) -> Node | None:
    """``node`` with its first character restricted to ASCII word characters, or None."""
    return _word_end(node, True)


def _word_last(node: Node) -> Node | None:
    """``node`` with its last character restricted to ASCII word characters, or None."""
    return _word_end(node, False)


def _word_end(node: Node, first: bool) -> Node | None:
    if isinstance(node, Lit | Set):
        return _word_only(node)
    if isinstance(node, Group):
        inner = _word_end(node.node, first)
        return None if inner is None else Group(node.index, inner)
    if isinstance(node, Cat) and node.items:
        k = 0 if first else len(node.items) - 1
        edge = _word_end(node.items[k], first)
        if edge is None or matches_empty(node.items[k]):
            return None
        items = list(node.items)
        items[k] = edge
        return Cat(items)
    if isinstance(node, Alt):
        branches = [_word_end(b, first) for b in node.branches]
        return None if any(b is None for b in branches) else Alt(branches)  # type: ignore[arg-type]  # no branch is None past the any()
    if isinstance(node, Repeat) and node.lo >= 1 and isinstance(node.node, Lit | Set):
        rest = Repeat(node.node, node.lo - 1, None if node.hi is None else node.hi - 1)
        edge = _word_only(node.node)
        return Cat([edge, rest] if first else [rest, edge])
    return None
