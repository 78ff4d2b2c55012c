"""Running a child command from a command (find -exec, xargs): one place for the steps.

Our own output is flushed first so the child's lines land after what we already wrote."""

from __future__ import annotations

from typing import Any

from vshell.command import Exit, Invocation


def run_child(inv: Invocation, argv: list[str], **kwargs: Any) -> int:
    """Run ``argv`` through ``inv.run_command`` (status 1 where there is no runner)."""
    if inv.run_command is None:
        raise Exit(1, "running commands is not available here")
    try:
        inv.stdout.flush()
    except (AttributeError, ValueError, OSError):
        pass
    return inv.run_command(argv, **kwargs)


__all__ = ["run_child"]
