"""``vshell hook HARNESS``: each harness's documented event in, its own answer out, checked
field by field; every failure is that harness's deny form, never a traceback or a pass."""

from __future__ import annotations

import io
import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from vshell.cli.main import main
from vshell.harness.policy import TOOL_REASON, programs

ROOT = Path(__file__).resolve().parents[2]

COMMANDS = [
    "ls -la",
    "echo \"it's\" 'say \"hi\"' $HOME \\$x `date`",
    "cd src &&\n  for f in *.py; do\n    wc -l \"$f\"\n  done",
    "cat > notes.txt <<'EOF'\nline with 'quotes' and \"more\"\n$(not expanded)\nEOF\ncat notes.txt",
    "python3 - <<EOF\nprint('x')\nEOF",
    "printf '%s\\n' 'a\tb' | sort -r",
    "",
]


def run_hook(name: str, event: Any, capsys: pytest.CaptureFixture[str],
             monkeypatch: pytest.MonkeyPatch) -> tuple[int, dict[str, Any] | None]:
    raw = event if isinstance(event, bytes) else json.dumps(event).encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw)))
    status = main(["hook", name])
    out, err = capsys.readouterr()
    assert err == "" and "Traceback" not in out
    return status, (json.loads(out) if out.strip() else None)


def vshell_argv(command: str) -> list[str]:
    """The argv a rewrite makes the harness's shell run."""
    return shlex.split(command)


def expect_rewrite(new: str, original: str, *scope: str) -> None:
    assert vshell_argv(new) == [sys.executable, "-m", "vshell", "run", *scope, "-c", original]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "proj" / ".git").mkdir(parents=True)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    return tmp_path / "proj"


# --- Claude Code and Codex: PreToolUse / Bash / hookSpecificOutput ---------------------------

def claude_event(command: str, cwd: Path, **tool_input: Any) -> dict[str, Any]:
    return {"session_id": "abc123", "transcript_path": "/tmp/t.jsonl", "cwd": str(cwd),
            "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": command, **tool_input}, "tool_use_id": "toolu_01"}


@pytest.mark.parametrize("name", ["claude", "codex"])
@pytest.mark.parametrize("command", COMMANDS)
def test_claude_shape_rewrites(name: str, command: str, project: Path,
                               capsys: pytest.CaptureFixture[str],
                               monkeypatch: pytest.MonkeyPatch) -> None:
    event = claude_event(command, project, description="List files", timeout=120000,
                         run_in_background=False)
    status, answer = run_hook(name, event, capsys, monkeypatch)
    assert status == 0 and answer is not None and list(answer) == ["hookSpecificOutput"]
    out = answer["hookSpecificOutput"]
    assert set(out) == {"hookEventName", "permissionDecision", "permissionDecisionReason",
                        "updatedInput"}
    assert out["hookEventName"] == "PreToolUse" and out["permissionDecision"] == "allow"
    new = out["updatedInput"]
    # updatedInput replaces the whole input: every other field is carried over unchanged
    assert {k: v for k, v in new.items() if k != "command"} == {
        "description": "List files", "timeout": 120000, "run_in_background": False}
    expect_rewrite(new["command"], command)


