"""tac against GNU coreutils on this host."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_text_common import ids, make_root, same  # noqa: E402

FILES = {"f": b"a\nb\nc", "g": b"a\nb\nc\n\n", "e": b""}
STDIN = b"1a2bxyab\nq12xx\n33ab\n\nz"
FLAGS = [
    [],
    ["-b"],
    ["-s", "x"],
    ["-s", ""],
    ["-r", "-s", "[0-9]+"],
    ["-b", "-r", "-s", "[0-9]"],
    ["-s", "ab"],
    ["-b", "-s", "ab"],
    ["--separator=\n\n"],
]
FILESETS = [["f", "g"], ["e"], ["nope", "f"], ["d", "f"], []]
CASES = [["tac", *fl, *fs] for fl in FLAGS for fs in FILESETS] + [["tac", "--help"]]


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return make_root(tmp_path_factory, FILES)


@pytest.mark.parametrize("argv", CASES, ids=ids)
def test_tac(root, argv):
    same(root, argv, STDIN)
