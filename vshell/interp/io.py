"""Streams the interpreter wires between commands: bounded in-process pipes, capped
output sinks, and small adapters.  A blocking wait sleeps until the other end, the run's
deadline or its cancellation wakes it (:meth:`vshell.command.CancelToken.sleep`).
"""

from __future__ import annotations

import errno
import io
import threading
import time
from collections import deque

from vshell.command import CancelToken
from vshell.interp import limits
from vshell.pipe_ends import ReadEnd, WriteEnd

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import IO, Any

    from vshell.vfs.memory import MemoryBudget

PIPE_CAPACITY = 1 << 20  # bytes buffered between two pipeline stages
# a writer whose reader is held back (not started, see vshell.interp.stages) starts it at
# its first write after running this long, and a run's check for cancellation starts
# every stage held back this long: the output of a long stage still streams.  (Short
# pipelines end well within it; a person does not notice it.)
HELD_FOR = 0.02


class Pipe:
    """A bounded byte pipe between two pipeline stages (or a process substitution).

    A write after the reader closed raises BrokenPipeError (the SIGPIPE of a real pipe), so
    ``yes | head -1`` ends as soon as head is done.

    Its reader may be held back (:meth:`hold_reader`): the writer then runs alone, and most
    pipes are written whole before they are read, by one thread.  So a lock guards the
    buffer, and the condition a full or empty pipe waits on is made on the first wait and
    notified only while someone waits on it.
    """

    def __init__(self, cancel: CancelToken | None = None, capacity: int = PIPE_CAPACITY,
                 budget: MemoryBudget | None = None) -> None:
        # a pipe that fills past limits.THRESHOLD holds its capacity from the sandbox's
        # memory budget until its reader goes (one check per write, nothing for small data)
        self._budget = budget
        self._hold: limits.Hold | None = None
        self._chunks: deque[bytes] = deque()
        self._size = 0
        self._capacity = capacity
        self._lock = threading.Lock()
        self._cond: threading.Condition | None = None  # made by the first wait
        self._waiters = 0  # threads waiting on _cond
        self._reader_closed = False
        self._writer_closed = False
        self._cancel = cancel
        # while the reader is held back: what starts it, and since when the writer runs
        self._start_reader: Callable[[], object] | None = None
        self._since = 0.0
        self._held = False  # the reader was held back (it starts only when needed)
        # background jobs that inherited the write end: as with a real pipe, the end stays
        # open (the reader sees no EOF) until they are done too
        self.holders: list[threading.Thread] = []
        self.reader = PipeReader(self)
        self.writer = PipeWriter(self)

    def hold_reader(self, start: Callable[[], object]) -> None:
        """The reader is not running and the writer starts now: ``start()`` starts the
        reader, called when the writer would wait for room, or writes after running
        :data:`HELD_FOR` seconds (a writer that waits on anything else starts it through
        its cancel token's :meth:`~vshell.command.CancelToken.waiting`)."""
        self._since = time.monotonic()
        self._held = True
        self._start_reader = start

    def reader_running(self) -> None:
        """The reader has started: nothing left to start."""
        self._start_reader = None

    def _wait(self) -> None:
        """Wait (the lock held) for the other end, first starting what the run holds back
        (the other end may be a stage not started yet).  No timeout: every change the
        waiter looks for notifies it, and so does the run's cancellation or deadline."""
        cancel = self._cancel
        if cancel is not None and cancel.holding:
            cancel.start_held()  # it takes no pipe's lock: a stage started waits for ours
        cond = self._cond
        if cond is None:
            cond = self._cond = threading.Condition(self._lock)
        self._waiters += 1
        try:
            if cancel is None:
                cond.wait()
            else:
                cancel.sleep(cond)
        finally:
            self._waiters -= 1

    def _notify(self) -> None:
        if self._waiters:
            assert self._cond is not None
            self._cond.notify_all()

    # writer side
    def write(self, data: bytes | bytearray | memoryview) -> int:
        n = len(data)
        if self._reader_closed and not self._was_read and not self._early_write and \
                n <= 4096 and not self._held:
            # a reader started at once that quit without reading (`{ echo hi; exit 55; } |
            # false` with the stages on threads): with real processes the writer's first
            # small write usually lands before it is gone.  (A held reader starts after the
            # writer's first writes, so those landed.)
            self._early_write = True
            return n
        if not n:
            if self._reader_closed:
                raise BrokenPipeError(32, "Broken pipe")
            return 0
        if type(data) is not bytes:
            data = bytes(data)
        lock = self._lock
        pos = 0
        lock.acquire()
        try:
            while True:
                if self._reader_closed or self._writer_closed:
                    # (a closed writer: one that outlived its stage, which closed the end it
                    # shared; nobody will read this, so it ends as a writer whose reader went)
                    raise BrokenPipeError(32, "Broken pipe")
                room = self._capacity - self._size
                if room > 0:
                    piece = data if not pos and n <= room else data[pos : pos + room]
                    self._chunks.append(piece)
                    self._size += len(piece)
                    if self._size >= limits.THRESHOLD and self._budget is not None:
                        self._charge(len(piece))
                    pos += len(piece)
                    if self._waiters:
                        self._notify()
                    if pos >= n:
                        break
                start = self._start_reader
                if start is not None:  # full, and nobody reads yet: start the reader
                    self._start_reader = None
                    lock.release()
                    try:
                        start()
                    finally:
                        lock.acquire()
                    continue
                self._wait()
        finally:
            lock.release()
        start = self._start_reader
        if start is not None and time.monotonic() - self._since >= HELD_FOR:
            self._start_reader = None
            start()
        return n

    def _charge(self, piece: int) -> None:
        """Hold the pipe's capacity from the memory budget (the lock held); ENOMEM, the
        last piece taken back, when the budget has no room."""
        hold = self._hold
        if hold is None:
            hold = self._hold = limits.Hold(self._budget)
        if hold.size < self._capacity and not hold.resize(self._capacity):
            self._chunks.pop()
            self._size -= piece
            raise limits.memory_error(self._capacity, self._budget)

    def close_writer(self) -> None:
        with self._lock:
            self._writer_closed = True
            self._notify()

    # reader side
    _was_read = False  # the reader has asked for data at least once
    _early_write = False

    def read(self, n: int = -1) -> bytes:
        self._was_read = True
        with self._lock:
            chunks = self._chunks
            if n is None or n < 0:
                out: list[bytes] = []
                while True:
                    if chunks:
                        out.extend(chunks)
                        chunks.clear()
                        self._size = 0
                        self._notify()
                    if self._writer_closed or self._reader_closed:
                        return b"".join(out)
                    self._wait()
            while not chunks:
                if self._writer_closed or self._reader_closed:
                    return b""
                self._wait()
            c = chunks[0]
            if len(c) <= n:
                chunks.popleft()
                got = len(c)
                if not chunks or got + len(chunks[0]) > n:
                    self._size -= got
                    self._notify()
                    return c
                # gather more small chunks up to n without waiting
                parts = [c]
                while chunks and got + len(chunks[0]) <= n:
                    d = chunks.popleft()
                    parts.append(d)
                    got += len(d)
                self._size -= got
                self._notify()
                return b"".join(parts)
            chunks[0] = c[n:]
            self._size -= n
            self._notify()
            return c[:n]

    def readline(self, limit: int = -1) -> bytes:
        self._was_read = True
        with self._lock:
            chunks = self._chunks
            out = bytearray()
            while True:
                while chunks:
                    c = chunks[0]
                    k = c.find(b"\n")
                    if limit is not None and limit >= 0:
                        want = limit - len(out)
                        if k < 0 or k >= want:
                            k = want - 1 if len(c) >= want else -1
                    if k >= 0:
                        if k + 1 == len(c):
                            chunks.popleft()
                            if not out:  # the whole line is one chunk: no copy
                                self._size -= k + 1
                                self._notify()
                                return c
                        else:
                            chunks[0] = c[k + 1 :]
                        out += c[: k + 1]
                        self._size -= k + 1
                        self._notify()
                        return bytes(out)
                    out += c
                    chunks.popleft()
                    self._size -= len(c)
                self._notify()
                if self._writer_closed or self._reader_closed:
                    return bytes(out)
                self._wait()

    def close_reader(self) -> None:
        with self._lock:
            self._reader_closed = True
            self._start_reader = None
            self._chunks.clear()
            self._size = 0
            self._notify()
            if self._hold is not None:
                self._hold.release()


