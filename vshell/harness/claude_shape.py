"""The Claude Code hook shape, which OpenAI Codex CLI shares: ``PreToolUse`` for the
``Bash`` tool, answered in ``hookSpecificOutput``; settings ``{"hooks": {"PreToolUse":
[{"matcher": "Bash", "hooks": [{"type": "command", "command": …}]}]}}``."""

from __future__ import annotations

from typing import Any

from vshell.harness.base import (
    Call,
    Harness,
    hook_groups,
    remove_grouped,
    tool_call,
)
from vshell.harness.policy import Decision

EVENT = "PreToolUse"


class ClaudeShape(Harness):
    tool = "Bash"

    def read(self, event: dict[str, Any]) -> Call:
        return tool_call(event, self.tool)

    def answer(self, decision: Decision, call: Call) -> dict[str, Any] | None:
        if decision.action == "deny":
            return self.deny(decision.reason)
        if decision.action != "rewrite":
            return None  # the harness's own permission rules decide, as without vshell
        # updatedInput replaces the whole input: every other field is carried over
        return {"hookSpecificOutput": {
            "hookEventName": EVENT,
            "permissionDecision": "allow",
            "permissionDecisionReason": decision.reason,
            "updatedInput": {**call.tool_input, "command": decision.command},
        }}

    def deny(self, reason: str) -> dict[str, Any]:
        return {"hookSpecificOutput": {
            "hookEventName": EVENT,
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }}

    def add_hook(self, data: dict[str, Any], command: str) -> bool:
        if self.has_hook(data):
            return False
        hook_groups(data, EVENT).append(
            {"matcher": self.tool, "hooks": [{"type": "command", "command": command}]})
        return True

    def remove_hook(self, data: dict[str, Any]) -> bool:
        return remove_grouped(data, EVENT)

    def sample_event(self, command: str, cwd: str) -> dict[str, Any]:
        return {"session_id": "doctor", "transcript_path": "", "cwd": cwd,
                "hook_event_name": EVENT, "tool_name": self.tool,
                "tool_input": {"command": command, "description": "vshell doctor"}}

    def rewritten_command(self, answer: dict[str, Any] | None) -> str | None:
        out = (answer or {}).get("hookSpecificOutput", {})
        if out.get("permissionDecision") != "allow":
            return None
        command = out.get("updatedInput", {}).get("command")
        return command if isinstance(command, str) else None
