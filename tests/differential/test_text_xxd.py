"""xxd against the xxd on this host."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_text_common import ids, make_root, same  # noqa: E402

FILES = {
    "o": b"hello world\n\x00\x01\x7f\x80\xff\xc3\xa9abc",
    "z": b"\0" * 32 + b"abc",
    "z4": b"\0" * 64,
    "z5": b"\0" * 80 + b"x" + b"\0" * 48,
    "all": bytes(range(256)) * 3,
    "1file.bin": b"abc",
    "dump": b"00000000: 6865 6c6c 6f20 776f 726c 640a 0001 7f80  hello world.....\n"
    b"00000010: ffc3 a961 6263                           ...abc\n",
    "gap": b"0000010: 4142\n",
    "plain": b"68656c6c6f20\n776f726c64\n",
}
FLAGS = [
    [],
    ["-p"],
    ["-c", "8", "-g", "4"],
    ["-u", "-l", "10", "-s", "2"],
    ["-i"],
    ["-b"],
    ["-b", "-c4"],
    ["-s", "-5"],
    ["-g", "0"],
    ["-c", "0"],
    ["-e"],
    ["-e", "-g", "2"],
    ["-o", "16"],
    ["-d"],
    ["-C", "-i"],
    ["-n", "foo", "-i"],
    ["-a"],
    ["-a", "-c", "4"],
    ["-ps", "-c", "2"],
    ["-c5"],
    ["-c", "5", "-g", "2"],
    ["-u"],
    ["-l", "0"],
    ["-i", "-c", "5"],
    ["-len", "3"],
    ["-cols", "4"],
    ["-z"],
    ["-c", "300"],
    ["-s", "+3"],
]
CASES = [["xxd", *fl, f] for fl in FLAGS for f in ("o", "z", "z4", "z5", "all", "1file.bin")]
CASES += [["xxd", *fl] for fl in FLAGS]
CASES += [
    ["xxd", "nope"],
    ["xxd", "-r", "dump"],
    ["xxd", "-r", "gap"],
    ["xxd", "-r", "-p", "plain"],
    ["xxd", "-h"],
    ["xxd", "-v"],
    ["xxd", "-r", "-s", "2", "gap"],
    ["xxd", "o", "x", "y"],
]


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return make_root(tmp_path_factory, FILES)


@pytest.mark.parametrize("argv", CASES, ids=ids)
def test_xxd(root, argv):
    same(root, argv, b"abc\x00\x00def" * 5)


def test_xxd_outfile(root):
    same(root, ["xxd", "o", "out.hex"])
    assert (root / "out.hex").read_bytes().startswith(b"00000000: 6865")
