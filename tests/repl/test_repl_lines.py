"""The REPL fed from a pipe (how agents drive it) and its completion logic.

Piped input is read line by line with no prompts; incomplete commands are collected until
they parse.  Completion is tested through ``vshell.cli.repl.complete`` directly, without a
terminal.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from vshell.cli.repl import complete
from vshell.command import Command
from vshell.sandbox import MemoryMount, Sandbox

REPO = Path(__file__).resolve().parents[2]


def run_piped(script: str, *args: str, timeout: float = 20) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "vshell", *args], input=script.encode(),
                          capture_output=True, timeout=timeout, cwd=REPO)


def test_piped_lines_accumulate_without_prompts() -> None:
    res = run_piped("if true; then\necho x\nfi\nX=5\ncd /tmp\necho $X $PWD\n")
    assert res.stdout == b"x\n5 /tmp\n"
    assert res.stderr == b""
    assert res.returncode == 0


def test_piped_status_exit_and_syntax_error() -> None:
    res = run_piped("echo a\nfalse\n")
    assert (res.stdout, res.returncode) == (b"a\n", 1)
    res = run_piped("echo a\nexit 3\necho b\n")
    assert (res.stdout, res.returncode) == (b"a\n", 3)
    # as bash runs a piped script: a syntax error ends it with 2, naming the line
    res = run_piped("echo a\necho )\necho b\n")
    assert (res.stdout, res.returncode) == (b"a\n", 2)
    assert b"line 2: syntax error" in res.stderr
    assert b"(exit code" not in res.stderr  # no tty, no decorations


def test_piped_unfinished_command_at_eof_is_a_syntax_error() -> None:
    res = run_piped("echo a\nif true; then\n")
    assert res.stdout == b"a\n"
    assert res.returncode == 2


def _start(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "vshell", *args], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO)


def _wait_ready(p: subprocess.Popen) -> None:
    assert p.stdin is not None and p.stdout is not None
    p.stdin.write(b"echo ready\n")
    p.stdin.flush()
    assert p.stdout.readline() == b"ready\n"


def test_piped_sigint_stops_the_command_and_the_repl_goes_on() -> None:
    p = _start()
    try:
        _wait_ready(p)
        assert p.stdin is not None
        p.stdin.write(b"sleep 10; echo not-reached\n")
        p.stdin.flush()
        time.sleep(0.5)
        t0 = time.monotonic()
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(b"echo after\n", timeout=10)
        assert time.monotonic() - t0 < 3.0
        assert out == b"after\n"
        assert p.returncode == 0
    finally:
        p.kill()


@pytest.mark.parametrize("busy", [False, True], ids=["reading", "running"])
def test_piped_sigterm_exits_143(busy: bool) -> None:
    p = _start()
    try:
        _wait_ready(p)
        assert p.stdin is not None
        if busy:
            p.stdin.write(b"sleep 10\n")
            p.stdin.flush()
            time.sleep(0.5)
        t0 = time.monotonic()
        os.kill(p.pid, signal.SIGTERM)
        p.wait(timeout=10)
        assert time.monotonic() - t0 < 3.0
        assert p.returncode == 143
    finally:
        p.kill()


def test_help_documents_history_file() -> None:
    res = subprocess.run([sys.executable, "-m", "vshell", "--help"], capture_output=True,
                         timeout=20, cwd=REPO)
    assert b"--history-file PATH" in res.stdout


def test_dash_c_does_not_import_prompt_toolkit() -> None:
    code = ("import sys; from vshell.cli.main import main; rc = main(['-c', 'echo hi']); "
            "print('prompt_toolkit' in sys.modules)")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=20,
                         cwd=REPO)
    assert res.stdout == b"hi\nFalse\n"


# --- completion -------------------------------------------------------------------------
@pytest.fixture
def sb() -> Sandbox:
    files = {"notes.txt": b"n\n", "my file.txt": b"", ".hidden": b"", "sub/inner.txt": b"",
             "secret.env": b"x"}
    box = Sandbox(mounts=[MemoryMount("/work", files=files)], deny=["*.env"],
                  commands=[Command("wordfreq", "count words", lambda inv: 0)])
    box.exec("myfunc() { :; }; alias ll='ls -l'; MYVAR=1")
    return box


def texts(sb: Sandbox, before: str) -> list[str]:
    return [t for t, _ in complete(sb, before)[1]]


def test_complete_command_names(sb: Sandbox) -> None:
    assert texts(sb, "wordf") == ["wordfreq"]  # a custom command
    assert texts(sb, "myfu") == ["myfunc"]  # a function
    assert "ll" in texts(sb, "l")  # an alias
    assert "cd" in texts(sb, "c") and "cat" in texts(sb, "c")  # shell builtin, shipped
    assert "grep" in texts(sb, "echo x | gr")  # after a pipe
    assert "grep" in texts(sb, "if gr")  # after a keyword
    assert texts(sb, "echo gr") == []  # an argument is a path, not a command


def test_complete_variables(sb: Sandbox) -> None:
    assert texts(sb, "echo $MYV") == ["MYVAR"]
    assert complete(sb, "echo $MYV")[0] == 3
    assert texts(sb, "echo ${MYV") == ["MYVAR}"]
    assert "HOME" in texts(sb, "echo $HO")


def test_complete_paths(sb: Sandbox) -> None:
    assert texts(sb, "cat no") == ["notes.txt"]
    assert texts(sb, "cat /work/no") == ["/work/notes.txt"]
    assert texts(sb, "cat su") == ["sub/"]
    assert texts(sb, "cat sub/") == ["sub/inner.txt"]
    assert texts(sb, "cat my") == ["my\\ file.txt"]
    assert texts(sb, "cat .h") == [".hidden"]
    assert ".hidden" not in texts(sb, "cat ")
    assert texts(sb, "cat sec") == []  # denied entries are not listed
    assert texts(sb, "cd ") == ["sub/"]  # cd wants directories
    assert texts(sb, "cat /nowhere/x") == []
    assert "/work/" in texts(sb, "ls /w")
    sb.exec("cd sub")
    assert texts(sb, "cat in") == ["inner.txt"]  # relative to the session's cwd
    assert texts(sb, "cat ../no") == ["../notes.txt"]
