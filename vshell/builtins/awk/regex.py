"""awk's extended regular expressions, translated to Python's ``re``.

Separate from the shared ``vshell/builtins/_regex.py`` (POSIX BRE/ERE for grep/sed)
because awk's dialect differs: backslash escapes work inside bracket expressions
(``[\\/\\]]``), ``\\n``/``\\t``/``\\ddd``/``\\/``/``\\"`` are literal characters, gawk's
``\\y \\B \\< \\> \\s \\S \\w \\W \\` \\'`` operators exist, and ``.`` matches a newline.
TODO(merge): share the bracket-expression and interval code with ``_regex.py``.
Known gap: Python's alternation is leftmost-first, not POSIX leftmost-longest.
"""

from __future__ import annotations

import re
from typing import Any

_CLASSES = {
    "alpha": r"a-zA-Z", "digit": r"0-9", "alnum": r"a-zA-Z0-9",
    "upper": "A-Z\u00c0-\u00d6\u00d8-\u00de\u0391-\u03a9\u0410-\u042f",
    "lower": "a-z\u00df-\u00f6\u00f8-\u00ff\u03b1-\u03c9\u0430-\u044f",
    "space": r"\s", "blank": r" \t", "punct": r"!-/:-@\[-`{-~",
    "print": r" -~\u00a0-\U0010ffff", "graph": r"!-~\u00a1-\U0010ffff",
    "cntrl": r"\x00-\x1f\x7f", "xdigit": r"0-9A-Fa-f", "word": r"\w",
}
# classes Python cannot put inside brackets: letters in every script (a UTF-8 locale)
_EXTRA = {"alpha": r"[^\W\d_]", "alnum": r"[^\W_]"}
_SIMPLE_ESC = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v", "a": "\a", "b": "\b"}
_GNU_OPS = {
    "y": r"\b", "B": r"\B", "<": r"\b(?=\w)", ">": r"\b(?<=\w)", "s": r"\s", "S": r"\S",
    "w": r"\w", "W": r"\W", "`": r"\A", "'": r"\Z",
}
_HEX = set("0123456789abcdefABCDEF")
_INTERVAL = re.compile(r"\{(\d+)(,(\d*))?\}")


class AwkRegexError(ValueError):
    pass


def _lit(ch: str) -> str:
    return re.escape(ch)


def _class_char(src: str, j: int) -> tuple[str, int]:
    """One (possibly escaped) character inside a bracket expression."""
    n = len(src)
    c = src[j]
    if c != "\\" or j + 1 >= n:
        return c, j + 1
    d = src[j + 1]
    if d in _SIMPLE_ESC:
        return _SIMPLE_ESC[d], j + 2
    if d in "01234567":
        k = j + 1
        while k < n and k < j + 4 and src[k] in "01234567":
            k += 1
        return chr(int(src[j + 1 : k], 8)), k
    if d == "x" and j + 2 < n and src[j + 2] in _HEX:
        k = j + 2
        while k < n and k < j + 4 and src[k] in _HEX:
            k += 1
        return chr(int(src[j + 2 : k], 16)), k
    return d, j + 2


def _bracket(src: str, i: int) -> tuple[str, int]:
    """Translate the bracket expression starting at src[i] == '['; returns (text, next)."""
    n = len(src)
    j = i + 1
    negate = False
    if j < n and src[j] == "^":
        negate = True
        j += 1
    items: list[str] = []
    extras: list[str] = []
    first = True
    while True:
        if j >= n:
            raise AwkRegexError("Unmatched [, [^, [:, [., or [=")
        c = src[j]
        if c == "]" and not first:
            j += 1
            break
        first = False
        if c == "[" and j + 1 < n and src[j + 1] in ":.=":
            kind = src[j + 1]
            end = src.find(kind + "]", j + 2)
            if end < 0:
                raise AwkRegexError("Unmatched [, [^, [:, [., or [=")
            name = src[j + 2 : end]
            j = end + 2
            if kind == ":":
                if name not in _CLASSES:
                    raise AwkRegexError("Invalid character class name")
                items.append(_CLASSES[name])
                if name in _EXTRA:
                    extras.append(_EXTRA[name])
            else:
                items.append("".join(_lit_in_class(ch) for ch in name))
            continue
        ch, j = _class_char(src, j)
        if j + 1 < n and src[j] == "-" and src[j + 1] != "]":
            if src.startswith("[.", j + 1):
                end = src.find(".]", j + 3)
                hi, k = src[j + 3 : end], end + 2
            else:
                hi, k = _class_char(src, j + 1)
            j = k
            if ord(hi[:1] or "\0") >= ord(ch):
                items.append(_lit_in_class(ch) + "-" + _lit_in_class(hi[:1]))
            continue  # a reversed range matches nothing
        items.append(_lit_in_class(ch))
    body = "".join(items)
    if extras:
        alts = "|".join(([f"[{body}]"] if body else []) + extras)
        return (f"(?!{alts})[\\s\\S]" if negate else f"(?:{alts})"), j
    if not body:
        return ("[^\\s\\S]" if not negate else "[\\s\\S]"), j
    return ("[^" if negate else "[") + body + "]", j


def _lit_in_class(ch: str) -> str:
    if ch in "\\]^-[":
        return "\\" + ch
    return ch


def translate(src: str) -> str:
    """The Python pattern text for awk ERE ``src``."""
    return _translate(src)[0]


