"""vshell never starts a host process: checked statically over the source and at run time."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from vshell import MemoryMount, Sandbox

ROOT = Path(__file__).resolve().parents[2] / "vshell"
FORBIDDEN = re.compile(
    r"\b(subprocess|os\.system|os\.popen|os\.fork|os\.forkpty|os\.exec[lv]p?e?|"
    r"os\.spawn[lv]p?e?|posix_spawnp?|pty\.)\b|^\s*import\s+(subprocess|pty)\b|"
    r"^\s*from\s+(subprocess|pty)\s+import",
    re.M,
)


# The one exception, exactly: ``vshell run`` (the client of a scope's session, issue 20)
# starts the scope's server, which is vshell itself (``python -m vshell.scope.server``),
# never a command of a script.  It may do so in this file and with these calls only.
SERVER_SPAWN = "vshell/scope/spawn.py"
SERVER_SPAWN_CALLS = {"import subprocess", "subprocess"}


def test_source_has_no_process_calls() -> None:
    hits = []
    for path in ROOT.rglob("*.py"):
        text = path.read_text()
        where = str(path.relative_to(ROOT.parent))
        for m in FORBIDDEN.finditer(text):
            if where == SERVER_SPAWN and m.group(0).strip() in SERVER_SPAWN_CALLS:
                continue
            line = text.count("\n", 0, m.start()) + 1
            hits.append(f"{where}:{line}: {m.group(0).strip()}")
    assert not hits, "\n".join(hits)


def test_the_server_spawn_starts_only_vshell() -> None:
    """spawn.py's one Popen runs ``sys.executable -m vshell.scope.server``: no shell, no
    command text from a script, and the client is its only caller."""
    text = (ROOT / "scope" / "spawn.py").read_text()
    calls = re.findall(r"subprocess\.(\w+)\(", text)
    assert calls == ["Popen"], calls
    assert '[sys.executable, "-m", "vshell.scope.server", socket_path]' in text
    assert "shell=True" not in text
    users = [p.relative_to(ROOT.parent) for p in ROOT.rglob("*.py")
             if "start_server" in p.read_text() and p.name != "spawn.py"]
    assert [str(p) for p in users] == ["vshell/scope/client.py"], users


@pytest.fixture
def no_processes(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*a: object, **k: object) -> None:
        raise AssertionError("vshell tried to start a host process")

    monkeypatch.setattr(subprocess, "Popen", refuse)
    for name in ("system", "popen", "fork", "forkpty", "execv", "execve", "execvp", "execvpe",
                 "execl", "execle", "execlp", "execlpe", "posix_spawn", "posix_spawnp",
                 "spawnv", "spawnve"):
        if hasattr(os, name):
            monkeypatch.setattr(os, name, refuse)


SCRIPTS = [
    "echo hi | cat | wc -l",
    "ls /; ls /tmp",
    "nosuchcommand arg",
    "bash -c 'echo nested' && sh -c 'exit 3'; echo $?",
    "x=$(echo sub); echo $x; echo <(echo p)",
    "printf '%s\\n' a b | sort -r | head -1",
    "echo '#!/bin/sh\necho script' > /work/s.sh; chmod +x /work/s.sh; /work/s.sh; cd /work; ./s.sh",
    "echo '#!/usr/bin/env python3\nprint(1)' > /work/p.py; chmod +x /work/p.py; /work/p.py || true",
    "find /work -name '*.sh' -exec cat {} \\; | wc -l",
    "xargs echo < /dev/null; env | wc -l; timeout 1 true",
]


@pytest.mark.parametrize("script", SCRIPTS)
def test_scripts_start_no_process(no_processes: None, script: str) -> None:
    with Sandbox(mounts=[MemoryMount("/work")], timeout=20) as sb:
        res = sb.exec(script)
    assert res.outcome.value in ("completed", "not_found"), res
    assert b"tried to start a host process" not in res.stderr
