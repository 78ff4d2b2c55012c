"""End to end: a stand-in harness calls ``vshell hook``, then runs the command it answered
with ``bash -c``, as the harness would.  The command ran inside vshell: a denied file
stayed unreadable, a write to /tmp never reached the host, and cwd, a variable and a
function persisted to the next call."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from gitlayout import make_repo, runtime_dir
from tools import needs

pytestmark = needs("bash")


def hook_events(name: str, command: str, cwd: Path) -> dict[str, Any]:
    if name in ("claude", "codex"):
        return {"session_id": "s", "cwd": str(cwd), "hook_event_name": "PreToolUse",
                "tool_name": "Bash", "tool_input": {"command": command, "description": "x"}}
    if name == "gemini":
        return {"session_id": "s", "cwd": str(cwd), "hook_event_name": "BeforeTool",
                "tool_name": "run_shell_command", "tool_input": {"command": command}}
    return {"timestamp": 1, "cwd": str(cwd), "toolName": "bash",
            "toolArgs": json.dumps({"command": command})}


def rewritten(name: str, answer: dict[str, Any]) -> str:
    if name in ("claude", "codex"):
        return str(answer["hookSpecificOutput"]["updatedInput"]["command"])
    if name == "gemini":
        return str(answer["hookSpecificOutput"]["tool_input"]["command"])
    return str(answer["modifiedArgs"]["command"])


class StandInHarness:
    """Does what a harness does with a pre-tool hook: ask, then run the answer's command."""

    def __init__(self, name: str, cwd: Path, env: dict[str, str]) -> None:
        self.name, self.cwd, self.env = name, cwd, env

    def bash_tool(self, command: str) -> subprocess.CompletedProcess[bytes]:
        event = json.dumps(hook_events(self.name, command, self.cwd)).encode()
        hook = subprocess.run([sys.executable, "-m", "vshell", "hook", self.name],
                              input=event, cwd=self.cwd, env=self.env, capture_output=True,
                              timeout=60)
        assert hook.returncode == 0, hook.stderr
        to_run = command
        if hook.stdout.strip():
            to_run = rewritten(self.name, json.loads(hook.stdout))
        return subprocess.run(["bash", "-c", to_run], cwd=self.cwd, env=self.env,
                              capture_output=True, timeout=120)


@pytest.mark.parametrize("name", ["claude", "codex", "gemini", "copilot"])
def test_commands_run_inside_vshell_and_keep_state(name: str, tmp_path: Path) -> None:
    main, _ = make_repo(tmp_path)
    (main / ".env").write_text("TOKEN=hunter2\n")
    (main / "vshell.toml").write_text('deny = ["**/.env"]\n')
    marker = f"/tmp/vshell-e2e-{os.getpid()}-{name}"
    with runtime_dir() as env:
        agent = StandInHarness(name, main, env)
        r = agent.bash_tool("cat .env")
        assert r.returncode != 0 and b"hunter2" not in r.stdout + r.stderr
        r = agent.bash_tool(f"echo inside > {marker}; cat {marker}")
        assert r.stdout == b"inside\n", r.stderr
        assert not os.path.exists(marker)  # /tmp was vshell's own
        r = agent.bash_tool("cd src\ngreeting='it'\"'\"'s here'\n"
                            "greet() { echo \"$greeting from $(pwd)\"; }")
        assert r.returncode == 0, r.stderr
        r = agent.bash_tool("greet; cat <<'EOF'\n$greeting stays literal\nEOF")
        assert r.stdout.decode() == f"it's here from {main}/src\n$greeting stays literal\n"
        r = agent.bash_tool("exit 4")
        assert r.returncode == 4


def test_host_lines_run_on_the_host(tmp_path: Path) -> None:
    main, _ = make_repo(tmp_path)
    with runtime_dir() as env:
        agent = StandInHarness("claude", main, env)
        (tmp_path / "bin").mkdir()
        fake_git = tmp_path / "bin" / "git"
        fake_git.write_text("#!/bin/sh\necho host-git \"$@\"\n")
        fake_git.chmod(0o755)
        agent.env = {**env, "PATH": f"{tmp_path / 'bin'}:{env['PATH']}"}
        r = agent.bash_tool("git status")
        assert r.stdout == b"host-git status\n"
        assert not list(Path(env["VSHELL_RUNTIME_DIR"]).glob("*.sock"))  # no session needed
