"""Fatal expansion errors and the status they end the shell with.

bash ends a non-interactive shell on an unbound variable (``set -u``) or ``${X:?msg}``; its
status is 127 in the shell of a command string (``bash -c``, and so vshell's ``exec``) while
errexit is off, but 1 under ``set -e``, in a script file, a script read from stdin and any
subshell. Other fatal errors end with 1.
"""

from __future__ import annotations

from vshell.interp.state import ShellError

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    from vshell.interp.shell import Shell


class UnboundError(ShellError):
    """``NAME: unbound variable`` under ``set -u``, or ``${NAME:?msg}``: always fatal."""

    def __init__(self, message: str) -> None:
        super().__init__(message, status=1, fatal=True)


def exit_status(sh: Shell, e: ShellError) -> int:
    """The status a fatal ``e`` ends ``sh`` with, as bash chooses it."""
    if (isinstance(e, UnboundError) and not sh.is_subshell and sh.state.main_file is None
            and not sh.state.options.get("errexit")
            and "s" not in sh.extra_flags and getattr(sh.state, "stdin_script", None) is None):
        return 127
    return e.status
