"""The interpreter's own errors and control flow, in a leaf module every part of it may import.

Kept apart from :mod:`vshell.interp.state` so that small modules (limits, expansion helpers)
can raise a shell error without importing the whole state and making a cycle.
"""

from __future__ import annotations

__all__ = ["ShellError"]


class ShellError(Exception):
    """An error the shell reports as ``bash: line N: message`` and turns into a status."""

    def __init__(self, message: str, status: int = 1, fatal: bool = False,
                 abort_line: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.fatal = fatal  # ends a non-interactive shell (e.g. unbound variable, bad subst)
        self.abort_line = abort_line  # ends the rest of the current line (e.g. failglob)
