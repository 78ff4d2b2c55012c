"""Background jobs of a session: a script that runs like bash's ``( script ) &``.

A job gets a copy of the session's shell state (taken between runs) over the same VFS and
runs on its own thread without holding the sandbox's exec lock, so ``Sandbox.exec`` keeps
working while it runs; what it changes in its shell state (cd, variables) stays in the job,
what it writes to files is seen by everyone, as with a subshell.  Its output goes to bounded
logs read by cursor (nothing is lost silently: a wrapped log reports how many bytes it
dropped), its stdin is a pipe that :meth:`Job.send` writes to.

The virtual world has no processes, so signals are defined on the run:

- ``INT``: the run is cancelled as Ctrl-C in the REPL cancels a command (exit status 130);
- ``TERM``: the same, with the status of a process ended by SIGTERM (143);
- ``KILL``: the job ends at once (status 137): its output stops being recorded and its
  thread, told to stop, is not waited for.

Limits: the job's deadline is its own ``timeout`` capped by the sandbox's (no ``timeout``:
the sandbox's); it takes one of the sandbox's background-job slots while it runs (as a
``cmd &`` does), and a table holds at most ``max_jobs`` jobs (an ended one is dropped to
make room; one more running job is refused).  Each log keeps ``log_bytes``, at most the
sandbox's output limit.  :meth:`Sandbox.close` ends every job.
"""

from __future__ import annotations

import itertools
import threading
import time
from typing import TYPE_CHECKING, Any

from vshell.command import Cancelled, CancelToken
from vshell.interp import io as sio

if TYPE_CHECKING:
    from vshell.sandbox import Sandbox

DEFAULT_MAX_JOBS = 16
DEFAULT_LOG_BYTES = 1024 * 1024
STDIN_CAPACITY = 1024 * 1024  # bytes sent to a job's stdin that it has not read yet
VIEWS = ("combined", "stdout", "stderr")
SIGNALS = {"INT": ("interrupt", 130), "TERM": ("terminate", 143), "KILL": ("kill", 137)}
_GRACE = 1.0  # seconds a signal waits for the run to unwind before answering
_TICK = 0.05


class JobError(Exception):
    """A job request that cannot be done; ``code`` is stable (E_NO_SUCH_JOB, ...)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class RingLog:
    """Bytes addressed by absolute position; past ``limit`` the oldest are dropped."""

    def __init__(self, limit: int) -> None:
        self.limit = max(0, limit)
        self.buf = bytearray()
        self.start = 0  # absolute position of buf[0]

    @property
    def end(self) -> int:
        return self.start + len(self.buf)

    def append(self, data: bytes) -> None:
        self.buf += data
        over = len(self.buf) - self.limit
        if over > 0:
            del self.buf[:over]
            self.start += over

    def read(self, cursor: int, max_bytes: int) -> tuple[bytes, int, int]:
        """(data, position it starts at, bytes dropped between ``cursor`` and it)."""
        cursor = max(0, min(cursor, self.end))
        dropped = max(0, self.start - cursor)
        first = max(cursor, self.start)
        i = first - self.start
        return bytes(self.buf[i : i + max(0, max_bytes)]), first, dropped


class _Stdin(sio.Pipe):
    """The job's stdin: a pipe whose free room a sender can ask for (a send never blocks)."""

    def room(self) -> int:
        with self._lock:
            return self._capacity - self._size

    def writer_closed(self) -> bool:
        return self._writer_closed


class _LogSink(sio.CappedSink):
    """A job's stdout or stderr: every byte goes to its own log and the combined one."""

    def __init__(self, job: Job, view: str) -> None:
        super().__init__(0)
        self._job = job
        self._view = view

    def write(self, b: Any) -> int:
        self._job._record(self._view, bytes(b))
        return len(b)


