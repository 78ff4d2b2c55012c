"""A script read from standard input, run as bash runs it: one complete command at a time.

bash reads such a script from the same stream its commands read, so ``read x`` on line 1
takes line 2; and it runs each command before reading further, so a syntax error on line 2
stops the shell (status 2) after line 1 ran and before line 3 does.
"""

from __future__ import annotations

from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from vshell.interp.shell import Shell


def _readline(stream: IO[bytes]) -> bytes:
    readline = getattr(stream, "readline", None)
    if readline is not None:
        return readline()
    out = bytearray()
    while True:
        c = stream.read(1)
        if not c:
            return bytes(out)
        out += c
        if c == b"\n":
            return bytes(out)


def run_stream(sh: Shell, stream: IO[bytes] | None) -> int:
    """Run the script ``stream`` holds, as a shell process (``exit``, EXIT trap, fatal errors
    handled as :meth:`Shell.run_toplevel` does); the shell's status."""
    from vshell.syntax import is_complete

    def body() -> int:
        status = 0
        line_base = 0  # lines already run: LINENO and messages count on from them
        buf = ""
        while True:
            line = _readline(stream) if stream is not None else b""
            if line:
                buf += line.decode("utf-8", "surrogateescape")
                if not is_complete(buf):
                    continue
            if buf.strip():
                status = sh.run_source(buf, first_line=line_base + 1)
            line_base += buf.count("\n")
            buf = ""
            if not line:
                break
        return status

    return sh.run_exit_trap(sh.run_as_process(body))
