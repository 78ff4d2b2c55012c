"""The wire between the supervisor and a worker: length-prefixed pickled messages.

One frame is a 4-byte big-endian length and that many bytes of a pickle (protocol 5).
Both ends are vshell's own code; still, the supervisor reads what a worker that runs
untrusted scripts wrote, so it unpickles with :class:`SafeUnpickler`, which builds only
plain data, exceptions and vshell's own record classes (never an arbitrary callable).

Messages are dicts.  Supervisor to worker: ``open``, ``close``, ``exec``, ``call`` (each with
a request id ``rid``) and ``cancel`` (names the ``rid`` to stop; no reply).  Worker to
supervisor: ``ready`` once, ``started`` when a request took its session's turn, and one
reply per request: ``{"rid", "ok": True, "value"}`` or ``{"rid", "ok": False, "code",
"message"}``.
"""

from __future__ import annotations

import builtins
import io
import os
import pickle
import struct
from typing import IO, Any

MAX_FRAME = 1 << 30  # a reply is bounded by the result budget long before this
_HEADER = struct.Struct(">I")

# builtins a message may contain besides the types pickle encodes natively
_SAFE_BUILTINS = frozenset({"set", "frozenset", "bytearray", "complex", "slice", "range"})


class ProtocolError(RuntimeError):
    """The other end sent something that is not a frame of this protocol."""


class SafeUnpickler(pickle.Unpickler):
    """Resolves only vshell's classes, builtin exceptions and a few builtin containers."""

    def find_class(self, module: str, name: str) -> Any:
        if module == "builtins":
            obj = getattr(builtins, name, None)
            if name in _SAFE_BUILTINS or (isinstance(obj, type)
                                          and issubclass(obj, BaseException)):
                return obj
        elif module == "vshell" or module.startswith("vshell."):
            obj = super().find_class(module, name)
            if isinstance(obj, type):
                return obj
        raise pickle.UnpicklingError(f"refused to build {module}.{name} from a worker")


def encode(message: Any) -> bytes:
    """One frame: header and pickle."""
    body = pickle.dumps(message, protocol=5)
    if len(body) > MAX_FRAME:
        raise ProtocolError(f"message of {len(body)} bytes exceeds the frame limit")
    return _HEADER.pack(len(body)) + body


def decode(body: bytes) -> Any:
    return SafeUnpickler(io.BytesIO(body)).load()


def write_frame(fd: int, message: Any) -> None:
    """Write one whole frame to a pipe descriptor (callers serialise writers)."""
    data = memoryview(encode(message))
    while data:
        n = os.write(fd, data)
        data = data[n:]


def read_frame(stream: IO[bytes]) -> Any | None:
    """The next message, or None at a clean end of stream."""
    head = _read_exact(stream, _HEADER.size)
    if head is None:
        return None
    (size,) = _HEADER.unpack(head)
    if size > MAX_FRAME:
        raise ProtocolError(f"frame of {size} bytes exceeds the limit")
    body = _read_exact(stream, size)
    if body is None:
        raise ProtocolError("stream ended inside a frame")
    return decode(body)


def _read_exact(stream: IO[bytes], size: int) -> bytes | None:
    chunks: list[bytes] = []
    got = 0
    while got < size:
        chunk = stream.read(size - got)
        if not chunk:
            if got:
                raise ProtocolError("stream ended inside a frame")
            return None
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)
