"""sort past SLICE_LINES: sorted slice by slice and merged, the output still GNU sort's
(stability, -r, -u, keys and numbers included)."""

from __future__ import annotations

import random
import shutil
import subprocess

import pytest

from tests.cmdharness import run_cmd
from vshell.commands.sort import SLICE_LINES

needs_sort = pytest.mark.skipif(shutil.which("sort") is None, reason="GNU sort not installed")


def _data() -> bytes:
    rng = random.Random(7)
    words = ["a", "B", "b", "10", "9", "-3", " x", "a b", "é"]
    lines = [f"{rng.choice(words)},{rng.randint(-50, 50)},{rng.choice(words)}{rng.randint(0, 9)}"
             for _ in range(3 * SLICE_LINES + 123)]
    return ("\n".join(lines) + "\n").encode()


@needs_sort
@pytest.mark.parametrize("flags", [[], ["-r"], ["-u"], ["-n"], ["-t,", "-k2,2n"],
                                   ["-t,", "-k2,2n", "-s"], ["-t,", "-k3,3", "-r", "-s"],
                                   ["-t,", "-k1,1", "-u"], ["-f"]])
def test_big_inputs_sort_like_gnu(tmp_path, flags: list[str]) -> None:
    data = _data()
    want = subprocess.run(["sort", *flags], input=data, capture_output=True, timeout=60,
                          env={"LC_ALL": "C"})
    got = run_cmd(tmp_path, ["sort", *flags], stdin=data)
    assert (got.status, got.stdout) == (want.returncode, want.stdout)
