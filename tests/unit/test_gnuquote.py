"""File names in messages are quoted as GNU coreutils 9 quote them: wc, head, cat, sort,
tac and others against the GNU tools with odd names (missing files and directories)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from vshell import HostMount, Sandbox
from vshell.text import gnuquote

NAMES = ["no\nfile", "it's", "a b", "x\"y", "tab\there", "\udcff", "$x", "~home", "plain"]
COMMANDS = ["wc", "head", "cat", "sort", "tac", "cut -c1", "nl", "uniq", "fold", "od"]


def _script() -> str:
    lines = []
    for cmd in COMMANDS:
        for name in NAMES:
            q = gnuquote.shell_escape_always(name)
            lines.append(f"{cmd} {q} 2>&1 >/dev/null | head -2")
    lines.append("mkdir -p $'d\\nir' && sort $'d\\nir' 2>&1; head $'d\\nir' 2>&1; "
                 "wc $'d\\nir' 2>&1")
    return "\n".join(lines) + "\n"


def test_styles() -> None:
    assert gnuquote.shell_escape("plain") == "plain"
    assert gnuquote.shell_escape("no\nfile") == "'no'$'\\n''file'"
    assert gnuquote.shell_escape("it's") == '"it\'s"'
    assert gnuquote.shell_escape("\udcff") == "''$'\\377'"
    assert gnuquote.shell_escape_always("plain") == "'plain'"
    assert gnuquote.locale_quote("a\nb") == "\u2018a\\nb\u2019"


@pytest.mark.skipif(any(shutil.which(c.split()[0]) is None for c in COMMANDS),
                    reason="GNU coreutils not available")
def test_messages_against_gnu(tmp_path: Path) -> None:
    script = _script()
    host = tmp_path / "host"
    host.mkdir()
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C.UTF-8"}
    want = subprocess.run(["bash", "-c", script], capture_output=True, env=env, cwd=host,
                          timeout=120).stdout
    work = tmp_path / "work"
    work.mkdir()
    with Sandbox(mounts=[HostMount(str(work), "/work")], cwd="/work", timeout=60) as sb:
        got = sb.exec(script).stdout
    assert b"'no'$'\\n''file'" in want
    assert got.decode("utf-8", "replace").splitlines() == want.decode(
        "utf-8", "replace").splitlines()
