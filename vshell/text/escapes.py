"""C-style backslash escapes, decoded the way bash decodes them in each of its four places.

One scanner with four modes, because bash itself differs by place (checked against bash
5.2 in ``tests/unit/test_escapes.py``), and a fifth for awk's string literals:

========  ========  ==============  ============  ==========  ===============
mode      ``\\NNN``   ``\\0NNN``        ``\\' \\" \\?``  ``\\cX``      bad ``\\x``/``\\u``
========  ========  ==============  ============  ==========  ===============
ANSI_C    octal     ``\\0NN`` + rest  the char      control X   kept, silent
ECHO      kept      octal           kept          stop        kept, silent
PRINTF    octal     ``\\0NN`` + rest  the char      kept        kept, complaint
PRINTF_B  octal     octal           kept          stop        kept, complaint
AWK       octal     ``\\0NN`` + rest  ``\\"`` only    plain c     plain x
========  ========  ==============  ============  ==========  ===============

(``ANSI_C`` is ``$'…'`` and ``${v@E}``; ``ECHO`` is ``echo -e``; ``PRINTF`` the format
string; ``PRINTF_B`` the ``%b`` argument.)  Bytes that are not ASCII are returned as
surrogate-escaped characters; a byte sequence spelling valid UTF-8 (``\\xce\\xbc``) becomes
that character.  ``AWK`` is gawk's string literal: ``\\/`` is a slash, ``\\e`` and ``\\u``
are not escapes, a backslash-newline vanishes, an unknown escape is its plain character
with a warning in ``errors``; ``\\NNN`` and ``\\xHH`` are bytes there too, as gawk writes
them.  ``\\u``/``\\U`` past Unicode give the bytes bash gives (the original 6-byte UTF-8
scheme up to ``0x7FFFFFFF``, nothing above).
"""

from __future__ import annotations

from vshell.lazy import lazy_compile
from vshell.records import record

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    import re

__all__ = [
    "ANSI_C", "AWK", "ECHO", "PRINTF", "PRINTF_B", "Decoded", "decode", "normalize_bytes",
    "sed_numeric_escapes",
]

ANSI_C = "ansi-c"
ECHO = "echo"
PRINTF = "printf"
PRINTF_B = "printf-b"
AWK = "awk"

_SIMPLE = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r",
           "t": "\t", "v": "\v", "\\": "\\"}
_AWK_SIMPLE = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
               "\\": "\\", '"': '"', "/": "/"}
_QUOTES = {"'": "'", '"': '"', "?": "?"}
_OCT = "01234567"
_HEX = "0123456789abcdefABCDEF"


@record(frozen=True)
class Decoded:
    text: str
    stop: bool = False  # a \c that ends all output (echo -e, %b)
    errors: tuple[str, ...] = ()  # printf's complaints, e.g. "missing hex digit for \x"


def normalize_bytes(text: str) -> str:
    """Escaped bytes that together spell valid UTF-8 (``\\xce\\xbc``) become that character."""
    if not any("\udc80" <= c <= "\udcff" for c in text):
        return text
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "surrogateescape")


def _byte(v: int) -> str:
    return chr(v) if v < 0x80 else bytes([v]).decode("utf-8", "surrogateescape")


def _code_point(cp: int) -> str:
    """What bash prints for ``\\u``/``\\U`` with value ``cp`` in a UTF-8 locale."""
    if cp < 0xD800 or 0xE000 <= cp <= 0x10FFFF:
        return chr(cp)
    if cp >= 0x80000000:
        return ""
    # surrogates and values past Unicode: the original (RFC 2279) UTF-8 bytes
    nbytes = 3 if cp < 0x10000 else 4 if cp < 0x200000 else 5 if cp < 0x4000000 else 6
    lead = (0xE0, 0xF0, 0xF8, 0xFC)[nbytes - 3]
    out = [0] * nbytes
    for k in range(nbytes - 1, 0, -1):
        out[k] = 0x80 | (cp & 0x3F)
        cp >>= 6
    out[0] = lead | cp
    return bytes(out).decode("utf-8", "surrogateescape")


