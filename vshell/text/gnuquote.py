"""GNU's quoting of file names in messages, one implementation for every command.

GNU coreutils quote names in diagnostics in two ways: the shell-escape style of
``quotef``/``quoteaf`` (``'a b'``, ``"it's"``, ``'no'$'\\n''file'``: a name pasted back into
a shell means the same file) and the locale style of ``quote`` (``‘name’`` in a UTF-8
locale, with C escapes for what cannot be printed).  Which one a message uses is per tool
and per message; each command picks the function matching GNU's output.  Raw bytes that are
not UTF-8 arrive as surrogate escapes and are printed as octal escapes, never raw.
"""

from __future__ import annotations

from vshell.lazy import lazy_module

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    import unicodedata
else:  # only a message that quotes a file name asks it anything
    unicodedata = lazy_module("unicodedata")

__all__ = ["locale_quote", "shell_escape", "shell_escape_always"]

# Characters that force quoting in the shell-escape style.
_SHELL_SPECIAL = set(" \t!\"$&'()*;<=>?[\\^`|:")
_SHELL_SPECIAL_START = _SHELL_SPECIAL | {"#", "~"}
_C_ESCAPES = {7: "a", 8: "b", 12: "f", 10: "n", 13: "r", 9: "t", 11: "v"}


def _segments(name: str) -> list[tuple[bool, str]]:
    """Split ``name`` into (printable, text) runs; undecodable bytes are never printable."""
    out: list[tuple[bool, str]] = []
    for ch in name:
        code = ord(ch)
        if 0xDC80 <= code <= 0xDCFF:  # surrogateescape'd raw byte
            ok, text = False, "\\%03o" % (code - 0xDC00)
        elif code < 32 or code == 127 or unicodedata.category(ch) in ("Cc", "Cs", "Cn"):
            ok = False
            text = (
                "\\" + _C_ESCAPES[code]
                if code in _C_ESCAPES
                else "".join(f"\\{b:03o}" for b in ch.encode("utf-8", "surrogateescape"))
            )
        else:
            ok, text = True, ch
        if out and out[-1][0] == ok:
            out[-1] = (ok, out[-1][1] + text)
        else:
            out.append((ok, text))
    return out


def _shell(name: str, always: bool) -> str:
    if name == "":
        return "''"
    segs = _segments(name)
    if len(segs) == 1 and segs[0][0]:
        needs = always or name[0] in _SHELL_SPECIAL_START or any(c in _SHELL_SPECIAL for c in name)
        if not needs:
            return name
        if "'" in name and not any(c in "\"$`\\!" for c in name):
            return '"' + name + '"'
        return "'" + name.replace("'", "'\\''") + "'"
    parts: list[str] = []
    for i, (ok, text) in enumerate(segs):
        if ok:
            parts.append("'" + text.replace("'", "'\\''") + "'")
        else:
            if i == 0:
                parts.append("''")
            parts.append("$'" + text + "'")
    return "".join(parts)


def shell_escape(name: str) -> str:
    """GNU ``quotef``: bare when the shell would read it unchanged, else quoted."""
    return _shell(name, False)


def shell_escape_always(name: str) -> str:
    """GNU ``quoteaf``: always quoted (``'file'``)."""
    return _shell(name, True)


def locale_quote(name: str) -> str:
    """GNU ``quote()`` in a UTF-8 locale: ‘name’ with C-style escapes for unprintables."""
    body = "".join(text for _, text in _segments(name.replace("\\", "\\\\")))
    return "\u2018" + body + "\u2019"
