"""GitHub Copilot CLI: a ``preToolUse`` hook in ``.github/hooks/*.json``.

Read (2026-12): https://docs.github.com/en/copilot/reference/hooks-configuration (the file
``{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": …, "timeoutSec"}]}}``
under ``.github/hooks/``; the event {timestamp, cwd, toolName, toolArgs} with ``toolArgs``
the tool's arguments as a JSON string) and
https://docs.github.com/en/copilot/how-tos/copilot-sdk/use-hooks/pre-tool-use (the answer:
``permissionDecision`` allow/deny/ask, ``permissionDecisionReason``, ``modifiedArgs``).  The
shell tool is ``bash``; its arguments are {command, description, …}.  Only the project
location is documented for the CLI, so ``--user`` is refused rather than guessed.
https://github.com/github/copilot-cli/issues/2643 reports that Copilot CLI 1.0.24 applies a
rewrite but still asks the user to confirm each rewritten command.
"""

from __future__ import annotations

import os
from typing import Any

from vshell.harness.base import (
    Call,
    Harness,
    add_flat,
    command_of,
    event_cwd,
    remove_flat,
    tool_input,
)
from vshell.harness.policy import Decision

EVENT = "preToolUse"
TOOLS = ("bash", "shell")


class Copilot(Harness):
    name = "copilot"
    title = "GitHub Copilot CLI"
    docs = "https://docs.github.com/en/copilot/reference/hooks-configuration"

    def read(self, event: dict[str, Any]) -> Call:
        cwd = event_cwd(event)
        if event.get("toolName", "bash") not in TOOLS:
            return Call(None, cwd)
        key = "toolArgs" if "toolArgs" in event else "tool_input"
        args = tool_input(event, key)
        return Call(command_of(args), cwd, None, args)

    def answer(self, decision: Decision, call: Call) -> dict[str, Any] | None:
        if decision.action == "deny":
            return self.deny(decision.reason)
        if decision.action != "rewrite":
            return None
        return {"permissionDecision": "allow",
                "permissionDecisionReason": decision.reason,
                "modifiedArgs": {**call.tool_input, "command": decision.command}}

    def deny(self, reason: str) -> dict[str, Any]:
        return {"permissionDecision": "deny", "permissionDecisionReason": reason}

    def settings_path(self, scope: str, root: str) -> str:
        if scope != "project":
            raise ValueError("GitHub Copilot CLI documents project hooks only "
                             "(.github/hooks/); use --project")
        return os.path.join(root, ".github", "hooks", "vshell.json")

    def add_hook(self, data: dict[str, Any], command: str) -> bool:
        if self.has_hook(data):
            return False
        add_flat(data, EVENT, {"type": "command", "bash": command, "timeoutSec": 30})
        return True

    def remove_hook(self, data: dict[str, Any]) -> bool:
        return remove_flat(data, EVENT, "bash")

    def sample_event(self, command: str, cwd: str) -> dict[str, Any]:
        import json

        return {"timestamp": 1704614600000, "cwd": cwd, "toolName": "bash",
                "toolArgs": json.dumps({"command": command, "description": "vshell doctor"})}

    def rewritten_command(self, answer: dict[str, Any] | None) -> str | None:
        answer = answer or {}
        if answer.get("permissionDecision") != "allow":
            return None
        command = answer.get("modifiedArgs", {}).get("command")
        return command if isinstance(command, str) else None


HARNESS = Copilot()