class PipeReader(ReadEnd):
    """The read end of a :class:`Pipe` (file-like)."""

    def read(self, n: int | None = -1) -> bytes:
        return self._pipe.read(-1 if n is None else n)

    def read1(self, n: int = -1) -> bytes:
        return self._pipe.read(65536 if n is None or n < 0 else n)

    def __iter__(self):
        while True:
            line = self.readline()
            if not line:
                return
            yield line

    def close(self) -> None:
        self._pipe.close_reader()
        super().close()


class PipeWriter(WriteEnd):
    """The write end of a :class:`Pipe` (file-like)."""

    @property
    def pipe(self) -> Pipe:
        return self._pipe

    def readinto(self, b: Any) -> int:
        # `read -u 1`, `mapfile -u 2`: the run's output is write-only, as a pipe's end is
        raise OSError(errno.EBADF, "Bad file descriptor")

    def close(self) -> None:
        self._pipe.close_writer()
        super().close()


class CappedSink(io.RawIOBase):
    """Where a run's stdout or stderr ends up: at most ``limit`` bytes are kept.

    Past the limit bytes are dropped and ``truncated`` is set; writers are never blocked.
    ``forward`` (optional) receives kept bytes as they come (the CLI streams them).
    """

    def __init__(self, limit: int, forward: IO[bytes] | None = None) -> None:
        super().__init__()
        self.limit = limit
        self.forward = forward
        self.buffer = bytearray()
        self.kept = 0
        self.truncated = False
        self._lock = threading.Lock()

    def writable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        # `read -u 1`, `mapfile -u 2`: the run's output is write-only
        raise OSError(errno.EBADF, "Bad file descriptor")

    def write(self, b: Any) -> int:
        n = len(b)
        with self._lock:
            room = self.limit - self.kept
            if room <= 0:
                if n:
                    self.truncated = True
                return n
            piece = bytes(b[:room]) if n > room else bytes(b)
            if n > room:
                self.truncated = True
            self.kept += len(piece)
            if self.forward is not None:
                try:
                    self.forward.write(piece)
                    self.forward.flush()
                except (BrokenPipeError, OSError, ValueError):
                    raise BrokenPipeError(32, "Broken pipe") from None
            else:
                self.buffer += piece
        return n

    def flush(self) -> None:
        pass

    def close(self) -> None:  # the sink outlives every command that writes to it
        pass

    def getvalue(self) -> bytes:
        return bytes(self.buffer)