def _translate(src: str) -> tuple[str, bool]:
    """(Python pattern text, whether ``src`` has an alternation)."""
    has_alt = False
    out: list[str] = []
    i, n = 0, len(src)
    # can a quantifier apply here? (not at the start, after "(" or "|")
    can_repeat = False
    last_was_quant = False
    depth = 0
    while i < n:
        c = src[i]
        if c == "\\":
            if i + 1 >= n:
                out.append("\\\\")
                i += 1
                can_repeat, last_was_quant = True, False
                continue
            d = src[i + 1]
            if d in _SIMPLE_ESC:
                out.append(_lit(_SIMPLE_ESC[d]))
                i += 2
            elif d in "01234567":
                k = i + 1
                while k < n and k < i + 4 and src[k] in "01234567":
                    k += 1
                out.append(_lit(chr(int(src[i + 1 : k], 8))))
                i = k
            elif d == "x" and i + 2 < n and src[i + 2] in _HEX:
                k = i + 2
                while k < n and k < i + 4 and src[k] in _HEX:
                    k += 1
                out.append(_lit(chr(int(src[i + 2 : k], 16))))
                i = k
            elif d in _GNU_OPS:
                out.append(_GNU_OPS[d])
                i += 2
            else:
                out.append(_lit(d))
                i += 2
            can_repeat, last_was_quant = True, False
            continue
        if c == "[":
            text, i = _bracket(src, i)
            out.append(text)
            can_repeat, last_was_quant = True, False
            continue
        if c in "*+?":
            if not can_repeat:
                out.append(_lit(c))
                can_repeat, last_was_quant = True, False
            elif last_was_quant:
                pass  # a** == a*
            else:
                out.append(c)
                last_was_quant = True
            i += 1
            continue
        if c == "{":
            m = _INTERVAL.match(src, i)
            if m and can_repeat and not last_was_quant:
                lo = m.group(1)
                if m.group(2) and m.group(3) and int(m.group(3)) < int(lo):
                    raise AwkRegexError("Invalid content of \\{\\}")
                out.append(m.group())
                i = m.end()
                last_was_quant = True
                continue
            out.append("\\{")
            i += 1
            can_repeat, last_was_quant = True, False
            continue
        if c == "(":
            depth += 1
            out.append("(")
            i += 1
            can_repeat, last_was_quant = False, False
            continue
        if c == ")":
            if depth == 0:
                out.append("\\)")
                can_repeat, last_was_quant = True, False
                i += 1
                continue
            depth -= 1
            out.append(")")
            i += 1
            can_repeat, last_was_quant = True, False
            continue
        if c == "|":
            has_alt = True
            out.append("|")
            i += 1
            can_repeat, last_was_quant = False, False
            continue
        if c == "^":
            out.append("^")
            i += 1
            can_repeat, last_was_quant = False, False
            continue
        if c == "$":
            out.append(r"\Z")
            i += 1
            can_repeat, last_was_quant = False, False
            continue
        if c == ".":
            out.append(".")
        else:
            out.append(_lit(c))
        i += 1
        can_repeat, last_was_quant = True, False
    if depth:
        raise AwkRegexError("Unmatched ( or \\(")
    return "".join(out), has_alt


_cache: dict[tuple[str, bool], Any] = {}


def compile_ere(src: str, icase: bool = False) -> Any:
    """Compile (and cache) an awk ERE: a ``re.Pattern``, or a LongestPattern wrapping one
    when alternatives of different lengths make leftmost-longest matter."""
    key = (src, icase)
    pat = _cache.get(key)
    if pat is None:
        flags = re.S | (re.I if icase else 0)
        text, has_alt = _translate(src)
        try:
            pat = re.compile(text, flags)
        except re.error as e:
            raise AwkRegexError(str(e)) from None
        width = _longest_width(text, flags) if has_alt else None
        if width is not None:
            pat = LongestPattern(pat, width)
        if len(_cache) > 500:
            _cache.clear()
        _cache[key] = pat
    return pat


class LongestPattern:
    """A compiled ERE with alternation, matching leftmost-longest as POSIX awk does.

    Python's ``re`` takes the first alternative that matches; awk the longest match at
    the leftmost position.  A match found by ``re`` is extended by trying later end points
    (up to the pattern's maximum width, at most LIMIT characters).  Patterns anchored at
    the end or on word boundaries are not extended (``endpos`` would fake the end).
    """

    LIMIT = 256

    def __init__(self, pat: re.Pattern[str], width: int) -> None:
        self.fast = pat
        self.groups = pat.groups
        self.pattern = pat.pattern
        self.width = width

    def _extend(self, m: re.Match[str] | None, s: str) -> re.Match[str] | None:
        if m is None:
            return None
        start = m.start()
        top = min(len(s), start + self.width)
        fullmatch = self.fast.fullmatch
        for e in range(top, m.end(), -1):
            longer = fullmatch(s, start, e)
            if longer is not None:
                return longer
        return m

    def search(self, s: str, pos: int = 0) -> re.Match[str] | None:
        return self._extend(self.fast.search(s, pos), s)

    def finditer(self, s: str):
        pos = 0
        n = len(s)
        while pos <= n:
            m = self._extend(self.fast.search(s, pos), s)
            if m is None:
                return
            yield m
            pos = m.end() if m.end() > m.start() else m.end() + 1

    def split(self, s: str) -> list[str]:
        parts: list[str] = []
        last = 0
        for m in self.finditer(s):
            if m.end() == m.start():
                continue
            parts.append(s[last : m.start()])
            last = m.end()
        parts.append(s[last:])
        return parts


def _longest_width(translated: str, flags: int) -> int | None:
    """The match width bound when leftmost-longest can differ, else None."""
    if "|" not in translated:
        return None
    if "\\Z" in translated or "\\b" in translated or "\\B" in translated:
        return None
    try:
        from re import _parser  # type: ignore[attr-defined]

        lo, hi = _parser.parse(translated, flags).getwidth()
    except Exception:  # noqa: BLE001 - the bound is an optimisation only
        return LongestPattern.LIMIT
    if lo == hi:
        return None
    return min(hi, LongestPattern.LIMIT)