@pytest.mark.parametrize("name", ["claude", "codex"])
def test_claude_shape_minimal_input_and_other_tools(name: str, project: Path,
                                                    capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    _, answer = run_hook(name, claude_event("pwd", project), capsys, monkeypatch)
    assert answer is not None
    assert list(answer["hookSpecificOutput"]["updatedInput"]) == ["command"]
    read = {**claude_event("x", project), "tool_name": "Read", "tool_input": {"file_path": "/x"}}
    assert run_hook(name, read, capsys, monkeypatch) == (0, None)  # no opinion


def deny_reason(name: str, answer: dict[str, Any] | None) -> str:
    """The reason of a deny answer in ``name``'s own form (fails on any other answer)."""
    assert answer is not None
    if name in ("claude", "codex"):
        out = answer["hookSpecificOutput"]
        assert set(out) == {"hookEventName", "permissionDecision", "permissionDecisionReason"}
        assert out["hookEventName"] == "PreToolUse" and out["permissionDecision"] == "deny"
        return str(out["permissionDecisionReason"])
    if name == "gemini":
        assert set(answer) == {"decision", "reason"} and answer["decision"] == "deny"
        return str(answer["reason"])
    if name == "copilot":
        assert set(answer) == {"permissionDecision", "permissionDecisionReason"}
        assert answer["permissionDecision"] == "deny"
        return str(answer["permissionDecisionReason"])
    assert set(answer) == {"permission", "user_message", "agent_message"}
    assert answer["permission"] == "deny"
    assert answer["user_message"] == f"vshell: {answer['agent_message']}"
    return str(answer["agent_message"])


# --- Gemini CLI: BeforeTool / run_shell_command --------------------------------------------

def gemini_event(command: str, cwd: Path, **tool_input: Any) -> dict[str, Any]:
    return {"session_id": "g-1", "transcript_path": "/tmp/g.json", "cwd": str(cwd),
            "hook_event_name": "BeforeTool", "timestamp": "2026-12-02T06:00:00Z",
            "tool_name": "run_shell_command", "tool_input": {"command": command, **tool_input}}


@pytest.mark.parametrize("command", COMMANDS)
def test_gemini_rewrites(command: str, project: Path, capsys: pytest.CaptureFixture[str],
                         monkeypatch: pytest.MonkeyPatch) -> None:
    event = gemini_event(command, project, description="run it", dir_path="src")
    status, answer = run_hook("gemini", event, capsys, monkeypatch)
    assert status == 0 and answer is not None and list(answer) == ["hookSpecificOutput"]
    out = answer["hookSpecificOutput"]
    assert set(out) == {"tool_input"}  # the one documented field
    assert out["tool_input"]["description"] == "run it" and out["tool_input"]["dir_path"] == "src"
    expect_rewrite(out["tool_input"]["command"], command)


def test_gemini_other_tool(project: Path, capsys: pytest.CaptureFixture[str],
                           monkeypatch: pytest.MonkeyPatch) -> None:
    event = {**gemini_event("x", project), "tool_name": "read_file",
             "tool_input": {"absolute_path": "/x"}}
    assert run_hook("gemini", event, capsys, monkeypatch) == (0, None)


# --- GitHub Copilot CLI: preToolUse / toolArgs / modifiedArgs -------------------------------

def copilot_event(command: str, cwd: Path, as_text: bool = True, **args: Any) -> dict[str, Any]:
    tool_args = {"command": command, **args}
    return {"timestamp": 1704614600000, "cwd": str(cwd), "toolName": "bash",
            "toolArgs": json.dumps(tool_args) if as_text else tool_args}


@pytest.mark.parametrize("as_text", [True, False])
@pytest.mark.parametrize("command", COMMANDS)
def test_copilot_rewrites(command: str, as_text: bool, project: Path,
                          capsys: pytest.CaptureFixture[str],
                          monkeypatch: pytest.MonkeyPatch) -> None:
    event = copilot_event(command, project, as_text, description="d", sessionId=None)
    status, answer = run_hook("copilot", event, capsys, monkeypatch)
    assert status == 0 and answer is not None
    assert set(answer) == {"permissionDecision", "permissionDecisionReason", "modifiedArgs"}
    assert answer["permissionDecision"] == "allow"
    assert {k: v for k, v in answer["modifiedArgs"].items() if k != "command"} == {
        "description": "d", "sessionId": None}
    expect_rewrite(answer["modifiedArgs"]["command"], command)


def test_copilot_other_tool(project: Path, capsys: pytest.CaptureFixture[str],
                            monkeypatch: pytest.MonkeyPatch) -> None:
    event = {**copilot_event("x", project), "toolName": "view",
             "toolArgs": json.dumps({"path": "/x"})}
    assert run_hook("copilot", event, capsys, monkeypatch) == (0, None)


# --- Cursor: beforeShellExecution, allow/deny only ------------------------------------------

def cursor_event(command: str, cwd: Path) -> dict[str, Any]:
    return {"hook_event_name": "beforeShellExecution", "conversation_id": "conv-1",
            "generation_id": "gen-1", "workspace_roots": [str(cwd)], "command": command,
            "cwd": str(cwd), "model": "m", "cursor_version": "2.0.77"}


@pytest.mark.parametrize("command", COMMANDS)
def test_cursor_denies_towards_the_mcp_tool(command: str, project: Path,
                                            capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    status, answer = run_hook("cursor", cursor_event(command, project), capsys, monkeypatch)
    assert status == 0 and deny_reason("cursor", answer) == TOOL_REASON


# --- the rules every harness shares ------------------------------------------------------

EVENTS = {"claude": claude_event, "codex": claude_event, "gemini": gemini_event,
          "copilot": copilot_event, "cursor": cursor_event}
HARNESSES = list(EVENTS)


@pytest.mark.parametrize("name", HARNESSES)
@pytest.mark.parametrize("command", [
    "git status", "FOO=1 /usr/bin/git commit -m 'x'", "ls && gh pr list",
    "echo $(git rev-parse HEAD)", "npm install", "ssh host uptime | tail -1",
    "env A=1 docker ps", "make && terraform plan",
])
def test_host_programs_pass_through(name: str, command: str, project: Path,
                                    capsys: pytest.CaptureFixture[str],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    (project / "vshell.toml").write_text('passthrough = ["terraform"]\n')
    assert run_hook(name, EVENTS[name](command, project), capsys, monkeypatch) == (0, None)


@pytest.mark.parametrize("name", HARNESSES)
def test_strict_denies_host_programs(name: str, project: Path,
                                     capsys: pytest.CaptureFixture[str],
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    (project / "vshell.toml").write_text("strict = true\n")
    _, answer = run_hook(name, EVENTS[name]("git push --force", project), capsys, monkeypatch)
    reason = deny_reason(name, answer)
    assert "strict" in reason and "git" in reason


@pytest.mark.parametrize("name", HARNESSES)
def test_tool_mode_denies_with_the_mcp_pointer(name: str, project: Path,
                                               capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    (project / "vshell.toml").write_text('mode = "tool"\n')
    _, answer = run_hook(name, EVENTS[name]("ls", project), capsys, monkeypatch)
    assert deny_reason(name, answer) == TOOL_REASON


@pytest.mark.parametrize("name", HARNESSES)
def test_off_mode_does_nothing(name: str, project: Path, capsys: pytest.CaptureFixture[str],
                               monkeypatch: pytest.MonkeyPatch) -> None:
    (project / "vshell.toml").write_text('mode = "off"\n')
    assert run_hook(name, EVENTS[name]("ls", project), capsys, monkeypatch) == (0, None)


@pytest.mark.parametrize("name", ["claude", "codex", "gemini"])
def test_session_isolation_passes_the_session_id(name: str, project: Path,
                                                 capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    (project / "vshell.toml").write_text('isolation = "session"\n')
    _, answer = run_hook(name, EVENTS[name]("ls", project), capsys, monkeypatch)
    assert answer is not None
    out = answer["hookSpecificOutput"]
    new = (out.get("updatedInput") or out["tool_input"])["command"]
    session = "abc123" if name != "gemini" else "g-1"
    expect_rewrite(new, "ls", "--isolation", "session", "--session", session)


def _malformed(name: str, project: Path) -> list[Any]:
    good = EVENTS[name]("ls", project)
    key = {"copilot": "toolArgs", "cursor": "command"}.get(name, "tool_input")
    cases: list[Any] = [b"", b"{not json", b"\xff\xfe", b"[1, 2]", b'"text"',
                        {k: v for k, v in good.items() if k != key}, {**good, key: 42}]
    if name != "cursor":
        args = {"command": ["ls"]}
        cases.append({**good, key: json.dumps(args) if name == "copilot" else args})
    if name == "copilot":
        cases.append({**good, "toolArgs": "{broken"})
    return cases


@pytest.mark.parametrize("name", HARNESSES)
def test_every_failure_is_a_denial(name: str, project: Path,
                                   capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    for event in _malformed(name, project):
        status, answer = run_hook(name, event, capsys, monkeypatch)
        assert status == 0
        assert deny_reason(name, answer).startswith("vshell hook failed"), event


@pytest.mark.parametrize("name", HARNESSES)
def test_a_broken_config_or_crash_is_a_denial(name: str, project: Path,
                                              capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    (project / "vshell.toml").write_text('mode = "rewrite\n')
    _, answer = run_hook(name, EVENTS[name]("ls", project), capsys, monkeypatch)
    reason = deny_reason(name, answer)
    assert "vshell.toml:1" in reason and "not run" in reason
    (project / "vshell.toml").unlink()

    def explode(*a: object, **k: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr("vshell.harness.policy.decide", explode)
    _, answer = run_hook(name, EVENTS[name]("ls", project), capsys, monkeypatch)
    assert deny_reason(name, answer).endswith("RuntimeError: boom")


def test_unknown_harness_blocks_with_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hook", "emacs"]) == 2
    assert "unknown harness 'emacs'" in capsys.readouterr().err


@pytest.mark.parametrize("name", HARNESSES)
def test_the_real_command_line(name: str, project: Path) -> None:
    """``vshell hook NAME`` as the harness starts it: a process, stdin in, stdout out."""
    event = json.dumps(EVENTS[name]("echo 'a b'\ncat <<E\nx\nE", project)).encode()
    r = subprocess.run([sys.executable, "-m", "vshell", "hook", name], cwd=project, input=event,
                       capture_output=True, timeout=60,
                       env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin",
                            "HOME": str(project)})
    assert r.returncode == 0 and r.stderr == b""
    answer = json.loads(r.stdout)
    if name == "cursor":
        assert deny_reason(name, answer) == TOOL_REASON
    else:
        assert answer != {} and b"run -c" in r.stdout
    r = subprocess.run([sys.executable, "-m", "vshell", "hook", name], input=b"garbage",
                       capture_output=True, timeout=60, env={"PYTHONPATH": str(ROOT)})
    assert r.returncode == 0 and deny_reason(name, json.loads(r.stdout))


def test_programs_of_a_line() -> None:
    assert programs("FOO=1 /usr/bin/git status && echo $(gh pr list) | cat <<EOF\nssh x\nEOF\n"
                    ) == {"git", "echo", "gh", "cat"}  # a here-document's body is data
    assert programs('echo "git push"') == {"echo"}
    assert programs("f() { docker ps; }; f") == {"f", "docker"}
    assert programs("env -i A=1 npm test") == {"env", "npm"}
    assert programs("timeout 5 cargo build") == {"timeout", "cargo"}
    assert "echo" in programs('echo "unterminated')