class Job:
    """One background run: its logs, stdin, state and exit status."""

    def __init__(self, job_id: int, command: str, log_bytes: int, token: CancelToken,
                 timeout: float | None) -> None:
        self.id = job_id
        self.command = command
        self.token = token
        self.timeout = timeout
        self.logs = {v: RingLog(log_bytes) for v in VIEWS}
        self.positions = dict.fromkeys(VIEWS, 0)  # where a read without a cursor continues
        self.state = "running"  # running, exited, interrupted, terminated, killed, timed_out
        self.exit_code: int | None = None
        self.started = time.monotonic()
        self.ended: float | None = None
        self.stdin: _Stdin | None = None
        self.thread: threading.Thread | None = None
        self._cond = threading.Condition()
        self._release: Any = None  # gives back the sandbox's job slot, once

    # --- the running side ---------------------------------------------------------------
    def _record(self, view: str, data: bytes) -> None:
        with self._cond:
            if self.ended is not None:  # killed: what the unwinding run prints is dropped
                return
            self.logs[view].append(data)
            self.logs["combined"].append(data)
            self._cond.notify_all()

    def _finish(self, state: str, code: int) -> None:
        with self._cond:
            if self.ended is not None:
                return
            self.state, self.exit_code, self.ended = state, code, time.monotonic()
            self._cond.notify_all()
        if self.stdin is not None:
            self.stdin.close_reader()
        release, self._release = self._release, None
        if release is not None:
            release()

    @property
    def running(self) -> bool:
        return self.ended is None

    # --- requests -----------------------------------------------------------------------
    def read(self, view: str = "combined", cursor: int | None = None,
             max_bytes: int = 65536, wait: float = 0.0, until_exit: bool = False,
             cancel: CancelToken | None = None) -> dict[str, Any]:
        """Output of ``view`` from ``cursor`` (default: where the last such read ended),
        waiting up to ``wait`` seconds for new output (or, ``until_exit``, for the end)."""
        if view not in VIEWS:
            raise JobError("E_INVALID_ARGUMENT", f"stream must be one of {', '.join(VIEWS)}")
        log = self.logs[view]
        deadline = time.monotonic() + max(0.0, wait)
        with self._cond:
            at = self.positions[view] if cursor is None else cursor
            if at < 0 or at > log.end:
                raise JobError("E_INVALID_ARGUMENT", f"cursor {at} is outside 0..{log.end}")
            while self.ended is None and (until_exit or log.end <= at):
                left = deadline - time.monotonic()
                if left <= 0 or (cancel is not None and cancel.reason is not None):
                    break
                self._cond.wait(min(_TICK, left))
            data, first, dropped = log.read(at, max_bytes)
            if self.ended is None or first + len(data) < log.end:
                whole = _whole_utf8(data)  # the rest of a split character comes next time
                if data and not whole:  # one character longer than max_bytes: all of it
                    whole = _whole_utf8(log.read(first, len(data) + 3)[0])
                data = whole
            nxt = first + len(data)
            if cursor is None:
                self.positions[view] = nxt
            return {"id": self.id, "stream": view, "output": data.decode("utf-8", "replace"),
                    "cursor": first, "next_cursor": nxt, "dropped_bytes": dropped,
                    "more": nxt < log.end, "total_bytes": log.end, **self.status()}

    def send(self, data: str, close: bool = False) -> dict[str, Any]:
        """Write ``data`` to the job's stdin (and close it after, when ``close``)."""
        stdin = self.stdin
        if stdin is None or self.ended is not None:
            raise JobError("E_JOB_ENDED", f"job {self.id} has ended ({self.state})")
        if stdin.writer_closed():
            raise JobError("E_STDIN_CLOSED", f"job {self.id}: its stdin was closed")
        raw = data.encode("utf-8", "surrogateescape")
        if len(raw) > stdin.room():
            raise JobError("E_TOO_LARGE", f"job {self.id}: {len(raw)} bytes do not fit its "
                           f"stdin ({stdin.room()} of {STDIN_CAPACITY} bytes free: the job "
                           "has not read what was sent before)")
        try:
            if raw:
                stdin.write(raw)
        except (BrokenPipeError, Cancelled):
            raise JobError("E_STDIN_CLOSED", f"job {self.id} no longer reads its stdin") from None
        if close:
            stdin.close_writer()
        return {"id": self.id, "bytes": len(raw), "stdin_open": not close, **self.status()}

    def signal(self, name: str) -> dict[str, Any]:
        """Deliver INT, TERM or KILL (see the module's docstring for what each means)."""
        name = name.upper().removeprefix("SIG")
        if name not in SIGNALS:
            raise JobError("E_INVALID_ARGUMENT", f"signal must be INT, TERM or KILL, not {name}")
        was_running = self.running
        reason, code = SIGNALS[name]
        if was_running:
            self.token.cancel(reason)
            if name == "KILL":
                self._finish("killed", code)
            else:
                self.wait(_GRACE)
        return {"id": self.id, "signal": name, "delivered": was_running, **self.status()}

    def wait(self, seconds: float) -> bool:
        """Wait up to ``seconds`` for the job to end; whether it has."""
        deadline = time.monotonic() + seconds
        with self._cond:
            while self.ended is None:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(min(_TICK, left))
            return self.ended is not None

    def status(self) -> dict[str, Any]:
        end = self.ended if self.ended is not None else time.monotonic()
        stdin = self.stdin
        return {"state": self.state, "exit_code": self.exit_code,
                "running": self.ended is None,
                "stdin_open": bool(stdin is not None and self.ended is None
                                   and not stdin.writer_closed()),
                "duration_ms": int((end - self.started) * 1000)}

    def summary(self) -> dict[str, Any]:
        return {"id": self.id, "command": self.command, **self.status(),
                "bytes": {v: self.logs[v].end for v in VIEWS},
                "dropped_bytes": self.logs["combined"].start, "timeout_sec": self.timeout}


