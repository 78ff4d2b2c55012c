"""cat ls mkdir rm touch basename dirname: byte-identical to GNU coreutils on this host."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent))

from cmdharness import same  # noqa: E402
from files_common import build, same_effect  # noqa: E402


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    root = tmp_path_factory.mktemp("tree")
    build(root)
    return root


CAT = [
    [], ["-n"], ["-b"], ["-s"], ["-A"], ["-E"], ["-T"], ["-v"], ["-e"], ["-t"], ["-u"],
    ["-nsE"], ["-bT"], ["--number", "--show-ends"], ["--show-all"], ["--squeeze-blank"],
]


@pytest.mark.parametrize("flags", CAT, ids=lambda f: " ".join(f) or "plain")
def test_cat(tree, flags):
    same(tree, ["cat", *flags, "a.txt", "b.txt", "noeol", "a.txt", "big.bin"])


@pytest.mark.parametrize(
    "argv",
    [
        ["cat", "nosuch", "a.txt"],
        ["cat", "d"],
        ["cat", "space name", "no such"],
        ["cat", "-z"],
        ["cat", "--bogus"],
        ["cat", "-", "a.txt"],
        ["cat", "-n", "-"],
        ["cat", "dangling"],
    ],
)
def test_cat_misc(tree, argv):
    same(tree, argv, stdin=b"in1\n\n\n\nin2")


LS = [
    [], ["-l"], ["-a"], ["-A"], ["-1"], ["-R"], ["-lR"], ["-t"], ["-S"], ["-r"], ["-lh"],
    ["-la", "d"], ["-lA", "d"], ["-d", "d", "e"], ["-F"], ["-lF"], ["-p"], ["-ltr"], ["-lS"],
    ["-lSr"], ["-g"], ["-o"], ["-n"], ["-lG"], ["--full-time"], ["-l", "--time-style=long-iso"],
    ["-l", "--time-style=iso"], ["-l", "--time-style=+%Y/%m/%d"], ["-lu"], ["-lc", "a.txt"],
    ["a.txt", "d", "e"], ["-l", "a.txt", "big.bin", "d"], ["nosuch", "a.txt"], ["-ld", "dlink"],
    ["dlink"], ["-l", "dlink"], ["dlink/"], ["--group-directories-first"], ["-Rr"], ["d/"],
    ["-R", "d"], ["-aR", "d"], ["-lL", "d"], ["--color=never"], ["--color=bogus"], ["-z"],
    ["-lh", "big.bin"], ["--sort=size"], ["--format=long"], ["--classify"], ["-d"], ["-ld", "."],
    ["-lt", "--time-style=full-iso"], ["-1", "space name", "link", "dangling"],
    ["-i"], ["-s"], ["-is", "d"], ["-lis"], ["-sh"], ["-s1", "a.txt", "big.bin", "empty"],
    ["-si", "d", "a.txt"],
]


@pytest.mark.parametrize("flags", LS, ids=lambda f: " ".join(f) or "plain")
def test_ls(tree, flags):
    same(tree, ["ls", *flags])


BASENAME = [
    ["a/b/c"], ["a/b/"], ["/"], ["//"], [""], ["a/b.txt", ".txt"], ["b.txt", "b.txt"],
    ["-a", "a/b", "c/d/"], ["-s", ".c", "x.c", "y.c", "z"], ["-z", "a/b"], [], ["a", "b", "c"],
    ["--suffix=.h", "a.h"], ["-az", "x", "y"], ["--bogus"],
]


@pytest.mark.parametrize("args", BASENAME, ids=str)
def test_basename(tree, args):
    same(tree, ["basename", *args])


DIRNAME = [
    ["a/b/c"], ["a"], ["/"], ["//"], ["///"], ["a//"], ["//a"], ["//a/b"], ["a//b/"], [""],
    ["a/b", "c", "/d/e"], ["-z", "a/b", "c"], [], ["--zero", "x/y"],
]


@pytest.mark.parametrize("args", DIRNAME, ids=str)
def test_dirname(tree, args):
    same(tree, ["dirname", *args])


MKDIR = [
    ["new"], ["-v", "n1", "n2"], ["-p", "x/y/z"], ["-pv", "x/y/z"], ["-m", "700", "m"],
    ["-m", "u=rwx,go=", "m"], ["-pm", "750", "p/q"], ["-m", "bad", "m"],
    ["d"], ["a.txt/x"], ["-p", "a.txt/x/y"], ["-p", "a.txt"], ["-p", "d", "d/sub"],
    ["nosuch/x"], [], ["-v", "./c/./d"], ["-pv", "./c/./d/"],
]


@pytest.mark.parametrize("args", MKDIR, ids=str)
def test_mkdir(tmp_path, args):
    same_effect(tmp_path, ["mkdir", *args])


RM = [
    ["a.txt"], ["-v", "a.txt", "b.txt"], ["nosuch"], ["-f", "nosuch"], ["-f"], [], ["d"],
    ["-d", "e"], ["-d", "d"], ["-r", "d"], ["-rv", "d/sub"], ["-Rf", "d", "nosuch"], ["link"],
    ["dlink"], ["-r", "dlink"], ["-r", "dlink/"], ["dangling"], ["-r", "."], ["-rf", "d/.."],
    ["-r", "/"], ["a.txt/"], ["--recursive", "--verbose", "e"], ["-dv", "e"],
]


@pytest.mark.parametrize("args", RM, ids=str)
def test_rm(tmp_path, args):
    same_effect(tmp_path, ["rm", *args])


TOUCH = [
    ["-d", "2021-05-05", "new"], ["-t", "202001011200.30", "new"], ["-t", "2001011200", "a.txt"],
    ["-c", "nosuch"], ["nodir/x"], ["-d", "garbage", "x"], ["-t", "1", "x"],
    ["-r", "b.txt", "new"], ["-a", "-d", "2019-01-01", "a.txt"], ["-m", "-d", "@5", "a.txt"],
    ["-r", "nosuch", "x"], ["--time=bad", "x"], ["--time=mtime", "-d", "@99", "a.txt"],
    ["-d", "2020-02-03 04:05:06", "d", "e"], [], ["-h", "-d", "@7", "link"],
]


@pytest.mark.parametrize("args", TOUCH, ids=str)
def test_touch(tmp_path, args):
    same_effect(tmp_path, ["touch", *args], times=True)
