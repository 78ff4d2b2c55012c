"""fnmatch(3) patterns as find -name/-path and tree use them, compiled to Python regexes.

Unlike :mod:`fnmatch` this honours backslash escapes, ``[!…]`` and ``[^…]``, POSIX classes
such as ``[[:digit:]]``, and (without FNM_PATHNAME, as find uses it) lets ``*`` match ``/``.
"""

from __future__ import annotations

import functools
import re

_CLASSES = {
    "alpha": "a-zA-Z", "digit": "0-9", "alnum": "a-zA-Z0-9", "upper": "A-Z", "lower": "a-z",
    "space": r" \t\n\r\f\v", "blank": r" \t", "punct": r"!-/:-@\[-`{-~", "xdigit": "0-9A-Fa-f",
    "cntrl": r"\x00-\x1f\x7f", "print": r" -~", "graph": r"!-~",
}


@functools.lru_cache(maxsize=512)
def compile_glob(pattern: str, icase: bool = False) -> re.Pattern[str]:
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        i += 1
        if c == "*":
            out.append(".*")
        elif c == "?":
            out.append(".")
        elif c == "\\" and i < n:
            out.append(re.escape(pattern[i]))
            i += 1
        elif c == "[":
            j = i
            negate = False
            if j < n and pattern[j] in "!^":
                negate = True
                j += 1
            items: list[str] = []
            first = True
            closed = False
            while j < n:
                ch = pattern[j]
                if ch == "]" and not first:
                    closed = True
                    j += 1
                    break
                first = False
                if ch == "[" and pattern[j + 1 : j + 2] == ":":
                    end = pattern.find(":]", j + 2)
                    if end > 0 and pattern[j + 2 : end] in _CLASSES:
                        items.append(_CLASSES[pattern[j + 2 : end]])
                        j = end + 2
                        continue
                if ch == "\\" and j + 1 < n:
                    items.append(re.escape(pattern[j + 1]))
                    j += 2
                    continue
                if pattern[j + 1 : j + 2] == "-" and j + 2 < n and pattern[j + 2] != "]":
                    items.append(re.escape(ch) + "-" + re.escape(pattern[j + 2]))
                    j += 3
                    continue
                items.append(re.escape(ch))
                j += 1
            if not closed:
                out.append(r"\[")
                continue
            out.append("[" + ("^" if negate else "") + "".join(items) + "]")
            i = j
        else:
            out.append(re.escape(c))
    flags = re.DOTALL | (re.IGNORECASE if icase else 0)
    return re.compile("".join(out) + r"\Z", flags)


def match(pattern: str, text: str, icase: bool = False) -> bool:
    return compile_glob(pattern, icase).match(text) is not None
