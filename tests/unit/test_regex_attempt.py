"""The one-attempt shortcut (``linear.compile_attempt``, grep -c's first-attempt scanner):
it must agree with a per-line RE2 search everywhere and stay linear on inputs where
``re.search`` of the same shape would be quadratic."""

from __future__ import annotations

import random
import time

import pytest

from vshell.text.regex import compile, encode, linear, shortcut
from vshell.text.regex.parse import parse

PATTERNS = [
    "err[a-z]*r", "ab[a-z]*c", "err.r", "err[^a-z]*r", "x[0-9]+y", "err[a-z]*", "ab*",
    "e[rx]r*o", "er[[:alpha:]]*r x", "é[a-z]*r", "ab[^c]*c",
]
LINES = [
    "error here", "err only", "berr xr", "erra errxr", "errr", "", "nothing", "abab abxc",
    "abababab", "x12y x1", "err-r", "err- errxr", "é err r", "éxr éyyr", "err\udcffr",
    "ab\udcffc", "abc", "ac ab", "err\tr", "xy x9y", "erro", "eroo err", "errr x",
]


def _lines_blob(utf8: bool) -> bytes:
    return b"".join(encode(line, utf8) + b"\n" for line in LINES)


# a pattern with non-ASCII text is written in UTF-8, so it runs in the UTF-8 locale only
@pytest.mark.parametrize(("pattern", "utf8"), [(p, u) for p in PATTERNS for u in (False, True)
                                               if u or p.isascii()])
def test_count_lines_agrees_with_search(pattern: str, utf8: bool) -> None:
    data = _lines_blob(utf8)
    rx = compile(pattern, "bre", utf8=utf8, eol="\n")
    want = sum(1 for line in data.split(b"\n")[:-1] if rx.search(line) is not None)
    assert rx.count_lines(data, 0, len(data), b"\n") == want


@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("utf8", [False, True])
def test_awk_test_agrees_with_search(pattern: str, utf8: bool) -> None:
    rx = compile(pattern, "awk", utf8=utf8)
    rnd = random.Random(7)
    subjects = [*LINES, *("".join(rnd.choice("aberxc1y é\n-") for _ in range(rnd.randint(0, 12)))
                          for _ in range(400))]
    rx.prime(subjects)
    for s in subjects:
        assert rx.test(s) is (rx.search(s) is not None), (pattern, s)


def _items(pattern: str) -> list:
    return shortcut.after_prefix(parse(pattern, "ere", utf8=True)[0])


def test_shapes_that_get_an_attempt() -> None:
    assert _items("err[a-z]*r") and len(_items("err[a-z]*r")) == 2
    assert linear.compile_attempt(_items("err[a-z]*r"), utf8=True) is not None
    # two repeats, a bounded repeat, a group or an assertion: backtracking could multiply
    for pattern in ("ab*c*d", "ab?c?d", "a(bc)*d", "ab{2,5}c", "ab\\>c", "a(b|c)d"):
        assert linear.compile_attempt(_items(pattern), utf8=True) is None, pattern
    # bytes: a multibyte character or a negated set in UTF-8 cannot be matched bytewise
    assert linear.compile_first_attempt_lines(b"a", _items("a[a-z]*b"), utf8=True) is not None
    assert linear.compile_first_attempt_lines(b"a", _items("a[^x]*b"), utf8=True) is None
    assert linear.compile_first_attempt_lines(b"a", _items("a[^x]*b"), utf8=False) is not None
    assert linear.compile_first_attempt_lines(b"a", _items("aé*b"), utf8=True) is None


@pytest.mark.parametrize("utf8", [False, True])
def test_linear_where_re_search_is_quadratic(utf8: bool) -> None:
    """``ab[a-z]*c`` on ``abab...`` (no c): an attempt at every ``ab`` would rescan the
    rest of the run each time.  200k characters: quadratic would be ~10^10 steps."""
    line = "ab" * 100_000
    data = encode(line, utf8) + b"\n"
    t0 = time.process_time()
    assert compile("ab[a-z]*c", "bre", utf8=utf8, eol="\n").count_lines(
        data, 0, len(data), b"\n") == 0
    awk = compile("ab[a-z]*c", "awk", utf8=utf8)
    assert awk.test(line[:60_000]) is False
    assert awk.test(line[:60_000] + "c") is True
    assert time.process_time() - t0 < 2.0