def _whole_utf8(data: bytes) -> bytes:
    """``data`` without a UTF-8 character cut at its end (maybe nothing is left)."""
    for back in range(1, min(4, len(data)) + 1):
        b = data[-back]
        if b < 0x80 or b >= 0xF8:  # ASCII, or no UTF-8 byte at all
            return data
        if b >= 0xC0:  # a lead byte: is its sequence complete?
            need = 2 if b < 0xE0 else 3 if b < 0xF0 else 4
            return data if back >= need else data[:-back]
    return data  # no lead byte in reach: not UTF-8 to keep whole


def _close_fds(streams: Any, spared: list[Any]) -> None:
    """Close what ``exec N>file`` left open in the job's shell (its own streams spared)."""
    keep = {id(s) for s in spared}
    for stream in list(streams):
        if stream is not None and id(stream) not in keep:
            try:
                stream.close()
            except Exception:  # noqa: BLE001, S110 - a failing close must not fail the job
                pass


class JobTable:
    """The background jobs of one sandbox (``Sandbox.background_jobs``)."""

    def __init__(self, sandbox: Sandbox, max_jobs: int = DEFAULT_MAX_JOBS,
                 log_bytes: int = DEFAULT_LOG_BYTES) -> None:
        self._sb = sandbox
        self.max_jobs = max_jobs
        self.log_bytes = log_bytes
        self._jobs: dict[int, Job] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._closed = False

    def get(self, job_id: Any) -> Job:
        job = self._jobs.get(job_id) if isinstance(job_id, int) else None
        if job is None:
            raise JobError("E_NO_SUCH_JOB", f"no job {job_id!r} (the jobs tool lists them)")
        return job

    def list(self) -> list[Job]:
        with self._lock:
            return [self._jobs[k] for k in sorted(self._jobs)]

    def remove(self, job_id: int) -> Job:
        job = self.get(job_id)
        job.signal("KILL")
        with self._lock:
            self._jobs.pop(job_id, None)
        return job

    def start(self, script: str, timeout: float | None = None,
              cancel: CancelToken | None = None) -> Job:
        """Start ``script`` with a copy of the session's state taken between runs."""
        if self._closed or self._sb._closed:
            raise JobError("E_CLOSED", "the sandbox is closed")
        if not isinstance(script, str) or not script.strip():
            raise JobError("E_INVALID_ARGUMENT", "command must be a non-empty script")
        sb = self._sb
        with self._lock:
            if len(self._jobs) >= self.max_jobs:
                ended = [j for j in self._jobs.values() if not j.running]
                if not ended:
                    raise JobError("E_TOO_MANY_JOBS", f"{self.max_jobs} jobs are running; "
                                   "kill one first")
                del self._jobs[min(ended, key=lambda j: j.ended or 0.0).id]
            if not sb._job_slots.acquire():
                raise JobError("E_TOO_MANY_JOBS", "the sandbox's background-job limit "
                               f"(--max-jobs {sb._job_slots.limit}) is reached")
            job_id = next(self._ids)
        try:
            state = self._copy_state(cancel)
            limit = sb._effective_timeout(timeout)
            token = CancelToken(time.monotonic() + limit if limit else None)
            log_bytes = min(self.log_bytes, sb.output_limit)
            job = Job(job_id, script, log_bytes, token, limit)
            job._release = sb._job_slots.release
        except BaseException:
            sb._job_slots.release()
            raise
        with self._lock:
            self._jobs[job_id] = job
        _launch(sb, job, state, script)
        return job

    def _copy_state(self, cancel: CancelToken | None) -> Any:
        """The session's shell state as it is between two runs (a run going on is waited
        for: a copy taken in the middle of one would be torn)."""
        lock = self._sb._lock
        while not lock.acquire(timeout=_TICK):
            if cancel is not None and cancel.reason is not None:
                raise JobError("E_CANCELED", "the call was canceled")
        try:
            return self._sb._state.subshell()
        finally:
            lock.release()

    def close(self) -> None:
        """End every job (the sandbox is closing)."""
        self._closed = True
        jobs = self.list()
        for j in jobs:
            j.token.cancel("closed")
        deadline = time.monotonic() + 1.0  # for all of them together
        for j in jobs:
            if j.thread is not None:
                j.thread.join(max(0.0, deadline - time.monotonic()))
            j._finish("killed", 137)


