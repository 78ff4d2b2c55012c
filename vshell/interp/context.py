"""What every shell of one run shares: the :class:`RunContext` (filesystem, cancel token,
commands, jobs) and the types of a shell's descriptors and background jobs.

A leaf of the interpreter: the modules under the shell take these types from here, not from
:mod:`vshell.interp.shell`.
"""

from __future__ import annotations

import itertools
import threading
from _weakrefset import WeakSet  # weakref.WeakSet, without the rest of weakref

from vshell.command import CancelToken, Command, NestedRequest
from vshell.records import field, record

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    import weakref
    from collections.abc import Callable, Iterator
    from typing import Any, TypeAlias

    from vshell.interp.limits import JobSlots
    from vshell.vfs.core import VFS

__all__ = ["Fds", "Job", "RunContext"]


@record
class Job:
    pid: int
    thread: threading.Thread
    status: int | None = None
    cancel: CancelToken | None = None  # the job's own token: `kill` cancels it
    command: str = ""
    source: Any = None  # the `cmd &` it runs (an AndOr), for `jobs` and `%name` specs
    killed: int = 0  # the signal `kill` ended it with (its status is then 128 + it)


@record
class RunContext:
    """What every shell of one run shares."""

    fs: VFS
    cancel: CancelToken
    commands: dict[str, Command] = field(default_factory=dict)
    http: Any = None
    python: Any = None
    nested: Callable[[NestedRequest], Any] | None = None
    jobs: dict[int, Job] = field(default_factory=dict)
    pids: Iterator[int] = field(default_factory=lambda: itertools.count(1000))
    lock: threading.Lock = field(default_factory=threading.Lock)
    nesting: int = 0
    parse_failed: bool = False
    parse_error_message: str = ""
    last_not_found: bool = False
    signals: dict[str, list[str]] = field(default_factory=dict)  # `kill -SIG PID` by $$
    shells: set[str] = field(default_factory=set)  # the $$ of each shell process running
    job_slots: JobSlots | None = None  # shared by the sandbox's shells (None: no cap)
    # files the run's redirections opened: `exec N<&-` closes one when no descriptor holds it
    # (made by the first, see opened_by_redirections: most runs open none)
    redirect_opened: weakref.WeakSet[Any] | None = None
    # the run's threads for pipeline stages and nested runs (vshell.interp.worker.Pool,
    # shut down when exec returns); None: the shared pool
    pool: Any = None
    # this run, as a token: what the shells found that may change behind its back (command
    # searches over host mounts) is remembered with it, so a new run starts afresh
    run: object = field(default_factory=object)
    # the script runs on the thread that called exec: the commands that may not stop when
    # told run on a thread of their own (vshell.interp.offload)
    on_caller: bool = False


Fds: TypeAlias = "dict[int, Any]"


def opened_by_redirections(ctx: RunContext) -> weakref.WeakSet[Any]:
    """The set of the streams the run's redirections opened, made on first use."""
    opened = ctx.redirect_opened
    if opened is None:
        with ctx.lock:
            opened = ctx.redirect_opened
            if opened is None:
                opened = ctx.redirect_opened = WeakSet()
    return opened
