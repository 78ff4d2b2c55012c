"""od against GNU coreutils on this host."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_text_common import ids, make_root, same  # noqa: E402

FILES = {
    "o": b"hello world\n\x00\x01\x7f\x80\xff\xc3\xa9abc",
    "z": b"\0" * 64 + b"abc" + b"\0" * 40,
    "fl": b"\x00\x00\x80\x7f\x00\x00\xc0\x7f\x00\x00\x80\x3f\x01\x00\x00\x00"
    + bytes((i * 37 + 11) % 256 for i in range(64)),
    "all": bytes(range(256)),
}
FLAGS = [
    [],
    ["-c"],
    ["-a"],
    ["-t", "x1", "-t", "o2"],
    ["-t", "d1z"],
    ["-A", "x", "-t", "x4"],
    ["-A", "n", "-t", "u2", "-w8"],
    ["-t", "f4"],
    ["-t", "f8"],
    ["-t", "d8", "-t", "c"],
    ["-v"],
    ["-An", "-tx8"],
    ["-j", "3", "-N", "5", "-c"],
    ["-b"],
    ["-x", "-d", "-s", "-o"],
    ["-i", "-l"],
    ["-tx1", "-w5"],
    ["-A", "q"],
    ["-t", "q"],
    ["-t", "x3"],
    ["-t", "f2"],
    ["-tx1", "-w"],
    ["-tc", "-j", "1000"],
    ["-td", "-tx"],
    ["-Ad", "-tu1"],
    ["-tx1z", "-tc"],
    ["-f"],
    ["-N", "0"],
    ["-j", "0x10", "-tx1"],
    ["-tu8", "-to8"],
    ["-td2", "-w4"],
    ["-tfD", "-tx8"],
    ["-t", "x2z"],
    ["-h"],
    ["-X"],
    ["-txC"],
    ["-tdS"],
]
FILESETS = [["o"], ["z"], ["all"], ["fl", "o"], ["nope", "o"]]
CASES = [["od", *fl, *fs] for fl in FLAGS for fs in FILESETS]
CASES += [["od", "-c", "d"], ["od", "--help"], ["od", "-w7", "-tx2", "o"]]


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return make_root(tmp_path_factory, FILES)


@pytest.mark.parametrize("argv", CASES, ids=ids)
def test_od(root, argv):
    same(root, argv)


def test_od_stdin(root):
    same(root, ["od", "-c"], b"abc" * 100)
    same(root, ["od", "-tx1"], bytes(range(256)) * 300)
