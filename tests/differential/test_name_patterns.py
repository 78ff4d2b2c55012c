"""File-name patterns of grep --include/--exclude/--exclude-dir, tree -P/-I and diff -x
against the GNU tools (all matched through vshell.text.glob's fnmatch mode)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from cmdharness import run_cmd, run_gnu, write_files

FILES = {
    "sub/a.c": "hi\n",
    "b.c": "hi\n",
    ".h/c.c": "hi\n",
    "x[1].c": "hi\n",
    "lib/c.py": "hi\n",
    "lib/d|e": "hi\n",
    "README": "hi\n",
}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    write_files(tmp_path, FILES)
    return tmp_path


def _need(tool: str) -> None:
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed")


def _lines(out: bytes) -> list[bytes]:
    return sorted(out.splitlines())  # walk order is the directory's, not part of the contract


GREP_OPTS = [
    "--include=*.c", "--include=sub/*.c", "--include=sub*", "--include=a.c",
    "--include=[a].c", "--include=[!b].c", "--exclude=sub/*.c", "--exclude=*/a.c",
    "--exclude=a.c", r"--exclude=x\[1\].c", "--exclude=*", "--exclude-dir=s*",
    "--exclude-dir=.h", "--exclude-dir=su?", "--exclude=/a.c", "--include=/a.c",
]


@pytest.mark.parametrize("opt", GREP_OPTS)
@pytest.mark.parametrize("args", [["-r", "hi", "."], ["hi", "sub/a.c", "b.c", "./sub/a.c"],
                                  ["-r", "hi", "./sub", "lib"], ["hi", "sub//a.c", ".//b.c"]])
def test_grep_name_patterns_match_gnu(root: Path, opt: str, args: list[str]) -> None:
    _need("grep")
    argv = ["grep", opt, *args]
    want, got = run_gnu(root, argv), run_cmd(root, argv)
    assert (got.status, _lines(got.stdout)) == (want.status, _lines(want.stdout)), argv


TREE_OPTS = [["-P", "*.c|*.h"], ["-P", "*.c"], ["-I", "sub|lib"], ["-I", "*.py|R*"],
             ["-P", "[a-c].*"], ["-P", "d|e"], ["-P", r"x\[1\].c"], ["-a", "-P", "*.c"],
             ["-I", "a*"], ["-P", "s*"]]


@pytest.mark.parametrize("opts", TREE_OPTS)
def test_tree_patterns_match_tree(root: Path, opts: list[str]) -> None:
    _need("tree")
    argv = ["tree", "--noreport", *opts, "."]
    want, got = run_gnu(root, argv), run_cmd(root, argv)
    assert (got.status, got.stdout) == (want.status, want.stdout), argv


@pytest.mark.parametrize("pat", ["*.c", r"y\[1\]", "*", ".*", "sub", "a/x.c", "[xy]*",
                                 "sub/z.c", "[!x]*"])
def test_diff_exclude_matches_base_names_as_gnu(tmp_path: Path, pat: str) -> None:
    _need("diff")
    for side, text in (("a", "1\n"), ("b", "2\n")):
        write_files(tmp_path, {f"{side}/{n}": text for n in ("x.c", "y[1]", ".h", "sub/z.c")})
    argv = ["diff", "-rq", "-x", pat, "a", "b"]
    want, got = run_gnu(tmp_path, argv), run_cmd(tmp_path, argv)
    assert (got.status, got.stdout) == (want.status, want.stdout), argv
