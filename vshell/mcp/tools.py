"""The tools vshell serves, independent of the MCP SDK.

Each tool is a schema (input, output, annotations) plus a synchronous function over one
:class:`~vshell.sandbox.Sandbox`.  Keeping this layer SDK-free makes it testable on its own
and keeps the protocol glue in :mod:`vshell.mcp.server` thin.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from vshell.command import Cancelled, CancelToken
from vshell.mcp import budget, fileops, review
from vshell.mcp.fileops import ToolError
from vshell.records import field, record
from vshell.result import Outcome

if TYPE_CHECKING:
    from vshell.sandbox import Sandbox


@record
class ToolResult:
    """What one call returns: model-facing text, typed fields, and whether it failed."""

    text: str
    structured: dict[str, Any] | None = None
    is_error: bool = False


@record
class ServerConfig:
    """Server-side policy that is not part of the sandbox itself."""

    command_timeout: float | None = 60.0  # default for calls without a timeout (None: none)
    max_result_bytes: int = budget.DEFAULT_MAX_RESULT_BYTES  # 0 disables the budget


@record(frozen=True)
class ToolSpec:
    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any]
    read_only: bool
    destructive: bool
    idempotent: bool
    run: Callable[..., ToolResult] = field(compare=False)


def error_result(err: ToolError) -> ToolResult:
    """A tool failure: the stable code leads the text so it is easy to branch on."""
    return ToolResult(f"{err.code}: {err.message}", None, True)


# --- bash ------------------------------------------------------------------------------
_BASH_OUT = {
    "type": "object",
    "properties": {
        "exit_code": {"type": "integer", "description": "the script's exit status"},
        "stdout": {"type": "string"},
        "stderr": {"type": "string"},
        "outcome": {"type": "string", "enum": [str(o) for o in Outcome],
                    "description": "why the run ended (completed, timed_out, canceled, ...)"},
        "truncated": {"type": "boolean",
                      "description": "stdout/stderr here are not the complete streams"},
        "duration_ms": {"type": "integer"},
        "cwd": {"type": "string", "description": "the session's working directory afterwards"},
        "output_limited": {"type": "boolean",
                           "description": "the sandbox's --output-limit cut a stream"},
        "timed_out": {"type": "boolean"},
        "timeout_sec": {"type": "number"},
        "timeout_source": {"type": "string", "enum": ["request", "server_default", "sandbox"]},
        "result_truncated": {"type": "boolean",
                             "description": "cut to fit the --max-result-bytes budget"},
        "result_dropped_bytes": {"type": "integer"},
        "result_budget_bytes": {"type": "integer"},
        "stdout_dropped_bytes": {"type": "integer"},
        "stderr_dropped_bytes": {"type": "integer"},
    },
    "required": ["exit_code", "stdout", "stderr", "outcome", "truncated", "duration_ms"],
}


def _decode(b: bytes) -> str:
    return b.decode("utf-8", "replace")


def _join_text(stdout: str, stderr: str, code: int, notes: list[str]) -> str:
    parts = [stdout]
    if stderr:
        if stdout and not stdout.endswith("\n"):
            parts.append("\n")
        parts.append("[stderr]\n" + stderr)
    text = "".join(parts)
    tail = [*notes]
    if code != 0:
        tail.append(f"[exit code: {code}]")
    if tail:
        if text and not text.endswith("\n"):
            text += "\n"
        text += "\n".join(tail) + "\n"
    return text


def run_bash(sb: Sandbox, cfg: ServerConfig, args: dict[str, Any],
             cancel: CancelToken | None = None) -> ToolResult:
    """Run a script in the persistent session and shape its result for a model."""
    command = args.get("command")
    if not isinstance(command, str):
        raise ToolError("E_INVALID_ARGUMENT", "command must be a string")
    timeout = args.get("timeout")
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, int | float)
                                or timeout < 0):
        raise ToolError("E_INVALID_ARGUMENT", "timeout must be a number of seconds >= 0")
    limit: float | None
    if timeout:
        limit, source = float(timeout), "request"
    else:
        limit, source = cfg.command_timeout, "server_default"
    if sb.timeout is not None and (limit is None or sb.timeout < limit):
        limit, source = sb.timeout, "sandbox"
    began = time.monotonic()
    res = sb.exec(command, timeout=limit or None, cancel=cancel)
    took = int((time.monotonic() - began) * 1000)
    stdout, stderr = _decode(res.stdout), _decode(res.stderr)
    data: dict[str, Any] = {"exit_code": res.exit_code, "stdout": stdout, "stderr": stderr,
                            "outcome": str(res.outcome), "truncated": bool(res.truncated),
                            "duration_ms": took, "cwd": sb.cwd,
                            "output_limited": bool(res.truncated)}
    notes: list[str] = []
    lead = ""
    if res.truncated:
        notes.append(f"[output truncated at the sandbox output limit of {sb.output_limit} bytes]")
    if res.outcome is Outcome.TIMED_OUT:
        data.update(timed_out=True, timeout_sec=limit, timeout_source=source)
        why = {"request": "the `timeout` this call passed",
               "server_default": "the server default; pass `timeout` to allow a longer command",
               "sandbox": "the sandbox's --timeout limit"}[source]
        lead = f"E_TIMEOUT: stopped after {limit:g}s ({why})\n"
    text = lead + _join_text(stdout, stderr, res.exit_code, notes)
    out = ToolResult(budget.cut_text(text), data, res.exit_code != 0 or not res.ok())
    return apply_budget(out, cfg.max_result_bytes)


def apply_budget(res: ToolResult, limit: int) -> ToolResult:
    """Bound the encoded size of a result: text keeps a quarter, the streams share the rest."""
    if limit <= 0:
        return res
    room = max(1024, limit - budget.ENVELOPE_RESERVE)
    text, dropped_text = budget.fit(res.text, room // 4)
    res.text = text
    data = res.structured
    if data is None:
        return res
    streams = {k: v for k, v in data.items() if k in ("stdout", "stderr") and isinstance(v, str)}
    if not streams:
        _fit_lists(data, room - budget.encoded_len(text), limit)
        return res
    rest = room - budget.encoded_len(text)
    sizes = {k: budget.encoded_len(v) for k, v in streams.items()}
    if sum(sizes.values()) <= rest:
        return res
    shares = budget.share(sizes, rest)
    total = dropped_text
    for k, v in streams.items():
        if sizes[k] > shares[k]:
            data[k], dropped = budget.fit(v, shares[k])
            data[f"{k}_dropped_bytes"] = dropped
            total += dropped
    data.update(result_truncated=True, result_dropped_bytes=total, result_budget_bytes=limit,
                truncated=True)
    return res


def _fit_lists(data: dict[str, Any], room: int, limit: int) -> None:
    """Drop trailing items of the list fields (list entries, glob matches) until ``data``
    encodes within ``room`` bytes; the result says so, as a cut stream would."""
    def size() -> int:
        return len(json.dumps(data, ensure_ascii=False).encode("utf-8", "surrogatepass"))

    if size() <= room:
        return
    lists = [k for k, v in data.items() if isinstance(v, list) and v]
    for k in lists:
        items: list[Any] = data[k]
        kept = len(items)
        while kept and size() > room:
            kept = max(0, kept - max(1, kept // 8))
            data[k] = items[:kept]
        data[f"{k}_dropped"] = len(items) - kept
    data.update(result_truncated=True, result_budget_bytes=limit, truncated=True)


# --- file tools --------------------------------------------------------------------------
def _file_tool(fn: Callable[..., tuple[str, dict[str, Any]]], *names: str,
               cancellable: bool = True) -> Callable[..., ToolResult]:
    """A file tool bounded like ``bash``: the server's command timeout (or the sandbox's,
    when tighter), the client's cancel, and the result budget."""

    def run(sb: Sandbox, cfg: ServerConfig, args: dict[str, Any],
            cancel: CancelToken | None = None) -> ToolResult:
        limit = cfg.command_timeout
        if sb.timeout is not None and (limit is None or sb.timeout < limit):
            limit = sb.timeout
        token = (cancel or CancelToken()).child(limit or None)
        extra = {"cancel": token} if cancellable else {}
        try:
            text, meta = fn(sb.fs, sb.cwd, *(args.get(n) for n in names), **extra)
        except Cancelled as e:
            if (e.args[0] if e.args else None) == "timeout":
                raise ToolError("E_TIMEOUT", f"stopped after {limit:g}s (the server's command "
                                "timeout); use bash for long work on big files") from None
            raise ToolError("E_CANCELED", "the call was canceled") from None
        return apply_budget(ToolResult(text, meta), cfg.max_result_bytes)

    return run


