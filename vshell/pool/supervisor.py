"""The supervisor: starts the worker processes ahead of time, routes requests, replaces the lost.

Threads, not an event loop, do the work here, so both the blocking API and asyncio callers
(the MCP server) use it: each worker has a reader thread that resolves the
:class:`concurrent.futures.Future` of every reply as it arrives (completion order), and
one watchdog thread kills a worker whose request outlived its timeout by more than
``stop_grace`` seconds, or that did not stop within ``stop_grace`` of a cancel.  A lost
worker (killed, crashed, over its memory cap) fails its pending requests with
:class:`WorkerLost` and is replaced at once.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from vshell.pool.protocol import ProtocolError, read_frame, write_frame

log = logging.getLogger("vshell.pool")

WORKER_MODULE = "vshell.pool.worker"
START_TIMEOUT = 60.0  # seconds a new worker may take to say it is ready
MAX_FAILED_STARTS = 3  # workers in a row that end before they are ready: stop replacing


class PoolError(RuntimeError):
    """A request could not be carried out; ``code`` is stable (E_WORKER_LOST, ...)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class WorkerLost(PoolError):
    """The worker hosting the session ended: the request's result and the session's state
    are gone."""

    def __init__(self, message: str) -> None:
        super().__init__("E_WORKER_LOST", message)


class _Pending:
    __slots__ = ("future", "limit", "started", "cancelled", "sid", "stoppable")

    def __init__(self, sid: int | None, limit: float | None, stoppable: bool = True) -> None:
        self.future: Future[Any] = Future()
        self.limit = limit
        self.sid = sid
        self.stoppable = stoppable  # a shell run stops on cancel; some file writes finish
        self.started: float | None = None
        self.cancelled: float | None = None


def _package_root() -> str:
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class WorkerProcess:
    """One worker: its process, its pipe and the requests it has not answered yet."""

    DEFAULT_REASON = "the worker process ended"

    def __init__(self, index: int, memory: int | None, warm: tuple[str, ...],
                 on_exit: Callable[[WorkerProcess], None]) -> None:
        self.index = index
        self.sessions: set[int] = set()
        self.pending: dict[int, _Pending] = {}
        self.ready = threading.Event()
        self.alive = True
        self.lost_reason = self.DEFAULT_REASON
        self._write = threading.Lock()
        self._on_exit = on_exit
        argv = [sys.executable, "-m", WORKER_MODULE]
        if memory:
            argv += ["--memory", str(int(memory))]
        for module in warm:
            argv += ["--warm", module]
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (_package_root(),
                                                        env.get("PYTHONPATH", "")) if p)
        # the worker: vshell itself (python -m vshell.pool.worker), never a script's command
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     start_new_session=True, close_fds=True, env=env, cwd="/")
        self.pid = self.proc.pid
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._in_fd = self.proc.stdin.fileno()
        self._reader = threading.Thread(target=self._read, name=f"pool-reader-{index}",
                                        daemon=True)
        self._reader.start()

    def send(self, message: dict[str, Any]) -> None:
        with self._write:
            write_frame(self._in_fd, message)

    def _read(self) -> None:
        stream = self.proc.stdout
        assert stream is not None
        try:
            while True:
                msg = read_frame(stream)
                if msg is None:
                    break
                self._dispatch(msg)
        except (OSError, ProtocolError, EOFError, ValueError) as e:
            log.warning("worker %d: %s", self.pid, e)
        except Exception as e:  # noqa: BLE001 - a bad frame (refused class, say) ends it
            log.warning("worker %d: unreadable reply: %s", self.pid, e)
        self._on_exit(self)

    def _dispatch(self, msg: dict[str, Any]) -> None:
        if msg.get("op") == "ready":
            self.ready.set()
            return
        if msg.get("op") == "started":
            p = self.pending.get(msg["rid"])
            if p is not None:
                p.started = time.monotonic()
            return
        p = self.pending.pop(msg["rid"], None)
        if p is None or p.future.done():
            return
        if msg.get("ok"):
            p.future.set_result(msg.get("value"))
        elif msg.get("code") == "E_WORKER_LOST":  # it ends now: take nothing more
            self.alive = False
            self.lost_reason = msg.get("message", self.lost_reason)
            p.future.set_exception(WorkerLost(self.lost_reason))
        else:
            p.future.set_exception(PoolError(msg.get("code", "E_INTERNAL"),
                                             msg.get("message", "")))

    def kill(self, reason: str) -> None:
        """End the process now (SIGKILL); the reader then reports the loss."""
        self.lost_reason = reason
        try:
            self.proc.kill()
        except OSError:
            pass

    def overdue(self, now: float, grace: float) -> str | None:
        """Why this worker must be killed now, if one of its requests ran out of time."""
        for p in list(self.pending.values()):
            if p.cancelled is not None and p.started is not None and p.stoppable and \
                    now - max(p.cancelled, p.started) > grace:
                return f"a cancelled request did not stop within {grace:g}s"
            if p.started is not None and p.limit and now - p.started > p.limit + grace:
                return (f"a request did not stop within {grace:g}s of its "
                        f"{p.limit:g}s timeout")
        return None


