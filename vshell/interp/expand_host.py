"""What word expansion needs from the shell it expands for, as a :class:`typing.Protocol`.

The expander reaches the shell only through these few members (as mvdan/sh's ``expand``
reaches its runner through ``expand.Config``), so it can be tested with a small fake and
:mod:`vshell.interp.expand` never imports :mod:`vshell.interp.shell`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from vshell.interp.state import ShellState, Var

__all__ = ["ExpansionHost"]


class ExpansionHost(Protocol):
    """The shell as the expander sees it: its variables and the expansions it runs."""

    state: ShellState

    def arith(self, text: str, raw: str | None = None) -> int:
        """``$(( text ))``; ``raw`` is the source shown in an error."""
        ...

    def check(self) -> None:
        """Between steps of a long expansion: stop if cancelled, act on pending signals."""
        ...

    def check_cancel(self) -> None:
        """Inside one long step (a ``${v//p/r}`` over a big value): stop if cancelled."""
        ...

    def command_substitution(self, source: str) -> str:
        """``$( source )``: its output as the word takes it (trailing newlines removed)."""
        ...

    def process_substitution(self, op: str, source: str) -> str:
        """``<( source )`` / ``>( source )``: the path that names the pipe."""
        ...

    def glob(self, pattern: str) -> list[str]:
        """Pathname expansion of one pattern, with the shell's options and ``GLOBIGNORE``."""
        ...

    def dash_flags(self) -> str:
        """``$-``."""
        ...

    def prompt_expand(self, s: str) -> str:
        """``${v@P}``: ``s`` expanded as a prompt string."""
        ...

    def declare_line(self, name: str, var: Var) -> str:
        """``${v@A}``: the ``declare`` line that recreates ``var``."""
        ...

    def err(self, message: str) -> None:
        """Report a non-fatal error as ``bash: line N: message``."""
        ...