_PATH = {"type": "string", "description": "file path; relative paths resolve against the "
         "session's working directory (the bash tool's cwd)"}

_READ_OUT = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "file_size": {"type": "integer"},
        "line_count": {"type": "integer", "description": "lines returned in the text"},
        "start_line": {"type": "integer"},
        "total_lines": {"type": "integer"},
        "truncated": {"type": "boolean"},
        "next_offset": {"type": "integer", "description": "pass as offset to continue"},
        "scan_stopped": {"type": "boolean", "description": "a line too long to scan ended "
                         "the read; what follows it is reachable only with bash"},
        "empty_reason": {"type": "string", "enum": ["empty_file", "offset_beyond_eof"]},
    },
    "required": ["path", "file_size", "line_count", "start_line", "truncated"],
}

_WRITE_OUT = {
    "type": "object",
    "properties": {"path": {"type": "string"}, "created": {"type": "boolean"},
                   "bytes": {"type": "integer"}},
    "required": ["path", "created", "bytes"],
}

_EDIT_OUT = {
    "type": "object",
    "properties": {"path": {"type": "string"}, "edits": {"type": "integer"},
                   "changed": {"type": "boolean"}, "bytes": {"type": "integer"}},
    "required": ["path", "edits", "changed", "bytes"],
}

