"""POSIX basic regular expressions (with GNU's \\+ \\? \\| extensions) as Python regexes,
for expr's ``:`` operator."""

from __future__ import annotations

_CLASSES = {
    "alpha": "a-zA-Z", "digit": "0-9", "alnum": "a-zA-Z0-9", "upper": "A-Z", "lower": "a-z",
    "space": r" \t\n\r\f\v", "blank": r" \t", "punct": r"!-/:-@\[-`{-~", "xdigit": "0-9A-Fa-f",
    "cntrl": r"\x00-\x1f\x7f", "print": r" -~", "graph": r"!-~",
}


def _bracket(pat: str, i: int) -> tuple[str, int]:
    """Translate ``[...]`` starting at ``pat[i] == '['``; returns (regex, next index)."""
    j = i + 1
    out = ["["]
    if j < len(pat) and pat[j] == "^":
        out.append("^")
        j += 1
    first = True
    while j < len(pat):
        c = pat[j]
        if c == "]" and not first:
            out.append("]")
            return "".join(out), j + 1
        first = False
        if c == "[" and pat[j + 1 : j + 2] in (":", "=", "."):
            kind = pat[j + 1]
            end = pat.find(kind + "]", j + 2)
            if end > 0:
                name = pat[j + 2 : end]
                if kind == ":":
                    if name not in _CLASSES:
                        raise ValueError("invalid character class")
                    out.append(_CLASSES[name])
                else:
                    out.append(_esc(name))
                j = end + 2
                continue
        if c in "\\^[]":
            out.append("\\" + c)
        else:
            out.append(c)
        j += 1
    raise ValueError("unmatched [")


def _esc(text: str) -> str:
    return "".join("\\" + c if c in "\\^[]-" else c for c in text)


def translate(pat: str) -> str:
    out: list[str] = []
    i, n = 0, len(pat)
    at_start = True  # where * is literal and ^ is an anchor
    while i < n:
        c = pat[i]
        if c == "\\" and i + 1 < n:
            d = pat[i + 1]
            i += 2
            if d == "(":
                out.append("(")
                at_start = True
                continue
            if d == ")":
                out.append(")")
            elif d == "|":
                out.append("|")
                at_start = True
                continue
            elif d == "{":
                end = pat.find("\\}", i)
                if end < 0:
                    raise ValueError("unmatched \\{")
                out.append("{" + pat[i:end] + "}")
                i = end + 2
            elif d in "+?":
                out.append(d)
            elif d.isdigit():
                out.append("\\" + d)
            elif d == "n":
                out.append("\n")
            elif d in "wWsSbB":
                out.append("\\" + d)
            elif d == "`":
                out.append(r"\A")
            elif d == "'":
                out.append(r"\Z")
            else:
                out.append("\\" + d if not d.isalnum() else d)
            at_start = False
            continue
        if c == "[":
            text, i = _bracket(pat, i)
            out.append(text)
            at_start = False
            continue
        if c == "*" and at_start:
            out.append(r"\*")
        elif c == "^" and at_start:
            out.append("^")
            i += 1
            continue
        elif c == "$" and (i == n - 1 or pat[i + 1 : i + 3] in ("\\)", "\\|")):
            out.append("$" if i == n - 1 else "(?=\\Z|\n)")
            if i == n - 1:
                out[-1] = r"\Z"
        elif c in ".*":
            out.append(c)
        else:
            out.append("\\" + c if c in "+?{}()|^$" else c)
        at_start = False
        i += 1
    return "".join(out)
