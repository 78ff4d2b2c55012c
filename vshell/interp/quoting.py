"""Quoting text back into shell source: ``${x@Q}``, ``printf %q``, ``set -x`` and
``declare -p`` each quote a little differently, as bash does."""

from __future__ import annotations

from vshell.lazy import lazy_compile, re

_SAFE = lazy_compile(r"[A-Za-z0-9_@%+=:,./-]+\Z")
_NEEDS_ANSI = lazy_compile(r"[\x00-\x1f\x7f\udc80-\udcff]")


# the characters $'…' writes as a letter escape (bash's ansic_quote)
_C_ESCAPES = {"\n": "\\n", "\t": "\\t", "\r": "\\r", "\x1b": "\\E", "\a": "\\a",
              "\b": "\\b", "\f": "\\f", "\v": "\\v", "'": "\\'", "\\": "\\\\"}


def ansi_c(s: str) -> str:
    """``$'…'`` form for text with control characters."""
    out = []
    for ch in s:
        esc = _C_ESCAPES.get(ch)
        o = ord(ch)
        if esc is not None:
            out.append(esc)
        elif o < 0x20 or o == 0x7F:
            out.append(f"\\{o:03o}")
        elif 0xDC80 <= o <= 0xDCFF:
            out.append("\\%03o" % (o - 0xDC00))
        else:
            out.append(ch)
    return "$'" + "".join(out) + "'"


def single_quote(s: str) -> str:
    """``'…'`` with embedded single quotes as ``'\\''`` (``${x@Q}``)."""
    if _NEEDS_ANSI.search(s):
        return ansi_c(s)
    return "'" + s.replace("'", "'\\''") + "'"


def xtrace_quote(s: str) -> str:
    """How ``set -x`` shows one word: bare when safe, else single-quoted."""
    if s and _SAFE.match(s):
        return s
    if s == "'":
        return "\\'"
    if _NEEDS_ANSI.search(s):
        return ansi_c(s)
    return "'" + s.replace("'", "'\\''") + "'"


def printf_q(s: str) -> str:
    """``printf %q``: backslash-escape specials, ``$'…'`` for control characters."""
    if s == "":
        return "''"
    if _NEEDS_ANSI.search(s):
        return ansi_c(s)
    out = []
    for i, ch in enumerate(s):
        if ch.isalnum() or ch in "_@%+=:,./-" or ord(ch) > 127:
            if ch == "~" and i == 0:
                out.append("\\~")
            else:
                out.append(ch)
        elif ch == "~":
            out.append("\\~" if i == 0 else "~")
        else:
            out.append("\\" + ch)
    return "".join(out)


def declare_quote(s: str) -> str:
    """Value quoting of ``declare -p`` / ``${x@A}``: always double quotes."""
    if _NEEDS_ANSI.search(s):
        return ansi_c(s)
    return '"' + re.sub(r'(["\\$`])', r"\\\1", s) + '"'
