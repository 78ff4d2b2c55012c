"""vshell's own messages for a bad command line or sandbox option name the real problem."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from vshell import HostMount, Sandbox, SandboxConfigError
from vshell.cli.main import main

HINT = "Try 'vshell --help' for more information.\n"


@pytest.fixture()
def where(tmp_path: Path, monkeypatch) -> Path:
    (tmp_path / "afile").write_text("x")
    (tmp_path / "d").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


CASES = [
    (["--mount", "./nope:/work"], "vshell: --mount ./nope:/work: no such directory: ./nope\n"),
    (["--mount", "afile:/work"], "vshell: --mount afile:/work: not a directory: afile\n"),
    (["--mount", ".:/work:rx"], "vshell: --mount .:/work:rx: unknown mode 'rx' (use ro or cow)\n"
     + HINT),
    (["--mount", ".:/work:ro:cow"], "vshell: --mount .:/work:ro:cow: more than one mode (ro and"
     " cow); give one of ro or cow\n" + HINT),
    (["--mount", ".:work"], "vshell: --mount .:work: VPATH 'work' must be an absolute path in"
     " the sandbox, e.g. /work\n" + HINT),
    (["--mount", "."], "vshell: --mount .: want HOST:VPATH[:ro|:cow], e.g. --mount .:/work\n"
     + HINT),
    (["--mount", ":/w"], "vshell: --mount :/w: want HOST:VPATH[:ro|:cow], e.g. --mount .:/work\n"
     + HINT),
    (["--mount", ".:/a/../b"], "vshell: --mount .:/a/../b: VPATH '/a/../b' must not contain '.'"
     " or '..'\n" + HINT),
    (["--mount", ".:/w", "--mount", "d:/w/"], "vshell: --mount d:/w/: /w is already mounted by"
     " --mount .:/w\n" + HINT),
    (["--cwd", "work"], "vshell: --cwd work: must be an absolute path in the sandbox (a mount"
     " point such as /work, or a directory under one)\n" + HINT),
    (["--mount", ".:/w", "--cwd", "/nowhere"], "vshell: cwd /nowhere: no such directory in the"
     " sandbox\n"),
    (["--cwd"], "vshell: option --cwd requires an argument\n" + HINT),
    (["--mount", "-c", "pwd"], "vshell: option --mount requires an argument\n" + HINT),
]


@pytest.mark.parametrize(("argv", "message"), CASES, ids=lambda a: " ".join(a)[:40])
def test_cli_names_the_problem(where, capsys, argv, message):
    status = main([*argv, "-c", "pwd"] if argv[-1] != "pwd" else argv)
    err = capsys.readouterr().err
    assert (status, err) == (2, message)


def test_good_mounts_still_work(where, capsys):
    for argv in (["--mount", ".:/w:ro"], ["--mount", f"{where}:/w:cow"], ["--mount", "d:/w"],
                 ["--mount", ".:/w", "--cwd", "/w/../w"], ["--mount", ".:/w", "--cwd=/w/d"]):
        assert main([*argv, "-c", "true"]) == 0, argv
    assert capsys.readouterr().err == ""


def test_api_messages(where):
    cases = [
        (dict(mounts=[HostMount("nope", "/w")]), "mount nope:/w: no such directory: nope"),
        (dict(mounts=[HostMount("afile", "/w")]), "mount afile:/w: not a directory: afile"),
        (dict(mounts=[HostMount(".", "/w")], cwd="w"),
         "cwd 'w' must be an absolute path in the sandbox"),
        (dict(mounts=[HostMount(".", "/w")], cwd="/x"), "cwd /x: no such directory in the sandbox"),
        (dict(mounts=[HostMount(".", "/w"), HostMount("d", "/w")]),
         "two mounts at /w: each mount point must differ"),
    ]
    for kwargs, message in cases:
        with pytest.raises(SandboxConfigError) as info:
            Sandbox(**kwargs)
        assert str(info.value) == message
    with Sandbox(mounts=[HostMount(".", "/w")], cwd="/w/./d/..") as sb:
        assert sb.cwd == "/w" and os.path.isdir(where)
