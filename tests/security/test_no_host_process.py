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


# The two exceptions, exactly.  ``vshell run`` (the client of a scope's session, issue 20)
# starts the scope's server, which is vshell itself (``python -m vshell.scope.server``),
# and a worker pool (``SandboxPool``, ``vshell mcp``, issue 18) starts its workers, vshell
# itself too (``python -m vshell.pool.worker``); never a command of a script.  They may do
# so in these two files and with these calls only.
SERVER_SPAWN = "vshell/scope/spawn.py"
POOL_SPAWN = "vshell/pool/supervisor.py"
SERVER_SPAWN_CALLS = {"import subprocess", "subprocess"}


def test_source_has_no_process_calls() -> None:
    hits = []
    for path in ROOT.rglob("*.py"):
        text = path.read_text()
        where = str(path.relative_to(ROOT.parent))
        for m in FORBIDDEN.finditer(text):
            if where in (SERVER_SPAWN, POOL_SPAWN) and m.group(0).strip() in SERVER_SPAWN_CALLS:
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


def test_the_pool_starts_only_its_worker_module() -> None:
    """supervisor.py's one Popen runs ``sys.executable -m vshell.pool.worker`` with only
    numeric and vshell-module arguments: no shell, no script text; WorkerProcess is its
    only caller, and only the supervisor makes WorkerProcesses."""
    text = (ROOT / "pool" / "supervisor.py").read_text()
    calls = re.findall(r"subprocess\.(\w+)\(", text)
    assert calls == ["Popen"], calls
    assert 'WORKER_MODULE = "vshell.pool.worker"' in text
    assert "argv = [sys.executable, \"-m\", WORKER_MODULE]" in text
    assert "subprocess.Popen(argv," in text
    assert "shell=True" not in text
    added = re.findall(r"argv \+= \[([^\]]*)\]", text)
    assert added == ['"--memory", str(int(memory))', '"--warm", module'], added
    users = [str(p.relative_to(ROOT.parent)) for p in ROOT.rglob("*.py")
             if "WorkerProcess(" in p.read_text()]
    assert users == [POOL_SPAWN], users


def test_the_pool_spawns_what_it_says(monkeypatch: pytest.MonkeyPatch) -> None:
    """At run time, too: every argv the pool hands to Popen is vshell's worker module."""
    import sys

    from vshell.pool import SandboxPool

    seen: list[list[str]] = []
    real = subprocess.Popen

    def record(argv: list[str], *a: object, **k: object) -> object:
        seen.append(list(argv))
        assert not k.get("shell")
        return real(argv, *a, **k)

    monkeypatch.setattr(subprocess, "Popen", record)
    with SandboxPool(workers=2, worker_memory=1 << 30, preload=("vshell.mcp.tools",),
                     mounts=[MemoryMount("/work")]) as pool:
        assert pool.wait_ready(30)
    assert len(seen) == 2
    for argv in seen:
        assert argv == [sys.executable, "-m", "vshell.pool.worker", "--memory",
                        str(1 << 30), "--warm", "vshell.mcp.tools"], argv


def _children(pid: int) -> list[int]:
    """Processes whose parent is ``pid`` (read from /proc)."""
    kids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    stat = f.read()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                kids.append(int(entry))
    return kids


def test_scripts_in_a_pool_worker_start_no_process() -> None:
    """A script run in a pool's worker starts no process there either."""
    from vshell.pool import SandboxPool

    with SandboxPool(workers=1, mounts=[MemoryMount("/work")], timeout=20) as pool:
        s = pool.session()
        for script in SCRIPTS:
            res = s.exec(script)
            assert res.outcome.value in ("completed", "not_found"), (script, res)
            assert s.worker_pid is not None
            assert _children(s.worker_pid) == [], script


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
