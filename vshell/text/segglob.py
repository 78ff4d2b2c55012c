"""Segment globs over absolute paths, matched by RE2 (linear time, no backtracking).

A pattern is a list of path segments: ``"**"`` stands for zero or more whole segments,
any other segment is literal text in which ``*`` matches any run of characters but
``/``.  A pattern names a path and everything below it.  This is the matching half of
the ``--deny-path`` language (``vshell/vfs/deny.py`` parses and validates); it lives in
the text layer so that no other module translates a user's pattern into a regex.

Paths are matched as bytes (``surrogateescape``) with RE2 in Latin-1 mode, so any
``str`` path — undecodable names included — is matched byte for byte.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

__all__ = ["ANY_SEGMENTS", "SegmentGlob", "translate"]

ANY_SEGMENTS = "**"


def _compile(source: str) -> Any:
    """The RE2 program of ``source`` (Latin-1, ``.`` matching newlines, no captures).  re2 is
    imported here: a sandbox without deny patterns (``vshell -c``) never loads it."""
    import re2

    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1
    options.dot_nl = True
    options.never_capture = True
    return re2.compile(source.encode("ascii"), options)


def _escape(text: str) -> str:
    return "".join(
        chr(b) if chr(b).isalnum() and b < 0x80 else f"\\x{b:02x}"
        for b in text.encode("utf-8", "surrogateescape")
    )


def translate(segments: Sequence[str]) -> str:
    """The RE2 source (Latin-1) matching a path the segments name, or one below it."""
    out: list[str] = []
    for seg in segments:
        if seg == ANY_SEGMENTS:
            if not out or out[-1] != "(?:/[^/]+)*":  # '**/**' is '**'
                out.append("(?:/[^/]+)*")
        else:
            out.append("/" + "[^/]*".join(_escape(piece) for piece in seg.split("*")))
    return "".join(out) + "(?:/.*)?"


class SegmentGlob:
    """One or more segment patterns compiled together; ``matches`` is one RE2 run."""

    __slots__ = ("_needles", "_rx", "source")

    def __init__(self, patterns: Sequence[Sequence[str]]) -> None:
        self.source = "|".join(f"(?:{translate(p)})" for p in patterns)
        self._rx = _compile(self.source) if patterns else None
        # Each pattern has a literal piece that must occur in a matching path; when no
        # pattern's piece does, a substring test answers without running RE2 (the common
        # case at every walk step).  None: some pattern has no literal, always run RE2.
        needles = [_needle(p) for p in patterns]
        self._needles = None if any(n == "" for n in needles) else tuple(set(needles))

    def matches(self, path: str) -> bool:
        """Whether ``path`` (absolute, normalized) or one of its parents matches."""
        if self._rx is None:
            return False
        if self._needles is not None:
            for needle in self._needles:
                if needle in path:
                    break
            else:
                return False
        return self._rx.fullmatch(path.encode("utf-8", "surrogateescape")) is not None


def _needle(segments: Sequence[str]) -> str:
    """The literal a matching path must contain: the last segment's longest piece when it
    is not tiny (leading directories such as ``/work`` occur in every path), else the
    pattern's longest piece."""
    named = [seg for seg in segments if seg != ANY_SEGMENTS]
    if not named:
        return ""
    last = max(named[-1].split("*"), key=len)
    if len(last) >= 3:
        return last
    return max((piece for seg in named for piece in seg.split("*")), key=len)
