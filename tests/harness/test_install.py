"""``vshell install|uninstall HARNESS``: idempotent, keeping everything else in the settings
file, and removing exactly what was added; ``vshell doctor`` sees it."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from vshell.cli.main import main

EXISTING: dict[str, tuple[str, dict[str, Any]]] = {
    "claude": (".claude/settings.json", {
        "model": "opus", "permissions": {"allow": ["Bash(npm test)"]},
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "~/bin/audit.sh"}]}],
                  "Stop": [{"hooks": [{"type": "command", "command": "notify"}]}]}}),
    "codex": (".codex/hooks.json", {"hooks": {"PostToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "log.py"}]}]}}),
    "gemini": (".gemini/settings.json", {
        "theme": "dark", "hooks": {"BeforeTool": [{"matcher": "write_file", "hooks": [
            {"name": "lint", "type": "command", "command": "lint.sh"}]}]}}),
    "copilot": (".github/hooks/vshell.json", {"version": 1, "hooks": {"sessionStart": [
        {"type": "command", "bash": "./start.sh"}]}}),
    "cursor": (".cursor/hooks.json", {"version": 1, "hooks": {"afterFileEdit": [
        {"command": "fmt.sh"}], "beforeShellExecution": [{"command": "guard.sh"}]}}),
}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / "sub").mkdir()
    monkeypatch.chdir(root / "sub")  # the project is the worktree, wherever inside it
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    return root


def our_command(name: str) -> str:
    return f"{sys.executable} -m vshell hook {name}"


def entries(name: str, data: dict[str, Any]) -> list[dict[str, Any]]:
    """Our hook entries in a settings file's data."""
    hooks = data.get("hooks", {})
    if name in ("claude", "codex"):
        return [h for g in hooks.get("PreToolUse", []) if g.get("matcher") == "Bash"
                for h in g["hooks"] if h["command"] == our_command(name)]
    if name == "gemini":
        return [h for g in hooks.get("BeforeTool", []) if g.get("matcher") == "run_shell_command"
                for h in g["hooks"] if h["command"] == our_command(name)]
    if name == "copilot":
        return [h for h in hooks.get("preToolUse", []) if h.get("bash") == our_command(name)]
    return [h for h in hooks.get("beforeShellExecution", [])
            if h.get("command") == our_command(name)]


@pytest.mark.parametrize("name", list(EXISTING))
def test_round_trip_keeps_existing_content(name: str, project: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    rel, original = EXISTING[name]
    path = project / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(original, indent=4))
    assert main(["install", name]) == 0
    assert str(path) in capsys.readouterr().out
    installed = json.loads(path.read_text())
    assert len(entries(name, installed)) == 1
    text = path.read_text()
    assert main(["install", name]) == 0  # idempotent
    assert "already" in capsys.readouterr().out and path.read_text() == text
    # everything else is still there
    for key, value in original.items():
        if key != "hooks":
            assert installed[key] == value
    for event, groups in original["hooks"].items():
        assert installed["hooks"][event][: len(groups)] == groups
    assert main(["uninstall", name]) == 0
    assert json.loads(path.read_text()) == original
    assert main(["uninstall", name]) == 0
    assert "no " in capsys.readouterr().out.splitlines()[-1]


@pytest.mark.parametrize("name", list(EXISTING))
def test_fresh_install_and_uninstall_leave_nothing(name: str, project: Path) -> None:
    path = project / EXISTING[name][0]
    assert main(["install", name]) == 0
    assert len(entries(name, json.loads(path.read_text()))) == 1
    assert main(["uninstall", name]) == 0
    assert not path.exists()


@pytest.mark.parametrize("name, rel", [("claude", ".claude/settings.json"),
                                       ("codex", ".codex/hooks.json"),
                                       ("gemini", ".gemini/settings.json"),
                                       ("cursor", ".cursor/hooks.json")])
def test_user_settings(name: str, rel: str, project: Path, tmp_path: Path) -> None:
    assert main(["install", name, "--user"]) == 0
    path = tmp_path / "home" / rel
    assert len(entries(name, json.loads(path.read_text()))) == 1
    assert not (project / rel).exists()
    assert main(["uninstall", name, "--user"]) == 0 and not path.exists()


def test_copilot_user_is_refused(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["install", "copilot", "--user"]) == 1
    assert "project hooks only" in capsys.readouterr().err


def test_a_file_that_is_not_json_is_left_alone(project: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    path = project / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text("{ // comments are not JSON\n")
    assert main(["install", "claude"]) == 1
    assert "not valid JSON" in capsys.readouterr().err
    assert path.read_text() == "{ // comments are not JSON\n"


def test_usage_errors(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["install"]) == 2 and "which harness" in capsys.readouterr().err
    assert main(["install", "vim"]) == 2 and "unknown harness" in capsys.readouterr().err
    assert main(["install", "claude", "--global"]) == 2
    assert "unknown option --global" in capsys.readouterr().err
    assert main(["hook", "--help"]) == 0 and "vshell install" in capsys.readouterr().out


def test_doctor_reports_installed_harnesses(project: Path,
                                            capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch,
                                            tmp_path: Path) -> None:
    rt = tmp_path / "rt"
    monkeypatch.setenv("VSHELL_RUNTIME_DIR", str(rt))
    main(["install", "claude"])
    main(["install", "gemini", "--user"])
    capsys.readouterr()
    assert main(["doctor"]) == 0
    out = capsys.readouterr().out
    lines = {line.split(" (")[0]: line for line in out.splitlines()}
    assert f"installed in project ({project}/.claude/settings.json); hook answers" in \
        lines["Claude Code"]
    assert "installed in user (" in lines["Gemini CLI"]
    assert "not installed; hook answers" in lines["Cursor"]
    assert out.startswith("config: mode rewrite, isolation worktree")
    (project / "vshell.toml").write_text("mode = 3\n")
    assert main(["doctor"]) == 1
    assert "config: ERROR" in capsys.readouterr().out


def test_doctor_notices_a_hook_whose_program_is_gone(project: Path,
                                                     capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     tmp_path: Path) -> None:
    monkeypatch.setenv("VSHELL_RUNTIME_DIR", str(tmp_path / "rt"))
    path = project / ".cursor" / "hooks.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"version": 1, "hooks": {"beforeShellExecution": [
        {"command": "/nowhere/bin/vshell hook cursor"}]}}))
    assert main(["doctor"]) == 1
    line = [x for x in capsys.readouterr().out.splitlines() if x.startswith("Cursor")][0]
    assert "its program /nowhere/bin/vshell is gone" in line
