"""diff against GNU diffutils on this host (random pairs, formats, options, directories)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_text_common import ids, make_root, same, write_files  # noqa: E402

FILES = {
    "d1": "a\nb\nc\n",
    "d2": "a\nB\nc\nd",
    "e": "",
    "bl": "\n\n",
    "bl2": "\n",
    "sp1": "a  b\nc\t d \nX\n",
    "sp2": "a b\nc d\nx\n",
    "crlf": "a\r\nb\r\n",
    "lf": "a\nb\n",
    "ra/f": "x\n",
    "rb/f": "y\n",
    "ra/only": "1\n",
    "ra/sub/s": "z\n",
    "rb/sub/s": "z\n",
    "ra/bin": b"\x01\x00",
    "rb/bin": b"\x00",
    "ra/same": "s\n",
    "rb/same": "s\n",
    "ra/deep/x/y": "1\n2\n",
    "rb/deep/x/y": "1\n3\n",
    "rb/newdir/n": "n\n",
    "ra/kind": "file\n",
    "rb/kind/inner": "i\n",
    "rb/d1": "a\nb\nc\nd\n",
    "big1": "".join(f"line {i}\n" for i in range(2000)),
    "big2": "".join(f"line {i}\n" for i in range(2000) if i % 97) + "tail\n",
}
PAIRS = [
    ("d1", "d2"),
    ("d2", "d1"),
    ("e", "d1"),
    ("d1", "e"),
    ("bl", "bl2"),
    ("sp1", "sp2"),
    ("crlf", "lf"),
    ("d1", "d1"),
    ("big1", "big2"),
    ("ra/bin", "rb/bin"),
    ("d1", "nope"),
    ("d1", "rb"),
    ("ra", "rb"),
    ("-", "d1"),
]
FLAGS = [
    [],
    ["-u"],
    ["-c"],
    ["-U", "1"],
    ["-C1"],
    ["-U0"],
    ["-q"],
    ["-s"],
    ["-i"],
    ["-w"],
    ["-b"],
    ["-B"],
    ["-a"],
    ["-N"],
    ["-r"],
    ["-ru"],
    ["-rq"],
    ["-rN"],
    ["-u", "-r", "-N"],
    ["--strip-trailing-cr"],
    ["-Z"],
    ["-d"],
    ["--label", "X", "--label", "Y", "-u"],
    ["-5"],
    ["--brief", "--recursive"],
    ["-r", "-x", "sub"],
    ["-I", "^a"],
    ["-iw"],
    ["-uB"],
    ["--unified=2"],
    ["-U", "x"],
    ["--normal"],
]
# stdin's timestamp is "now": compare it with labels only
CASES = [
    ["diff", *fl, a, b]
    for fl in FLAGS
    for a, b in PAIRS
    if not (
        a == "-"
        and any(
            f.startswith(("-C", "-U", "--unified")) or (f[:2] != "--" and ("u" in f or "c" in f))
            for f in fl
        )
        and "--label" not in fl
    )
]
CASES += [["diff"], ["diff", "d1"], ["diff", "a", "b", "c"], ["diff", "--help"]]


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return make_root(tmp_path_factory, FILES)


@pytest.mark.parametrize("argv", CASES, ids=ids)
def test_diff(root, argv):
    same(root, argv, b"a\nq\nc\n")


@pytest.mark.parametrize("seed", range(6))
def test_diff_random_pairs(tmp_path, seed):
    """Random edits of random line sequences: hunks must be GNU's exactly."""
    rnd = random.Random(seed)
    for _ in range(25):
        alpha = rnd.choice(["ab", "abc", "abcdefgh", "aaab", [str(i) for i in range(40)]])
        lines_a = [rnd.choice(alpha) for _ in range(rnd.randint(0, 60))]
        lines_b = list(lines_a)
        for _ in range(rnd.randint(0, 6)):
            pos = rnd.randint(0, len(lines_b))
            op = rnd.random()
            if op < 0.45:
                lines_b[pos:pos] = [rnd.choice(alpha) for _ in range(rnd.randint(1, 4))]
            elif op < 0.9:
                del lines_b[pos : pos + rnd.randint(1, 4)]
            else:
                lines_b = [rnd.choice(alpha) for _ in range(rnd.randint(0, 60))]
        a = "".join(x + "\n" for x in lines_a)
        b = "".join(x + "\n" for x in lines_b)
        if rnd.random() < 0.15:
            a = a.rstrip("\n")
        if rnd.random() < 0.15:
            b = b.rstrip("\n")
        write_files(tmp_path, {"a": a, "b": b})
        for flags in ([], ["-u"], ["-c"], ["-U1"], ["-y", "-W", "40"]):
            same(tmp_path, ["diff", *flags, "a", "b"])


SIDE = {
    "s1": "a\nb\nc\nsame\n\tindented\tline\n" + "x" * 80 + "\nend",
    "s2": "a\nB\nsame\nnew\n\tindented\tline\n" + "y" * 70 + "\nend\n",
    "t1": "only left\n",
    "t2": "",
}


@pytest.mark.parametrize(
    "flags",
    [
        ["-y"],
        ["-y", "-W", "60"],
        ["-y", "--suppress-common-lines"],
        ["-y", "-W", "200"],
        ["-y", "-W", "x"],
        ["--side-by-side", "-W", "33"],
    ],
)
def test_diff_side_by_side(tmp_path, flags):
    write_files(tmp_path, SIDE)
    for a, b in (("s1", "s2"), ("s2", "s1"), ("t1", "t2"), ("t2", "t1"), ("s1", "s1")):
        same(tmp_path, ["diff", *flags, a, b])
