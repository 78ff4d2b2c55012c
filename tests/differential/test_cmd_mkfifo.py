"""mkfifo: GNU's errors where GNU fails; a named pipe made lives in the VFS, not on the host."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from tools import needs

sys.path.insert(0, str(Path(__file__).parent))

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


def test_fifo_made_in_the_sandbox_not_on_the_host(tmp_path: Path) -> None:
    from vshell import HostMount, Sandbox

    _tree(tmp_path)
    with Sandbox(mounts=[HostMount(str(tmp_path), "/w")], cwd="/w") as sb:
        got = sb.exec("mkfifo -m 600 p d/q && test -p p && test -p d/q && stat -c %a p")
        assert (got.exit_code, got.stdout, got.stderr) == (0, b"600\n", b"")
        assert not (tmp_path / "p").exists() and not (tmp_path / "d" / "q").exists()


def test_waits_on_a_fifo_end_with_the_run(tmp_path: Path) -> None:
    """A reader with no writer (or a writer with no reader) waits as on Linux, and a
    timeout still stops it at once."""
    import time

    from vshell import Sandbox
    from vshell.result import Outcome

    with Sandbox(timeout=1) as sb:
        for script in ("mkfifo /tmp/p; cat /tmp/p", "mkfifo /tmp/q; echo hi > /tmp/q"):
            t0 = time.monotonic()
            got = sb.exec(script)
            assert got.outcome is Outcome.TIMED_OUT, got
            assert time.monotonic() - t0 < 2.5  # the deadline and a loaded machine's margin