class Collector(io.RawIOBase):
    """A thread-safe in-memory writer (command substitution output).

    With a ``budget`` the capture is charged as it grows; once it may not grow, it is
    dropped, every later write fails with ENOMEM and ``failed`` says what was refused."""

    def __init__(self, budget: MemoryBudget | None = None) -> None:
        super().__init__()
        self._buf = bytearray()
        self._lock = threading.Lock()
        self._charge = limits.GrowingHold(budget)

    @property
    def failed(self) -> int:
        return self._charge.failed

    def writable(self) -> bool:
        return True

    def write(self, b: Any) -> int:
        with self._lock:
            charge = self._charge
            if charge.failed or not charge.grow(len(self._buf) + len(b)):
                self._buf = bytearray()
                raise charge.error()
            self._buf += b
        return len(b)

    def text(self) -> str:
        """The capture as ``$(…)`` gives it: NUL bytes dropped (as bash does), trailing
        newlines removed, decoded straight from the buffer, so the one other copy is the
        result (a big capture checked against the memory limit first)."""
        with self._lock:
            buf = self._buf
            end = len(buf)
            while end and buf[end - 1] == 0x0A:
                end -= 1
            del buf[end:]
            if b"\x00" in buf:
                buf = self._buf = buf.replace(b"\x00", b"")
            limits.need(self._charge.budget, len(buf))
            return buf.decode("utf-8", "surrogateescape")

    def release(self) -> None:
        """Drop the capture and its charge (the caller has taken what it needs)."""
        with self._lock:
            self._buf = bytearray()
            self._charge.release()

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass

    def getvalue(self) -> bytes:
        return bytes(self._buf)


class NullInput(io.RawIOBase):
    """An empty stdin."""

    def readable(self) -> bool:
        return True

    def read(self, n: int | None = -1) -> bytes:
        return b""

    def readline(self, limit: int | None = -1) -> bytes:
        return b""

    def readinto(self, b: Any) -> int:
        return 0

    def close(self) -> None:
        pass


class ClosedStream(io.RawIOBase):
    """A descriptor closed with ``>&-``: every use fails with EBADF."""

    def readable(self) -> bool:
        return True

    def writable(self) -> bool:
        return True

    def read(self, n: int | None = -1) -> bytes:
        raise OSError(9, "Bad file descriptor")

    def readline(self, limit: int | None = -1) -> bytes:
        raise OSError(9, "Bad file descriptor")

    def write(self, b: Any) -> int:
        raise OSError(9, "Bad file descriptor")

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass


class HostInput(io.RawIOBase):
    """The host process's stdin, read in available-sized pieces (streams like a pipe)."""

    def __init__(self, raw: IO[bytes]) -> None:
        super().__init__()
        self._raw = raw

    def readable(self) -> bool:
        return True

    def read(self, n: int | None = -1) -> bytes:
        if n is None or n < 0:
            return self._raw.read()
        r1 = getattr(self._raw, "read1", None)
        return r1(n) if r1 is not None else self._raw.read(n)

    def readline(self, limit: int | None = -1) -> bytes:
        return self._raw.readline(-1 if limit is None else limit)

    def readinto(self, b: Any) -> int:
        data = self.read(len(b))
        b[: len(data)] = data
        return len(data)

    def close(self) -> None:
        pass


class Unclosable(io.RawIOBase):
    """Wraps a stream shared by several commands so one command's close() is harmless."""

    def __init__(self, inner: Any) -> None:
        super().__init__()
        self.inner = inner

    def readable(self) -> bool:
        return True

    def writable(self) -> bool:
        return True

    def read(self, n: int | None = -1) -> bytes:
        return self.inner.read(-1 if n is None else n)

    def read1(self, n: int = -1) -> bytes:
        r1 = getattr(self.inner, "read1", None)
        return r1(n) if r1 is not None else self.inner.read(n)

    def readline(self, limit: int | None = -1) -> bytes:
        return self.inner.readline(-1 if limit is None else limit)

    def readinto(self, b: Any) -> int:
        data = self.read(len(b))
        b[: len(data)] = data
        return len(data)

    def write(self, b: Any) -> int:
        return self.inner.write(b)

    def flush(self) -> None:
        f = getattr(self.inner, "flush", None)
        if f is not None:
            f()

    def close(self) -> None:
        pass