class Supervisor:
    """N workers started ahead of time; sessions placed on the least loaded one."""

    def __init__(self, workers: int, *, worker_memory: int | None = None,
                 warm: tuple[str, ...] = (), stop_grace: float = 1.0,
                 on_lost: Callable[[int, str], None] | None = None) -> None:
        if workers < 1:
            raise ValueError("a pool needs at least one worker")
        self.size = workers
        self.memory = worker_memory
        self.warm = warm
        self.stop_grace = stop_grace
        self.on_lost = on_lost
        self.workers: list[WorkerProcess] = []
        self.placement: dict[int, WorkerProcess] = {}
        self.replaced = 0
        self._lock = threading.Condition()
        self._rid = 0
        self._failed_starts = 0
        self._closed = False
        self._ended = threading.Event()
        for i in range(workers):
            self.workers.append(self._spawn(i))
        self._watchdog = threading.Thread(target=self._watch, name="pool-watchdog",
                                          daemon=True)
        self._watchdog.start()

    def _spawn(self, index: int) -> WorkerProcess:
        return WorkerProcess(index, self.memory, self.warm, self._worker_exited)

    def wait_ready(self, timeout: float = START_TIMEOUT) -> bool:
        deadline = time.monotonic() + timeout
        for w in list(self.workers):
            if not w.ready.wait(max(0.0, deadline - time.monotonic())):
                return False
        return True

    def pids(self) -> list[int]:
        """The live workers' process ids (tests kill them; the benchmark watches them)."""
        with self._lock:
            return [w.pid for w in self.workers if w.alive]

    # --- requests ------------------------------------------------------------------------
    def _next_rid(self) -> int:
        with self._lock:
            self._rid += 1
            return self._rid

    def pick(self, wait: float = 0.0) -> WorkerProcess | None:
        """The ready worker with the fewest sessions (None if none is ready in time)."""
        deadline = time.monotonic() + wait
        with self._lock:
            while True:
                if self._closed:
                    raise PoolError("E_POOL_CLOSED", "the pool is closed")
                ready = [w for w in self.workers if w.alive and w.ready.is_set()]
                if ready:
                    return min(ready, key=lambda w: (len(w.sessions), len(w.pending)))
                if self._failed_starts >= MAX_FAILED_STARTS and \
                        not any(w.alive for w in self.workers):
                    raise PoolError("E_NO_WORKER", "no worker process could be started "
                                    "(see the log on stderr)")
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._lock.wait(min(left, 0.05))

    def open(self, sid: int, options: dict[str, Any], worker: WorkerProcess) -> Future[Any]:
        """Create session ``sid`` on ``worker`` from ``options`` (Sandbox keyword arguments)."""
        with self._lock:
            worker.sessions.add(sid)
            self.placement[sid] = worker
        return self._send(worker, {"op": "open", "sid": sid, "options": options}, sid, None)

    def request(self, sid: int, message: dict[str, Any],
                limit: float | None) -> tuple[int, Future[Any]]:
        """Send an ``exec`` or ``call`` for session ``sid``; ``limit`` arms the watchdog."""
        worker = self.placement.get(sid)
        rid = self._next_rid()
        if worker is None or not worker.alive:
            f: Future[Any] = Future()
            f.set_exception(WorkerLost("the session's worker ended"))
            return rid, f
        return rid, self._send(worker, {**message, "sid": sid}, sid, limit, rid)

    def _send(self, worker: WorkerProcess, message: dict[str, Any], sid: int | None,
              limit: float | None, rid: int | None = None) -> Future[Any]:
        rid = self._next_rid() if rid is None else rid
        p = _Pending(sid, limit, bool(message.get("serial", True)))
        with self._lock:  # not after the reader handed the pending requests their loss
            if not worker.alive:
                p.future.set_exception(WorkerLost(worker.lost_reason))
                return p.future
            worker.pending[rid] = p
        try:
            worker.send({**message, "rid": rid})
        except OSError:
            worker.pending.pop(rid, None)
            p.future.set_exception(WorkerLost("the session's worker ended"))
        return p.future

    def cancel(self, sid: int, rid: int, reason: str = "canceled") -> None:
        """Stop request ``rid``: the worker cancels its token; the watchdog ends the worker
        if it does not stop within ``stop_grace``."""
        worker = self.placement.get(sid)
        if worker is None:
            return
        p = worker.pending.get(rid)
        if p is None:
            return
        if p.cancelled is None:
            p.cancelled = time.monotonic()
        try:
            worker.send({"op": "cancel", "rid": rid, "reason": reason})
        except OSError:
            pass

    def close_session(self, sid: int) -> Future[Any] | None:
        with self._lock:
            worker = self.placement.pop(sid, None)
            if worker is not None:
                worker.sessions.discard(sid)
        if worker is None or not worker.alive:
            return None
        return self._send(worker, {"op": "close", "sid": sid}, None, None)

    # --- losses --------------------------------------------------------------------------
    def _worker_exited(self, worker: WorkerProcess) -> None:
        """Runs on the worker's reader thread once its pipe ends."""
        with self._lock:
            worker.alive = False
            try:
                worker.proc.kill()
            except OSError:
                pass
            try:
                worker.proc.wait(5)
            except subprocess.TimeoutExpired:
                pass
            reason = worker.lost_reason
            status = worker.proc.returncode
            if reason == WorkerProcess.DEFAULT_REASON and status is not None and status < 0:
                reason = f"the worker process was killed by signal {-status}"
            elif reason == WorkerProcess.DEFAULT_REASON and status:
                reason = f"the worker process exited with status {status}"
            pending, worker.pending = worker.pending, {}
            lost = sorted(worker.sessions)
            worker.sessions.clear()
            for sid in lost:
                if self.placement.get(sid) is worker:
                    del self.placement[sid]
            closed = self._closed
            # a worker that never came up is not replaced for ever (a broken install, say)
            self._failed_starts = 0 if worker.ready.is_set() else self._failed_starts + 1
            if not closed and worker in self.workers and self._failed_starts < MAX_FAILED_STARTS:
                self.replaced += 1
                fresh = self._spawn(worker.index)
                self.workers[self.workers.index(worker)] = fresh
            elif not closed:
                log.error("worker %d did not start (%s); not starting another", worker.pid,
                          reason)
            self._lock.notify_all()
        for p in pending.values():
            if not p.future.done():
                p.future.set_exception(WorkerLost(reason))
        if closed:
            return
        log.warning("worker %d lost (%s); %d session(s) lost, a fresh worker replaces it",
                    worker.pid, reason, len(lost))
        if self.on_lost is not None:
            for sid in lost:
                self.on_lost(sid, reason)

    def _watch(self) -> None:
        while not self._ended.wait(0.05):
            now = time.monotonic()
            for w in list(self.workers):
                if not w.alive:
                    continue
                why = w.overdue(now, self.stop_grace)
                if why is not None:
                    log.warning("killing worker %d: %s", w.pid, why)
                    w.kill(why)

    # --- shutdown ------------------------------------------------------------------------
    def close(self, grace: float = 1.0) -> None:
        """End every worker: close their pipes (they exit at once, running commands with
        them), then SIGKILL whatever is left after ``grace`` seconds, and reap."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            workers = list(self.workers)
            self._lock.notify_all()
        self._ended.set()
        for w in workers:
            try:
                assert w.proc.stdin is not None
                w.proc.stdin.close()
            except OSError:
                pass
        deadline = time.monotonic() + grace
        for w in workers:
            try:
                w.proc.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                w.kill("the pool closed")
        for w in workers:
            try:
                w.proc.wait(5)
            except subprocess.TimeoutExpired:
                pass
            for p in list(w.pending.values()):
                if not p.future.done():
                    p.future.set_exception(PoolError("E_POOL_CLOSED", "the pool is closed"))
