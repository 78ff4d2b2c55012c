"""A pool of daemon threads for the runs and pipeline stages of all sandboxes.

Why: an ``exec`` runs its script on a thread of its own (the caller waits with a deadline
and can walk away from a run that will not stop), and every pipeline stage but the last is
a thread too.  Starting and joining a thread costs about 0.1 ms, more than a short command
takes to run; a thread that has just finished a job takes the next one instead.  A thread
idle for ``IDLE`` seconds ends, so a process that stops running scripts is left with no
threads of vshell's (the tests that look for leaked threads see none), and nothing here
refers to a sandbox once its job is done.

A job that never returns keeps its thread: that thread simply never comes back to the
pool, exactly as a thread of its own would have stayed behind.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

IDLE = 0.05  # seconds a finished thread waits for its next job before it ends

_mu = threading.Lock()
_idle: list[_Worker] = []


class Handle:
    """A job given to the pool: ``is_alive`` and ``join`` as on a ``threading.Thread``."""

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


class _Worker:
    """One pooled thread: runs the job it was given, then waits a while for another."""

    __slots__ = ("job", "wake", "thread")

    def __init__(self, job: tuple[Callable[[], object], Handle]) -> None:
        self.job: tuple[Callable[[], object], Handle] | None = job
        self.wake = threading.Lock()
        self.wake.acquire()
        self.thread = threading.Thread(target=self._loop, name=job[1].name, daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        me = threading.current_thread()
        while True:
            job, self.job = self.job, None
            if job is None:  # drained
                return
            fn, handle = job
            del job
            if me.name != handle.name:
                me.name = handle.name
            try:
                fn()
            except BaseException:  # noqa: BLE001, S110 - a job reports its own errors
                pass
            finally:
                handle._done.release()
            del fn, handle  # nothing of the job is held while idle
            with _mu:
                _idle.append(self)
            if not self.wake.acquire(timeout=IDLE):
                with _mu:
                    if self in _idle:
                        _idle.remove(self)
                        return
                self.wake.acquire()  # taken just as the wait ended: the job is on its way


def spawn(fn: Callable[[], object], name: str) -> Handle:
    """Run ``fn()`` on a pooled thread named ``name``; its exceptions are dropped."""
    handle = Handle(name)
    with _mu:
        worker = _idle.pop() if _idle else None
    if worker is None:
        _Worker((fn, handle))
    else:
        worker.job = (fn, handle)
        worker.wake.release()
    return handle


def drain() -> None:
    """End the idle threads now (a sandbox closed: nothing of its runs stays behind)."""
    with _mu:
        idle = _idle[:]
        _idle.clear()
    for w in idle:
        w.job = None
        w.wake.release()
