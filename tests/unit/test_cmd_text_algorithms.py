"""The pure algorithms behind diff and sort -V, checked without any host tool."""

from __future__ import annotations

import random
from functools import cmp_to_key

from vshell.commands._lib.diffcore import diff
from vshell.commands._lib.sortkeys import _version_key, filevercmp


def _apply(a: list[str], b: list[str], changes) -> list[str]:
    out: list[str] = []
    i = 0
    for c in changes:
        out += a[i : c.line0]
        out += b[c.line1 : c.line1 + c.inserted]
        i = c.line0 + c.deleted
    return out + a[i:]


def test_diff_script_rebuilds_the_new_file():
    rnd = random.Random(4)
    for _ in range(300):
        a = [rnd.choice("abcde") for _ in range(rnd.randint(0, 40))]
        b = [rnd.choice("abcde") for _ in range(rnd.randint(0, 40))]
        changes = diff(a, b)
        assert _apply(a, b, changes) == b
        # changes are ordered, disjoint and non-empty
        assert all(c.deleted or c.inserted for c in changes)
        for x, y in zip(changes, changes[1:], strict=False):
            assert x.line0 + x.deleted < y.line0


def test_diff_identical_and_empty():
    assert diff([], []) == []
    assert diff(["x"], ["x"]) == []
    (c,) = diff([], ["a", "b"])
    assert (c.line0, c.line1, c.deleted, c.inserted) == (0, 0, 0, 2)


def test_diff_minimal_is_minimal():
    a = list("abcabba")
    b = list("cbabac")
    changes = diff(a, b, minimal=True)
    assert sum(c.deleted + c.inserted for c in changes) == 5


def test_version_key_agrees_with_filevercmp():
    rnd = random.Random(7)
    parts = [b"a", b"b", b".", b"~", b"1", b"2", b"0", b"10", b".tar", b".gz", b"-", b"007"]
    for _ in range(3000):
        x = b"".join(rnd.choice(parts) for _ in range(rnd.randint(0, 6)))
        y = b"".join(rnd.choice(parts) for _ in range(rnd.randint(0, 6)))
        c = filevercmp(x, y)
        if c:
            assert (c < 0) == (_version_key(x) < _version_key(y)), (x, y)


def test_version_order_examples():
    names = [
        b"file10.txt",
        b"file9.txt",
        b"file1.txt",
        b".hidden",
        b"a~b",
        b"a",
        b"1.0-rc1",
        b"1.0",
    ]
    assert sorted(names, key=cmp_to_key(filevercmp)) == sorted(names, key=_version_key)
    assert sorted([b"v1.10", b"v1.9", b"v1.2"], key=_version_key) == [b"v1.2", b"v1.9", b"v1.10"]
