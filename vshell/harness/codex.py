"""OpenAI Codex CLI: a ``PreToolUse`` command hook on ``Bash`` in ``hooks.json``.

Read (2026-12): https://developers.openai.com/codex/hooks (via its change history at
https://spybara.com/openai/codex/history/docs/en/hooks/ — hooks on by default, ``hooks``
feature key in config.toml; ``.codex/hooks.json`` in the project and ``~/.codex/hooks.json``;
matching hooks from every file all run) and the wire-format notes at
https://github.com/CorridorSecurity/hookshot/blob/main/docs/reference-codex.md ("Codex hooks
use the same JSON wire format as Claude Code hooks"), checked against Codex's own source:
github.com/openai/codex codex-rs/hooks/schema/generated/pre-tool-use.command.output.schema.json
(``hookSpecificOutput`` allows exactly ``hookEventName``, ``permissionDecision`` allow/deny/ask,
``permissionDecisionReason``, ``updatedInput``, ``additionalContext``; no other property) and
codex-rs/hooks/src/engine/output_parser.rs (``updatedInput`` is applied only with
``permissionDecision: "allow"``; ``allow`` without it, ``ask``, ``additionalContext`` or a deny
without a reason is "unsupported" and fails open).  So the answer carries only
``hookEventName``, ``permissionDecision``, ``permissionDecisionReason`` and, with allow,
``updatedInput``; every deny has a non-empty reason.
"""

from __future__ import annotations

from vshell.harness.claude_shape import ClaudeShape


class Codex(ClaudeShape):
    name = "codex"
    title = "OpenAI Codex CLI"
    docs = "https://developers.openai.com/codex/hooks"
    folder, file = ".codex", "hooks.json"


HARNESS = Codex()
