"""The file-object ends of an in-memory byte pipe, shared by every pipe of the sandbox.

The interpreter's pipeline pipes and the Python guest's ``Popen`` pipes differ in how they
buffer and wait, not in how a command sees them: a read end with ``read``/``readline`` and a
write end with ``write``.  Each pipe keeps its own ``read``/``read1``/``close`` policy in a
subclass; what is the same lives here once.
"""

from __future__ import annotations

import io

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    from typing import Any


class _End(io.RawIOBase):
    """One end of ``pipe``."""

    def __init__(self, pipe: Any) -> None:
        super().__init__()
        self._pipe = pipe


class ReadEnd(_End):
    """A pipe's read end: ``readinto`` and ``readline`` over the subclass's ``read``."""

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        data = self.read(len(b)) or b""
        b[: len(data)] = data
        return len(data)

    def readline(self, limit: int | None = -1) -> bytes:
        return bytes(self._pipe.readline(-1 if limit is None else limit))


class WriteEnd(_End):
    """A pipe's write end: every write goes to the pipe whole (it waits for room)."""

    def writable(self) -> bool:
        return True

    def write(self, b: Any) -> int:
        return int(self._pipe.write(b))

    def flush(self) -> None:
        pass
