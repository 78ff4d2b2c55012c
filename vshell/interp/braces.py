"""Brace expansion (``a{b,c}d``, ``{1..10..2}``, ``{a..e}``) on a raw shell word.

Brace expansion is the first expansion and works on the word exactly as written, so the
input and every output item keep their quotes, ``$'…'``, ``${…}``, ``$(…)`` and backticks
for the later stages.  Nothing inside quotes, ``${…}`` or a command substitution is
expanded, a backslash makes the next character literal, and anything that is not a valid
brace expression stays as written — the rules below follow bash's scanner closely, since
scripts rely on its corner cases (``{a}`` and ``{}`` are literal, ``{a}b,c}`` is not).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

__all__ = ["BraceExpansionError", "MAX_WORDS", "expand"]

#: Cap on the words one expansion may produce.  Bash only stops near INT_MAX, but a
#: sandbox must not let ``{1..999999999}`` or ``{1..999}{1..999}{1..999}`` eat the host's
#: memory; past this, expansion fails with bash's out-of-memory message.
MAX_WORDS = 4_000_000
#: Words made between two calls of the caller's cancel check (a few milliseconds of work).
_BLOCK = 65536

# the cancel check of the expansion running on this thread, set for that one call and restored
# after it (a dynamic scope, not state a later run or another session could see)
_local = threading.local()

_INTMAX = (1 << 63) - 1
_INTMIN = -(1 << 63)
_INT_MAX = (1 << 31) - 1
_BRACE_WS = " \t\n"


class BraceExpansionError(Exception):
    """Raised when an expansion would exceed :data:`MAX_WORDS`; str() is the message."""

    def __init__(self, count: int) -> None:
        super().__init__(f"brace expansion: failed to allocate memory for {count} elements")
        self.count = count  # the words asked for


def _is_brace_ws(text: str, i: int) -> bool:
    """Blank or end of text, the places where a lone ``{`` is not an expansion."""
    return i >= len(text) or text[i] in _BRACE_WS


def _skip_comsub(text: str, i: int) -> int:
    """Index just past the ``)`` closing the substitution whose ``(`` is at ``i`` (the end
    of the text when none does), read as bash's reader reads a ``$( )`` body."""
    from vshell.syntax.words import find_close_paren

    return min(find_close_paren(text, i + 1) + 1, len(text))


def _gobble(text: str, i: int, satisfy: str) -> tuple[int, bool]:
    """Scan from ``i`` for an unquoted ``satisfy`` at brace level 0.

    Returns ``(index, found)``.  Looking for ``}`` only succeeds once a top-level ``,``
    or ``..`` has been seen, which is what makes ``{a}`` literal.
    """
    level = 0
    quoted = ""
    seps = 0 if satisfy == "}" else 1
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\" and quoted in ("", '"', "`"):
            i += 2
            continue
        if c == "$" and i + 1 < n and text[i + 1] == "{" and quoted != "'":
            i += 2  # ${ is treated like \{ ... and its } closes a level
            if not quoted:
                level += 1
            continue
        if quoted:
            if c == quoted:
                quoted = ""
            elif quoted == '"' and c == "$" and i + 1 < n and text[i + 1] == "(":
                i = _skip_comsub(text, i + 1)
                continue
            i += 1
            continue
        if c in "\"'`":
            quoted = c
            i += 1
            continue
        if c in "$<>" and i + 1 < n and text[i + 1] == "(":
            i = _skip_comsub(text, i + 1)
            continue
        if c == satisfy and level == 0 and seps > 0:
            # a { standing alone between blanks (or before }) is an ordinary character
            if c == "{" and (i == 0 or _is_brace_ws(text, i - 1)) and (
                _is_brace_ws(text, i + 1) or text[i + 1] == "}"
            ):
                i += 1
                continue
            return i, True
        if c == "{":
            level += 1
        elif c == "}" and level:
            level -= 1
        elif satisfy == "}" and level == 0 and (
            c == "," or (text.startswith("..", i) and text[i + 2:i + 3] != "}")
        ):
            seps += 1
        i += 1
    return n, False


def _check() -> None:
    check = getattr(_local, "check", None)
    if check is not None:
        check()


def _cross(left: list[str], right: list[str], limit: int = MAX_WORDS) -> list[str]:
    if len(left) * len(right) > limit:
        raise BraceExpansionError(len(left) * len(right))
    if left == [""]:
        return right
    if right == [""]:
        return left
    out: list[str] = []
    for a in left:
        for k in range(0, len(right), _BLOCK):
            _check()
            out.extend([a + b for b in right[k:k + _BLOCK]])
    return out


def expand(raw: str, check: Callable[[], None] | None = None) -> list[str]:
    """Brace-expand one raw word; a word without a valid brace expression is ``[raw]``.

    ``check`` (the run's cancel check) is called every few thousand words made.
    Raises :class:`BraceExpansionError` past :data:`MAX_WORDS` results.
    """
    if "{" not in raw:
        return [raw]
    outer = getattr(_local, "check", None)
    _local.check = check
    try:
        return _expand(raw, MAX_WORDS)
    finally:
        _local.check = outer


def _expand(text: str, limit: int) -> list[str]:
    """The expansion of ``text``; past ``limit`` words (what the words already made leave of
    MAX_WORDS) it is refused before the words are made."""
    i = 0
    while True:
        i, found = _gobble(text, i, "{")
        if not found:
            return [text]
        if _gobble(text, i + 1, "}")[1]:
            break
        i += 1  # this { has no partner: look for the next one
    preamble = text[:i]
    start = i + 1
    i, _ = _gobble(text, start, "}")
    amble = text[start:i]
    tack: list[str] | None
    if not _has_comma(amble):
        tack = _sequence(amble, limit)
        if tack is None:
            if i + 1 >= len(text):
                return [text]
            tack = [text[start - 1:i + 1]]  # keep the braces, still expand what follows
    else:
        tack = _expand_amble(amble, limit)
    result = _cross([preamble], tack, limit)
    post = text[i + 1:]
    if post:
        try:
            tail = _expand(post, max(1, limit // len(result)))
        except BraceExpansionError as e:  # refused early: say how many the word asks for
            raise BraceExpansionError(e.count * len(result)) from None
        result = _cross(result, tail, limit)
    return result


def _has_comma(amble: str) -> bool:
    """An unescaped comma anywhere (bash does not look at quotes for this test)."""
    j, n = 0, len(amble)
    while j < n:
        if amble[j] == "\\":
            j += 2
            continue
        if amble[j] == ",":
            return True
        j += 1
    return False


def _expand_amble(amble: str, limit: int) -> list[str]:
    out: list[str] = []
    start = 0
    while True:
        i, found = _gobble(amble, start, ",")
        out.extend(_expand(amble[start:i], limit))
        if not found:
            return out
        start = i + 1


def _strtoimax(s: str, i: int) -> tuple[int, int, bool]:
    """C ``strtoimax(s+i, &end, 10)``: value, end index, overflowed."""
    n = len(s)
    j = i
    while j < n and s[j] in " \t\n\r\f\v":
        j += 1
    sign = 1
    if j < n and s[j] in "+-":
        sign = -1 if s[j] == "-" else 1
        j += 1
    k = j
    while k < n and "0" <= s[k] <= "9":
        k += 1
    if k == j:
        return 0, i, False  # no digits: nothing converted
    v = sign * int(s[j:k])
    if v > _INTMAX:
        return _INTMAX, k, True
    if v < _INTMIN:
        return _INTMIN, k, True
    return v, k, False


def _legal_number(s: str) -> int | None:
    v, end, over = _strtoimax(s, 0)
    if over or end == 0:
        return None
    while end < len(s) and s[end] in " \t":
        end += 1
    return v if end == len(s) else None


def _sequence(amble: str, limit: int = MAX_WORDS) -> list[str] | None:
    """``x..y[..incr]`` for integers or single letters; None when not a valid sequence."""
    dots = amble.find("..")
    if dots < 0:
        return None
    lhs, rhs = amble[:dots], amble[dots + 2:]
    if not lhs or not rhs:
        return None
    lnum = _legal_number(lhs)
    ltype = "int" if lnum is not None else (
        "char" if len(lhs) == 1 and lhs.isascii() and lhs.isalpha() else "bad"
    )
    if rhs[0].isdigit() and rhs[0].isascii() or (
        rhs[0] in "+-" and len(rhs) > 1 and "0" <= rhs[1] <= "9"
    ):
        rtype = "int"
        rnum, ep, over = _strtoimax(rhs, 0)
        if over or (ep < len(rhs) and rhs[ep] != "."):
            rtype = "bad"
    elif rhs[0].isascii() and rhs[0].isalpha() and (len(rhs) == 1 or rhs[1] == "."):
        rtype, rnum, ep = "char", 0, 1
    else:
        return None
    incr = 1
    rhs_len = ep
    if rtype != "bad":
        if rhs.startswith("..", ep) and ep + 2 < len(rhs):
            incr, ep, over = _strtoimax(rhs, ep + 2)
            if over:
                rtype = "bad"
        if ep != len(rhs):
            rtype = "bad"
    if ltype != rtype or ltype == "bad":
        return None
    if ltype == "char":
        return _mkseq(ord(lhs), ord(rhs[0]), incr, "char", 1, limit)
    assert lnum is not None
    width = 0
    kind = "int"
    llen = len(lhs)
    if llen > 1 and lhs[0] == "0" or llen > 2 and lhs.startswith("-0"):
        width, kind = llen, "zint"
    if (rhs_len > 1 and rhs[0] == "0" or rhs_len > 2 and rhs.startswith("-0")) and width < rhs_len:
        width, kind = rhs_len, "zint"
    if kind == "zint":
        width = max(width, llen, rhs_len)
    return _mkseq(lnum, rnum, incr, kind, width, limit)


def _mkseq(start: int, end: int, incr: int, kind: str, width: int,
           limit: int = MAX_WORDS) -> list[str] | None:
    if incr == 0:
        incr = 1
    if start > end and incr > 0:
        incr = -incr
    elif start < end and incr < 0:
        if incr == _INTMIN:
            return None
        incr = -incr
    diff = end - start
    if not _INTMIN + 3 <= diff <= _INTMAX - 2:
        return None
    if abs(diff) // abs(incr) > _INT_MAX - 3:
        return None
    count = abs(diff) // abs(incr) + 1
    if count > limit:
        raise BraceExpansionError(count)
    out: list[str] = []
    if kind == "int":  # in blocks: ``map(str, range)`` runs in C, a block at a time
        for k in range(0, count, _BLOCK):
            _check()
            out.extend(map(str, range(start + k * incr, start + min(count, k + _BLOCK) * incr,
                                      incr)))
        return out
    n = start
    while True:
        if len(out) % _BLOCK == 0:
            _check()
        if kind == "int":
            out.append(str(n))
        elif kind == "zint":
            v = (n + (1 << 31)) % (1 << 32) - (1 << 31)  # bash passes it through an int
            out.append(f"{v:0{width}d}" if v >= 0 else "-" + f"{-v:0{width - 1}d}")
        else:
            out.append(chr(n))
        if not _INTMIN <= n + incr <= _INTMAX:
            break
        n += incr
        if (incr < 0 and n < end) or (incr > 0 and n > end):
            break
    return out
