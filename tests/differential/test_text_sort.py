"""sort against GNU coreutils on this host."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_text_common import ids, make_root, same  # noqa: E402

WORDS = [
    "apple",
    "Apple",
    "banana",
    " banana",
    "b",
    "B",
    "10",
    "9",
    "-3",
    "1e3",
    "2K",
    "1M",
    "3k",
    "-2G",
    "0x1f",
    "inf",
    "-inf",
    "abc def",
    "Jan",
    "feb",
    "DEC",
    "  mar",
    "1.5",
    "1.50",
    "-0",
    "+5",
    "",
    "x1.2.10",
    "x1.2.9",
    "x1.10",
    "a~b",
    "1.0-rc1",
    ".5",
    "5.",
    "a\tb\tc",
    "z\ty\tx",
    "10\t2",
    "9\t10",
    "é",
    "中",
    "file.tar.gz",
    "file.txt",
    "file10.txt",
    "file9.txt",
    ".hidden",
]


def _files() -> dict[str, str]:
    rnd = random.Random(5)
    lines = []
    for _ in range(400):
        w = rnd.choice(WORDS)
        if rnd.random() < 0.5:
            w += " " + rnd.choice(WORDS) + ":" + rnd.choice(WORDS)
        lines.append(w)
    tabs = "\n".join(
        f"{rnd.randint(0, 20)}\t{rnd.choice(WORDS)}\t{rnd.randint(-5, 5)}" for _ in range(200)
    )
    return {
        "a": "\n".join(lines) + "\n",
        "b": "b\na\nc",
        "s": "a\nb\nc\n",
        "tabs": tabs + "\n",
        "f0": "s\0b\0",
        # whole lines of plain integers take sort -n's int() path (ties: leading zeros, -0)
        "ints": "".join(f"{rnd.choice(['', '-', '0', '00', '-0'])}{rnd.randint(0, 60)}\n"
                        for _ in range(500)) + "0\n-0\n007\n7\n",
        "ints_big": "".join(f"{rnd.randint(-99999, 99999)}\n" for _ in range(40000)),
        "ints_no_nl": "3\n1\n2",
        # near misses: int() would read these, GNU's -n does not (or not the same way)
        "near": "+5\n 5\n5 \n1_0\n10\n\n-\n--5\n5-\n\t4\n\v3\n2\n0x1\n1.5\n-1.5\n"
                "\u0665\n",
        "ints_z": "3\n1\0002\0001\0",
    }


FLAGS = [
    [],
    ["-r"],
    ["-n"],
    ["-rn"],
    ["-g"],
    ["-h"],
    ["-M"],
    ["-V"],
    ["-f"],
    ["-d"],
    ["-i"],
    ["-b"],
    ["-u"],
    ["-fu"],
    ["-nu"],
    ["-s", "-n"],
    ["-k2"],
    ["-k2,2"],
    ["-k2n"],
    ["-k1.2,1.3"],
    ["-k2b"],
    ["-t:", "-k2"],
    ["-t:", "-k2,2", "-k1,1r"],
    ["-k1,1", "-r"],
    ["-t", "\t", "-k1n", "-k3nr"],
    ["-t", "\t", "-k2,2", "-k1,1n"],
    ["-k1.2b,1.3n"],
    ["-k2,2", "-s"],
    ["-k1,1", "-u"],
    ["-bk2"],
    ["-k2.3"],
    ["-k2,2.2"],
    ["-k2.2b,2.3b"],
    ["-nr", "-k1,1"],
    ["-z"],
    ["-k3,3", "-t", "\t", "-g"],
    ["--sort=numeric"],
    ["-k0"],
    ["-k1.0"],
    ["-k", "2,0"],
    ["-k", "x"],
    ["-t", "ab"],
    ["-t", ""],
    ["-n", "-g"],
    ["-dn"],
    ["-k1,1n", "-k2bM"],
    ["-kn"],
    ["-k1.x"],
    ["-k1x"],
    ["-fM"],
    ["-dfr"],
    ["-t", "\t", "-k2"],
    ["-t", "\t", "-k2,2"],
    ["-hr"],
    ["-Vr"],
    ["-k1,1V"],
    ["-S", "1M", "-T", "/tmp"],
    ["-k", "1,1.0"],
    ["-k2.1b"],
    ["-su"],
    ["-ru"],
    ["-k1,1", "-k2,2r", "-s"],
    ["-f", "-k2,2"],
    ["-nk1,1", "-u"],
]
FILESETS = [["a"], ["tabs"], ["b", "s"]]
CASES = [["sort", *fl, *fs] for fl in FLAGS for fs in FILESETS]
CASES += [["sort", *fs] for fs in (["nope"], ["d"], ["a", "nope"], ["-"], [])]
CASES += [
    ["sort", *c, *fs]
    for c in (
        ["-c"],
        ["-C"],
        ["-cu"],
        ["-c", "-r"],
        ["-cn"],
        ["-c", "-s", "-k1,1"],
        ["--check=quiet"],
    )
    for fs in (["a"], ["s"], ["b"], ["s", "b"])
]
CASES += [
    ["sort", *fl, f]
    for fl in (["-n"], ["-rn"], ["-n", "-r"], ["-ns"], ["-nu"], ["-rnu"], ["-nz"],
               ["--numeric-sort", "--reverse"], ["-n", "-k1,1"], ["-bn"])
    for f in ("ints", "ints_big", "ints_no_nl", "near", "ints_z")
]
CASES += [
    ["sort", "-m", "s", "b"],
    ["sort", "-o"],
    ["sort", "--help"],
    ["sort", "--files0-from=f0"],
    ["sort", "--sort=bogus"],
    ["sort", "-c", "--check=x"],
]


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return make_root(tmp_path_factory, _files())


@pytest.mark.parametrize("argv", CASES, ids=ids)
def test_sort(root, argv):
    same(root, argv, b"q\np\nq\n")


def test_sort_check_duplicates(root):
    same(root, ["sort", "-c"], b"a\na\n")
    same(root, ["sort", "-cu"], b"a\na\n")


def test_sort_output_file_same_as_input(root):
    (root / "o").write_bytes(b"3\n1\n2\n")
    same(root, ["sort", "-n", "-o", "o", "o"])
    assert (root / "o").read_bytes() == b"1\n2\n3\n"
