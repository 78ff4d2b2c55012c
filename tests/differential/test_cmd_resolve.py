"""realpath and readlink -f/-e/-m through ``..`` after symlinks: physical, as GNU resolves."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from files_common import same_effect  # noqa: E402


def _tree(root: Path) -> None:
    (root / "a" / "b" / "c").mkdir(parents=True)
    (root / "other").mkdir()
    (root / "a" / "b" / "f").write_text("f\n")
    (root / "other" / "g").write_text("g\n")
    os.symlink("a/b", root / "l")
    os.symlink("../../other", root / "a" / "b" / "up")
    os.symlink("c/..", root / "a" / "b" / "self")
    os.symlink("l/c", root / "lc")
    os.symlink("nowhere", root / "a" / "dangling")


NAMES = ["l/..", "l/../..", "l/../b/f", "l/up/..", "l/up/g", "lc/..", "lc/../..", "l/self/..",
         "a/b/up/../a", "l/../dangling", "l/../dangling/..", "l/../nope", "l/../nope/x/..",
         "./l/./../b/", "l/f/..", "l//..//b"]
CASES = ([["realpath", n] for n in NAMES] + [["readlink", "-f", n] for n in NAMES]
         + [["readlink", "-e", n] for n in NAMES] + [["readlink", "-m", n] for n in NAMES]
         + [["realpath", flag, n] for flag in ("-L", "-P", "-s", "-e", "-m", "--logical")
            for n in ("l/..", "a/../lc/..", "l/up/..", "l/../nope")]
         + [["realpath", "-L", "-P", "l/.."], ["realpath", "-P", "-L", "l/.."],
            ["realpath", "--relative-to=l/..", "other"],
            ["realpath", "--relative-base=l/..", "lc/.."]])


@pytest.mark.parametrize("argv", CASES, ids=" ".join)
def test_dotdot_after_symlink(tmp_path, argv):
    same_effect(tmp_path, argv, setup=_tree)


def test_absolute_names_resolve_physically(tmp_path):
    from cmdharness import run_cmd

    _tree(tmp_path)
    got = run_cmd(tmp_path, ["realpath", "/work/l/..", "/work/lc/../.."])
    assert got.stdout == b"/work/a\n/work/a\n", got


def test_directories_above_a_deep_mount_point_resolve(tmp_path):
    """`vshell --try` mounts a project at its own host path: realpath walks through the
    directories above that mount point even though the VFS does not list them."""
    from vshell import HostMount, Sandbox

    deep = tmp_path / "home" / "me" / "proj"
    (deep / "src").mkdir(parents=True)
    os.symlink("src", deep / "s")
    with Sandbox(mounts=[HostMount(str(deep), "/home/me/proj")], cwd="/home/me/proj") as sb:
        r = sb.exec("realpath . s/.. /home/me; readlink -f s; realpath -e /home/nope")
    assert r.stdout == b"/home/me/proj\n/home/me/proj\n/home/me\n/home/me/proj/src\n", r
    assert r.stderr == b"realpath: /home/nope: No such file or directory\n", r
