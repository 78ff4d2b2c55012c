"""Commands that may not stop when told, run on a thread of their own when a script runs on
its caller's thread.

``Sandbox.exec`` runs a script on the thread that called it when nothing of the run can
block outside vshell's reach (no host stream for input or output): handing a run to a
pooled thread and back costs some 40 us of CPU in switches, more than a short script takes.
Its guarantee stays the same: a run stopped by its timeout or a cancel returns within
``GRACE``, even if something in it will not stop.  Everything vshell runs checks the
cancel token at each command, loop pass, pipe and wait, but for the commands below, which
spend their time where no token is checked: jq's and yq's C library (``def f: f; f`` never
returns), the host's own commands (``Sandbox(commands=…)``: Python of the host's, which may
block), the network ones (a DNS look-up blocks in C) and the Python guest (its
first compile, and its host calls).  Those run on a pooled thread while the script's thread
waits for them, checking the token; when the run is stopped and the command has not ended
``GRACE`` later, the script walks away from it (the thread stays with its command, as the
run's own thread did before).
"""

from __future__ import annotations

from vshell.command import Cancelled
from vshell.interp.worker import GRACE, pool_of

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    from vshell.command import Command, Invocation
    from vshell.interp.context import RunContext

# shipped commands whose work runs where the cancel token is not checked
OFFLOADED = frozenset({"jq", "yq", "python", "python3", "curl", "wget"})

_POLL = 0.05  # seconds between two looks at the token while the command runs


def needs_thread(ctx: RunContext, cmd: Command) -> bool:
    """Whether ``cmd`` must run on a thread of its own in this run."""
    return ctx.on_caller and (cmd.name in OFFLOADED or ctx.commands.get(cmd.name) is cmd)


def call_offloaded(ctx: RunContext, cmd: Command, inv: Invocation) -> int:
    """``call_command(cmd, inv)`` on a pooled thread, waited for as the run's thread waits
    for its script: the token is checked meanwhile, and a stopped run waits ``GRACE`` for
    the command before it raises :class:`Cancelled` without it."""
    from vshell.interp.dispatch import call_command

    box: list[int] = []
    error: list[BaseException] = []

    def job() -> None:
        try:
            box.append(call_command(cmd, inv))
        except BaseException as e:  # noqa: BLE001 - Cancelled, raised again below
            error.append(e)

    token = ctx.cancel
    token.waiting()  # the stages held back may be what the command reads
    handle = pool_of(ctx).spawn(job, f"vshell-{cmd.name}")
    while handle.is_alive():
        handle.join(_POLL)
        if token.reason is not None:
            handle.join(GRACE)
            if handle.is_alive():
                raise Cancelled(token.reason)
            break
    if error:
        raise error[0]
    if not box:  # it ended without a status: stopped by the token
        raise Cancelled(token.reason or "canceled")
    return box[0]
