"""hexdump and strings against the tools on this host."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_text_common import ids, make_root, same  # noqa: E402

FILES = {
    "o": b"hello world\n\x00\x01\x7f\x80\xff\xc3\xa9abc",
    "z4": b"\0" * 64,
    "z5": b"\0" * 80 + b"x" + b"\0" * 48,
    "all": bytes(range(256)) * 3,
    "odd": b"abc",
    "e": b"",
    "s1": b"ab\0hello\0xyzw\0abcdefgh\n\tx\ty\x01long enough string here\x7f",
    "big": (b"\x00\x01binary" + b"some text here " * 5000 + b"\xff") * 3,
}
CASES: list[list[str]] = []
for flags in (
    [],
    ["-C"],
    ["-Cv"],
    ["-x"],
    ["-c"],
    ["-b"],
    ["-d"],
    ["-o"],
    ["-n", "4", "-s", "2", "-C"],
    ["-n", "0"],
    ["-s", "100"],
    ["-C", "-x"],
    ["-v"],
):
    for fs in (["o"], ["z4"], ["z5"], ["all"], ["odd"], ["e"], ["nope"], ["nope", "odd"], []):
        if "-s" in flags and fs in (["nope"], []):
            continue  # util-linux fseek()s a pipe and fails; not worth copying
        CASES.append(["hexdump", *flags, *fs])
for flags in (
    [],
    ["-n", "3"],
    ["-t", "x"],
    ["-t", "d", "-n", "8"],
    ["-t", "o"],
    ["-a"],
    ["-f"],
    ["-5"],
    ["-w"],
    ["-n", "0"],
):
    for fs in (["s1"], ["big"], ["s1", "o"], ["nope"], []):
        CASES.append(["strings", *flags, *fs])


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return make_root(tmp_path_factory, FILES)


@pytest.mark.parametrize("argv", CASES, ids=ids)
def test_hexstrings(root, argv):
    same(root, argv, b"stdin\0data here\n")
