"""column against util-linux column on this host."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_text_common import ids, make_root, same  # noqa: E402

FILES = {
    "t": "a b  c\nlonger x\n\nq,r,,s\n\ta\tb\n",
    "csv": "a,b,,c\nxx,y\nname,value,extra\n",
    "u": "é b\nxx y\n中文 z\n",
    "n": "".join(f"{i}\n" for i in range(1, 31)),
    "w": "".join(f"word{i * 7}\n" for i in range(1, 40)),
    "long": "x" * 90 + "\ny\n",
}
FLAGS = [
    ["-t"],
    ["-t", "-s", ","],
    ["-t", "-s", ",", "-o", "|"],
    ["-t", "-o", " | "],
    [],
    ["-c", "40"],
    ["-x", "-c", "40"],
    ["-x"],
    ["-c", "x"],
    ["-c", "10"],
]
CASES = [["column", *fl, f] for fl in FLAGS for f in FILES] + [["column", "nope"]]


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return make_root(tmp_path_factory, FILES)


@pytest.mark.parametrize("argv", CASES, ids=ids)
def test_column(root, argv):
    same(root, argv, b"s1 s2\ns3 s4\n")
