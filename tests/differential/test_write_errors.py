"""A command whose standard output fails (here: /dev/full) reports it GNU's way and status."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from vshell import HostMount, Sandbox

CASES = [
    "cat f.txt", "head -n 2 f.txt", "tail -n 2 f.txt", "seq 3", "sort f.txt", "uniq f.txt",
    "wc -l f.txt", "cut -c1 f.txt", "tr a-z A-Z < f.txt", "tac f.txt", "nl f.txt", "rev f.txt",
    "base64 f.txt", "md5sum f.txt", "sha256sum f.txt", "od -c f.txt", "ls", "grep a f.txt",
    "sed p f.txt", "paste f.txt f.txt", "fold -w1 f.txt", "expand f.txt", "find . -name f.txt",
    "du -s f.txt", "xxd f.txt", "jq -n 1", "yes | head -3",
]


@pytest.mark.skipif(shutil.which("jq") is None or shutil.which("xxd") is None,
                    reason="needs the GNU tools and jq/xxd on the host")
@pytest.mark.parametrize("script", CASES)
def test_write_error_like_gnu(tmp_path: Path, script: str) -> None:
    (tmp_path / "f.txt").write_bytes(b"b\na\nc\n")
    want = subprocess.run(["bash", "-c", script + " > /dev/full"], cwd=tmp_path,
                          capture_output=True, env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"})
    with Sandbox(mounts=[HostMount(str(tmp_path), "/w")]) as sb:
        got = sb.exec(script + " > /dev/full")
    assert (got.exit_code, got.stderr) == (want.returncode, want.stderr)


def test_dev_full_reads_zeros_and_refuses_writes() -> None:
    with Sandbox() as sb:
        res = sb.exec("head -c 4 /dev/full | od -An -tx1; echo x > /dev/full; echo $?")
    assert res.stdout == b" 00 00 00 00\n1\n"
    assert res.stderr.endswith(b"echo: write error: No space left on device\n")
