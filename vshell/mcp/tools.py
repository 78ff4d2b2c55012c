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

from vshell.background import JobError
from vshell.command import Cancelled, CancelToken
from vshell.mcp import budget, fileops, jobs, review
from vshell.mcp.fileops import ToolError
from vshell.mcp.image import Picture
from vshell.records import field, record
from vshell.result import Outcome

if TYPE_CHECKING:
    from vshell.sandbox import Sandbox


@record
class ToolResult:
    """What one call returns: model-facing text, typed fields, whether it failed, and any
    images (base64 + MIME type: plain data, so a result crosses a process boundary as is)."""

    text: str
    structured: dict[str, Any] | None = None
    is_error: bool = False
    images: list[Picture] = field(default_factory=list)


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
    """A tool failure: the stable code leads the text so it is easy to branch on; an error
    with a ``detail`` (view_image's, as boxsh has them) carries {code, message, detail}."""
    detail = getattr(err, "detail", None)
    data = None if detail is None else {"code": err.code, "message": err.message,
                                        "detail": detail}
    return ToolResult(f"{err.code}: {err.message}", data, True)


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
        "limits": {"type": "object", "description": "the limits this call ran under (when "
                   "it passed timeout, output_limit or allow_net)", "properties": {
                       "timeout_sec": {"type": ["number", "null"]},
                       "timeout_source": {"type": "string"},
                       "output_limit": {"type": "integer"},
                       "allow_net": {"type": ["array", "null"], "items": {"type": "string"}},
                       "network": {"type": "string", "enum": ["off", "session", "narrowed"]},
                       "capped": {"type": "array", "items": {"type": "string"},
                                  "description": "arguments that asked for more than the "
                                  "session allows and got the session's value"}}},
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


class _CallSink:
    """A stream that keeps at most ``limit`` bytes: a call's own, narrower output limit
    (the sandbox's sink forwards what it keeps here)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.data = bytearray()
        self.truncated = False

    def write(self, b: bytes) -> int:
        room = self.limit - len(self.data)
        if len(b) > room:
            self.truncated = True
        self.data += b[: max(0, room)]
        return len(b)

    def flush(self) -> None:
        pass


def call_limits(sb: Sandbox, cfg: ServerConfig, args: dict[str, Any]) -> dict[str, Any]:
    """The limits one bash call runs under: its own ``timeout``, ``output_limit`` and
    ``allow_net`` may narrow the session's, never widen them: a value past the session's
    gets the session's (and is named in ``capped``)."""
    timeout = args.get("timeout")
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, int | float)
                                or timeout < 0):
        raise ToolError("E_INVALID_ARGUMENT", "timeout must be a number of seconds >= 0")
    out_limit = args.get("output_limit")
    if out_limit is not None and (isinstance(out_limit, bool) or not isinstance(out_limit, int)
                                  or out_limit < 0):
        raise ToolError("E_INVALID_ARGUMENT", "output_limit must be a number of bytes >= 0")
    net = args.get("allow_net")
    if net is not None:
        if not isinstance(net, list) or not all(isinstance(e, str) for e in net):
            raise ToolError("E_INVALID_ARGUMENT", "allow_net must be a list of strings")
    capped: list[str] = []
    limit: float | None
    if timeout:
        limit, source = float(timeout), "request"
    else:
        limit, source = cfg.command_timeout, "server_default"
    if sb.timeout is not None and (limit is None or sb.timeout < limit):
        if timeout:
            capped.append("timeout")
        limit, source = sb.timeout, "sandbox"
    output = sb.output_limit
    if out_limit is not None:
        if out_limit > sb.output_limit:
            capped.append("output_limit")
        output = min(out_limit, sb.output_limit)
    session_net = list(getattr(sb, "_allow_net", []))
    if net is not None and not session_net and net:
        capped.append("allow_net")  # the session has no network to narrow
    return {"timeout_sec": limit, "timeout_source": source, "output_limit": output,
            "allow_net": net, "network": "off" if not session_net or net == [] else
            "session" if net is None else "narrowed", "capped": capped}


