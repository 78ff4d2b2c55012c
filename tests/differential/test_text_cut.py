"""cut against GNU coreutils on this host."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_text_common import ids, make_root, same  # noqa: E402

FILES = {"f": b"a:b:c\nno delim\n1:2:3:4:5\n::\n\xc3\xa9:x", "t": b"a\tb\tc\nx\n"}
STDIN = b"abcdefgh\n12345\n\nxy:zz:q\n"
FLAGS = [
    [],
    ["-f", "0"],
    ["-f", "3-1"],
    ["-f", "x"],
    ["-b", "1", "-f", "2"],
    ["-d", "ab", "-f1"],
    ["-d:", "-b1"],
    ["-s", "-b1"],
    ["-f1-", "-d", ""],
    ["-c", "1,,3"],
    ["-f", "1 3"],
    ["-f", "-"],
    ["-f", "1-2-3"],
    ["-b", "5-,2-3", "--output-delimiter=:"],
    ["-b", "2-3,5", "--output-delimiter=:"],
    ["-b", "2-3,4", "--output-delimiter=:"],
    ["-b", "3,1"],
    ["-c", "-3"],
    ["-b", "2-"],
    ["-d:", "-f2"],
    ["-d:", "-f2-"],
    ["-d:", "-f", "1,3"],
    ["-d:", "-s", "-f2"],
    ["-d:", "-f2", "--complement"],
    ["-b", "2,4", "--complement"],
    ["-d:", "-f", "1,3", "--output-delimiter=--"],
    ["-f2"],
    ["-f", "1,2", "-z"],
    ["-d:", "-f", "3,1-2"],
    ["-b", "1-3,2-5"],
    ["-n", "-b", "2"],
    ["-d:", "-f", "5-"],
    ["--complement", "-c", "1-2", "--output-delimiter=X"],
]
FILESETS = [["f"], ["t", "f"], ["nope"], ["d"], []]
CASES = [["cut", *fl, *fs] for fl in FLAGS for fs in FILESETS] + [["cut", "--help"]]


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return make_root(tmp_path_factory, FILES)


@pytest.mark.parametrize("argv", CASES, ids=ids)
def test_cut(root, argv):
    same(root, argv, STDIN)
