"""Sandbox-wide limits the interpreter enforces: the memory shell data holds, and how many
background jobs run at once.

Memory is charged where big data is made (a command substitution's capture, the value given
to a variable, a pipe's buffer, an expansion that multiplies a string), never per small
string: a value under :data:`THRESHOLD` bytes is not counted, so ordinary scripts pay one
length comparison.  Charges are taken from the sandbox's :class:`~vshell.vfs.MemoryBudget`,
the same one that in-memory files and the Python guests draw from, so together they stay
under ``memory_limit``.  Past it the command fails with bash's ``xmalloc: cannot allocate N
bytes`` and the shell goes on.
"""

from __future__ import annotations

import errno
import os
import threading

from vshell.interp.control import ShellError
from vshell.vfs.memory import Hold, MemoryBudget

THRESHOLD = 1 << 16  # bytes below which a value is never counted
_STEP = 1 << 20  # a growing capture is charged a MiB at a time


def _message(size: int, budget: MemoryBudget | None) -> str:
    limit = budget.limit() if budget is not None else None
    tail = f" (memory limit {limit} bytes)" if limit is not None else ""
    return f"xmalloc: cannot allocate {size} bytes{tail}"


class MemoryLimitError(ShellError):
    """A value would take the sandbox past its memory limit."""

    def __init__(self, size: int, budget: MemoryBudget | None = None) -> None:
        super().__init__(_message(size, budget), status=1)
        self.size = size


def memory_error(size: int, budget: MemoryBudget | None) -> OSError:
    """The ENOMEM a stream write raises when its buffer may not grow (``write error:
    Cannot allocate memory``, as a command sees it); the shell names the size."""
    return OSError(errno.ENOMEM, os.strerror(errno.ENOMEM))


def hold(budget: MemoryBudget | None, size: int) -> Hold | None:
    """A :class:`Hold` of ``size`` bytes, None when not counted; MemoryLimitError past it."""
    if budget is None or size < THRESHOLD:
        return None
    h = Hold(budget)
    if not h.resize(size):
        raise MemoryLimitError(size, budget)
    return h


def need(budget: MemoryBudget | None, size: int) -> None:
    """Refuse, before it is made, a value of ``size`` bytes that could not be held."""
    if budget is None or size < THRESHOLD:
        return
    room = budget.available()
    if room is not None and size > room:
        raise MemoryLimitError(size, budget)


class GrowingHold:
    """The charge of a buffer that grows (a capture, a pipe), taken a step ahead of it."""

    __slots__ = ("_hold", "failed")

    def __init__(self, budget: MemoryBudget | None) -> None:
        self._hold = Hold(budget) if budget is not None else None
        self.failed = 0  # the size that was refused, if any

    def grow(self, size: int) -> bool:
        """The buffer is now ``size`` bytes; False (and ``failed`` set) if it may not be."""
        h = self._hold
        if h is None or size <= h.size or size < THRESHOLD:
            return True
        if h.resize(size + _STEP):
            return True
        if h.resize(size):
            return True
        self.failed = size
        return False

    def shrink(self, size: int) -> None:
        """The buffer went down to ``size`` bytes: give back all but a step of headroom."""
        h = self._hold
        if h is not None and h.size > size + 2 * _STEP:
            h.resize(size + _STEP)

    def release(self) -> None:
        if self._hold is not None:
            self._hold.release()

    @property
    def budget(self) -> MemoryBudget | None:
        return self._hold._budget if self._hold is not None else None

    def error(self) -> OSError:
        return memory_error(self.failed, self.budget)


class JobSlots:
    """How many background jobs of one sandbox may run at once (None: no cap)."""

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self.running = 0
        self._lock = threading.Lock()

    def acquire(self) -> bool:
        with self._lock:
            if self.limit is not None and self.running >= self.limit:
                return False
            self.running += 1
            return True

    def release(self) -> None:
        with self._lock:
            self.running -= 1


FORK_FAILED = "fork: Resource temporarily unavailable"