def run_bash(sb: Sandbox, cfg: ServerConfig, args: dict[str, Any],
             cancel: CancelToken | None = None) -> ToolResult:
    """Run a script in the persistent session and shape its result for a model."""
    command = args.get("command")
    if not isinstance(command, str):
        raise ToolError("E_INVALID_ARGUMENT", "command must be a string")
    limits = call_limits(sb, cfg, args)
    limit, source = limits["timeout_sec"], limits["timeout_source"]
    sinks = None
    if limits["output_limit"] < sb.output_limit:
        sinks = _CallSink(limits["output_limit"]), _CallSink(limits["output_limit"])
    began = time.monotonic()
    res = sb.exec(command, timeout=limit or None, cancel=cancel, allow_net=limits["allow_net"],
                  stdout=sinks[0] if sinks else None, stderr=sinks[1] if sinks else None)
    took = int((time.monotonic() - began) * 1000)
    if res.outcome is Outcome.INVALID and limits["allow_net"] is not None and \
            res.stderr.startswith(b"vshell: allow_net: "):  # the sandbox checked the entries
        raise ToolError("E_INVALID_ARGUMENT", _decode(res.stderr[8:]).strip())
    if sinks:
        res.stdout, res.stderr = bytes(sinks[0].data), bytes(sinks[1].data)
        res.truncated = res.truncated or sinks[0].truncated or sinks[1].truncated
    stdout, stderr = _decode(res.stdout), _decode(res.stderr)
    data: dict[str, Any] = {"exit_code": res.exit_code, "stdout": stdout, "stderr": stderr,
                            "outcome": str(res.outcome), "truncated": bool(res.truncated),
                            "duration_ms": took, "cwd": sb.cwd,
                            "output_limited": bool(res.truncated)}
    if any(k in args for k in ("output_limit", "allow_net", "timeout")):
        data["limits"] = limits
    notes: list[str] = []
    lead = ""
    if res.truncated:
        which = "this call's" if sinks else "the sandbox"
        notes.append(f"[output truncated at {which} output limit of {limits['output_limit']} "
                     "bytes]")
    if limits["capped"]:
        notes.append(f"[{', '.join(limits['capped'])}: a call may narrow the session's limits, "
                     "not widen them; the session's value applied]")
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


# --- view_image ----------------------------------------------------------------------------
_IMAGE_OUT = {
    "type": "object",
    "properties": {
        "encoding": {"type": "string", "enum": ["image"]},
        "path": {"type": "string"},
        "mime_type": {"type": "string",
                      "enum": ["image/png", "image/jpeg", "image/gif", "image/webp"]},
        "width": {"type": "integer", "description": "of the image returned"},
        "height": {"type": "integer"},
        "original_width": {"type": "integer", "description": "of the file"},
        "original_height": {"type": "integer"},
        "was_resized": {"type": "boolean"},
        "size": {"type": "integer", "description": "bytes of the image returned"},
        "file_size": {"type": "integer"},
        "animated": {"type": "boolean", "description": "only the first frame is returned"},
        "converted": {"type": "boolean", "description": "re-encoded in another format"},
        "format": {"type": "string", "description": "the file's format"},
    },
    "required": ["encoding", "mime_type", "width", "height", "original_width",
                 "original_height", "was_resized", "size", "animated", "converted"],
}


def run_view_image(sb: Sandbox, cfg: ServerConfig, args: dict[str, Any],
                   cancel: CancelToken | None = None) -> ToolResult:
    """An image file as an image block; the picture must fit the result budget whole."""
    from vshell.mcp import image

    try:
        import PIL  # noqa: F401 - only to say clearly that it is missing
    except ImportError:
        raise ToolError("E_UNAVAILABLE", "view_image needs Pillow, which is not installed: "
                        "pip install 'vshell[mcp]'") from None
    room = 0
    if cfg.max_result_bytes > 0:
        room = cfg.max_result_bytes - budget.ENVELOPE_RESERVE - 2048  # text and metadata
        if room <= 0:
            raise ToolError("E_TOO_LARGE", "the result budget (--max-result-bytes) has no "
                            "room for an image")
    text, meta, picture = image.view_image(sb.fs, sb.cwd, args.get("path"), args.get("detail"),
                                           room)
    return ToolResult(text, meta, False, [picture])


