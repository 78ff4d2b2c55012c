"""``$(< file)`` and ``< dir`` compared with bash: the status an assignment takes, the
message, and a directory opened for reading (every read then says EISDIR)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from vshell import HostMount, Sandbox

CASES = [
    "y=$(< nope); echo \"$? [$y]\"",
    "y=$( < nope ); echo $?",
    "y=$(<nope;); echo $?",
    "y=`< nope`; echo $?",
    "echo \"[$(< nope)]\" $?",
    "y=$(< nope 2>/dev/null); echo $?",
    "y=$(< f); echo \"$? [$y]\"",
    "false; y=$(< f); echo $?",
    "y=$(< nope) || echo failed",
    "f() { local v=$(< nope); echo $?; }; f 2>/dev/null",
    "y=$(< dd); echo \"$? [$y]\"",
    "cat < dd; echo $?",
    "sort < dd; echo $?",
    "read x < dd; echo $?",
    "cat < nope; echo $?",
]


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash as the oracle")
@pytest.mark.parametrize("script", CASES)
def test_file_substitution_like_bash(tmp_path: Path, script: str) -> None:
    (tmp_path / "f").write_bytes(b"x\n\n")
    (tmp_path / "dd").mkdir()
    want = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True,
                          env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"})
    with Sandbox(mounts=[HostMount(str(tmp_path), "/w")], cwd="/w") as sb:
        got = sb.exec(script)
    wanted_err = want.stderr.replace(b"bash: line 1: ", b"vshell: line 1: ")
    assert (got.exit_code, got.stdout, got.stderr) == (want.returncode, want.stdout, wanted_err)
