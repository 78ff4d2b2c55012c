"""The job tools: background runs of the session (:mod:`vshell.background`) over MCP.

``job_start`` starts a script without waiting, ``job_output`` reads its output by cursor,
``job_send`` writes to its stdin, ``job_signal`` delivers INT/TERM/KILL, ``job_kill`` ends
and forgets it, ``jobs`` lists them.  The jobs live on the Sandbox, so these functions hold
no state of their own and work wherever the sandbox is (a worker process included).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from vshell.background import VIEWS, JobError
from vshell.mcp.fileops import ToolError

if TYPE_CHECKING:
    from vshell.background import Job
    from vshell.command import CancelToken
    from vshell.sandbox import Sandbox

DEFAULT_READ_BYTES = 64 * 1024
MAX_READ_BYTES = 1024 * 1024
MAX_WAIT = 60.0  # seconds one call may wait for output (also capped by the command timeout)
_ESCAPE_FACTOR = 12  # output is in the text and the fields, and JSON may escape a byte as 6


def _number(args: dict[str, Any], name: str, default: float, top: float) -> float:
    v = args.get(name)
    if v is None:
        return default
    if isinstance(v, bool) or not isinstance(v, int | float) or v < 0:
        raise ToolError("E_INVALID_ARGUMENT", f"{name} must be a number >= 0")
    return float(min(v, top))


def _job(sb: Sandbox, args: dict[str, Any]) -> Job:
    job_id = args.get("id")
    if isinstance(job_id, bool) or not isinstance(job_id, int):
        raise ToolError("E_INVALID_ARGUMENT", "id must be an integer (see the jobs tool)")
    try:
        return sb.background_jobs.get(job_id)
    except JobError as e:
        raise ToolError(e.code, e.message) from None


def _wait_cap(command_timeout: float | None) -> float:
    return MAX_WAIT if not command_timeout else min(MAX_WAIT, command_timeout)


def _read_bytes(args: dict[str, Any], budget: int) -> int:
    n = int(_number(args, "max_bytes", DEFAULT_READ_BYTES, MAX_READ_BYTES))
    if budget > 0:
        n = min(n, max(1024, (budget - 8192) // _ESCAPE_FACTOR))
    return max(1, n)


def _state_line(d: dict[str, Any]) -> str:
    code = "" if d.get("exit_code") is None else f", exit code {d['exit_code']}"
    return f"job {d['id']}: {d['state']}{code}"


def _output_text(d: dict[str, Any]) -> str:
    head = f"[{_state_line(d)}; {d['stream']} bytes {d['cursor']}..{d['next_cursor']} of " \
           f"{d['total_bytes']}"
    if d["more"]:
        head += "; more: call job_output again"
    head += "]\n"
    if d["dropped_bytes"]:
        head += (f"[{d['dropped_bytes']} bytes before this were dropped: the job's log keeps "
                 "only its most recent output]\n")
    return head + d["output"]


def start(sb: Sandbox, args: dict[str, Any], command_timeout: float | None, budget: int,
          cancel: CancelToken | None) -> tuple[str, dict[str, Any]]:
    timeout = _number(args, "timeout", 0.0, float("inf")) or None
    wait = _number(args, "wait", 0.0, _wait_cap(command_timeout))
    try:
        job = sb.start_job(args.get("command"), timeout=timeout, cancel=cancel)  # type: ignore[arg-type]  # checked by start
    except JobError as e:
        raise ToolError(e.code, e.message) from None
    data = job.summary()
    text = f"started {_state_line(data)} (read it with job_output, id {job.id})\n"
    if wait:
        got = job.read(max_bytes=_read_bytes(args, budget), wait=wait, cancel=cancel)
        data = {**data, **got}
        text = _output_text(got)
    return text, data


def output(sb: Sandbox, args: dict[str, Any], command_timeout: float | None, budget: int,
           cancel: CancelToken | None) -> tuple[str, dict[str, Any]]:
    job = _job(sb, args)
    cursor = args.get("cursor")
    if cursor is not None and (isinstance(cursor, bool) or not isinstance(cursor, int)):
        raise ToolError("E_INVALID_ARGUMENT", "cursor must be an integer >= 0")
    view = args.get("stream") or "combined"
    wait_for = args.get("wait_for") or "output"
    if wait_for not in ("output", "exit"):
        raise ToolError("E_INVALID_ARGUMENT", "wait_for must be output or exit")
    try:
        got = job.read(view, cursor, _read_bytes(args, budget),
                       _number(args, "wait", 0.0, _wait_cap(command_timeout)),
                       wait_for == "exit", cancel)
    except JobError as e:
        raise ToolError(e.code, e.message) from None
    return _output_text(got), got


def send(sb: Sandbox, args: dict[str, Any], command_timeout: float | None, budget: int,
         cancel: CancelToken | None) -> tuple[str, dict[str, Any]]:
    job = _job(sb, args)
    data = args.get("input", "")
    if not isinstance(data, str):
        raise ToolError("E_INVALID_ARGUMENT", "input must be a string")
    try:
        sent = job.send(data, bool(args.get("close")))
    except JobError as e:
        raise ToolError(e.code, e.message) from None
    text = f"sent {sent['bytes']} bytes to job {job.id}"
    text += " and closed its stdin\n" if args.get("close") else "\n"
    wait = _number(args, "wait", 0.0, _wait_cap(command_timeout))
    if wait:
        got = job.read(max_bytes=_read_bytes(args, budget), wait=wait, cancel=cancel)
        sent = {**got, **sent}
        text += _output_text(got)
    return text, sent


def signal(sb: Sandbox, args: dict[str, Any], command_timeout: float | None, budget: int,
           cancel: CancelToken | None) -> tuple[str, dict[str, Any]]:
    job = _job(sb, args)
    name = args.get("signal")
    if not isinstance(name, str):
        raise ToolError("E_INVALID_ARGUMENT", "signal must be INT, TERM or KILL")
    try:
        got = job.signal(name)
    except JobError as e:
        raise ToolError(e.code, e.message) from None
    what = "delivered" if got["delivered"] else "not delivered (the job had ended)"
    return f"{got['signal']} {what}; {_state_line(got)}\n", got


def kill(sb: Sandbox, args: dict[str, Any], command_timeout: float | None, budget: int,
         cancel: CancelToken | None) -> tuple[str, dict[str, Any]]:
    job = _job(sb, args)
    was_running = job.running
    try:
        sb.background_jobs.remove(job.id)
    except JobError as e:
        raise ToolError(e.code, e.message) from None
    rest = job.read(max_bytes=_read_bytes(args, budget))  # what nobody has read yet
    data = {**rest, "killed": was_running}
    verb = "killed" if was_running else "removed (it had ended)"
    return f"job {job.id} {verb}; unread output follows\n" + _output_text(rest), data


def list_jobs(sb: Sandbox, args: dict[str, Any], command_timeout: float | None, budget: int,
              cancel: CancelToken | None) -> tuple[str, dict[str, Any]]:
    table = sb.background_jobs
    items = [j.summary() for j in table.list()]
    lines = [f"{d['id']}\t{d['state']}\t{'' if d['exit_code'] is None else d['exit_code']}\t"
             f"{d['bytes']['combined']}B\t{d['command']}" for d in items]
    text = "\n".join(["id\tstate\texit\toutput\tcommand", *lines]) + "\n" if items \
        else "no jobs\n"
    return text, {"jobs": items, "max_jobs": table.max_jobs}


# --- schemas ---------------------------------------------------------------------------
_ID = {"type": "integer", "description": "the job's id (job_start returns it; jobs lists them)"}
_WAIT = {"type": "number", "minimum": 0,
         "description": f"seconds to wait for new output first (at most {MAX_WAIT:g})"}
_MAX_BYTES = {"type": "integer", "minimum": 1, "maximum": MAX_READ_BYTES,
              "description": f"bytes of output to return at most (default {DEFAULT_READ_BYTES})"}

STATUS_PROPS: dict[str, Any] = {
    "id": {"type": "integer"},
    "state": {"type": "string", "enum": ["running", "exited", "interrupted", "terminated",
                                         "killed", "timed_out"]},
    "exit_code": {"type": ["integer", "null"]},
    "running": {"type": "boolean"},
    "stdin_open": {"type": "boolean"},
    "duration_ms": {"type": "integer"},
}
OUTPUT_PROPS: dict[str, Any] = {
    "stream": {"type": "string", "enum": list(VIEWS)},
    "output": {"type": "string"},
    "cursor": {"type": "integer", "description": "log position the output starts at"},
    "next_cursor": {"type": "integer", "description": "pass as cursor to read on from here"},
    "dropped_bytes": {"type": "integer",
                      "description": "bytes between the asked cursor and `cursor` the log no "
                      "longer holds (it keeps the most recent output)"},
    "more": {"type": "boolean", "description": "the log holds more after next_cursor"},
    "total_bytes": {"type": "integer", "description": "bytes the stream has had in all"},
}
_SUMMARY = {
    "type": "object",
    "properties": {
        **STATUS_PROPS, "command": {"type": "string"},
        "bytes": {"type": "object", "additionalProperties": {"type": "integer"}},
        "dropped_bytes": {"type": "integer"},
        "timeout_sec": {"type": ["number", "null"]},
    },
    "required": ["id", "command", "state", "exit_code", "running", "bytes"],
}


def _out(extra: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": {**STATUS_PROPS, **OUTPUT_PROPS, **extra},
            "required": ["id", "state", "running", *required]}


START_IN = {"type": "object", "properties": {
    "command": {"type": "string", "description": "the script to run in the background"},
    "timeout": {"type": "number", "minimum": 0, "description": "seconds before the job is "
                "stopped (default and ceiling: the sandbox's --timeout; none without it)"},
    "wait": _WAIT, "max_bytes": _MAX_BYTES},
    "required": ["command"]}
START_OUT = _out({"command": {"type": "string"},
                  "bytes": {"type": "object", "additionalProperties": {"type": "integer"}},
                  "timeout_sec": {"type": ["number", "null"]}}, ["command"])
OUTPUT_IN = {"type": "object", "properties": {
    "id": _ID,
    "stream": {"type": "string", "enum": list(VIEWS),
               "description": "combined (default: stdout and stderr as they came), stdout or "
               "stderr; each keeps its own read position"},
    "cursor": {"type": "integer", "minimum": 0, "description": "read from this position "
               "instead of where the last read of this stream ended (0: all that is kept)"},
    "wait": _WAIT,
    "wait_for": {"type": "string", "enum": ["output", "exit"],
                 "description": "output (default): return once there is new output; exit: "
                 "wait for the job to end"},
    "max_bytes": _MAX_BYTES},
    "required": ["id"]}
OUTPUT_OUT = _out({}, ["output", "cursor", "next_cursor", "dropped_bytes"])
SEND_IN = {"type": "object", "properties": {
    "id": _ID,
    "input": {"type": "string", "description": "text written to the job's stdin as is (end a "
              "line with \\n)"},
    "close": {"type": "boolean", "description": "close the job's stdin afterwards (EOF)"},
    "wait": _WAIT, "max_bytes": _MAX_BYTES},
    "required": ["id"]}
SEND_OUT = _out({"bytes": {"type": "integer"}}, ["bytes"])
SIGNAL_IN = {"type": "object", "properties": {
    "id": _ID,
    "signal": {"type": "string", "enum": ["INT", "TERM", "KILL"],
               "description": "INT: cancel the run as Ctrl-C does (status 130); TERM: the "
               "same with status 143; KILL: end it at once (137)"}},
    "required": ["id", "signal"]}
SIGNAL_OUT = {"type": "object", "properties": {
    **STATUS_PROPS, "signal": {"type": "string"}, "delivered": {"type": "boolean"}},
    "required": ["id", "signal", "delivered", "state"]}
KILL_IN = {"type": "object", "properties": {"id": _ID, "max_bytes": _MAX_BYTES},
           "required": ["id"]}
KILL_OUT = _out({"killed": {"type": "boolean"}}, ["killed", "output"])
JOBS_IN: dict[str, Any] = {"type": "object", "properties": {}}
JOBS_OUT = {"type": "object", "properties": {
    "jobs": {"type": "array", "items": _SUMMARY}, "max_jobs": {"type": "integer"}},
    "required": ["jobs"]}
