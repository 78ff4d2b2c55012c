"""head and tail against GNU coreutils on this host."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_text_common import ids, make_root, same  # noqa: E402

FILES = {
    "s": "".join(f"{i}\n" for i in range(1, 30)),
    "f": b"a\nb\nc",
    "z": b"a\0b\0c\0d",
    "big": b"".join(b"line %d\n" % i for i in range(200000)),
}
STDIN = b"x\ny\nz\n" * 7 + b"end"
FLAGS = [
    [],
    ["-n", "3"],
    ["-n", "-3"],
    ["-n", "+3"],
    ["-c", "5"],
    ["-c", "-5"],
    ["-c", "+5"],
    ["-n", "0"],
    ["-c", "0"],
    ["-3"],
    ["-q"],
    ["-v"],
    ["-n", "x"],
    ["-c", "2k"],
    ["-c", "1x"],
    ["-n", "-0"],
    ["-z", "-n", "2"],
    ["+3"],
    ["-3c"],
    ["-l"],
    ["-2", "-v"],
    ["--lines=4"],
    ["--bytes=-3"],
    ["-qn1"],
]
FILESETS = [["f"], ["s", "f"], ["nope", "s"], ["d", "f"], ["z"], []]
CASES = [[cmd, *fl, *fs] for cmd in ("head", "tail") for fl in FLAGS for fs in FILESETS]
CASES += [
    ["head", "--help"],
    ["tail", "--help"],
    ["tail", "--version"],
    ["head", "-k"],
    ["head", "-n", "5", "big"],
    ["tail", "-n", "5", "big"],
    ["tail", "-c", "100", "big"],
    ["head", "-n", "-199990", "big"],
    ["tail", "-n", "+199990", "big"],
    ["head", "-c", "-70000", "big"],
    ["tail", "-3", "--", "s"],
    ["head", "-v", "-2", "s"],
    ["tail", "-n", "2", "-3", "s"],
]


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return make_root(tmp_path_factory, FILES)


@pytest.mark.parametrize("argv", CASES, ids=ids)
def test_headtail(root, argv):
    same(root, argv, STDIN)
