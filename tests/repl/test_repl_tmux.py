"""The terminal REPL driven through tmux: what a person at a keyboard sees.

Each test starts ``python -m vshell`` in a detached tmux session (see tmux_harness), types
keys and reads the screen, as a person would.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from tmux_harness import REPO, Tmux, last_output_lines, needs_tmux, tmux_for, wait_file

pytestmark = needs_tmux


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "subdir").mkdir(parents=True)
    (root / "notes.txt").write_text("hello from notes\n")
    (root / "subdir" / "inner.txt").write_text("inner\n")
    return root


@pytest.fixture
def term(request: pytest.FixtureRequest) -> Iterator[Tmux]:
    with tmux_for(request) as t:
        yield t


def vshell_cmd(project: Path, *extra: str, rc_file: Path | None = None) -> str:
    argv = [sys.executable, "-m", "vshell", "--mount", f"{project}:/work", *extra]
    cmd = f"cd {shlex.quote(str(REPO))} && " + shlex.join(argv)
    if rc_file is not None:
        cmd += f"; echo $? > {shlex.quote(str(rc_file))}"
    return cmd


def test_startup_editing_history_completion_multiline_ctrl_c(term: Tmux, project: Path
                                                              ) -> None:
    t0 = term.start(vshell_cmd(project))
    term.wait_prompts(1, timeout=15)
    startup = time.monotonic() - t0
    print(f"time to first prompt under tmux: {startup * 1000:.0f} ms")
    assert "vshell REPL (Ctrl-D to exit)" in term.screen()

    # editing: type, move left, backspace, insert
    term.type("echo abc")
    term.send("Left", "Left", "BSpace")
    term.type("X")
    term.send("Enter")
    screen = term.wait_prompts(2)
    assert "Xbc" in last_output_lines(screen)

    # history: Up recalls the previous line, which runs again
    term.send("Up")
    term.wait(lambda s: last_output_lines(s)[-1] == "$ echo Xbc")
    term.send("Enter")
    screen = term.wait_prompts(3)
    assert last_output_lines(screen).count("Xbc") == 2

    # completion: a command name, then a VFS path relative to the working directory
    term.type("ec")
    term.send("Tab")
    term.wait(lambda s: last_output_lines(s)[-1] == "$ echo")
    term.type(" ")
    term.type("cat no")
    term.send("Tab")
    term.wait(lambda s: last_output_lines(s)[-1] == "$ echo cat notes.txt")
    term.send("C-u")
    term.type("cat sub")
    term.send("Tab")
    term.wait(lambda s: last_output_lines(s)[-1] == "$ cat subdir/")
    term.type("in")
    term.send("Tab")
    term.wait(lambda s: last_output_lines(s)[-1] == "$ cat subdir/inner.txt")
    term.send("Enter")
    screen = term.wait_prompts(4)
    assert "inner" in last_output_lines(screen)

    # multi-line input: PS2 until the command is complete
    term.type("if true; then")
    term.send("Enter")
    term.wait(lambda s: last_output_lines(s)[-1] == ">")
    term.type("echo multi")
    term.send("Enter")
    term.type("fi")
    term.send("Enter")
    screen = term.wait_prompts(5)
    lines = last_output_lines(screen)
    assert "> echo multi" in lines and "> fi" in lines and "multi" in lines

    # Ctrl-C while a command runs stops it and comes back to the prompt
    term.type("sleep 10")
    term.send("Enter")
    time.sleep(0.5)
    t1 = time.monotonic()
    term.send("C-c")
    screen = term.wait_prompts(6, timeout=5)
    assert time.monotonic() - t1 < 3.0
    assert "(exit code 130)" in screen

    # Ctrl-C at the prompt discards the line; the session goes on
    term.type("echo discarded")
    term.send("C-c")
    term.type("echo after")
    term.send("Enter")
    screen = term.wait(lambda s: "after" in last_output_lines(s))
    assert "discarded" not in last_output_lines(screen)[-3:]
    assert term.alive()


def test_ctrl_d_exits_with_last_status(term: Tmux, project: Path, tmp_path: Path) -> None:
    rc = tmp_path / "rc"
    term.start(vshell_cmd(project, rc_file=rc))
    term.wait_prompts(1, timeout=15)
    term.type("false")
    term.send("Enter")
    screen = term.wait_prompts(2)
    assert "(exit code 1)" in screen
    term.send("C-d")
    assert wait_file(rc) == "1"


def test_exit_builtin_and_history_file(term: Tmux, project: Path, tmp_path: Path) -> None:
    rc = tmp_path / "rc"
    hist = tmp_path / "history"
    term.start(vshell_cmd(project, "--history-file", str(hist), rc_file=rc))
    term.wait_prompts(1, timeout=15)
    term.type("echo remembered")
    term.send("Enter")
    term.wait_prompts(2)
    term.type("exit 7")
    term.send("Enter")
    assert wait_file(rc) == "7"
    assert "echo remembered" in hist.read_text()

    # a second session sees the first one's history through Up
    rc.unlink()
    term.kill()
    term.start(vshell_cmd(project, "--history-file", str(hist), rc_file=rc))
    term.wait_prompts(1, timeout=15)
    term.send("Up")
    term.wait(lambda s: last_output_lines(s)[-1] == "$ exit 7")
    term.send("Enter")
    assert wait_file(rc) == "7"


def _child_pid(term: Tmux) -> int:
    pane = int(term.tmux("display-message", "-p", "-t", term.name, "#{pane_pid}").strip())
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        out = subprocess.run(["pgrep", "-P", str(pane)], capture_output=True, text=True,
                             timeout=5).stdout.split()
        if out:
            return int(out[0])
        time.sleep(0.05)
    raise AssertionError("no vshell process under the pane")


@pytest.mark.skipif(shutil.which("pgrep") is None, reason="pgrep is not installed")
@pytest.mark.parametrize("busy", [False, True], ids=["at-prompt", "during-command"])
def test_sigterm_ends_repl_with_143(term: Tmux, project: Path, tmp_path: Path,
                                    busy: bool) -> None:
    rc = tmp_path / "rc"
    term.start(vshell_cmd(project, rc_file=rc))
    term.wait_prompts(1, timeout=15)
    if busy:
        term.type("sleep 10")
        term.send("Enter")
        time.sleep(0.5)
    t0 = time.monotonic()
    os.kill(_child_pid(term), signal.SIGTERM)
    assert wait_file(rc) == "143"
    assert time.monotonic() - t0 < 3.0


def test_commands_read_the_terminal(term: Tmux, project: Path) -> None:
    term.start(vshell_cmd(project))
    term.wait_prompts(1, timeout=15)
    term.type("read x; echo got $x")
    term.send("Enter")
    time.sleep(0.3)
    term.type("hello there")
    term.send("Enter")
    term.wait_prompts(2)
    assert "got hello there" in last_output_lines(term.screen())

    # Ctrl-D ends a command's input, not the session
    term.type("wc -l")
    term.send("Enter")
    time.sleep(0.3)
    term.type("a")
    term.send("Enter")
    term.type("b")
    term.send("Enter", "C-d")
    screen = term.wait_prompts(3)
    assert "2" in last_output_lines(screen)

    # Ctrl-C stops a command waiting on the terminal; no reader is left to steal keys
    term.type("cat")
    term.send("Enter")
    time.sleep(0.3)
    term.send("C-c")
    term.wait_prompts(4, timeout=5)
    term.type("echo typed-after")
    term.send("Enter")
    screen = term.wait_prompts(5)
    assert "typed-after" in last_output_lines(screen)


MEASURE = """
import sys, time
t0, c0 = time.perf_counter(), time.process_time()
from vshell.cli.repl import _make_session
from vshell.sandbox import Sandbox
_make_session(Sandbox(), None)
wall, cpu = time.perf_counter() - t0, time.process_time() - c0
open(sys.argv[1], "w").write(f"{wall * 1000:.0f} {cpu * 1000:.0f}")
"""


def test_repl_setup_under_300ms(term: Tmux, tmp_path: Path) -> None:
    """prompt_toolkit import + session set-up (on a real terminal) stays under 300 ms CPU."""
    script = tmp_path / "measure.py"
    script.write_text(MEASURE)
    out = tmp_path / "measure.out"
    term.start(f"cd {shlex.quote(str(REPO))} && {shlex.quote(sys.executable)} "
               f"{shlex.quote(str(script))} {shlex.quote(str(out))}")
    wall, cpu = map(int, wait_file(out, timeout=20).split())
    print(f"REPL set-up: {wall} ms wall, {cpu} ms CPU")
    assert cpu < 300
