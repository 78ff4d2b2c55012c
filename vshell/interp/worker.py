"""Pools of daemon threads for a session's runs and a run's pipeline stages and nested runs.

Why: every pipeline stage but the last runs on a thread, and starting and joining a thread
costs about 0.1 ms, more than a short command takes; a loop over ``echo … | grep`` paid it
on every pass.  A thread that has finished a job takes the next one instead.

Each ``exec`` has a pool of its own (:class:`Pool`, on its RunContext) and shuts it down
before it returns: its idle threads end and are joined there, so when ``exec`` returns no
thread of that run is left (the tests that count threads around a run see what they saw
when every stage had a thread of its own).  A job that never returns keeps its thread, as a
thread of its own would have stayed behind; it ends when its job does.  A thread idle for
``IDLE`` seconds ends too (a pool nobody shuts down leaves nothing behind for long).

A ``Sandbox`` keeps one more pool for the thread its scripts run on, across execs (handing a
run to a waiting thread costs a few microseconds, starting one about 0.2 ms of CPU): a run
that will not stop keeps its thread and the next exec gets a fresh one.  That thread waits
only ``RUNNER_IDLE`` for the next exec, so back-to-back execs share it while nothing of a
session idles for long; ``close()`` ends it at once.
"""

from __future__ import annotations

import threading

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeAlias

IDLE = 1.0  # seconds a finished thread waits for its next job before it ends
RUNNER_IDLE = 0.25  # the same for the thread a session's scripts run on
GRACE = 0.5  # how long a stopped run may take to unwind before its caller walks away


class Handle:
    """A job given to a pool: ``is_alive`` and ``join`` as on a ``threading.Thread``."""

    __slots__ = ("name", "_done")

    def __init__(self, name: str) -> None:
        self.name = name
        self._done = threading.Lock()
        self._done.acquire()

    def is_alive(self) -> bool:
        return self._done.locked()

    def join(self, timeout: float | None = None) -> None:
        if self._done.acquire(timeout=-1 if timeout is None else max(timeout, 0.0)):
            self._done.release()


Job: TypeAlias = "tuple[Callable[[], object], Handle]"


def _escaped(e: BaseException) -> None:
    """A job let an exception out (a bug: jobs report their own errors).  Shown with
    VSHELL_DEBUG set, as the interpreter's internal errors are: the one that left a
    pipeline's stage without closing its pipe was silent, and took long to find."""
    import os

    from vshell.command import Cancelled

    if os.environ.get("VSHELL_DEBUG") and not isinstance(e, Cancelled):
        import traceback

        traceback.print_exception(e)


class _Worker:
    """One pooled thread: runs the job it was given, then waits a while for another."""

    __slots__ = ("pool", "job", "wake", "thread")

    def __init__(self, pool: Pool, job: Job) -> None:
        self.pool = pool
        self.job: Job | None = job
        self.wake = threading.Lock()
        self.wake.acquire()
        self.thread = threading.Thread(target=self._loop, name=job[1].name, daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        me = threading.current_thread()
        pool = self.pool
        while True:
            job, self.job = self.job, None
            if job is None:  # the pool was shut down
                return
            fn, handle = job
            del job
            if me.name != handle.name:
                me.name = handle.name
            try:
                fn()
            except BaseException as e:  # noqa: BLE001 - a job reports its own errors
                _escaped(e)
            finally:
                # idle (or told to end) before the job shows as done, so that a shutdown
                # right after the caller's join finds this thread and joins it
                with pool._mu:
                    closed = pool._closed
                    if not closed:
                        pool._idle.append(self)
                handle._done.release()
            del fn, handle  # nothing of the job is held while idle
            if closed:
                return
            if not self.wake.acquire(timeout=pool.idle):
                with pool._mu:
                    if self in pool._idle:
                        pool._idle.remove(self)
                        return
                self.wake.acquire()  # taken just as the wait ended: the job is on its way


class Pool:
    """Threads that run jobs one at a time each, reused while the pool is open."""

    def __init__(self, idle: float = IDLE) -> None:
        self.idle = idle  # seconds a thread waits for its next job before it ends
        self._mu = threading.Lock()
        self._idle: list[_Worker] = []
        self._closed = False

    def spawn(self, fn: Callable[[], object], name: str) -> Handle:
        """Run ``fn()`` on a pooled thread named ``name``; its exceptions are dropped."""
        handle = Handle(name)
        with self._mu:
            worker = self._idle.pop() if self._idle else None
        if worker is None:
            _Worker(self, (fn, handle))  # a shut-down pool still runs what it is given
        else:
            worker.job = (fn, handle)
            worker.wake.release()
        return handle

    def shutdown(self, timeout: float = 0.5) -> None:
        """End the idle threads and wait for them; busy ones end when their job does."""
        with self._mu:
            self._closed = True
            idle, self._idle = self._idle, []
        for w in idle:
            w.job = None
            w.wake.release()
        for w in idle:
            w.thread.join(timeout)


_shared = Pool()  # for runs without a pool of their own (a RunContext made by hand)


def pool_of(ctx: object) -> Pool:
    """The run's pool, or the shared one."""
    pool = getattr(ctx, "pool", None)
    return pool if isinstance(pool, Pool) else _shared
