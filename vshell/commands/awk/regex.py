"""awk's regular expressions: gawk's ERE dialect from the shared layer
(:mod:`vshell.text.regex`, dialect ``awk``) -- RE2, leftmost-longest, linear time."""

from __future__ import annotations

from vshell.text import regex

AwkRegexError = regex.RegexError


def compile_ere(src: str, icase: bool = False) -> regex.Regex:
    """Compile (cached) an awk ERE; AwkRegexError with glibc's message if invalid."""
    return regex.compile(src, "awk", icase=icase)
