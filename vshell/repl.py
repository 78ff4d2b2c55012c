"""The interactive loop: a plain line reader for now (prompt_toolkit comes later).

On a terminal it prompts; from a pipe it reads line by line with no prompts, collecting
lines until the parser says a command is complete, so an agent can feed a script.
"""

from __future__ import annotations

import sys
from typing import Any


def run_repl(sb: Any) -> int:
    from vshell.cli import _StdStream
    from vshell.syntax import is_complete

    tty = sys.stdin.isatty()
    status = 0
    if tty:
        sys.stderr.write("vshell REPL (Ctrl-D to exit)\n")
    buf = ""
    while True:
        if tty:
            sys.stderr.write("$ " if not buf else "> ")
            sys.stderr.flush()
        line = sys.stdin.buffer.readline()
        if not line:
            break
        buf += line.decode("utf-8", "surrogateescape")
        if not is_complete(buf):
            continue
        script, buf = buf, ""
        if not script.strip():
            continue
        res = sb.exec(script, stdout=_StdStream(sys.stdout.buffer),
                      stderr=_StdStream(sys.stderr.buffer))
        status = res.exit_code
        if res.truncated:
            sys.stderr.write("vshell: output truncated\n")
        if tty and status != 0:
            sys.stderr.write(f"(exit code {status})\n")
        if getattr(sb, "_exit_requested", False):
            break
    if buf.strip():
        res = sb.exec(buf, stdout=_StdStream(sys.stdout.buffer),
                      stderr=_StdStream(sys.stderr.buffer))
        status = res.exit_code
    return status
