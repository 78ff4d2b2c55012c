"""mkfifo: refused with GNU's wording where GNU fails too; a FIFO itself is never faked."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from tools import needs

sys.path.insert(0, str(Path(__file__).parent))

from cmdharness import run_cmd  # noqa: E402
from files_common import same_effect  # noqa: E402

pytestmark = needs("mkfifo")


def _tree(root: Path) -> None:
    (root / "d").mkdir()
    (root / "f").write_text("x\n")


GNU_FAILS = [["mkfifo"], ["mkfifo", "-m", "zz", "p"], ["mkfifo", "d"], ["mkfifo", "f"],
             ["mkfifo", "nope/p"], ["mkfifo", "f/p"], ["mkfifo", "--bogus", "p"],
             ["mkfifo", "-m", "600", "d", "f"]]


@pytest.mark.parametrize("argv", GNU_FAILS, ids=" ".join)
def test_errors_match_gnu(tmp_path: Path, argv: list[str]) -> None:
    same_effect(tmp_path, argv, setup=_tree)


def test_fifo_refused_and_nothing_created(tmp_path: Path) -> None:
    _tree(tmp_path)
    got = run_cmd(tmp_path, ["mkfifo", "-m", "600", "p", "d/q"])
    assert got.status == 1
    assert got.stderr.count(b"Operation not supported\n") == 2, got.stderr
    assert not (tmp_path / "p").exists() and not (tmp_path / "d" / "q").exists()
