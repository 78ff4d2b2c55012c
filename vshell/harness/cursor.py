"""Cursor: a ``beforeShellExecution`` hook in ``hooks.json`` — it can allow or deny a shell
command but not rewrite it, so every mode but ``off`` works as ``tool`` mode.

Read (2026-12): https://cursor.com/docs/agent/hooks (``.cursor/hooks.json`` in the project or
``~/.cursor/hooks.json``, ``{"version": 1, "hooks": {"beforeShellExecution": [{"command"}]}}``;
JSON over stdio both ways) and https://cupcake.eqtylab.io/reference/harnesses/cursor (the
event {hook_event_name, conversation_id, generation_id, workspace_roots, command, cwd}; the
answer {permission: allow|deny|ask, user_message, agent_message}).
"""

from __future__ import annotations

from typing import Any

from vshell.harness.base import Call, EventError, Harness, add_flat, event_cwd, remove_flat
from vshell.harness.policy import TOOL_REASON, Decision

EVENT = "beforeShellExecution"


class Cursor(Harness):
    name = "cursor"
    title = "Cursor"
    docs = "https://cursor.com/docs/agent/hooks"
    can_rewrite = False
    folder, file = ".cursor", "hooks.json"

    def read(self, event: dict[str, Any]) -> Call:
        name = event.get("hook_event_name", EVENT)
        if name != EVENT:
            return Call(None, event_cwd(event))
        command = event.get("command")
        if not isinstance(command, str):
            raise EventError("the event has no command string")
        conversation = event.get("conversation_id")
        return Call(command, event_cwd(event),
                    conversation if isinstance(conversation, str) else None)

    def answer(self, decision: Decision, call: Call) -> dict[str, Any] | None:
        if decision.action == "rewrite":  # cannot rewrite: point at the MCP tool instead
            return self.deny(TOOL_REASON)
        if decision.action == "deny":
            return self.deny(decision.reason)
        return None

    def deny(self, reason: str) -> dict[str, Any]:
        return {"permission": "deny", "user_message": f"vshell: {reason}",
                "agent_message": reason}

    def add_hook(self, data: dict[str, Any], command: str) -> bool:
        if self.has_hook(data):
            return False
        add_flat(data, EVENT, {"command": command})
        return True

    def remove_hook(self, data: dict[str, Any]) -> bool:
        return remove_flat(data, EVENT, "command")

    def sample_event(self, command: str, cwd: str) -> dict[str, Any]:
        return {"hook_event_name": EVENT, "conversation_id": "doctor",
                "generation_id": "doctor", "workspace_roots": [cwd], "command": command,
                "cwd": cwd}

    def rewritten_command(self, answer: dict[str, Any] | None) -> str | None:
        return None


HARNESS = Cursor()
