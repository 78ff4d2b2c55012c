"""A final ``/`` names a directory and follows a symlink there (POSIX), compared with bash
and GNU coreutils: ``stat link/`` is the directory, ``rm link/`` and ``mv link/ x`` refuse."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from vshell import HostMount, Sandbox

SETUP = "mkdir real; echo x > real/f; ln -s real d; echo y > file; ln -s file fl; ln -s nope dang; "

CASES = [
    "stat -c '%n %F' d/ d real/",
    "stat -c '%F' fl/; echo $?",
    "stat -c '%F' dang/; echo $?",
    "stat -L -c '%F' d/.",
    "ls -ld d/ | cut -c1; ls -ld d | cut -c1",
    "test -d d/; echo $?; test -L d/; echo $?; test -h d; echo $?; [ -e fl/ ]; echo $?",
    "[ -f fl/ ]; echo $?; [ -d d/. ]; echo $?",
    "cd d/ && pwd && pwd -P",
    "rm d/; echo $?; ls -d d",
    "rm fl/; echo $?; ls fl",
    "rmdir d/; echo $?; ls -d d",
    "cat fl/; echo $?",
    "readlink d/; echo $?; readlink d",
    "mv d/ e; echo $?; ls -d d real",
    "mv fl/ g; echo $?; ls fl",
    "mv file nothere/; echo $?; ls file",
    "mv real/ moved; echo $?; ls moved",
    "echo z > fl/; echo $?; cat file",
    "echo z > new/; echo $?; ls new",
    "touch fl/; echo $?",
    "touch d/; echo $?",
    "chmod 700 d/; stat -c %a real",
    "ls d/; find d/ | sort",
    "du -s d/ | cut -f2; du -s d | cut -f2",
    "cp -r d/ cpy; ls -ld cpy | cut -c1; ls cpy",
    "realpath d/; realpath -s d/",
]


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash and GNU coreutils")
@pytest.mark.parametrize("script", CASES)
def test_trailing_slash_like_gnu(tmp_path: Path, script: str) -> None:
    ref, box = tmp_path / "ref", tmp_path / "box"
    ref.mkdir()
    box.mkdir()
    want = subprocess.run(["bash", "-c", SETUP + script], cwd=ref, capture_output=True,
                          env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"})
    with Sandbox(mounts=[HostMount(str(box), "/w")], cwd="/w") as sb:
        got = sb.exec(SETUP + script)
    norm = want.stdout.replace(str(ref).encode(), b"/w")
    wanted_err = want.stderr.replace(b"bash: line 1: ", b"vshell: line 1: ")
    assert (got.exit_code, got.stdout, got.stderr) == (want.returncode, norm, wanted_err)