# --- background jobs (vshell.mcp.jobs) ------------------------------------------------------
def _job_tool(fn: Callable[..., tuple[str, dict[str, Any]]]) -> Callable[..., ToolResult]:
    """A job tool: its waits are bounded by the server's command timeout, its output by the
    result budget (the read is sized to fit, so no byte is cut after it was consumed)."""

    def run(sb: Sandbox, cfg: ServerConfig, args: dict[str, Any],
            cancel: CancelToken | None = None) -> ToolResult:
        try:
            text, data = fn(sb, args, cfg.command_timeout, cfg.max_result_bytes, cancel)
        except JobError as e:
            raise ToolError(e.code, e.message) from None
        return ToolResult(text, data)

    return run


_JOB_TOOLS = [
    ToolSpec(
        "job_start", "Start a background job",
        "Start a bash script in the background and return at once with its id: it runs like "
        "`( script ) &` in the session (a copy of the cwd, variables and functions; the same "
        "files), so bash calls keep working while it runs. Read its output with job_output, "
        "type at it with job_send (python3 -i, a `while read` loop), stop it with job_signal "
        "or job_kill. Its output log keeps the last 1 MiB per stream.",
        jobs.START_IN, jobs.START_OUT, read_only=False, destructive=True, idempotent=False,
        run=_job_tool(jobs.start)),
    ToolSpec(
        "job_output", "Read a background job's output",
        "Output of a job since the last read (or from `cursor`), combined or one stream; "
        "`wait` seconds for new output or, with wait_for 'exit', for the job to end. "
        "next_cursor says where to continue; dropped_bytes counts output the log no longer "
        "holds.",
        jobs.OUTPUT_IN, jobs.OUTPUT_OUT, read_only=True, destructive=False, idempotent=False,
        run=_job_tool(jobs.output)),
    ToolSpec(
        "job_send", "Write to a background job's stdin",
        "Write text to a job's stdin as is (end lines with \n); close: true sends EOF after "
        "it. With `wait`, the job's new output comes back in the same call.",
        jobs.SEND_IN, jobs.SEND_OUT, read_only=False, destructive=False, idempotent=False,
        run=_job_tool(jobs.send)),
    ToolSpec(
        "job_signal", "Signal a background job",
        "INT stops the job's run as Ctrl-C does (exit status 130), TERM likewise with status "
        "143, KILL ends it at once (137). The job stays listed and its output readable.",
        jobs.SIGNAL_IN, jobs.SIGNAL_OUT, read_only=False, destructive=True, idempotent=False,
        run=_job_tool(jobs.signal)),
    ToolSpec(
        "job_kill", "End and remove a background job",
        "Kill a job if it still runs, return the output nobody has read yet, and forget it.",
        jobs.KILL_IN, jobs.KILL_OUT, read_only=False, destructive=True, idempotent=False,
        run=_job_tool(jobs.kill)),
    ToolSpec(
        "jobs", "List background jobs",
        "The session's background jobs: id, command, state, exit code and output bytes.",
        jobs.JOBS_IN, jobs.JOBS_OUT, read_only=True, destructive=False, idempotent=True,
        run=_job_tool(jobs.list_jobs)),
]


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
                        "server's --command-timeout; at most the sandbox's --timeout)"},
            "output_limit": {"type": "integer", "minimum": 0,
                             "description": "bytes kept of stdout and of stderr each; may "
                             "only lower the sandbox's --output-limit"},
            "allow_net": {"type": "array", "items": {"type": "string"},
                          "description": "this call's network allow list: a request must "
                          "pass it and the session's (so it narrows, never widens); [] for "
                          "no network"}},
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
        "view_image", "View an image",
        "Show an image file (png, jpeg, gif, webp; bmp and tiff are converted) as an image "
        "the model can see, with its size and format in structuredContent. Images are "
        "downscaled to a 2000 px longest edge (detail 'low': 512 px) and re-encoded smaller "
        "when needed to fit the result; an animation shows its first frame. Fails with "
        "E_NOT_IMAGE, E_UNSUPPORTED_FORMAT (detail.supported lists the formats; "
        "detail.reason 'decode_failed' for a corrupt file) or E_TOO_LARGE.",
        {"type": "object", "properties": {
            "path": _PATH,
            "detail": {"type": "string", "enum": ["auto", "low", "high"],
                       "description": "'low' returns at most 512 px (fewer tokens); "
                       "default 'auto' (2000 px)"}},
         "required": ["path"]},
        _IMAGE_OUT, read_only=True, destructive=False, idempotent=True, run=run_view_image),
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
    *_JOB_TOOLS,
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
