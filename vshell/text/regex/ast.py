"""The parsed form every regex dialect shares: a small tree the RE2 emitter and the bounded
backtracker both read, so the two engines cannot disagree about what a pattern means."""

from __future__ import annotations

from dataclasses import dataclass, field

Range = tuple[int, int]


def ranges_without(ranges: list[Range], cp: int) -> list[Range]:
    """The ranges with one code point cut out: both engines keep the record terminator
    out of a set this way."""
    out: list[Range] = []
    for lo, hi in ranges:
        if lo <= cp <= hi:
            if lo < cp:
                out.append((lo, cp - 1))
            if cp < hi:
                out.append((cp + 1, hi))
        else:
            out.append((lo, hi))
    return out


@dataclass(slots=True)
class Lit:
    """One character (code point; a byte value in the C locale)."""

    cp: int


@dataclass(slots=True)
class Set:
    """A bracket expression, ``.`` or a class escape, as code-point ranges.

    ``negate`` sets match any character outside the ranges except the record terminator.
    """

    ranges: list[Range]
    negate: bool = False


@dataclass(slots=True)
class Assert:
    """A zero-width assertion: ``bol eol bufstart bufend word notword wordstart wordend``."""

    kind: str


@dataclass(slots=True)
class Group:
    """A capturing group (``index`` counts from 1 across joined patterns)."""

    index: int
    node: Node


@dataclass(slots=True)
class Cat:
    items: list[Node] = field(default_factory=list)


@dataclass(slots=True)
class Alt:
    branches: list[Node] = field(default_factory=list)


@dataclass(slots=True)
class Repeat:
    node: Node
    lo: int
    hi: int | None  # None: unbounded


@dataclass(slots=True)
class Backref:
    index: int


Node = Lit | Set | Assert | Group | Cat | Alt | Repeat | Backref


def has_backref(node: Node) -> bool:
    """Whether anything in the tree refers back to a group (RE2 cannot run those)."""
    if isinstance(node, Backref):
        return True
    if isinstance(node, Group | Repeat):
        return has_backref(node.node)
    if isinstance(node, Cat):
        return any(has_backref(n) for n in node.items)
    if isinstance(node, Alt):
        return any(has_backref(n) for n in node.branches)
    return False


def width(node: Node) -> int | None:
    """The length in characters of every match, when it is fixed."""
    if isinstance(node, Lit | Set):
        return 1
    if isinstance(node, Assert):
        return 0
    if isinstance(node, Group):
        return width(node.node)
    if isinstance(node, Cat):
        total = 0
        for n in node.items:
            w = width(n)
            if w is None:
                return None
            total += w
        return total
    if isinstance(node, Alt):
        ws = {width(n) for n in node.branches}
        return ws.pop() if len(ws) == 1 else None
    if isinstance(node, Repeat):
        w = width(node.node)
        if w is None or node.hi != node.lo:
            return 0 if w == 0 else None
        return w * node.lo
    return None


def matches_empty(node: Node) -> bool:
    """Whether the node can match the empty string (assertions aside)."""
    if isinstance(node, Lit | Set):
        return False
    if isinstance(node, Assert | Backref):
        return True
    if isinstance(node, Group):
        return matches_empty(node.node)
    if isinstance(node, Cat):
        return all(matches_empty(n) for n in node.items)
    if isinstance(node, Alt):
        return any(matches_empty(n) for n in node.branches)
    if isinstance(node, Repeat):
        return node.lo == 0 or matches_empty(node.node)
    return False