def _launch(sb: Sandbox, job: Job, state: Any, script: str) -> None:
    """Build the job's shell as ``Sandbox.exec`` builds a run's, and start its thread."""
    from vshell.interp.shell import RunContext, Shell

    stdin = job.stdin = _Stdin(job.token, STDIN_CAPACITY, sb.memory)
    # what an agent sends is typed at the job, as at boxsh's terminals: python3 with no
    # program (or -i) gives its prompt instead of reading a whole script first
    stdin.reader.interactive = True  # type: ignore[attr-defined]  # read by vshell.python
    out, err = _LogSink(job, "stdout"), _LogSink(job, "stderr")
    ctx = RunContext(fs=sb.fs, cancel=job.token, commands=sb._commands,
                     http=sb._run_http(None), python=sb._python,
                     nested=lambda req: sb._run_nested(req, ctx, sh))
    ctx.nesting = sb.nesting
    ctx.job_slots = sb._job_slots
    sh = Shell(ctx, state, {0: stdin.reader, 1: out, 2: err})
    sh.become_main()

    def work() -> None:
        status: int | None = None
        try:
            status = sh.run_toplevel(script)
        except Cancelled:
            pass
        except BaseException as e:  # noqa: BLE001 - reported in the job's stderr
            job._record("stderr", f"vshell: internal error: {type(e).__name__}: {e}\n".encode())
            status = 125
        try:
            sb._stop_jobs(ctx)
            _close_fds(sh.fds.values(), [stdin.reader, out, err])
        finally:
            reason = job.token.reason
            if reason is None and status is not None:
                job._finish("exited", status)
            elif reason == "timeout":
                job._record("stderr", b"vshell: timed out\n")
                job._finish("timed_out", 137)
            else:
                state_name, code = {"interrupt": ("interrupted", 130),
                                    "terminate": ("terminated", 143)}.get(
                                        reason or "", ("killed", 137))
                job._finish(state_name, code)

    job.thread = threading.Thread(target=work, name=f"vshell-job-{job.id}", daemon=True)
    job.thread.start()
