"""paste, comm and join against GNU coreutils on this host."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_text_common import ids, make_root, same  # noqa: E402

FILES = {
    "n3": "1\n2\n3\n",
    "ab": "a\nb",
    "c1": "a\nb\nd\n",
    "c2": "b\nc\nd\n",
    "u1": "b\na\n",
    "e": "",
    "j1": "1 a\n2 b\n4 d\n",
    "j2": "1 x\n3 y\n4 z w\n",
    "ju": "b 1\na 2\nc 3\n",
    "jm1": "k a\nk b\nm c\n",
    "jm2": "k x\nk y\nm z\nn q\n",
    "jt1": "id,name\n1,ann\n2,bob\n",
    "jt2": "id,age\n1,30\n3,40\n",
    "jc": "A 1\nb 2\n",
    "jc2": "a X\nB Y\n",
    "jb": "  1   a  b\n2\tc\n",
    "many": "".join(f"{i:05d} v{i}\n" for i in range(3000)),
}
STDIN = b"s1\ns2\ns3\n"
CASES: list[list[str]] = []
for flags in (
    [],
    ["-d,"],
    ["-s"],
    ["-s", "-d", ",;"],
    ["-d", ""],
    ["-d", "\\n"],
    ["-d", "\\t-"],
    ["-z"],
    ["-d", "\\"],
    ["--serial", "--delimiters=|"],
):
    for fs in (
        ["n3", "ab"],
        ["n3", "ab", "n3"],
        ["-", "-"],
        ["e", "n3"],
        ["nope"],
        ["n3", "-", "ab"],
    ):
        CASES.append(["paste", *flags, *fs])
for flags in (
    [],
    ["-12"],
    ["-3"],
    ["-13"],
    ["--output-delimiter=:"],
    ["--check-order"],
    ["--nocheck-order"],
    ["--total"],
    ["-3", "--total"],
    ["-z"],
    ["-123"],
):
    for fs in (
        ["c1", "c2"],
        ["u1", "c2"],
        ["c2", "u1"],
        ["e", "c1"],
        ["-", "c1"],
        ["nope", "c1"],
        ["c1"],
        ["c1", "c2", "c1"],
        ["many", "many"],
    ):
        CASES.append(["comm", *flags, *fs])
for flags in (
    [],
    ["-a1"],
    ["-a2"],
    ["-a1", "-a2", "-e", "X", "-o", "0,1.2,2.2"],
    ["-v1"],
    ["-v2"],
    ["-o", "auto", "-a2", "-e", "?"],
    ["-t,"],
    ["-1", "2", "-2", "1"],
    ["-j1"],
    ["-i"],
    ["--header"],
    ["-o", "1.3"],
    ["-o", "x"],
    ["-t", ""],
    ["--check-order"],
    ["--nocheck-order"],
    ["-o", "2.1,1.1", "-e", "E"],
    ["-o", "1.0"],
    ["-a", "3"],
):
    for fs in (
        ["j1", "j2"],
        ["ju", "j2"],
        ["jm1", "jm2"],
        ["jc", "jc2"],
        ["jb", "j1"],
        ["e", "j1"],
        ["nope", "j1"],
        ["j1"],
        ["-", "j2"],
    ):
        CASES.append(["join", *flags, *fs])
CASES += [
    ["join", "-t,", "--header", "jt1", "jt2"],
    ["join", "-t,", "-o", "auto", "jt1", "jt2"],
    ["join", "many", "many"],
    ["paste", "--help"],
    ["comm", "--help"],
    ["join", "--help"],
]


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return make_root(tmp_path_factory, FILES)


@pytest.mark.parametrize("argv", CASES, ids=ids)
def test_pastecommjoin(root, argv):
    same(root, argv, STDIN)


@pytest.mark.parametrize(
    "pair",
    [
        ("b\na\n", "b\na\nz\n"),
        ("b\na\n", "b\nc\n"),
        ("c\nb\na\n", "c\nb\nz\n"),
        ("b\na\n", "b\na\n"),
    ],
)
def test_comm_default_order_check(tmp_path, pair):
    (tmp_path / "x").write_text(pair[0])
    (tmp_path / "y").write_text(pair[1])
    same(tmp_path, ["comm", "x", "y"])
    same(tmp_path, ["comm", "y", "x"])


@pytest.mark.parametrize(
    "pair",
    [
        ("b 1\na 2\n", "b x\na y\nz q\n"),
        ("b 1\na 2\n", "b x\nc y\n"),
        ("c 1\nb 2\na 3\n", "c x\nb y\nz q\n"),
        ("b 1\na 2\n", "b x\na y\n"),
    ],
)
def test_join_default_order_check(tmp_path, pair):
    (tmp_path / "x").write_text(pair[0])
    (tmp_path / "y").write_text(pair[1])
    for flags in ([], ["-a1"], ["-v2"]):
        same(tmp_path, ["join", *flags, "x", "y"])
        same(tmp_path, ["join", *flags, "y", "x"])
