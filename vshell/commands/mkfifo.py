"""mkfifo: make named pipes.

The VFS holds them (``VFS.mkfifo``): opening one waits for the other end, as on Linux, and
a reader sees end of input when the writers are done.  A name that cannot be made gets the
error GNU ``mkfifo`` prints (an existing name, a missing parent, a read-only mount).
"""

from __future__ import annotations

from vshell.command import Exit, Invocation
from vshell.commands._lib import modes as _modes
from vshell.commands._lib.futil import quoteaf, strerror
from vshell.commands._lib.helptext import help_text
from vshell.commands._lib.opts import parse

HELP = help_text("mkfifo")


def run(inv: Invocation) -> int:
    opts = parse(inv, "m:Z", ["mode=", "context=?"], help_text=HELP)
    mode_spec = opts.last("-m", "--mode")
    mode = None  # 0666 less the umask
    if mode_spec is not None:
        try:
            mode = _modes.apply(mode_spec, 0o666, False, 0)
        except ValueError:
            raise Exit(1, "invalid mode") from None
    opts.required(inv)
    status = 0
    for op in opts.operands:
        inv.cancel.check()
        try:
            inv.fs.mkfifo(inv.abs(op), mode)
        except OSError as e:
            inv.error(f"cannot create fifo {quoteaf(op)}: {strerror(e)}")
            status = 1
    return status
