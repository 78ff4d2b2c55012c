"""Gemini CLI: a ``BeforeTool`` command hook on ``run_shell_command``.

Read (2026-12): https://geminicli.com/docs/hooks/reference, also as
github.com/google-gemini/gemini-cli docs/hooks/reference.md (stdin event with
``session_id``, ``cwd``, ``hook_event_name``, ``tool_name``, ``tool_input``; a JSON answer on
stdout with exit 0; ``decision: "deny"`` with ``reason`` blocks the tool, the reason going to
the agent; ``hookSpecificOutput.tool_input`` "merges with and overrides" the model's
arguments; settings.json
``hooks.BeforeTool`` = [{"matcher": regex, "hooks": [{"type": "command", "command", "name"}]}])
and https://docs.rs/coding-agent-hooks/latest/coding_agent_hooks/agents/gemini/ ("tool input
rewriting uses ``hookSpecificOutput.tool_input`` merge").  ``run_shell_command``'s input is
{command, description, dir_path}.  Settings: ``.gemini/settings.json`` or
``~/.gemini/settings.json``.
"""

from __future__ import annotations

import os
from typing import Any

from vshell.harness.base import (
    Call,
    Harness,
    hook_groups,
    remove_grouped,
    tool_call,
)
from vshell.harness.policy import Decision

EVENT = "BeforeTool"
TOOL = "run_shell_command"


class Gemini(Harness):
    name = "gemini"
    title = "Gemini CLI"
    docs = "https://geminicli.com/docs/hooks/reference"
    folder, file = ".gemini", "settings.json"

    def read(self, event: dict[str, Any]) -> Call:
        call = tool_call(event, TOOL)
        dir_path = call.tool_input.get("dir_path")
        if isinstance(dir_path, str) and dir_path:  # where the model asked it to run
            call.cwd = os.path.join(call.cwd, dir_path)
        return call

    def answer(self, decision: Decision, call: Call) -> dict[str, Any] | None:
        if decision.action == "deny":
            return self.deny(decision.reason)
        if decision.action != "rewrite":
            return None
        # only the documented field: tool_input, merged over the model's arguments
        return {"hookSpecificOutput": {
            "tool_input": {**call.tool_input, "command": decision.command},
        }}

    def deny(self, reason: str) -> dict[str, Any]:
        return {"decision": "deny", "reason": reason}

    def add_hook(self, data: dict[str, Any], command: str) -> bool:
        if self.has_hook(data):
            return False
        hook_groups(data, EVENT).append({"matcher": TOOL, "hooks": [
            {"name": "vshell", "type": "command", "command": command,
             "description": "run shell commands in the vshell sandbox session"}]})
        return True

    def remove_hook(self, data: dict[str, Any]) -> bool:
        return remove_grouped(data, EVENT)

    def sample_event(self, command: str, cwd: str) -> dict[str, Any]:
        return {"session_id": "doctor", "transcript_path": "", "cwd": cwd,
                "hook_event_name": EVENT, "timestamp": "2026-01-01T00:00:00Z",
                "tool_name": TOOL, "tool_input": {"command": command}}

    def rewritten_command(self, answer: dict[str, Any] | None) -> str | None:
        out = (answer or {}).get("hookSpecificOutput", {})
        command = out.get("tool_input", {}).get("command")
        return command if isinstance(command, str) else None


HARNESS = Gemini()
