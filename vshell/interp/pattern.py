"""Shell patterns for the interpreter: a thin name for :mod:`vshell.text.glob`.

Matching, ``${v#p}``-style trimming and ``${v/p/r}`` substitution all live in the shared
text layer (linear-time, no backtracking); this module only keeps the interpreter's
historical import path.
"""

from __future__ import annotations

from vshell.text.glob import (
    Glob as Matcher,
)
from vshell.text.glob import (
    compile_glob as compile_pattern,
)
from vshell.text.glob import (
    has_magic,
    match,
    remove_prefix,
    remove_suffix,
    replace,
    unescape,
)

__all__ = [
    "Matcher",
    "compile_pattern",
    "has_magic",
    "match",
    "remove_prefix",
    "remove_suffix",
    "replace",
    "unescape",
]
