"""md5sum and sha*sum against GNU coreutils on this host."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_text_common import ids, make_root, same  # noqa: E402

FILE_F = b"a\nb\nc"
_MD5 = hashlib.md5(FILE_F).hexdigest()
FILES = {
    "f": b"a\nb\nc",
    "a\\b": b"x",
    "big": bytes(range(256)) * 2000,
    "sums": f"{_MD5}  f\njunk\n\\{hashlib.md5(b'x').hexdigest()}  a\\\\b\n"
    f"{'d41d8cd98f00b204e9800998ecf8427e'}  nope\n{'d41d8cd98f00b204e9800998ecf8427e'}  big\n"
    f"MD5 (f) = {_MD5}\n{_MD5} *f\n",
    "good": f"{_MD5}  f\nMD5 (big) = {hashlib.md5(bytes(range(256)) * 2000).hexdigest()}\n",
    "j": "hi\n",
    "sha": f"{hashlib.sha256(b'a' * 0).hexdigest()}  f\n{hashlib.sha256(FILE_F).hexdigest()}  f\n",
}
CASES: list[list[str]] = []
for tool in ("md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum"):
    CASES += [
        [tool, "f"],
        [tool, "f", "big", "-"],
        [tool, "--tag", "f", "a\\b"],
        [tool, "-b", "f"],
        [tool, "nope", "d", "f"],
        [tool, "-z", "f", "a\\b"],
        [tool, "a\\b"],
    ]
for flags in ([], ["--quiet"], ["--status"], ["-w"], ["--strict"], ["--ignore-missing"]):
    for fs in (["sums"], ["good"], ["j"], ["nope"], ["good", "sums"]):
        CASES.append(["md5sum", "-c", *flags, *fs])
CASES += [
    ["md5sum", "-t", "-c", "sums"],
    ["md5sum", "--tag", "-c", "good"],
    ["md5sum", "--status", "f"],
    ["sha256sum", "-c", "sha"],
    ["md5sum", "--help"],
    ["sha256sum", "-x"],
    ["md5sum", "--tag", "-t", "f"],
]


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return make_root(tmp_path_factory, FILES)


@pytest.mark.parametrize("argv", CASES, ids=ids)
def test_checksum(root, argv):
    same(root, argv, b"stdin data\n")


def test_check_from_stdin(root):
    same(root, ["md5sum", "-c"], (FILES["good"]).encode())
    same(root, ["md5sum", "-c", "-"], b"junk\n")
