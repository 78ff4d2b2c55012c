"""Deny patterns: sbsh's small glob language, compiled to one regular expression.

Syntax: ``*`` matches within one segment (never ``/``); ``**`` matches zero or more whole
segments and must be a segment by itself; a pattern not starting with ``/`` matches at any
depth (``.env`` means ``**/.env``); ``?``, ``[``, ``]`` and ``\\`` are rejected rather than
silently taken literally.  A pattern also covers everything below what it names, so denying
``/work/secrets`` denies ``/work/secrets/key``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from vshell.records import field, record

__all__ = ["DenyPattern", "DenyRules", "parse_deny"]

_REJECTED = {"?": "'?'", "[": "'['", "]": "']'", "\\": "'\\'"}


@record(frozen=True)
class DenyPattern:
    """One parsed pattern: the text the user gave and the regex it compiles to."""

    pattern: str
    regex: str
    _compiled: re.Pattern[str] = field(repr=False, compare=False)

    def matches(self, vpath: str) -> bool:
        """Whether the normalized absolute virtual path (or one of its parents) matches."""
        return self._compiled.match(vpath) is not None


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
    if "\0" in pattern:
        raise ValueError(f"invalid deny pattern {pattern!r}: NUL character")
    anchored = pattern.startswith("/")
    segments = [s for s in pattern.split("/") if s != ""]
    if not anchored:
        segments.insert(0, "**")
    out: list[str] = []
    for seg in segments:
        if seg in (".", ".."):
            raise ValueError(f"invalid deny pattern {pattern!r}: '{seg}' segments are not allowed")
        if seg == "**":
            if out and out[-1] == _ANY_SEGMENTS:
                continue  # '**/**' is '**'
            out.append(_ANY_SEGMENTS)
        elif "**" in seg:
            raise ValueError(f"invalid deny pattern {pattern!r}: '**' must be a whole path segment")
        else:
            out.append("/" + "[^/]*".join(re.escape(piece) for piece in seg.split("*")))
    regex = r"\A" + "".join(out) + r"(?:/.*)?\Z"
    return DenyPattern(pattern, regex, re.compile(regex, re.DOTALL))


_ANY_SEGMENTS = "(?:/[^/]+)*"


class DenyRules:
    """A set of deny patterns, matched together as one regex.

    ``matches(vpath)`` takes a normalized absolute virtual path; a path lying inside a
    denied directory matches too.
    """

    __slots__ = ("_regex", "patterns")

    def __init__(self, patterns: Iterable[str | DenyPattern] = ()) -> None:
        parsed = [p if isinstance(p, DenyPattern) else parse_deny(p) for p in patterns]
        self.patterns: tuple[DenyPattern, ...] = tuple(parsed)
        self._regex: re.Pattern[str] | None = (
            re.compile("|".join(f"(?:{p.regex})" for p in parsed), re.DOTALL) if parsed else None
        )

    def matches(self, vpath: str) -> bool:
        """Whether ``vpath`` is denied."""
        return self._regex is not None and self._regex.match(vpath) is not None

    def __bool__(self) -> bool:
        return self._regex is not None

    def __len__(self) -> int:
        return len(self.patterns)

    def __repr__(self) -> str:
        return f"DenyRules({[p.pattern for p in self.patterns]!r})"
