"""Calling one command under the contract of :mod:`vshell.command`.

The single place that turns what ``run`` did (a status, ``Exit``, an ``OSError``, a
broken pipe, any other exception) into an exit status and a diagnostic, so builtins and
host-registered commands behave alike and no traceback ever reaches the user.
"""

from __future__ import annotations

import os

from vshell.command import Cancelled, Command, Exit, Invocation, describe_oserror

SIGPIPE_STATUS = 141


def _say(inv: Invocation, text: str) -> None:
    try:
        inv.stderr.write(f"{inv.name}: {text}\n".encode("utf-8", "surrogateescape"))
    except (BrokenPipeError, ValueError, OSError):
        pass


def call_command(cmd: Command, inv: Invocation) -> int:
    """Run ``cmd`` and return its exit status (0..255); never raises except Cancelled."""
    try:
        status = cmd.run(inv)
        try:
            inv.stdout.flush()
        except (AttributeError, ValueError):
            pass
        return 0 if status is None else int(status) & 0xFF
    except Exit as e:
        if e.message:
            _say(inv, e.message)
        return e.status & 0xFF
    except Cancelled:
        raise
    except BrokenPipeError:
        return SIGPIPE_STATUS
    except RecursionError:
        _say(inv, "maximum recursion depth exceeded")
        return 1
    except MemoryError:
        _say(inv, "memory exhausted")
        return 1
    except OSError as e:
        _say(inv, describe_oserror(e))
        return 1
    except Exception as e:  # a bug in the command: report it, never a traceback
        if os.environ.get("VSHELL_DEBUG"):
            import traceback

            traceback.print_exc()
        _say(inv, f"{type(e).__name__}: {e}" if str(e) else type(e).__name__)
        return 1
