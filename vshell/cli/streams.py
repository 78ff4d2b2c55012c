"""The host's stdout and stderr as a run's output streams.

A run streams its output as it goes; when the reader of the host stream has gone (``vshell
-c 'yes' | head -1``) the write fails as a broken pipe, which the shell turns into the
SIGPIPE status of the writing command.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    from typing import BinaryIO


class StdStream:
    """Host stdout/stderr for streaming output; a closed reader is a broken pipe."""

    def __init__(self, raw: BinaryIO) -> None:
        self.raw = raw

    def write(self, data: bytes) -> int:
        try:
            self.raw.write(data)
        except (BrokenPipeError, ValueError):
            raise BrokenPipeError(32, "Broken pipe") from None
        return len(data)

    def flush(self) -> None:
        try:
            self.raw.flush()
        except (BrokenPipeError, ValueError, OSError):
            raise BrokenPipeError(32, "Broken pipe") from None
