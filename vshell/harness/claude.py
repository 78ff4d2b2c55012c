"""Claude Code: a ``PreToolUse`` command hook on the ``Bash`` tool.

Read (hook formats, 2026-12): https://code.claude.com/docs/en/hooks (PreToolUse decision
control: ``hookSpecificOutput.permissionDecision`` allow/deny/ask, ``permissionDecisionReason``
shown to Claude on deny, ``updatedInput`` replacing the whole tool input) and
https://docs.anthropic.com/de/docs/claude-code/hooks (settings files ``.claude/settings.json``
and ``~/.claude/settings.json``, ``matcher`` + ``hooks`` of ``type: command``).  The event
carries ``session_id``, ``cwd``, ``tool_name`` and ``tool_input`` {command, description,
timeout, run_in_background}.
"""

from __future__ import annotations

from vshell.harness.claude_shape import ClaudeShape


class Claude(ClaudeShape):
    name = "claude"
    title = "Claude Code"
    docs = "https://code.claude.com/docs/en/hooks"
    folder, file = ".claude", "settings.json"


HARNESS = Claude()