_LIST_OUT = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "entries": {"type": "array", "items": {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "type": {"type": "string", "enum": ["file", "directory", "symlink", "other"]},
                "size": {"type": "integer"},
                "target": {"type": "string"},
                "target_type": {"type": "string"},
            },
            "required": ["name", "type", "size"],
        }},
        "total": {"type": "integer"},
        "truncated": {"type": "boolean"},
    },
    "required": ["path", "entries", "total", "truncated"],
}

_GLOB_OUT = {
    "type": "object",
    "properties": {"base": {"type": "string"},
                   "matches": {"type": "array", "items": {"type": "string"}},
                   "total": {"type": "integer"}, "truncated": {"type": "boolean"}},
    "required": ["base", "matches", "total", "truncated"],
}

# --- copy-on-write review ----------------------------------------------------------------
def run_changes(sb: Sandbox, cfg: ServerConfig, args: dict[str, Any],
                cancel: CancelToken | None = None) -> ToolResult:
    """List what the cow mounts hold; a long list is bounded like any other result."""
    text, data = review.list_changes(sb)
    return apply_budget(ToolResult(budget.cut_text(text), data), cfg.max_result_bytes)


def run_diff(sb: Sandbox, cfg: ServerConfig, args: dict[str, Any],
             cancel: CancelToken | None = None) -> ToolResult:
    """The cow mounts' unified diff (review.show_diff bounds it by the result budget)."""
    text, data = review.show_diff(sb, cfg.max_result_bytes)
    return ToolResult(text, data)


def run_sync(sb: Sandbox, cfg: ServerConfig, args: dict[str, Any],
             cancel: CancelToken | None = None) -> ToolResult:
    """Write the cow changes to the host; isError (with the fields) when not all applied."""
    text, data, failed = review.apply_sync(sb, args.get("paths"))
    return apply_budget(ToolResult(budget.cut_text(text), data, failed), cfg.max_result_bytes)