def _digits(s: str, i: int, allowed: str, limit: int) -> int:
    """End of the run of at most ``limit`` ``allowed`` characters starting at ``i``."""
    k = i
    n = len(s)
    while k < n and k - i < limit and s[k] in allowed:
        k += 1
    return k


def _plain(e: str, errors: list[str]) -> str:
    """awk: an escape it does not know stands for its character, with gawk's warning."""
    errors.append(f"escape sequence `\\{e}' treated as plain `{e}'")
    return e


def decode(s: str, mode: str) -> Decoded:
    """Decode the escapes of ``s`` as bash does in ``mode`` (see the module's table)."""
    awk = mode == AWK
    simple = _AWK_SIMPLE if awk else _SIMPLE
    out: list[str] = []
    errors: list[str] = []
    i, n = 0, len(s)
    while i < n:
        c = s[i]
        if c != "\\" or i + 1 >= n:
            out.append(c)
            i += 1
            continue
        e = s[i + 1]
        i += 2
        if e in simple:
            out.append(simple[e])
        elif e in _QUOTES and not awk:
            out.append(_QUOTES[e] if mode in (ANSI_C, PRINTF) else "\\" + e)
        elif e in _OCT:
            if mode == ECHO and e != "0":
                out.append("\\" + e)
                continue
            if mode in (ECHO, PRINTF_B) and e == "0":
                k = _digits(s, i, _OCT, 3)
                out.append(_byte(int(s[i:k] or "0", 8) & 0xFF))
            else:
                k = _digits(s, i - 1, _OCT, 3)
                out.append(_byte(int(s[i - 1:k], 8) & 0xFF))
            i = k
        elif e == "x":
            k = _digits(s, i, _HEX, 2)
            if k != i:
                out.append(_byte(int(s[i:k], 16)))
                i = k
            elif awk:
                out.append(_plain(e, errors))
            else:
                out.append("\\x")
                if mode in (PRINTF, PRINTF_B):
                    errors.append("missing hex digit for \\x")
        elif awk:
            if e != "\n":  # a backslash-newline vanishes
                out.append(_plain(e, errors))
        elif e in "uU":
            k = _digits(s, i, _HEX, 4 if e == "u" else 8)
            if k == i:
                out.append("\\" + e)
                if mode in (PRINTF, PRINTF_B):
                    errors.append(f"missing unicode digit for \\{e}")
            else:
                out.append(_code_point(int(s[i:k], 16)))
                i = k
        elif e == "c":
            if mode in (ECHO, PRINTF_B):
                return Decoded(normalize_bytes("".join(out)), True, tuple(errors))
            if mode == ANSI_C and i < n:
                x = s[i]
                out.append("\x7f" if x == "?" else chr(ord(x) & 0x1F))
                # "\c\\" is one control character: the escaped backslash is consumed whole
                i += 2 if x == "\\" and i + 1 < n and s[i + 1] == "\\" else 1
            else:
                out.append("\\c")
        else:
            out.append("\\" + e)
    text = "".join(out)
    return Decoded(normalize_bytes(text), False, tuple(errors))


_SED_ESCAPE = lazy_compile(
    r"(?s)\\(?:d([0-9]{1,3})|o([0-7]{1,3})|x([0-9a-fA-F]{1,2})|c(.)|(.))"
)


def _sed_escape(m: re.Match[str]) -> str:
    dec, octal, hexa, ctrl, other = m.groups()
    if other is not None:
        return m.group(0)
    if ctrl is not None:
        return chr(ord(ctrl.upper()) ^ 0x40)
    if dec is not None:
        return chr(int(dec) & 0xFF)
    return chr(int(octal, 8) & 0xFF) if octal is not None else chr(int(hexa, 16))


def sed_numeric_escapes(pattern: str) -> str:
    """GNU sed's numeric escapes in a regex or replacement: ``\\dNNN \\oNNN \\xHH \\cX``.

    The character produced goes into the regex as is (GNU's ``\\x2e`` is a ``.`` that
    matches any character); every other escape, ``\\\\`` included, is kept as written for
    the regex compiler.  Unlike ``decode``, values are code points, not bytes.
    """
    if "\\" not in pattern:
        return pattern
    return _SED_ESCAPE.sub(_sed_escape, pattern)
