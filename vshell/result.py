"""The execution-result contract: one shape for every run, top-level or nested.

``Result.outcome`` says why the run ended (machine meaning); stderr stays what a person
reads.  Only INVALID and INTERNAL carry an error.
"""

from __future__ import annotations

import enum

from vshell.records import record


class Outcome(enum.Enum):
    """Why a run ended, with the exit code each ending reports."""

    COMPLETED = "completed"  # ran to completion; its own status
    NOT_FOUND = "not_found"  # ended on an unresolved command name (127)
    DENIED = "denied"  # the sandbox refused the request (126)
    TIMED_OUT = "timed_out"  # the deadline passed (137)
    CANCELED = "canceled"  # the caller cancelled (130)
    INVALID = "invalid"  # could never become a run, e.g. does not parse (2)
    INTERNAL = "internal"  # the sandbox itself failed (125)
    UNSUPPORTED = "unsupported"  # this runtime cannot carry the request out (126)

    def __str__(self) -> str:
        return self.value


OUTCOME_STATUS = {
    Outcome.NOT_FOUND: 127,
    Outcome.DENIED: 126,
    Outcome.TIMED_OUT: 137,
    Outcome.CANCELED: 130,
    Outcome.INVALID: 2,
    Outcome.INTERNAL: 125,
    Outcome.UNSUPPORTED: 126,
}


class SandboxError(Exception):
    """Raised by :meth:`Result.raise_for_outcome` for INVALID and INTERNAL results."""

    def __init__(self, result: Result) -> None:
        super().__init__(str(result.error) if result.error else str(result.outcome))
        self.result = result


@record
class Result:
    """What a run produced.  ``truncated`` is independent of the outcome."""

    outcome: Outcome
    exit_code: int
    stdout: bytes = b""
    stderr: bytes = b""
    truncated: bool = False
    error: Exception | None = None

    def ok(self) -> bool:
        """The one check for "did this work": completed with status 0."""
        return self.outcome is Outcome.COMPLETED and self.exit_code == 0

    def stopped(self) -> bool:
        """A limit ended the run (timeout or cancellation)."""
        return self.outcome in (Outcome.TIMED_OUT, Outcome.CANCELED)

    @property
    def stdout_text(self) -> str:
        return self.stdout.decode("utf-8", "replace")

    @property
    def stderr_text(self) -> str:
        return self.stderr.decode("utf-8", "replace")

    def raise_for_outcome(self) -> Result:
        """Raise :class:`SandboxError` for INVALID / INTERNAL; return self otherwise."""
        if self.outcome in (Outcome.INVALID, Outcome.INTERNAL):
            raise SandboxError(self)
        return self
