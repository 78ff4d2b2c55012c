"""uniq against GNU coreutils on this host."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_text_common import ids, make_root, same  # noqa: E402

STDIN = b"a\na\nA\nb\n x a\n y a\nc\nc\nc\nd\n\n\nE 1\ne 1\nlast"
FILES = {"f": STDIN}
FLAGS = [
    [],
    ["-c"],
    ["-d"],
    ["-D"],
    ["-u"],
    ["-i"],
    ["-ci"],
    ["-f1"],
    ["-s1"],
    ["-w1"],
    ["-f", "1", "-c"],
    ["-1"],
    ["-z"],
    ["--group"],
    ["--group=prepend"],
    ["--group=append"],
    ["--group=both"],
    ["--all-repeated=prepend"],
    ["--all-repeated=separate"],
    ["-D", "-u"],
    ["-d", "-u"],
    ["-c", "-D"],
    ["--group", "-c"],
    ["--group=bad"],
    ["--all-repeated=bad"],
    ["-f", "x"],
    ["-s", "x"],
    ["-w", "x"],
    ["-dc"],
    ["-uc"],
    ["-Di"],
    ["-s", "2", "-w", "1"],
    ["--gr=sep"],
]
FILESETS = [["f"], [], ["d"], ["a", "b", "c"]]
CASES = [["uniq", *fl, *fs] for fl in FLAGS for fs in FILESETS] + [["uniq", "--help"]]


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return make_root(tmp_path_factory, FILES)


@pytest.mark.parametrize("argv", CASES, ids=ids)
def test_uniq(root, argv):
    same(root, argv, STDIN)


def test_uniq_output_file(root):
    same(root, ["uniq", "f", "out"])
    assert (root / "out").read_bytes().startswith(b"a\nA\n")
