"""The wire between ``vshell run`` and a scope's server: one JSON object per line.

The client sends one request (``{"op": "run", "script": ..., ...}``, ``stop``, ``ping``
or ``review``); the server answers with frames ``{"out": b64}`` / ``{"err": b64}`` as the
command writes, and ends with ``{"exit": N}`` (plus ``"message"`` when the server itself
refused or failed the request).
"""

from __future__ import annotations

import base64
import json
from typing import Any, Protocol


class Stream(Protocol):
    """What a frame is written to and read from (a socket's ``makefile('rwb')``)."""

    def write(self, data: bytes, /) -> int: ...

    def flush(self) -> None: ...

    def readline(self, size: int = -1, /) -> bytes: ...


def send(stream: Stream, message: dict[str, Any]) -> None:
    stream.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
    stream.flush()


def receive(stream: Stream) -> dict[str, Any] | None:
    """The next frame, or None at the end of the stream."""
    line = stream.readline()
    if not line:
        return None
    message = json.loads(line)
    if not isinstance(message, dict):
        raise ValueError("a frame must be a JSON object")
    return message


def pack(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def unpack(text: str) -> bytes:
    return base64.b64decode(text.encode("ascii"))
