"""What every harness module provides: read its event, answer a decision or a denial,
and where its settings file keeps the hook (for install, uninstall and doctor)."""

from __future__ import annotations

import json
import os
from typing import Any

from vshell.harness.policy import Decision
from vshell.records import field, record


class EventError(ValueError):
    """An event this harness's hook cannot act on (answered with a denial)."""


@record
class Call:
    """One shell tool call as a harness described it."""

    command: str | None  # None: not a shell tool call (the hook has no opinion)
    cwd: str
    session_id: str | None = None
    tool_input: dict[str, Any] = field(default_factory=dict)


class Harness:
    name = ""
    title = ""
    docs = ""  # the documentation the event and answer formats follow
    can_rewrite = True

    def read(self, event: dict[str, Any]) -> Call:
        raise NotImplementedError

    def answer(self, decision: Decision, call: Call) -> dict[str, Any] | None:
        """The JSON to print (None: print nothing, the harness goes on as usual)."""
        raise NotImplementedError

    def deny(self, reason: str) -> dict[str, Any]:
        raise NotImplementedError

    # --- settings files -------------------------------------------------------------
    folder = ""  # the harness's settings folder, in the project root and in the home
    file = ""

    def settings_path(self, scope: str, root: str) -> str:
        """The settings file for ``scope`` ("project": under ``root``; "user": home)."""
        base = root if scope == "project" else os.path.expanduser("~")
        return os.path.join(base, self.folder, self.file)

    def add_hook(self, data: dict[str, Any], command: str) -> bool:
        """Add the hook entry running ``command``; False when it was there already."""
        raise NotImplementedError

    def remove_hook(self, data: dict[str, Any]) -> bool:
        """Remove exactly the entries :meth:`add_hook` adds; False when there were none."""
        raise NotImplementedError

    def has_hook(self, data: dict[str, Any]) -> bool:
        copy = json.loads(json.dumps(data))
        return self.remove_hook(copy)

    def sample_event(self, command: str, cwd: str) -> dict[str, Any]:
        """A documented-shape event for ``command`` (doctor's self-test)."""
        raise NotImplementedError

    def rewritten_command(self, answer: dict[str, Any] | None) -> str | None:
        """The command an answer makes the harness run (None: not rewritten)."""
        raise NotImplementedError


def tool_call(event: dict[str, Any], tool: str) -> Call:
    """The ``tool_name``/``tool_input``/``session_id`` event of Claude Code, Codex and Gemini
    (a call of another tool: command None)."""
    cwd = event_cwd(event)
    if event.get("tool_name", tool) != tool:
        return Call(None, cwd)
    args = tool_input(event)
    session = event.get("session_id")
    return Call(command_of(args), cwd, session if isinstance(session, str) else None, args)


def tool_input(event: dict[str, Any], key: str = "tool_input") -> dict[str, Any]:
    value = event.get(key)
    if isinstance(value, str):  # some harnesses send the arguments as JSON text
        try:
            value = json.loads(value)
        except ValueError:
            raise EventError(f"{key} is not valid JSON") from None
    if not isinstance(value, dict):
        raise EventError(f"the event has no {key} object")
    return value


def command_of(args: dict[str, Any]) -> str:
    command = args.get("command")
    if not isinstance(command, str):
        raise EventError("the tool call has no command string")
    return command


def event_cwd(event: dict[str, Any]) -> str:
    cwd = event.get("cwd")
    if isinstance(cwd, str) and os.path.isabs(cwd):
        return cwd
    roots = event.get("workspace_roots")
    if isinstance(roots, list) and roots and isinstance(roots[0], str):
        return roots[0]
    return os.getcwd()


def is_ours(command: object) -> bool:
    """Whether a settings entry's command is a vshell hook (``… vshell hook NAME``)."""
    return isinstance(command, str) and " hook " in f" {command} " and "vshell" in command


def hook_groups(data: dict[str, Any], event: str) -> list[Any]:
    """``data["hooks"][event]`` as a list, created when missing."""
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise ValueError("its \"hooks\" is not an object")
    groups = hooks.setdefault(event, [])
    if not isinstance(groups, list):
        raise ValueError(f"its \"hooks\".\"{event}\" is not a list")
    return groups


def prune(data: dict[str, Any], event: str) -> None:
    """Drop an event list (and the hooks object) our removal left empty."""
    hooks = data.get("hooks")
    if isinstance(hooks, dict) and hooks.get(event) == []:
        del hooks[event]
        if not hooks:
            del data["hooks"]


def remove_grouped(data: dict[str, Any], event: str) -> bool:
    """Remove our commands from ``hooks[event][*].hooks`` (the matcher-group layout of
    Claude Code, Codex and Gemini), dropping groups and lists left empty."""
    hooks = data.get("hooks")
    groups = hooks.get(event) if isinstance(hooks, dict) else None
    if not isinstance(groups, list):
        return False
    removed = False
    for group in list(groups):
        inner = group.get("hooks") if isinstance(group, dict) else None
        if not isinstance(inner, list):
            continue
        kept = [h for h in inner if not (isinstance(h, dict) and is_ours(h.get("command")))]
        if len(kept) != len(inner):
            removed = True
            if kept:
                group["hooks"] = kept
            else:
                groups.remove(group)
    prune(data, event)
    return removed


def add_flat(data: dict[str, Any], event: str, entry: dict[str, Any]) -> None:
    """Append to ``hooks[event]`` of a ``{"version": 1, "hooks": …}`` file (Copilot, Cursor)."""
    data.setdefault("version", 1)
    hook_groups(data, event).append(entry)


def remove_flat(data: dict[str, Any], event: str, key: str) -> bool:
    """Remove our entries (command under ``key``) from a flat ``hooks[event]`` list; a file
    left with nothing but the ``version`` we added is left empty."""
    hooks = data.get("hooks")
    entries = hooks.get(event) if isinstance(hooks, dict) else None
    if not isinstance(entries, list):
        return False
    kept = [e for e in entries if not (isinstance(e, dict) and is_ours(e.get(key)))]
    if len(kept) == len(entries):
        return False
    entries[:] = kept
    prune(data, event)
    if "hooks" not in data and data.get("version") == 1 and len(data) == 1:
        del data["version"]
    return True
