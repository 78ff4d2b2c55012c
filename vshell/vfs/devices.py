"""The synthetic ``/dev``: null, zero, full, random, urandom, tty, and the shell's own streams.

``/dev/stdin``, ``/dev/stdout``, ``/dev/stderr`` and ``/dev/fd/N`` open the streams a
``VFS.bind(fds)`` view was given, through wrappers that never close the stream they wrap
(closing the file a command opened must not close the shell's pipe).
"""

from __future__ import annotations

import errno
import io
import os
import stat as st

from vshell.vfs.errors import fs_error

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

__all__ = ["DEVICES", "STD_LINKS", "StreamView", "open_device"]

# name -> inode number; all character devices, mode 0666.
DEVICES: dict[str, int] = {
    "null": 3, "zero": 5, "full": 7, "random": 8, "urandom": 9, "tty": 10
}
STD_LINKS: dict[str, int] = {"stdin": 0, "stdout": 1, "stderr": 2}
CHAR_MODE = st.S_IFCHR | 0o666
STREAM_MODE = st.S_IFIFO | 0o600
_CHUNK_LIMIT = 1 << 24  # largest single read from an endless device


class _OpenedAs(io.RawIOBase):
    """A raw file that reads and writes as it was opened (``open()``'s mode, not its own)."""

    def __init__(self, name: str, readable: bool, writable: bool) -> None:
        super().__init__()
        self.name = name
        self._readable = readable
        self._writable = writable

    def readable(self) -> bool:
        return self._readable

    def writable(self) -> bool:
        return self._writable

    def read(self, size: int | None = -1) -> bytes:
        raise NotImplementedError

    def readall(self) -> bytes:
        return self.read(-1)

    def readinto(self, buffer: Any) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


class _Device(_OpenedAs):
    """Base for the endless / empty character devices."""

    def write(self, data: Any) -> int:
        if not self._writable:
            raise io.UnsupportedOperation("write")
        return len(memoryview(data))

    def _fill(self, size: int) -> bytes:
        raise NotImplementedError

    def read(self, size: int | None = -1) -> bytes:
        if not self._readable:
            raise io.UnsupportedOperation("read")
        if size is None or size < 0:
            # An endless device cannot be read whole; fail as a real system runs out.
            raise fs_error(errno.ENOMEM, self.name)
        return self._fill(min(size, _CHUNK_LIMIT))

    def readline(self, size: int | None = -1) -> bytes:
        return self.read(8192 if size is None or size < 0 else size)


class _Null(_Device):
    def read(self, size: int | None = -1) -> bytes:
        if not self._readable:
            raise io.UnsupportedOperation("read")
        return b""

    def readline(self, size: int | None = -1) -> bytes:
        return self.read(size)


class _Zero(_Device):
    def _fill(self, size: int) -> bytes:
        return bytes(size)

    def readline(self, size: int | None = -1) -> bytes:
        # A line of /dev/zero never ends; give a bounded chunk rather than hang.
        return self.read(65536 if size is None or size < 0 else size)


class _Full(_Zero):
    """Reads like /dev/zero; every write fails with ENOSPC (for testing write errors)."""

    def write(self, data: Any) -> int:
        if not self._writable:
            raise io.UnsupportedOperation("write")
        raise fs_error(errno.ENOSPC, self.name)


class _Random(_Device):
    def _fill(self, size: int) -> bytes:
        return os.urandom(size)

    def readline(self, size: int | None = -1) -> bytes:
        if size is not None and size >= 0:
            return self.read(size)
        out = bytearray()
        while True:
            chunk = os.urandom(256)
            nl = chunk.find(b"\n")
            if nl >= 0:
                out += chunk[: nl + 1]
                return bytes(out)
            out += chunk


_KINDS = {"null": _Null, "zero": _Zero, "full": _Full, "random": _Random, "urandom": _Random}


def open_device(name: str, path: str, readable: bool, writable: bool) -> io.RawIOBase:
    """Open ``/dev/<name>`` for one of DEVICES."""
    if name == "tty":
        raise fs_error(errno.ENXIO, path)
    return _KINDS[name](path, readable, writable)


class StreamView(_OpenedAs):
    """A non-closing file view of a shell stream (a pipe, a capped sink, a BytesIO …)."""

    def __init__(self, stream: Any, name: str, readable: bool, writable: bool) -> None:
        super().__init__(name, readable, writable)
        self._stream = stream
        # set when the view is the last holder of its stream (`exec 3< <(cmd)`: the
        # substitution's own descriptor is gone): closing the view closes the stream
        self.owns = False

    @property
    def stream(self) -> Any:
        """The shell stream this view reads or writes."""
        return self._stream

    def _need(self, attr: str) -> Any:
        if self.closed:
            raise ValueError("I/O operation on closed file.")
        method = getattr(self._stream, attr, None)
        if (
            method is None
            or (attr == "write" and not self._writable)
            or (attr != "write" and not self._readable)
        ):
            raise fs_error(errno.EBADF, self.name)
        return method

    def _call(self, attr: str, *args: Any) -> Any:
        """Call the stream's method; a stream that cannot do it is a bad descriptor."""
        try:
            return self._need(attr)(*args)
        except (NotImplementedError, io.UnsupportedOperation):
            raise fs_error(errno.EBADF, self.name) from None

    def read(self, size: int | None = -1) -> bytes:
        data = self._call("read", -1 if size is None else size)
        return bytes(data) if data is not None else b""

    def readline(self, size: int | None = -1) -> bytes:
        if self.closed:
            raise ValueError("I/O operation on closed file.")
        if hasattr(self._stream, "readline"):
            limit = -1 if size is None else size
            return bytes(self._call("readline", limit) if limit >= 0 else self._call("readline"))
        out = bytearray()
        while size is None or size < 0 or len(out) < size:
            ch = self.read(1)
            if not ch:
                break
            out += ch
            if ch == b"\n":
                break
        return bytes(out)

    def write(self, data: Any) -> int:
        data = bytes(data)
        self._call("write", data)
        return len(data)

    def flush(self) -> None:
        if self.closed:
            return
        flush = getattr(self._stream, "flush", None)
        if flush is not None and self._writable:
            flush()

    def close(self) -> None:
        # Flush, mark closed, and leave the wrapped stream open (unless the view owns it).
        if not self.closed:
            try:
                self.flush()
            finally:
                super().close()
                if self.owns:
                    self._stream.close()

    def fileno(self) -> int:
        raise io.UnsupportedOperation("stream view has no host file descriptor")


def open_stream(
    fds: Mapping[int, Any] | None, fd: int, path: str, readable: bool, writable: bool
) -> StreamView:
    """Open the bound stream ``fd`` (EBADF when the view has none)."""
    if fds is None or fd not in fds or fds[fd] is None:
        raise fs_error(errno.EBADF, path)
    return StreamView(fds[fd], path, readable, writable)
