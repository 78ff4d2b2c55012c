"""base64, rev and nl against the tools on this host."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_text_common import ids, make_root, same  # noqa: E402

FILES = {
    "f": b"a\nb\nc",
    "bin": bytes(range(256)) * 700,
    "b64": b"aGVsbG8=\n",
    "sec": b"x\n\\:\\:\\:\nh\n\\:\\:\nb\nc\n\n\\:\nf\n",
    "blank": b"a\n\n\n\nb\n\n",
    "u": "abc\n\xc3\xa9x\n中文字\n".encode(),
}
B64_IN = [
    b"aGVsbG8=\n",
    b"aGVs bG8=\n",
    b"aGVs!bG8=\n",
    b"aGVsbG8\n",
    b"aGVsbG8=aGk=\n",
    b"aGV bG8=\n",
    b"aGV\n",
    b"a\n",
    b"YQpi\nCg==\n",
    b"",
    b"QUJD\n\n\nREVG\n",
]
CASES: list[tuple[list[str], bytes]] = []
for data in B64_IN:
    CASES += [(["base64", "-d"], data), (["base64", "-d", "-i"], data)]
for flags in ([], ["-w", "20"], ["-w", "0"], ["-w", "1"], ["--wrap=77"]):
    for fs in (["f"], ["bin"], [], ["-"]):
        CASES.append((["base64", *flags, *fs], b"hello world" * 30))
CASES += [
    (["base64", "nope"], b""),
    (["base64", "-w", "x", "f"], b""),
    (["base64", "f", "g"], b""),
    (["base64", "-d", "b64"], b""),
    (["base64", "d"], b""),
    (["base64", "--help"], b""),
]
for fs in (["f"], ["u"], ["nope", "f"], []):
    CASES.append((["rev", *fs], b"ab\ncd\xc3\xa9\n\nxyz"))
NL_FLAGS = [
    [],
    ["-ba"],
    ["-bn"],
    ["-bt"],
    ["-ba", "-nln", "-w3", "-s:"],
    ["-bpb", "-nrz", "-v5", "-i2"],
    ["-ba", "-l2"],
    ["-b", "x"],
    ["-n", "xx"],
    ["-w", "0"],
    ["-hа"],
    ["-ha", "-fa"],
    ["-p"],
    ["-d", "x"],
    ["-v", "-3", "-nrz"],
    ["-s", ""],
    ["-i", "0"],
    ["-ba", "-l", "3"],
]
for flags in NL_FLAGS:
    for fs in (["f"], ["sec"], ["blank"], ["f", "sec"], []):
        CASES.append((["nl", *flags, *fs], b"a\n\nb\n"))
CASES += [(["nl", "nope"], b""), (["nl", "--help"], b"")]


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return make_root(tmp_path_factory, FILES)


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_b64revnl(root, case):
    argv, stdin = case
    same(root, argv, stdin)
