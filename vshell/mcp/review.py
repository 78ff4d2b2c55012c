"""The review tools (changes, diff, sync) over a sandbox's copy-on-write mounts.

An agent working on a cow mount never touches the host; these tools let it (or its client)
see what it changed and, when the client allows the destructive ``sync``, apply it.  Like
:mod:`vshell.mcp.fileops` this layer knows nothing of the SDK: each function returns the
model-facing text and the structured fields, and :mod:`vshell.mcp.tools` wraps them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from vshell.mcp import budget
from vshell.mcp.fileops import ToolError, resolve
from vshell.overlay_review import format_changes

if TYPE_CHECKING:
    from vshell.sandbox import Sandbox

CHANGES_OUT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "changes": {"type": "array", "items": {
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "virtual path"},
                "kind": {"type": "string", "enum": ["add", "modify", "delete", "type-change"]},
            },
            "required": ["path", "kind"],
        }},
    },
    "required": ["changes"],
}

DIFF_OUT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "diff": {"type": "string", "description": "unified diff (a/PATH, b/PATH)"},
        "truncated": {"type": "boolean",
                      "description": "diff here is cut to fit the --max-result-bytes budget"},
        "dropped_bytes": {"type": "integer"},
    },
    "required": ["diff", "truncated"],
}

_NULLABLE = {"type": ["string", "null"]}

SYNC_OUT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "ok": {"type": "boolean", "description": "no conflict and no failure"},
        "applied": {"type": "array", "items": CHANGES_OUT["properties"]["changes"]["items"],
                    "description": "changes written to the host"},
        "conflicts": {"type": "array", "items": {"type": "string"},
                      "description": "paths changed on the host since the overlay copied "
                      "them; when non-empty nothing was applied"},
        "failed": {**_NULLABLE, "description": "the path a sync stopped at part-way"},
        "error": {**_NULLABLE, "description": "why it stopped there"},
    },
    "required": ["ok", "applied", "conflicts", "failed", "error"],
}

NO_CHANGES = "no changes (nothing differs from the host, or no copy-on-write mount)\n"


def _rows(pairs: list[tuple[str, str]]) -> list[dict[str, str]]:
    return [{"path": p, "kind": k} for p, k in pairs]


def list_changes(sb: Sandbox) -> tuple[str, dict[str, Any]]:
    """Every changed path, one ``M /w/a.txt`` line each (the letters of `vshell changes`)."""
    pairs = sb.changes()
    return (format_changes(pairs) or NO_CHANGES), {"changes": _rows(pairs)}


def show_diff(sb: Sandbox, max_result_bytes: int) -> tuple[str, dict[str, Any]]:
    """The unified diff, in the text (cut head + tail) and whole in structuredContent.

    Both are bounded: the text like the bash tool's output, and the structured copy by
    what the result budget leaves, so one huge rewrite cannot overflow a client's buffer.
    """
    whole = sb.diff()
    if not whole:
        return NO_CHANGES, {"diff": "", "truncated": False}
    text, cut = budget.fit(whole, budget.TEXT_CUT_BYTES)
    if cut:
        text += "\n[diff cut in this text; structuredContent.diff holds more of it]\n"
    data: dict[str, Any] = {"diff": whole, "truncated": False}
    if max_result_bytes > 0:
        room = max(1024, max_result_bytes - budget.ENVELOPE_RESERVE)
        text, _ = budget.fit(text, room // 4)
        data["diff"], dropped = budget.fit(whole, room - budget.encoded_len(text))
        if dropped:
            data.update(truncated=True, dropped_bytes=dropped)
    return text, data


def _paths(cwd: str, paths: Any) -> list[str] | None:
    if paths is None:
        return None
    if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
        raise ToolError("E_INVALID_ARGUMENT", "paths must be a list of strings")
    return [resolve(cwd, p) for p in paths]


def apply_sync(sb: Sandbox, paths: Any = None) -> tuple[str, dict[str, Any], bool]:
    """Apply the changes (under ``paths``) to the host: (text, structured, is_error).

    A conflict applies nothing and leads with ``E_CONFLICT``; a failure part-way leads with
    ``E_IO`` and names what was applied, since the rest stays in the overlay for a retry.
    """
    selected = _paths(sb.cwd, paths)
    res = sb.sync(selected)
    applied = sorted(res.applied)
    data: dict[str, Any] = {"ok": res.ok, "applied": _rows(applied),
                            "conflicts": list(res.conflicts), "failed": res.failed,
                            "error": res.error}
    if res.conflicts:
        listed = "".join(f"{p}\n" for p in res.conflicts)
        text = (f"E_CONFLICT: {len(res.conflicts)} path(s) changed on the host since the "
                f"overlay copied them; nothing applied:\n{listed}")
        return text, data, True
    done = format_changes(applied)
    if res.failed is not None:
        text = (f"E_IO: sync stopped at {res.failed}: {res.error}; the rest is still in the "
                "overlay (call sync again to retry)\n")
        if done:
            text += f"applied before the failure:\n{done}"
        return text, data, True
    if not done:
        return "nothing to apply\n", data, False
    return f"applied {len(applied)} change(s) to the host:\n{done}", data, False


__all__ = ["CHANGES_OUT", "DIFF_OUT", "SYNC_OUT", "apply_sync", "list_changes", "show_diff"]
