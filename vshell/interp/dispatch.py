"""Calling one command under the contract of :mod:`vshell.command`.

The single place that turns what ``run`` did (a status, ``Exit``, an ``OSError``, a
broken pipe, any other exception) into an exit status and a diagnostic, so builtins and
host-registered commands behave alike and no traceback ever reaches the user.
"""

from __future__ import annotations

import os

from vshell.command import (
    Cancelled,
    Command,
    Exit,
    Invocation,
    OutputError,
    ReaderGone,
    describe_oserror,
)

SIGPIPE_STATUS = 141


def _say(inv: Invocation, text: str) -> None:
    try:
        inv.stderr.write(f"{inv.name}: {text}\n".encode("utf-8", "surrogateescape"))
    except (BrokenPipeError, ValueError, OSError):
        pass


# How each GNU tool words a failed write of its standard output, and its status then; the
# rest say "NAME: write error: STRERROR" and end with 1.  ("{}" is the strerror.)
_WRITE_ERRORS: dict[str, tuple[int, tuple[str, ...]]] = {
    "grep": (2, ("grep: write error: {}",)),
    "egrep": (2, ("grep: write error: {}",)),
    "fgrep": (2, ("grep: write error: {}",)),
    "ls": (2, ("ls: write error: {}",)),
    "sort": (2, ("sort: fflush failed: 'standard output': {}", "sort: write error")),
    "sed": (4, ("sed: couldn't flush stdout: {}",)),
    "xxd": (3, ("xxd: {}",)),
    "jq": (2, ("Error: writing output failed: {}",)),
    "find": (1, ("find: \u2018standard output\u2019: {}", "find: write error")),
    **{n: (1, (f"{n}: write error",)) for n in (
        "wc", "du", "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum")},
}


def _output_failed(inv: Invocation, e: OutputError) -> int:
    status, lines = _WRITE_ERRORS.get(inv.name, (1, (f"{inv.name}: write error: {{}}",)))
    text = "".join(line.format(e.strerror) + "\n" for line in lines)
    try:
        inv.stderr.write(text.encode("utf-8", "surrogateescape"))
    except (BrokenPipeError, ValueError, OSError):
        pass
    return status


def call_command(cmd: Command, inv: Invocation) -> int:
    """Run ``cmd`` and return its exit status (0..255); never raises except Cancelled."""
    try:
        status = cmd.run(inv)
        try:
            inv.stdout.flush()
        except (AttributeError, ValueError):
            pass
        except (BrokenPipeError, ReaderGone):
            return SIGPIPE_STATUS
        return 0 if status is None else int(status) & 0xFF
    except Exit as e:
        if e.message:
            _say(inv, e.message)
        return e.status & 0xFF
    except Cancelled:
        raise
    except (BrokenPipeError, ReaderGone):
        return SIGPIPE_STATUS
    except RecursionError:
        _say(inv, "maximum recursion depth exceeded")
        return 1
    except MemoryError:
        _say(inv, "memory exhausted")
        return 1
    except OutputError as e:
        return _output_failed(inv, e)
    except OSError as e:
        _say(inv, describe_oserror(e))
        return 1
    except ValueError as e:
        if _stdout_closed(inv):  # a write to an output its reader closed: SIGPIPE, quietly
            return SIGPIPE_STATUS
        return _internal_error(inv, e)
    except Exception as e:  # noqa: BLE001 - a bug in the command
        return _internal_error(inv, e)


def _stdout_closed(inv: Invocation) -> bool:
    """Whether the command's stdout is a closed stream (Python says ValueError then)."""
    try:
        return bool(getattr(inv.stdout, "closed", False))
    except Exception:  # noqa: BLE001 - a host stream that cannot tell
        return False


def _internal_error(inv: Invocation, e: Exception) -> int:
    """A bug in the command: report it in one line, never a traceback."""
    if os.environ.get("VSHELL_DEBUG"):
        import traceback

        traceback.print_exception(e)
    _say(inv, f"{type(e).__name__}: {e}" if str(e) else type(e).__name__)
    return 1
