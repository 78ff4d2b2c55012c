"""Named pipes: what ``mkfifo`` makes, held by the VFS rather than by a backend.

A FIFO of a host mount never becomes a host FIFO, whose blocking open and read no
cancellation could stop; it lives in the VFS (for the session) at its resolved path.  As
on Linux, opening one to read waits for a writer and opening it to write waits for a
reader (``<>`` waits for neither, holding both ends); a reader sees end of input once
every writer has closed, and a writer whose readers are all gone gets EPIPE.  Every wait
polls ``check`` (the run's cancel token, given to a ``VFS.bind`` view), so a timeout
ends it.
"""

from __future__ import annotations

import errno
import threading

from vshell.vfs.devices import StreamView
from vshell.vfs.errors import fs_error

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeAlias

__all__ = ["Fifo", "FifoEnd"]

CAPACITY = 1 << 16  # what Linux buffers in a pipe before a writer waits
_TICK = 0.05
Check: TypeAlias = "Callable[[], None] | None"


class Fifo:
    """One named pipe: a bounded buffer and how many ends of each kind are open."""

    def __init__(self, mode: int) -> None:
        self.mode = mode  # permission bits
        self._cond = threading.Condition()
        self._buffer = bytearray()
        self._open = [0, 0]  # readers, writers
        self._opened = [0, 0]  # ends of each kind ever opened: an open waits for a change

    def _wait(self, check: Check) -> None:
        if check is not None:
            check()  # before too: the run may start what it holds back (CancelToken.waiting)
        self._cond.wait(_TICK)
        if check is not None:
            check()

    def open(self, mode: str, name: str, check: Check) -> FifoEnd:
        """An end for an open(2) ``mode``: "rb" reads, "wb"/"ab" write, a "+" mode both."""
        if mode.startswith("x"):
            raise fs_error(errno.EEXIST)
        ends = (mode.startswith("r") or "+" in mode, mode != "rb")
        with self._cond:
            for side, wanted in enumerate(ends):
                if wanted:
                    self._open[side] += 1
                    self._opened[side] += 1
            self._cond.notify_all()
            if ends[0] != ends[1]:  # one end only: wait until the other side is opened
                other = 0 if ends[1] else 1
                seen = self._opened[other]
                try:
                    while not self._open[other] and self._opened[other] == seen:
                        self._wait(check)
                except BaseException:
                    self._open[1 - other] -= 1
                    self._cond.notify_all()
                    raise
        return FifoEnd(self, name, ends[0], ends[1], check)

    def close(self, reading: bool, writing: bool) -> None:
        with self._cond:
            self._open[0] -= reading
            self._open[1] -= writing
            self._cond.notify_all()

    def read(self, size: int, check: Check) -> bytes:
        with self._cond:
            while not self._buffer:
                if not self._open[1]:
                    return b""
                self._wait(check)
            size = len(self._buffer) if size < 0 else size
            data = bytes(self._buffer[:size])
            del self._buffer[:size]
            self._cond.notify_all()
            return data

    def write(self, data: bytes, check: Check) -> int:
        with self._cond:
            pos = 0
            while pos < len(data):
                if not self._open[0]:
                    raise BrokenPipeError(errno.EPIPE, "Broken pipe")
                room = CAPACITY - len(self._buffer)
                if room <= 0:
                    self._wait(check)
                    continue
                self._buffer += data[pos : pos + room]
                pos += room
                self._cond.notify_all()
            return len(data)


class _Attached:
    """A FIFO as one opener sees it: its waits poll that opener's ``check``."""

    def __init__(self, fifo: Fifo, check: Check) -> None:
        self._fifo = fifo
        self._check = check

    def read(self, size: int = -1) -> bytes:
        if size >= 0:
            return self._fifo.read(size, self._check)
        out = bytearray()
        while chunk := self._fifo.read(-1, self._check):
            out += chunk
        return bytes(out)

    def write(self, data: bytes) -> int:
        return self._fifo.write(bytes(data), self._check)


class FifoEnd(StreamView):
    """An open end of a :class:`Fifo` (both ends for ``<>``); closing it lets go."""

    def __init__(self, fifo: Fifo, name: str, reading: bool, writing: bool, check: Check
                 ) -> None:
        super().__init__(_Attached(fifo, check), name, reading, writing)
        self._fifo = fifo
        self._ends = (reading, writing)

    def close(self) -> None:
        if not self.closed:
            self._fifo.close(*self._ends)
        super().close()