TOOLS: dict[str, ToolSpec] = {t.name: t for t in [
    ToolSpec(
        "bash", "Run a bash script",
        "Run a bash script in a persistent sandboxed session: the working directory, "
        "variables and functions carry over between calls. vshell is a bash-compatible "
        "interpreter with ~100 built-in commands (coreutils, grep, sed, awk, find, jq, "
        "python in WASI, ...); no host program can be started. Output past ~50 KiB is cut "
        "head + tail in the text; structuredContent keeps more.",
        {"type": "object", "properties": {
            "command": {"type": "string", "description": "the script to run"},
            "timeout": {"type": "number", "minimum": 0,
                        "description": "seconds before the run is stopped (default: the "
                        "server's --command-timeout)"}},
         "required": ["command"]},
        _BASH_OUT, read_only=False, destructive=True, idempotent=False, run=run_bash),
    ToolSpec(
        "read", "Read a text file",
        f"Read a UTF-8 text file. offset (1-based line) and limit (lines) page through it; "
        f"at most {fileops.READ_MAX_LINES} lines / {fileops.READ_MAX_BYTES // 1024} KiB per "
        "call, and next_offset says where to continue. Binary files and directories fail "
        "with E_BINARY / E_IS_DIRECTORY.",
        {"type": "object", "properties": {
            "path": _PATH,
            "offset": {"type": "integer", "minimum": 1, "description": "first line (1-based)"},
            "limit": {"type": "integer", "minimum": 1, "description": "maximum lines"}},
         "required": ["path"]},
        _READ_OUT, read_only=True, destructive=False, idempotent=True,
        run=_file_tool(fileops.read_file, "path", "offset", "limit")),
    ToolSpec(
        "write", "Create or overwrite a file",
        "Write content to a file, replacing it atomically if it exists; missing parent "
        "directories are created.",
        {"type": "object", "properties": {
            "path": _PATH, "content": {"type": "string", "description": "the whole new text"}},
         "required": ["path", "content"]},
        _WRITE_OUT, read_only=False, destructive=True, idempotent=True,
        run=_file_tool(fileops.write_file, "path", "content", cancellable=False)),
    ToolSpec(
        "edit", "Edit a file by exact replacement",
        "Replace exact text in a file. Each oldText must occur exactly once in the current "
        "file (E_NO_MATCH / E_AMBIGUOUS otherwise) and edits must not overlap; all edits "
        "apply together or none do.",
        {"type": "object", "properties": {
            "path": _PATH,
            "edits": {"type": "array", "minItems": 1, "items": {
                "type": "object",
                "properties": {"oldText": {"type": "string", "minLength": 1},
                               "newText": {"type": "string"}},
                "required": ["oldText", "newText"]}}},
         "required": ["path", "edits"]},
        _EDIT_OUT, read_only=False, destructive=True, idempotent=False,
        run=_file_tool(fileops.edit_file, "path", "edits")),
    ToolSpec(
        "list", "List a directory",
        "List one directory (default: the working directory) with each entry's type and "
        "size, sorted by name.",
        {"type": "object", "properties": {"path": _PATH}},
        _LIST_OUT, read_only=True, destructive=False, idempotent=True,
        run=_file_tool(fileops.list_dir, "path")),
    ToolSpec(
        "glob", "Find files by pattern",
        "Paths matching a shell glob pattern, relative to path (default: the working "
        "directory); ** matches any number of directories, e.g. 'src/**/*.py'.",
        {"type": "object", "properties": {
            "pattern": {"type": "string", "description": "e.g. '**/*.md'"},
            "path": {"type": "string", "description": "directory to search from"}},
         "required": ["pattern"]},
        _GLOB_OUT, read_only=True, destructive=False, idempotent=True,
        run=_file_tool(fileops.glob_files, "pattern", "path", cancellable=False)),
    ToolSpec(
        "changes", "List copy-on-write changes",
        "Paths changed under the copy-on-write (cow) mounts, which keep every write in the "
        "sandbox instead of the host: one line each, A added, M modified, D deleted, T type "
        "changed. Empty when nothing changed or no mount is cow.",
        {"type": "object", "properties": {}},
        review.CHANGES_OUT, read_only=True, destructive=False, idempotent=True,
        run=run_changes),
    ToolSpec(
        "diff", "Show copy-on-write changes as a diff",
        "Unified diff (--- a/PATH, +++ b/PATH) of the text files changed under the "
        "copy-on-write mounts, symlinks as their targets, and git's old mode/new mode "
        "lines for a mode change; binary files are only named.",
        {"type": "object", "properties": {}},
        review.DIFF_OUT, read_only=True, destructive=False, idempotent=True,
        run=run_diff),
    ToolSpec(
        "sync", "Apply copy-on-write changes to the host",
        "Write the changes held by the copy-on-write mounts to the host (all, or only those "
        "under `paths`), then drop them from the overlay. If a host file changed since the "
        "sandbox copied it, nothing is applied and the call fails with E_CONFLICT.",
        {"type": "object", "properties": {
            "paths": {"type": "array", "items": {"type": "string"},
                      "description": "apply only changes at or under these paths (relative "
                      "ones resolve against the working directory); default: all"}}},
        review.SYNC_OUT, read_only=False, destructive=True, idempotent=True,
        run=run_sync),
]}


def check_arguments(spec: ToolSpec, args: dict[str, Any]) -> None:
    """Validate arguments against the input schema (jsonschema when installed)."""
    schema = spec.input_schema
    try:
        import jsonschema
    except ImportError:  # the tools validate their own arguments too
        missing = [k for k in schema.get("required", []) if k not in args]
        if missing:
            raise ToolError("E_INVALID_ARGUMENT", f"missing argument {missing[0]!r}") from None
        return
    err = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(schema)
                                           .iter_errors(args))
    if err is not None:
        where = "/".join(str(p) for p in err.absolute_path) or "arguments"
        raise ToolError("E_INVALID_ARGUMENT", f"{where}: {err.message}")


def call(sb: Sandbox, cfg: ServerConfig, name: str, args: dict[str, Any],
         cancel: CancelToken | None = None) -> ToolResult:
    """Run tool ``name``; every tool failure becomes an error result, never an exception."""
    spec = TOOLS[name]
    try:
        check_arguments(spec, args)
        return spec.run(sb, cfg, args, cancel)
    except ToolError as e:
        return error_result(e)
    except Exception as e:  # noqa: BLE001 - a bug must not cost the client its connection
        import logging

        logging.getLogger("vshell.mcp").exception("tool %s failed", name)
        return error_result(ToolError("E_INTERNAL", f"{type(e).__name__}: {e}"))
