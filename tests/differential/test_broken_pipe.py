"""A reader that goes away is SIGPIPE for the writer (silent, status 141), never an error
reading the writer's input file: compared with bash + GNU under pipefail and PIPESTATUS.

The input (about 3 MB) is larger than both a Linux pipe and vshell's pipe buffer, so every
writer really writes into a closed pipe on both sides.  A writer whose whole output fits in
a pipe (``md5sum big big``: 76 bytes) races with the reader's exit in bash as in vshell, so
it has no place here: whether its last write meets the closed pipe is timing."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from vshell import HostMount, Sandbox

WRITERS = [
    "cat big", "head -n 400000 big", "tail -n 400000 big", "cut -c1- big", "tr 1 2 < big",
    "sed p big", "awk 1 big", "tac big", "nl big", "uniq big", "rev big", "paste big",
    "fold -w3 big", "expand big", "base64 big", "od big", "xxd big", "grep 1 big", "sort big",
    "head -c 3000000 /dev/zero", "cat /dev/zero", "seq 1000000", "yes",
    "cat big big", "nl big big", "fmt big", "cat -n big",
]


@pytest.mark.skipif(shutil.which("xxd") is None, reason="needs GNU tools and xxd as oracles")
@pytest.mark.parametrize("writer", WRITERS)
def test_write_into_closed_pipe_like_gnu(tmp_path: Path, writer: str) -> None:
    (tmp_path / "big").write_bytes(b"".join(b"%d\n" % i for i in range(400000)))
    script = f"set -o pipefail; {writer} | head -c 1 >/dev/null; echo \"$? ${{PIPESTATUS[*]}}\""
    want = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True,
                          env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"})
    with Sandbox(mounts=[HostMount(str(tmp_path), "/w")], cwd="/w") as sb:
        got = sb.exec(script)
    assert (got.stdout, got.stderr) == (want.stdout, want.stderr)
