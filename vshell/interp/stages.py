"""The stages of one pipeline, run one after the other on the calling thread until one of
them needs another running at the same time.

Why: a thread per stage (each run's pool starts its threads afresh), and handing every
piece of data from one thread to the next, cost more than the commands of a short
pipeline such as ``printf … | sort | uniq``.  bash runs the stages at once, but a script
can tell only when a stage waits for another one (its pipe is full; it sleeps, reads,
waits for a job or opens a FIFO that a later stage serves) or when output should reach
the terminal while a stage still runs.  So stage 1 runs first and its output waits in the
pipe, then stage 2 reads it, and so on; a stage not started yet is started on a pooled
thread at the first of:

- its writer would wait for room in the pipe (``Pipe.hold_reader``);
- any thread of the run is about to wait (``CancelToken.waiting``): every stage held back
  is started then, since the waiter may be waiting for one of them;
- its writer writes after running ``io.HELD_FOR`` seconds, or any thread of the run checks
  for cancellation (every command does) that long after the pipeline started: output
  keeps streaming, and a later stage's own output (a header, stderr) is not held back by a
  long earlier stage.

Stages are started in order only (when stage k starts, every stage before it has), so a
stage never waits for one that has not started once anything waits.
"""

from __future__ import annotations

import threading
from functools import partial

from vshell.interp.io import HELD_FOR

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    from collections.abc import Callable

    from vshell.command import CancelToken
    from vshell.interp.worker import Handle, Pool

__all__ = ["Stages"]

# Past this many pipelines running inside one another on one thread (a function that
# recurses through `f | cat`), a pipeline starts every stage but its last on a thread of
# its own, whose stack is fresh: each level costs some twenty Python frames, and vshell's
# function nesting limit (1000 levels) must be reached before the interpreter's.
INLINE_DEPTH = 100
_depth = threading.local()  # .n: the pipelines running inline on this thread


class Stages:
    """Runs ``run(i)`` for i in 0..count-1: in order on the calling thread (:meth:`run`),
    but a stage another one needs running is started on a pooled thread first."""

    __slots__ = ("_run", "_count", "_next", "_lock", "_threads", "_pool", "_cancel",
                 "_start_rest", "_hold")

    def __init__(self, count: int, run: Callable[[int], object], pool: Pool,
                 cancel: CancelToken, hold: bool = True) -> None:
        self._run = run
        self._count = count
        self._next = 0  # the first stage not started
        self._lock = threading.Lock()
        self._threads: list[Handle] = []
        self._pool = pool
        self._cancel = cancel
        self._start_rest = self.start_rest  # one bound method, held by the token
        # (else the caller starts them all: a wait elsewhere starts none).  The token
        # learns of the stages in run(), not here: once it does, any thread of the run may
        # start them, and ``run`` may refer to this object (not assigned before we return)
        self._hold = hold

    def started(self, i: int) -> bool:
        """Whether stage ``i`` has started (on this thread or another)."""
        return self._next > i

    def start(self, i: int) -> None:
        """Start stage ``i`` (and any before it not started yet) on pooled threads."""
        with self._lock:
            while self._next <= i:
                self._spawn_next()

    def start_rest(self) -> None:
        """Start every stage not started yet on pooled threads (a thread of the run is
        about to wait)."""
        with self._lock:
            while self._next < self._count:
                self._spawn_next()

    def _spawn_next(self) -> None:
        """Start the next stage on a pooled thread (the lock held, so that the thread is
        listed before anyone sees the stage as started)."""
        i = self._take()
        self._threads.append(self._pool.spawn(partial(self._run, i), "vshell-stage"))

    def _take(self) -> int:
        i = self._next
        self._next = i + 1
        if i + 1 == self._count:
            self._cancel.unhold(self._start_rest)
        return i

    def run(self, on_cancel: Callable[[], object]) -> None:
        """Run the stages not started elsewhere, in order, here; then wait for the others.
        ``on_cancel`` is called while waiting once the run is cancelled (it closes the
        pipes, so a stage blocked on one ends)."""
        if self._hold and self._next < self._count:
            self._cancel.hold(self._start_rest, HELD_FOR)
        depth = getattr(_depth, "n", 0)
        if depth >= INLINE_DEPTH:
            self.start(self._count - 2)
        _depth.n = depth + 1
        try:
            while True:
                with self._lock:
                    if self._next >= self._count:
                        break
                    i = self._take()
                self._run(i)
        finally:
            _depth.n = depth
            self._cancel.unhold(self._start_rest)
            self._join(on_cancel)

    def _join(self, on_cancel: Callable[[], object]) -> None:
        cancel = self._cancel
        for t in self._threads:
            if t.is_alive():
                cancel.start_held()  # an outer pipeline's stage may be what it waits for
            while t.is_alive():
                t.join(0.05)
                if cancel.reason is not None:
                    on_cancel()
