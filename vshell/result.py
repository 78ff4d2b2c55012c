"""The execution-result contract: one shape for every run, top-level or nested.

``Result.outcome`` says why the run ended (machine meaning); stderr stays what a person
reads.  Only INVALID and INTERNAL carry an error.
"""

from __future__ import annotations

from vshell.records import record

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    import enum

    class Outcome(enum.Enum):
        """Why a run ended, with the exit code each ending reports."""

        COMPLETED = "completed"
        NOT_FOUND = "not_found"
        DENIED = "denied"
        TIMED_OUT = "timed_out"
        CANCELED = "canceled"
        INVALID = "invalid"
        INTERNAL = "internal"
        UNSUPPORTED = "unsupported"

else:  # the same members without enum, whose import (with functools) costs every `vshell -c`
    _MEMBERS = (
        ("COMPLETED", "completed"),  # ran to completion; its own status
        ("NOT_FOUND", "not_found"),  # ended on an unresolved command name (127)
        ("DENIED", "denied"),  # the sandbox refused the request (126)
        ("TIMED_OUT", "timed_out"),  # the deadline passed (137)
        ("CANCELED", "canceled"),  # the caller cancelled (130)
        ("INVALID", "invalid"),  # could never become a run, e.g. does not parse (2)
        ("INTERNAL", "internal"),  # the sandbox itself failed (125)
        ("UNSUPPORTED", "unsupported"),  # this runtime cannot carry the request out (126)
    )

    class _Members(type):
        """What the class of an Enum answers: iteration, ``len``, and ``Outcome(value)``
        giving the member of that value (ValueError for another)."""

        def __iter__(cls):
            return iter(cls._members)

        def __len__(cls):
            return len(cls._members)

        def __call__(cls, value):
            for member in cls._members:
                if member.value == value:
                    return member
            raise ValueError(f"{value!r} is not a valid Outcome")

        def __getitem__(cls, name):
            member = cls.__dict__.get(name)
            if type(member) is not cls:
                raise KeyError(name)
            return member

    class Outcome(metaclass=_Members):
        """Why a run ended, with the exit code each ending reports: an Enum's members
        (``name``, ``value``, ``str`` is the value; pickled by value)."""

        __slots__ = ("name", "value")
        _members: tuple[Outcome, ...] = ()

        def __str__(self) -> str:
            return self.value

        def __repr__(self) -> str:
            return f"<Outcome.{self.name}: {self.value!r}>"

        def __reduce__(self):
            return Outcome, (self.value,)

        def __copy__(self):
            return self

        def __deepcopy__(self, memo):
            return self

    def _make_members() -> None:
        members = []
        for name, value in _MEMBERS:
            member = object.__new__(Outcome)
            member.name = name
            member.value = value
            setattr(Outcome, name, member)
            members.append(member)
        Outcome._members = tuple(members)

    _make_members()


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
