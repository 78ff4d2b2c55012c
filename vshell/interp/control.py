"""The interpreter's own errors and control flow, in a leaf module every part of it may import.

Builtins raise these and the shell's loops, functions and top level catch them; keeping them
here (as Oils keeps its in ``core/vm.py``) lets every module import them downward, never from
:mod:`vshell.interp.shell`.
"""

from __future__ import annotations

import sys

from vshell.command import Cancelled

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = [
    "RECURSION_ROOM", "SHELL_NAMES", "AbortLine", "ExitShell", "LoopControl", "ReturnFromFunction",
    "ShellError", "SigPipe", "background_status", "make_recursion_room",
]

# The names under which a command is the shell itself (`bash -c`, a `#!/bin/sh` script).
SHELL_NAMES = ("sh", "bash", "vshell", "dash")
# a word of these characters alone expands to itself: no quote, `$`, backquote, backslash,
# brace, tilde, glob or extglob character, nor a parenthesis (a set, not a regex: `raw and
# PLAIN_CHARS.issuperset(raw)` is as quick, and keeps `re` off the start-up path; here, not
# in expand, so a script of plain words never imports the expander)
PLAIN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:,=+%@-")


# Python frames a run may use: a shell function level takes ~11, a nested compound command
# ~7, an arithmetic parenthesis ~17; the function limit (1000 levels, or FUNCNEST) and bash's
# 1024 levels of nested variable values fit under it.  Raised, never lowered: the limit is
# the process's, and awk asks for more.
RECURSION_ROOM = 12000


def make_recursion_room() -> None:
    """Raise the interpreter's recursion limit to :data:`RECURSION_ROOM` if it is lower."""
    if sys.getrecursionlimit() < RECURSION_ROOM:
        sys.setrecursionlimit(RECURSION_ROOM)


class ShellError(Exception):
    """An error the shell reports as ``bash: line N: message`` and turns into a status."""

    def __init__(self, message: str, status: int = 1, fatal: bool = False,
                 abort_line: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.fatal = fatal  # ends a non-interactive shell (e.g. unbound variable, bad subst)
        self.abort_line = abort_line  # ends the rest of the current line (e.g. failglob)


class ExitShell(Exception):
    """``exit`` (or a fatal error): unwinds to the shell's top (or the subshell boundary)."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class SigPipe(ExitShell):
    """A shell builtin wrote to a pipe whose reader is gone: like bash's process on SIGPIPE,
    the (sub)shell ends at once with 128+13, so ``while :; do echo; done | head -1`` ends."""

    def __init__(self) -> None:
        super().__init__(141)


class AbortLine(Exception):
    """An error that ends the current line of the script but not the script (bash)."""

    def __init__(self, status: int = 1) -> None:
        super().__init__(status)
        self.status = status


class ReturnFromFunction(Exception):
    """``return`` (or the end of a sourced file): unwinds to the function or ``source`` call."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class LoopControl(Exception):
    """``break N`` / ``continue N``: unwinds ``levels`` enclosing loops."""

    def __init__(self, kind: str, levels: int) -> None:
        super().__init__(kind)
        self.kind = kind  # "break" or "continue"
        self.levels = levels


def background_status(run: Callable[[], int], report: Callable[[str], None], *,
                      cancelled: int = 1) -> int:
    """The status a body run on its own thread (a ``&`` job, a coprocess) ends with: the
    shell's exits and errors become a status (an error ``report``-ed first), a cancel becomes
    ``cancelled``, and nothing it raises may kill the run."""
    try:
        return run()
    except (ExitShell, AbortLine) as e:
        return e.status
    except Cancelled:
        return cancelled
    except ShellError as e:
        report(e.message)
        return e.status
    except BaseException:  # noqa: BLE001 - a background body must never kill the run
        return 1
