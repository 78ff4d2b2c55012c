"""`vshell --try` at a real terminal: work in the REPL stays off the host, the exit summary
names what changed and how to apply it, and that `vshell sync` line does apply it."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from tmux_harness import REPO, Tmux, needs_tmux, tmux_for

pytestmark = needs_tmux


@pytest.fixture
def term(request: pytest.FixtureRequest) -> Iterator[Tmux]:
    with tmux_for(request) as t:
        yield t


def test_try_keeps_work_off_the_host_until_sync(term: Tmux, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    cache = tmp_path / "cache"  # the overlay goes under VSHELL_CACHE_DIR, not the real cache
    env = (f"PYTHONPATH={shlex.quote(str(REPO))} "
           f"VSHELL_CACHE_DIR={shlex.quote(str(cache))}")
    argv = [sys.executable, "-m", "vshell", "--try",
            "--history-file", str(tmp_path / "history")]
    # the pane must outlive vshell so the summary it prints on exit can be read
    term.start(f"cd {shlex.quote(str(work))} && {env} {shlex.join(argv)}; "
               "echo \"[exited $?]\"; sleep 60")
    term.wait_prompts(1, timeout=15)
    term.type("echo hi > new.txt")
    term.send("Enter")
    term.wait_prompts(2)
    term.send("C-d")
    term.wait(lambda s: "[exited " in s, timeout=10)
    screen = term.screen(join=True)

    assert "[exited 0]" in screen, screen
    assert "vshell: 1 change(s):" in screen, screen
    assert f"A {work / 'new.txt'}" in screen, screen
    m = re.search(r"apply them with: vshell sync --overlay (\S+)", screen)
    assert m, screen
    overlay = shlex.split(m.group(1))[0]
    assert Path(overlay).is_relative_to(cache)
    assert not (work / "new.txt").exists()

    done = subprocess.run([sys.executable, "-m", "vshell", "sync", "--overlay", overlay],
                          cwd=work, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"A {work / 'new.txt'}\n"
    assert (work / "new.txt").read_text() == "hi\n"
