"""Brace expansion tests against bash 5.2.

For each word, bash expands it (``printf '%s\\x1f' WORD``); our raw items are then given
to bash with brace expansion off (``set +B``) so that both go through the same later
stages (quotes, ``$``-expansions).  Identical output means identical brace expansion.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from vshell.interp.braces import BraceExpansionError, expand

WORDS: list[str] = [
    "{a,b,c}", "x{a,b}y", "{a,{b,c}}", "{a,b}{1,2}", "{x,y}{1,2}{p,q}", "a{,b}", "a{b,}",
    "{,}", "{a}", "{}", "{a..1}", "{1..10}", "{10..1}", "{1..10..3}", "{10..1..3}",
    "{1..10..-3}", "{a..e}", "{e..a}", "{a..z..5}", "{01..10}", "{-3..3}", "{-03..3}",
    "{1..03}", "{001..3}", "{-05..05..5}", "{0..0}", "{3..3}", "{1..1..0}", "{1..a}",
    "{1..2..a}", "{1...2}", "{1..2..}", "{+1..+3}", "{1..+3}",
    "{9223372036854775806..9223372036854775807}", "{1..9223372036854775808}", "{a,b}c{d,e}",
    "${x}", "${x}{a,b}", "${x:-{a,b}}", "${x:-a}{c,d}", "'{a,b}'", '"{a,b}"', "\\{a,b}",
    "{a\\,b}", "{a,b\\}", "\\{a..c}", "{'a,b'}", "{'a',b}", '{"a b",c}', "{$x,y}",
    "{$(echo a,b),c}", "{`echo a,b`,c}", "{a,b", "a,b}", "{a}b,c}",
    "{{a,b}", "{a,b}}", "{{1..3}}", "{a,{b}}", "{a,{}}", "{a,}b", "{,a}b", "{,,}",
    "a{b,c}{", "a\\ {}", "a\\ {b,c}", "\\ {\\ ,b}", "}{a,b}", "{a,b}{c", "{{a,b},{c,d}}",
    "{a..c}{1..2}", "{a,b}-{1..3..2}", "{1,2}{3..4}", "{a..c,d}", "{1..3,x}", "{x..y..z}",
    "{A..C}", "{a..}", "{..a}", "{..}", "{a..b..c..d}", "{1..5..2..}",
    "{a,b}'{c,d}'", "{a,b}\"$x\"", "$'{a,b}'", "$'a'{b,c}", "{$'a,b',c}", "<(x){a,b}",
    "{a,b}=1", "{-1..-3}", "{-01..-3}", "{1..-1}", "{5..1..-2}", "{ }", "{", "}",
    "{a,b}{}", "x{}y{a,b}", "{,a,}", "{a,,b}", "{\\,,a}", "{a..c}}", "{{a..c}",
]


def _bash_items(script: str) -> list[str]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C.UTF-8", "x": "X"}
    out = subprocess.run(
        ["bash", "-c", script], check=False, capture_output=True, text=True, env=env,
        timeout=60,
    ).stdout
    return out.split("\n@@\n")


@pytest.fixture(scope="module")
def results() -> tuple[list[str], list[str]]:
    if shutil.which("bash") is None:
        pytest.skip("bash not available")
    want = _bash_items("".join(f"printf '%s\\x1f' {w}; printf '\\n@@\\n'\n" for w in WORDS))
    got_script = "set +B\n" + "".join(
        f"printf '%s\\x1f' {' '.join(expand(w))}; printf '\\n@@\\n'\n" for w in WORDS
    )
    got = _bash_items(got_script)
    return want, got


@pytest.mark.parametrize("i", range(len(WORDS)), ids=WORDS)
def test_matches_bash(i: int, results: tuple[list[str], list[str]]) -> None:
    want, got = results
    assert got[i] == want[i], (WORDS[i], expand(WORDS[i]))


def test_raw_items_keep_quotes() -> None:
    assert expand("'x'{a,b}") == ["'x'a", "'x'b"]
    assert expand('{"a b",c}') == ['"a b"', "c"]
    assert expand("${v}{1..2}") == ["${v}1", "${v}2"]
    assert expand("plain") == ["plain"]
    assert expand("$(echo {a,b})") == ["$(echo {a,b})"]  # the subshell expands it later
    assert expand("$((1+{2,3}))") == ["$((1+{2,3}))"]
    assert expand("{01..3}") == ["01", "02", "03"]


def test_letter_ranges_cross_punctuation() -> None:
    # the backslash item stays raw: bash's later quote removal turns it into ""
    assert expand("{Z..a}") == ["Z", "[", "\\", "]", "^", "_", "`", "a"]
    assert expand("{a..A}")[:6] == ["a", "`", "_", "^", "]", "\\"]


def test_huge_expansions_are_refused() -> None:
    with pytest.raises(BraceExpansionError, match="failed to allocate memory"):
        expand("{1..999999999}")
    with pytest.raises(BraceExpansionError):
        expand("{1..999}{1..999}{1..999}")
    assert len(expand("{1..100000}")) == 100000
