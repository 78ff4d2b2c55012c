"""Python's ``re`` for the few pattern shapes where it provably cannot backtrack.

Why: RE2 is linear but each call costs a couple of microseconds (GIL hand-over, search
set-up), which dominates awk's field splitting and per-line ``gsub`` on short records;
``re`` does a whole ``split``/``sub`` in one C call.  It is used only for a run of fixed
single-character atoms optionally ended by one repeated atom (``[ ,]+``, ``a+``,
``x[0-9]*``, ``\\t``): nothing follows the repeat, so an attempt never backtracks, every
search is linear, and greedy on the last atom is exactly POSIX's longest match.  Subjects
longer than :data:`MAX_SUBJECT` still go to RE2, so even a linear scan never holds the GIL
for long.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

from vshell.text.regex.ast import Assert, Cat, Lit, Node, Range, Repeat, Set, ranges_without

MAX_SUBJECT = 64 * 1024
AtomT = TypeVar("AtomT", str, bytes)


def _char(cp: int) -> str:
    return re.escape(chr(cp))


def _set(node: Set, utf8: bool, eol: str | None) -> str:
    body = "".join(
        _char(lo) if lo == hi else f"{_char(lo)}-{_char(hi)}" for lo, hi in _clip(node.ranges, utf8)
    )
    if node.negate:
        extra = "" if eol is None else _char(ord(eol))
        if utf8:
            extra += "\\udc80-\\udcff"  # an invalid byte is matched by nothing but itself
        if not body and not extra:
            return "(?s:.)"
        return f"[^{body}{extra}]"
    if eol is not None:
        return _set(Set([r for r in ranges_without(node.ranges, ord(eol))]), utf8, None)
    return f"[{body}]" if body else "[^\\x00-\\U0010ffff]"


def _clip(ranges: list[Range], utf8: bool) -> list[Range]:
    top = 0x10FFFF if utf8 else 0xFF
    out = []
    for lo, hi in ranges:
        if lo > top:
            continue
        hi = min(hi, top)
        if utf8 and lo <= 0xDFFF and hi >= 0xD800:  # surrogates stand for invalid bytes
            if lo < 0xD800:
                out.append((lo, 0xD7FF))
            if hi > 0xDFFF:
                out.append((0xE000, hi))
            continue
        out.append((lo, hi))
    return out


def _atom(node: Node, utf8: bool, eol: str | None) -> str | None:
    if isinstance(node, Lit):
        if utf8 and 0xD800 <= node.cp <= 0xDFFF:
            return None
        return _char(node.cp)
    if isinstance(node, Set):
        return _set(node, utf8, eol)
    return None


def compile_linear(
    tree: Node, *, utf8: bool, icase: bool, eol: str | None, multiline: bool,
) -> re.Pattern[str] | None:
    """A ``re`` pattern for ``tree`` when its shape cannot backtrack, else None."""
    items = tree.items if isinstance(tree, Cat) else [tree]
    if not items or (icase and utf8):
        return None  # (Python's and RE2's Unicode case folding differ at the edges)
    out: list[str] = []
    for k, item in enumerate(items):
        last = k == len(items) - 1
        if isinstance(item, Assert):
            if item.kind == "bol" and k == 0 and eol is None and not multiline:
                out.append("\\A")
                continue
            if item.kind == "eol" and last and eol is None and not multiline:
                out.append("\\Z")
                continue
            return None
        if isinstance(item, Repeat):
            atom = _atom(item.node, utf8, eol)
            if not last or atom is None or item.hi is not None or item.lo > 1:
                return None  # a repeat with anything after it could backtrack
            out.append(atom + ("+" if item.lo else "*"))
            continue
        atom = _atom(item, utf8, eol)
        if atom is None:
            return None
        out.append(atom)
    flags = re.DOTALL | (re.IGNORECASE if icase else 0) | (0 if utf8 else re.ASCII)
    try:
        return re.compile("".join(out), flags)
    except (re.error, OverflowError):
        return None


# -- one anchored attempt (the rest of a pattern after its prefix literal)


def _single_repeat(items: list[Node]) -> bool:
    """Whether ``items`` are single-character atoms with at most one unbounded repeat of an
    atom (``[a-z]*r``): an anchored attempt then backtracks only within that one repeat,
    so it costs O(subject x pattern).  (``re.search`` makes an attempt at every position,
    which for the same shape can be quadratic: only ever *one* attempt is made.)"""
    repeats = 0
    for item in items:
        if isinstance(item, Repeat):
            if item.hi is not None or item.lo > 1 or not isinstance(item.node, Lit | Set):
                return False
            repeats += 1
        elif not isinstance(item, Lit | Set):
            return False
    return repeats <= 1


def _attempt_parts(
    items: list[Node], atom: Callable[[Node], AtomT | None],
) -> list[tuple[AtomT, str]] | None:
    """Each item's atom (by ``atom``) with its quantifier (``""``, ``"*"``, ``"+"``), or
    None when the items do not fit one linear attempt or an atom cannot be said."""
    if not _single_repeat(items):
        return None
    parts = []
    for item in items:
        rep = item if isinstance(item, Repeat) else None
        got = atom(item if rep is None else rep.node)
        if got is None:
            return None
        parts.append((got, "" if rep is None else "+" if rep.lo else "*"))
    return parts


def compile_attempt(items: list[Node], *, utf8: bool) -> re.Pattern[str] | None:
    """A ``re`` pattern for ``items`` (str subjects, no record terminator) to be tried once
    with ``.match`` where the prefix literal before them first occurs, or None.  A success
    is a match of the whole pattern; a failure proves nothing (a later occurrence may
    match), so the caller then asks RE2."""
    parts = _attempt_parts(items, lambda node: _atom(node, utf8, None))
    if parts is None:
        return None
    try:
        return re.compile("".join(a + q for a, q in parts), re.DOTALL | (0 if utf8 else re.ASCII))
    except (re.error, OverflowError):
        return None


def _byte_atom(node: Node, utf8: bool) -> bytes | None:
    """``node`` as a bytes-``re`` atom for one character that is one byte and never the
    newline: ASCII in UTF-8 (a multibyte character or a negated set would be matched by
    bytes, not characters), any byte in the C locale."""
    top = 0x7F if utf8 else 0xFF
    if isinstance(node, Lit):
        if node.cp > top or node.cp == 0x0A:
            return None
        return re.escape(bytes([node.cp]))
    if not isinstance(node, Set) or (node.negate and utf8):
        return None
    ranges = ranges_without(node.ranges, 0x0A) if not node.negate else node.ranges
    if not ranges or any(hi > top for _, hi in ranges):
        return None
    body = b"".join(
        re.escape(bytes([lo])) if lo == hi else re.escape(bytes([lo])) + b"-" + re.escape(
            bytes([hi])) for lo, hi in ranges)
    return b"[^" + body + b"\\n]" if node.negate else b"[" + body + b"]"


def compile_first_attempt_lines(
    prefix: bytes, items: list[Node], *, utf8: bool,
) -> re.Pattern[bytes] | None:
    """grep -c's scanner for a pattern ``prefix`` + ``items``: ``findall`` over a buffer of
    newline-ended lines yields, for each line holding ``prefix``, ``b""`` when one attempt
    of ``items`` right after the prefix's first occurrence matched (the line matches), else
    the rest of the line after the prefix with its newline (RE2 decides that line).  Each
    line costs one attempt, so the scan is linear; None when ``items`` do not fit."""
    parts = _attempt_parts(items, lambda node: _byte_atom(node, utf8))
    if parts is None:
        return None
    body = b"".join(a + q.encode() for a, q in parts)
    try:
        return re.compile(re.escape(prefix) + b"(?:" + body + b"[^\\n]*\\n|([^\\n]*\\n))")
    except (re.error, OverflowError):
        return None
