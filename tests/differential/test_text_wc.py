"""wc against GNU coreutils on this host."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_text_common import ids, make_root, same  # noqa: E402

FILES = {
    "s": "".join(f"{i} word\n" for i in range(1, 3000)),
    "f": b"a\nb\nc",
    "u": "héllo wörld\t中文 x\u00a0y\u2003z\x01 \x01\x02 q\r\nabc\xff\xfe\n".encode() * 5000,
    "bad": b"\xff\xfe ab\xc3 \xe2\x82",
    "files0": b"s\0f\0",
}
STDIN = b"x y\n z\xc3\xa9\t\n" * 7 + b"end"
FLAGS = [
    [],
    ["-l"],
    ["-w"],
    ["-c"],
    ["-m"],
    ["-L"],
    ["-lw"],
    ["-lwmcL"],
    ["--chars", "-l"],
    ["--max-line-length"],
    ["-cl"],
]
FILESETS = [["f"], ["s", "f"], ["nope", "s"], ["d", "f"], ["u"], ["bad"], []]
CASES = [["wc", *fl, *fs] for fl in FLAGS for fs in FILESETS]
CASES += [
    ["wc", "--help"],
    ["wc", "-k"],
    ["wc", "--files0-from=files0"],
    ["wc", "-l", "--files0-from=files0"],
    ["wc", "--version"],
]


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return make_root(tmp_path_factory, FILES)


@pytest.mark.parametrize("argv", CASES, ids=ids)
def test_wc(root, argv):
    same(root, argv, STDIN)
