"""Deny patterns: sbsh's small glob language, parsed here and matched by the text layer.

Syntax: ``*`` matches within one segment (never ``/``); ``**`` matches zero or more whole
segments and must be a segment by itself; a pattern not starting with ``/`` matches at any
depth (``.env`` means ``**/.env``); ``?``, ``[``, ``]`` and ``\\`` are rejected rather than
silently taken literally.  A pattern also covers everything below what it names, so denying
``/work/secrets`` denies ``/work/secrets/key``.

Matching is ``vshell.text.segglob`` (RE2, linear in the path): deny rules are checked at
every walk step, so a pattern like ``*a*a*a*a*b`` must never backtrack.
"""

from __future__ import annotations

from vshell.records import field, record

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    from collections.abc import Iterable

    from vshell.text.segglob import SegmentGlob

__all__ = ["DenyPattern", "DenyRules", "parse_deny"]

_REJECTED = {"?": "'?'", "[": "'['", "]": "']'", "\\": "'\\'"}


@record(frozen=True)
class DenyPattern:
    """One parsed pattern: the text the user gave and its segments (``**`` = any depth)."""

    pattern: str
    segments: tuple[str, ...]
    _compiled: SegmentGlob = field(repr=False, compare=False)

    def matches(self, vpath: str) -> bool:
        """Whether the normalized absolute virtual path (or one of its parents) matches."""
        return self._compiled.matches(vpath)


def parse_deny(pattern: str) -> DenyPattern:
    """Parse one deny pattern; raise ValueError saying what is wrong with a bad one."""
    if not isinstance(pattern, str):
        raise TypeError(f"invalid deny pattern {pattern!r}: not a string")
    if not pattern.strip():
        raise ValueError("invalid deny pattern '': empty pattern")
    for char, shown in _REJECTED.items():
        if char in pattern:
            raise ValueError(
                f"invalid deny pattern {pattern!r}: {shown} is not supported "
                "(only '*' within a segment and '**' as a whole segment)"
            )
    from vshell.text.segglob import ANY_SEGMENTS, SegmentGlob

    if "\0" in pattern:
        raise ValueError(f"invalid deny pattern {pattern!r}: NUL character")
    anchored = pattern.startswith("/")
    segments = [s for s in pattern.split("/") if s != ""]
    if not anchored:
        segments.insert(0, "**")
    for seg in segments:
        if seg in (".", ".."):
            raise ValueError(f"invalid deny pattern {pattern!r}: '{seg}' segments are not allowed")
        if seg != ANY_SEGMENTS and "**" in seg:
            raise ValueError(f"invalid deny pattern {pattern!r}: '**' must be a whole path segment")
    return DenyPattern(pattern, tuple(segments), SegmentGlob([segments]))


class _NoMatch:
    """The glob of no pattern: matches nothing."""

    __slots__ = ()

    def matches(self, vpath: str) -> bool:
        return False


_NO_MATCH = _NoMatch()


def _glob_of(patterns: list[tuple[str, ...]]) -> SegmentGlob:
    from vshell.text.segglob import SegmentGlob

    return SegmentGlob(patterns)


class DenyRules:
    """A set of deny patterns, matched together as one RE2 program.

    ``matches(vpath)`` takes a normalized absolute virtual path; a path lying inside a
    denied directory matches too.
    """

    __slots__ = ("_glob", "patterns")

    def __init__(self, patterns: Iterable[str | DenyPattern] = ()) -> None:
        parsed = [p if isinstance(p, DenyPattern) else parse_deny(p) for p in patterns]
        self.patterns: tuple[DenyPattern, ...] = tuple(parsed)
        # no pattern (``vshell -c``, say): no program to build, no text layer to import
        self._glob = _glob_of([p.segments for p in parsed]) if parsed else _NO_MATCH

    def matches(self, vpath: str) -> bool:
        """Whether ``vpath`` is denied."""
        return self._glob.matches(vpath)

    def __bool__(self) -> bool:
        return bool(self.patterns)

    def __len__(self) -> int:
        return len(self.patterns)

    def __repr__(self) -> str:
        return f"DenyRules({[p.pattern for p in self.patterns]!r})"
