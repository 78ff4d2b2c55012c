"""A byte pipe between a guest's ``Popen`` and the sandbox command it started.

The command runs on a thread of its own and writes (or reads) one end as any command writes
its stdout (or reads its stdin); the guest works the other end through the door, one request
per read or write.  Bounded, as an OS pipe is: a writer waits while it is full (so a command
producing much output is paced by its reader), and gets BrokenPipeError once the reader is
gone.  :meth:`Pipe.unbound` lifts the bound, for a guest that waits for the command's end
without reading (CPython would deadlock there; the sandbox keeps the output instead).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from vshell.pipe_ends import ReadEnd, WriteEnd

CAPACITY = 1 << 20
SLICE = 0.05  # seconds a waiting end sleeps between looks at the cancel token


class Pipe:
    """One pipe: :attr:`reader` and :attr:`writer` are its two ends as file objects."""

    def __init__(self, check: Callable[[], None], capacity: int = CAPACITY) -> None:
        self._check = check  # raises when the command is stopped (its ends wait on this)
        self._buf = bytearray()
        self._capacity = capacity
        self._cond = threading.Condition()
        self.reader_closed = False
        self.writer_closed = False
        self.reader = _Reader(self)
        self.writer = _Writer(self)

    def write(self, data: bytes, check: Callable[[], None] | None = None) -> int:
        """Write it all, waiting while full; ``check`` (default: the command's) is called
        while waiting (the guest's end passes the run's own)."""
        check = check or self._check
        data = bytes(data)
        with self._cond:
            pos = 0
            while pos < len(data) or not data:
                if self.reader_closed or self.writer_closed:
                    raise BrokenPipeError(32, "Broken pipe")
                if not data:
                    return 0
                room = self._capacity - len(self._buf)
                if room <= 0:
                    self._cond.wait(SLICE)
                    check()
                    continue
                self._buf += data[pos : pos + room]
                pos += room
                self._cond.notify_all()
            return len(data)

    def read(self, n: int = -1, timeout: float | None = None,
             check: Callable[[], None] | None = None) -> bytes | None:
        """Up to ``n`` bytes (all there is for -1) once some are there; b"" at end of input;
        None when ``timeout`` passed with nothing to read; ``check`` as for write."""
        check = check or self._check
        with self._cond:
            waited = 0.0
            while not self._buf and not self.writer_closed:
                if timeout is not None and waited >= timeout:
                    return None
                step = SLICE if timeout is None else min(SLICE, timeout - waited)
                self._cond.wait(step)
                waited += step
                check()
            n = len(self._buf) if n is None or n < 0 else n
            data = bytes(self._buf[:n])
            del self._buf[:n]
            self._cond.notify_all()
            return data

    def readline(self, limit: int = -1) -> bytes:
        with self._cond:
            while b"\n" not in self._buf and not self.writer_closed and (
                    limit < 0 or len(self._buf) < limit):
                self._cond.wait(SLICE)
                self._check()
            end = self._buf.find(b"\n") + 1 or len(self._buf)
            if limit >= 0:
                end = min(end, limit)
            data = bytes(self._buf[:end])
            del self._buf[:end]
            self._cond.notify_all()
            return data

    def close_writer(self) -> None:
        with self._cond:
            self.writer_closed = True
            self._cond.notify_all()

    def close_reader(self) -> None:
        with self._cond:
            self.reader_closed = True
            self._buf.clear()
            self._cond.notify_all()

    def unbound(self) -> None:
        """No bound from now on: a writer never waits (the reader waits for the end)."""
        with self._cond:
            self._capacity = 1 << 62
            self._cond.notify_all()


class _Reader(ReadEnd):
    """The pipe's read end, as a command's stdin."""

    def read(self, n: int | None = -1) -> bytes:
        if n is None or n < 0:  # all of it, to the end
            chunks = []
            while chunk := self._pipe.read(-1):
                chunks.append(chunk)
            return b"".join(chunks)
        return self._pipe.read(n) or b""

    def read1(self, n: int = -1) -> bytes:
        return self._pipe.read(n) or b""

    def close(self) -> None:
        pass  # the command's end of its stdin: the pipe is closed by its owner


class _Writer(WriteEnd):
    """The pipe's write end, as a command's stdout or stderr."""

    def close(self) -> None:
        pass  # closed by its owner when the command ends
