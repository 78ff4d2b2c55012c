"""fold, expand and unexpand against GNU coreutils on this host."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_text_common import ids, make_root, same  # noqa: E402

TEXT = (
    b"hello world this is a long line of text\na\tb\tc\td\n\ta\tbcdefghijklmnop\n"
    b"ab\bcd efg\rhij klm nop qrs tuv wxyz 0123456789\n"
    + "héllo wörld\n".encode()
    + b"a b  c   d    e        f\n        x       y\n  \tz\n a       b\n"
    + b"x" * 200
    + b"\n"
    + b"    lead  ing\t tab  \n"
    + b"end"
)
FILES = {"t": TEXT, "f": b"a\nb\nc"}
CASES: list[list[str]] = []
for flags in (
    [],
    ["-w", "10"],
    ["-s", "-w", "10"],
    ["-w", "5"],
    ["-b", "-w", "5"],
    ["-bs", "-w7"],
    ["-w", "1"],
    ["-s", "-w", "1"],
    ["-w", "0"],
    ["-w", "x"],
    ["-3"],
    ["-s", "-w", "12"],
):
    for fs in (["t"], ["f", "t"], ["nope"], []):
        CASES.append(["fold", *flags, *fs])
for tool in ("expand", "unexpand"):
    for flags in (
        [],
        ["-t", "4"],
        ["-t", "4,6"],
        ["-t", "2,5,/4"],
        ["-t", "2,5,+4"],
        ["-t", "2,5"],
        ["-t", "0"],
        ["-t", "3,2"],
        ["-t", "x"],
        ["-4"],
        ["-t", "4 9"],
        (["-i"] if tool == "expand" else ["-a"]),
        (["-i", "-t3"] if tool == "expand" else ["--first-only", "-t3"]),
    ):
        for fs in (["t"], ["nope", "f"], []):
            CASES.append([tool, *flags, *fs])


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return make_root(tmp_path_factory, FILES)


@pytest.mark.parametrize("argv", CASES, ids=ids)
def test_foldexpand(root, argv):
    same(root, argv, TEXT)
