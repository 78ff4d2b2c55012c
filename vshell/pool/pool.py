"""``SandboxPool``: sessions whose sandboxes live in worker processes.

For hosts that run many agents at once: each session is one :class:`~vshell.sandbox.Sandbox`
on one worker, so sessions run in parallel past the GIL, a runaway is killed with its worker
without harming the host, and a worker's memory is capped by an rlimit.

When a worker is lost, its sessions' state is gone.  The request that was running gets
``E_WORKER_LOST``; a session that was idle gets ``E_WORKER_LOST`` on its next request
(which does not run), so the loss is reported exactly once per session.  After that the
session is recreated, fresh, from its options on the next request.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Sequence
from concurrent.futures import Future
from typing import Any

from vshell.limits import DEFAULT_TIMEOUT
from vshell.pool.protocol import decode, encode
from vshell.pool.supervisor import START_TIMEOUT, PoolError, Supervisor, WorkerLost, WorkerProcess
from vshell.records import replace
from vshell.result import Outcome, Result
from vshell.sandbox import HostMount, SandboxConfigError


def _absolute(options: dict[str, Any]) -> dict[str, Any]:
    """Host paths resolved here, against this process's working directory: a worker's own
    is elsewhere, and a relative mount must mean what it means to the caller."""
    out = dict(options)
    mounts = out.get("mounts")
    if mounts:
        out["mounts"] = [replace(m, host=os.path.abspath(m.host))
                         if isinstance(m, HostMount) else m for m in mounts]
    for key in ("overlay_dir", "ca_bundle"):
        if out.get(key):
            out[key] = os.path.abspath(os.fspath(out[key]))
    return out


def _check_options(options: dict[str, Any]) -> None:
    """Options cross a pipe: they must be plain data."""
    if "commands" in options and list(options["commands"] or ()):
        raise SandboxConfigError("commands= holds Python callables, which cannot cross to a "
                                 "worker process: use Sandbox in-process for host commands")
    try:  # the round trip the worker will make, with its safe unpickler
        decode(encode(options)[4:])
    except Exception as e:  # noqa: BLE001 - any pickling failure means the same thing
        raise SandboxConfigError(f"sandbox options must be plain data to reach a worker "
                                 f"({type(e).__name__}: {e})") from None


def _lost_result(err: PoolError) -> Result:
    return Result(Outcome.INTERNAL, 125, b"", f"vshell: {err}\n".encode(), error=err)


class PoolSession:
    """One session of a :class:`SandboxPool`: a persistent shell in a worker process.

    Its requests are serialised (as a shell's are); different sessions run in parallel.
    """

    def __init__(self, pool: SandboxPool, sid: int, options: dict[str, Any]) -> None:
        self._pool = pool
        self.sid = sid
        self.options = options
        self._guard = threading.Lock()
        self._worker: WorkerProcess | None = None  # where it lives (or lived)
        self._reported: WorkerProcess | None = None  # the lost worker already reported
        self._opening: Future[Any] | None = None
        self.closed = False
        self.last_used = time.monotonic()
        self.busy = 0  # requests not answered yet

    @property
    def worker_pid(self) -> int | None:
        """The process id of the worker hosting the session (None before its first use)."""
        w = self._worker
        return w.pid if w is not None and w.alive else None

    # --- placement -------------------------------------------------------------------
    def _begin_open(self, wait: float) -> Future[Any] | None:
        """The future of the session's ``open`` (shared by concurrent callers); None when no
        worker was ready within ``wait`` seconds.  Raises WorkerLost once after a loss."""
        sup = self._pool.supervisor
        with self._guard:
            if self.closed:
                raise PoolError("E_SESSION_CLOSED", "the session is closed")
            w = self._worker
            if w is not None and w.alive and self._opening is not None:
                return self._opening
            if w is not None and not w.alive and self._reported is not w:
                self._reported = w
                raise WorkerLost(f"{w.lost_reason}; the session's state was lost "
                                 "(the next request starts a fresh session)")
            worker = sup.pick(wait)
            if worker is None:
                return None
            self._worker = worker
            self._opening = sup.open(self.sid, self.options, worker)
            return self._opening

    def _lost(self, worker: WorkerProcess | None) -> None:
        with self._guard:
            self._reported = worker

    def open(self) -> None:
        """Create the session's sandbox now (options are checked: SandboxConfigError)."""
        fut = self._begin_open(START_TIMEOUT)
        if fut is None:
            raise PoolError("E_NO_WORKER", "no worker became ready")
        self._settle_open(fut)

    def _settle_open(self, fut: Future[Any]) -> None:
        try:
            fut.result()
        except PoolError as e:
            with self._guard:
                if self._opening is fut:
                    self._opening = None
                    self._worker = None
            if e.code == "E_CONFIG":
                raise SandboxConfigError(e.message) from None
            raise

    async def _aopen(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            fut = self._begin_open(0)
            if fut is not None:
                break
            if time.monotonic() > deadline:
                raise PoolError("E_NO_WORKER", "no worker became ready")
            await asyncio.sleep(0.05)
        try:
            await asyncio.shield(asyncio.wrap_future(fut))
        except PoolError:
            self._settle_open(fut)

    # --- requests ----------------------------------------------------------------------
    def _limit(self, timeout: float | None) -> float | None:
        own = self.options.get("timeout", DEFAULT_TIMEOUT) or None
        asked = timeout if timeout and timeout > 0 else None
        limits = [t for t in (own, asked) if t is not None]
        return min(limits) if limits else None

    def _submit(self, message: dict[str, Any], limit: float | None) -> tuple[int, Future[Any]]:
        self.last_used = time.monotonic()
        return self._pool.supervisor.request(self.sid, message, limit)

    def _wait(self, rid: int, fut: Future[Any]) -> Any:
        worker = self._worker
        self.busy += 1
        try:
            return fut.result()
        except WorkerLost:
            self._lost(worker)
            raise
        except KeyboardInterrupt:
            self._pool.supervisor.cancel(self.sid, rid, "canceled")
            raise
        finally:
            self.busy -= 1
            self.last_used = time.monotonic()

    async def _await(self, rid: int, fut: Future[Any]) -> Any:
        worker = self._worker
        self.busy += 1
        try:
            return await asyncio.shield(asyncio.wrap_future(fut))
        except WorkerLost:
            self._lost(worker)
            raise
        except asyncio.CancelledError:  # the caller gave up: the run stops in the worker
            self._pool.supervisor.cancel(self.sid, rid, "canceled")
            raise
        finally:
            self.busy -= 1
            self.last_used = time.monotonic()

    def exec(self, script: str | bytes, *, stdin: bytes | None = None,
             timeout: float | None = None) -> Result:
        """Run ``script`` in the session (as :meth:`Sandbox.exec`); a lost worker gives an
        INTERNAL result whose stderr and ``error`` say E_WORKER_LOST."""
        try:
            self.open()
            rid, fut = self._submit({"op": "exec", "script": script, "stdin": stdin,
                                     "timeout": timeout}, self._limit(timeout))
            value: Result = self._wait(rid, fut)
            return value
        except PoolError as e:
            if e.code == "E_CONFIG":
                raise SandboxConfigError(e.message) from None
            return _lost_result(e)

    async def aexec(self, script: str | bytes, *, stdin: bytes | None = None,
                    timeout: float | None = None) -> Result:
        """``exec`` for asyncio; cancelling the awaiting task cancels the run in its worker."""
        try:
            await self._aopen()
            rid, fut = self._submit({"op": "exec", "script": script, "stdin": stdin,
                                     "timeout": timeout}, self._limit(timeout))
            value: Result = await self._await(rid, fut)
            return value
        except PoolError as e:
            return _lost_result(e)

    def call(self, target: str, *args: Any, timeout: float | None = None,
             serial: bool = True) -> Any:
        """Run vshell function ``target`` (``"module:name"``) in the worker as
        ``fn(sandbox, *args, cancel_token)`` and return its value; raises PoolError.
        ``serial=False`` lets it run beside the session's other requests (a read-only
        file operation)."""
        self.open()
        rid, fut = self._submit({"op": "call", "target": target, "args": args,
                                 "serial": serial}, timeout)
        return self._wait(rid, fut)

    async def acall(self, target: str, *args: Any, timeout: float | None = None,
                    serial: bool = True) -> Any:
        """``call`` for asyncio (the MCP server's tool calls): cancelling cancels the call."""
        await self._aopen()
        rid, fut = self._submit({"op": "call", "target": target, "args": args,
                                 "serial": serial}, timeout)
        return await self._await(rid, fut)

    def close(self, wait: bool = True) -> None:
        """End the session (its sandbox is closed in the worker; ``wait`` for that)."""
        with self._guard:
            if self.closed:
                return
            self.closed = True
        self._pool.forget(self)
        fut = self._pool.supervisor.close_session(self.sid)
        if fut is not None and wait:
            try:
                fut.result(5)
            except Exception:  # noqa: BLE001, S110 - the worker may be gone already
                pass

    async def aclose(self) -> None:
        await asyncio.to_thread(self.close)

    def __enter__(self) -> PoolSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> PoolSession:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class SandboxPool:
    """Worker processes hosting sandbox sessions: ``with SandboxPool(workers=4,
    mounts=[...]) as pool: pool.session().exec("...")``.

    ``sandbox_options`` are :class:`~vshell.sandbox.Sandbox`'s keyword arguments and must be
    plain data (they cross to the workers); ``worker_memory`` caps each worker's data
    segment (bytes, an rlimit); a worker whose request outlives its timeout by
    ``stop_grace`` seconds is killed and replaced.
    """

    def __init__(self, workers: int | None = None, *, worker_memory: int | None = None,
                 stop_grace: float = 1.0, preload: Sequence[str] = (),
                 **sandbox_options: Any) -> None:
        _check_options(sandbox_options)
        sandbox_options = _absolute(sandbox_options)
        if workers is None:
            workers = os.cpu_count() or 1
        if workers < 1:
            raise SandboxConfigError("workers must be >= 1 (use Sandbox for in-process runs)")
        if worker_memory is not None and worker_memory < 0:
            raise SandboxConfigError("worker_memory must be >= 0 (0 or None: no cap)")
        self.options = sandbox_options
        self.supervisor = Supervisor(workers, worker_memory=worker_memory or None,
                                     warm=tuple(preload), stop_grace=stop_grace)
        self._sessions: dict[int, PoolSession] = {}
        self._guard = threading.Lock()
        self._next = 0
        self._closed = False

    @property
    def worker_pids(self) -> list[int]:
        """The live workers' process ids."""
        return self.supervisor.pids()

    def wait_ready(self, timeout: float = START_TIMEOUT) -> bool:
        """Block until every worker has started (they start in the background)."""
        return self.supervisor.wait_ready(timeout)

    def session(self, *, eager: bool = True, **overrides: Any) -> PoolSession:
        """A new session; ``eager`` creates its sandbox now, so bad options raise
        SandboxConfigError here rather than at the first exec."""
        options = {**self.options, **overrides}
        if overrides:
            _check_options(options)
            options = _absolute(options)
        with self._guard:
            if self._closed:
                raise PoolError("E_POOL_CLOSED", "the pool is closed")
            self._next += 1
            s = PoolSession(self, self._next, options)
            self._sessions[s.sid] = s
        if eager:
            try:
                s.open()
            except BaseException:
                s.close()
                raise
        return s

    def sessions(self) -> list[PoolSession]:
        with self._guard:
            return list(self._sessions.values())

    def forget(self, session: PoolSession) -> None:
        with self._guard:
            self._sessions.pop(session.sid, None)

    def close(self) -> None:
        """End every session and worker; nothing the pool started is left running."""
        with self._guard:
            self._closed = True
            sessions = list(self._sessions.values())
            self._sessions.clear()
        for s in sessions:
            s.closed = True
        self.supervisor.close()

    def __enter__(self) -> SandboxPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
