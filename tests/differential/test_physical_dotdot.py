"""``..`` after a symlink is physical for every command and redirection (the kernel's
rule), logical only for ``cd``/``pwd`` without -P and ``realpath -L``: against bash + GNU."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from vshell import HostMount, Sandbox

SETUP = ("mkdir -p real/x/pub other/deep; echo r > real/x/f; echo o > other/f; "
         "echo p > f; ln -s real/x d; ln -s ../../other/deep real/x/up; ")

CASES = [
    "stat -c %n:%F d/pub/.. d/..",
    "ls d/..; ls d/up/..",
    "cat d/up/../f; cat d/../x/f",
    "realpath d/up/..; realpath -L d/up/..; realpath -s d/..",
    "cd d && ls .. && cat ../x/f && pwd && pwd -P",
    "cd d && cd .. && pwd && ls",
    "cd -P d && cd .. && pwd",
    "test -e d/up/../f && echo yes; [ -d d/.. ] && echo dir",
    "cat < d/up/../f; echo hi > d/up/../g; cat other/g",
    "ls -d d/up/../../other; echo $?",
    "find d/up/.. -name f | sort",
    "wc -c d/up/../f; head -1 d/../x/f",
]


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash and GNU coreutils")
@pytest.mark.parametrize("script", CASES)
def test_dotdot_after_symlink_like_gnu(tmp_path: Path, script: str) -> None:
    ref, box = tmp_path / "ref", tmp_path / "box"
    ref.mkdir()
    box.mkdir()
    want = subprocess.run(["bash", "-c", SETUP + script], cwd=ref, capture_output=True,
                          env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"})
    with Sandbox(mounts=[HostMount(str(box), "/w")], cwd="/w") as sb:
        got = sb.exec(SETUP + script)
    wanted = want.stdout.replace(str(ref).encode(), b"/w")
    wanted_err = want.stderr.replace(b"bash: line 1: ", b"vshell: line 1: ")
    assert (got.exit_code, got.stdout, got.stderr) == (want.returncode, wanted, wanted_err)
