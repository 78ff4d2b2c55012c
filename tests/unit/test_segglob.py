"""text/segglob (deny-pattern matching on RE2) and text/glob.fnmatch_suffix."""

from __future__ import annotations

import time

import pytest

from vshell.text.glob import fnmatch_suffix
from vshell.text.segglob import SegmentGlob
from vshell.vfs import DenyRules


@pytest.mark.parametrize(
    ("segments", "path", "hit"),
    [
        (["**", "a+b"], "/x/a+b", True),
        (["**", "a+b"], "/x/aab", False),
        (["**", "(x)|$"], "/(x)|$/in", True),
        (["**", "k.pem"], "/kXpem", False),
        (["**", "*"], "/anything", True),
        (["w", "**", "**", "k"], "/w/k", True),
        (["w", "**", "k"], "/w/a/b/k/c", True),
        (["w", "*"], "/w", False),
        (["**", "é*"], "/d/éte", True),
        (["**", "é*"], "/d/ete", False),
        (["**", "x\udcff*"], "/d/x\udcffy", True),
        (["**", "x\udcff*"], "/d/x\udcfey", False),
        (["**", "a*b"], "/d/a\nb", True),  # names may hold a newline
        (["d", "*"], "/d/\n/z", True),
    ],
)
def test_segment_globs(segments: list[str], path: str, hit: bool) -> None:
    assert SegmentGlob([segments]).matches(path) is hit


def test_several_patterns_and_the_literal_prefilter() -> None:
    g = SegmentGlob([["**", ".git"], ["work", "*.key"], ["**", "node_modules"]])
    assert g.matches("/r/.git/HEAD") and g.matches("/work/a.key")
    assert not g.matches("/work/sub/a.key") and not g.matches("/r/src/main.py")
    assert not SegmentGlob([]).matches("/x")


def test_pathological_deny_pattern_is_linear() -> None:
    rules = DenyRules(["*a*a*a*a*a*a*a*a*b", "/w/**/*a*a*a*a*a*a*c"])
    t0 = time.perf_counter()
    for n in (200, 2000, 20000):
        assert not rules.matches("/w/" + "a" * n)
    assert rules.matches("/w/" + "a" * 300 + "b")
    assert time.perf_counter() - t0 < 0.5


@pytest.mark.parametrize(
    ("pattern", "name", "hit"),
    [
        ("sub/*.c", "./sub/a.c", True),
        ("sub/*.c", "x/sub/a.c", True),
        ("sub/*.c", "xsub/a.c", False),
        ("*/a.c", "sub/a.c", True),
        ("sub*", "sub/a.c", True),  # '*' crosses '/'
        ("a.c", "q//a.c", True),  # as GNU grep --exclude=a.c q//a.c
        ("/a.c", "q//a.c", True),
        ("/a.c", "q/a.c", False),
        ("q", "q/a.c", False),
        ("b.c", "b.c", True),
        (r"x\[1\].c", "d/x[1].c", True),
    ],
)
def test_fnmatch_suffix(pattern: str, name: str, hit: bool) -> None:
    assert fnmatch_suffix(pattern, name) is hit
