"""Parsing is linear in the input: long double-quoted strings, words and lines.

The double-quoted reader is checked against bashlex's own reader on tricky bodies (same
text, same end position, same error), and its speed by the ratio of 2 MB to 1 MB, which
stays near 2 for linear work and passed 3.5 with the old quadratic reader.
"""

from __future__ import annotations

import time

import pytest

from vshell.syntax import parse
from vshell.syntax.shim.base import btok
from vshell.syntax.shim.dquote import read_double_quoted
from vshell.syntax.shim.tokens import Tokenizer

BODIES = [
    'abc"', 'a\\"b"', 'a\\\nb"', 'a\\\\"', '$(echo "x)")"', '${a:-"b}"}"', '`echo "a"`"',
    '$[1+2]"', '$"', '$$"', 'a$ b"', '\\$(x"', "it's\"", '$((1+(2)))"', '${a//x/"y"}"',
    '$(a\n# c )\nb)"', 'x\n\ny"', '$\\\n(a)"', '\\`x"', '${#a[@]}"', '$(( $(b) ))"',
]


def _read(body: str, reader) -> tuple[str, int] | str:
    tok = Tokenizer('"' + body + "\n")
    tok._shell_input_line_index = 1
    try:
        return reader(tok), tok._shell_input_line_index
    except btok.MatchedPairError as e:
        return f"error: {e}"


@pytest.mark.parametrize("body", [*BODIES, "abc", "a$(b", "a`b"])
def test_double_quoted_reader_matches_bashlex(body: str) -> None:
    def theirs(tok) -> str:
        return btok.tokenizer._parse_matched_pair(tok, '"', '"', '"')

    assert _read(body, read_double_quoted) == _read(body, theirs)


def _seconds(source: str) -> float:
    t0 = time.perf_counter()
    parse(source)
    return time.perf_counter() - t0


@pytest.mark.parametrize("make", [
    lambda n: 'echo "' + "a" * n + '"',
    lambda n: 'echo "' + "ab\n" * (n // 3) + '"',
    lambda n: 'echo "x' + "a" * n + ' $(echo hi) ${v:-w} `date`"',
    lambda n: "echo '" + "a" * n + "'",
    lambda n: "echo " + "a" * n,
], ids=["dq", "dq-lines", "dq-subst", "sq", "word"])
def test_two_megabytes_parse_in_about_twice_the_time_of_one(make) -> None:
    one, two = make(1 << 20), make(2 << 20)
    t1 = min(_seconds(one) for _ in range(2))
    t2 = min(_seconds(two) for _ in range(2))
    assert t2 < 4 * t1 + 0.05, f"1 MB {t1:.2f}s, 2 MB {t2:.2f}s"
    assert t2 < 5.0  # one 2 MB literal must not cost a run's whole timeout
