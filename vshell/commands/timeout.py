"""timeout: run a command with a time limit (GNU coreutils: DURATION COMMAND…, -s -k
--preserve-status --foreground accepted).

The command runs through ``inv.run_command(argv, timeout=seconds)``: the interpreter gives
the child its own deadline (a child cancel token).  When the deadline passes the status is
124, as GNU's, unless --preserve-status.
"""

from __future__ import annotations

import re
import time

from vshell.command import Cancelled, Exit, Invocation
from vshell.commands._lib.futil import enc, quote
from vshell.commands._lib.helptext import help_text
from vshell.commands._lib.opts import parse

HELP = help_text("timeout")

_UNITS = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


def parse_duration(text: str) -> float | None:
    m = re.fullmatch(r"\s*\+?((?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)([smhd]?)", text)
    if not m:
        return None
    return float(m.group(1)) * _UNITS[m.group(2)]


def run(inv: Invocation) -> int:
    opts = parse(inv, "k:s:v", ["preserve-status", "foreground", "kill-after=", "signal=",
                                 "verbose"], permute=False, help_text=HELP, usage_status=125)
    ops = opts.operands
    if len(ops) < 2:
        inv.stderr.write(enc(("timeout: missing operand\n" if not ops else
                              f"timeout: missing operand after {quote(ops[0])}\n")
                             + "Try 'timeout --help' for more information.\n"))
        return 125
    duration = parse_duration(ops[0])
    if duration is None:
        inv.stderr.write(enc(f"timeout: invalid time interval {quote(ops[0])}\n"
                             "Try 'timeout --help' for more information.\n"))
        return 125
    kill_after = opts.last("-k", "--kill-after")
    if kill_after is not None and parse_duration(kill_after) is None:
        inv.stderr.write(enc(f"timeout: invalid time interval {quote(kill_after)}\n"
                             "Try 'timeout --help' for more information.\n"))
        return 125
    if inv.run_command is None:
        raise Exit(126, "running commands is not available here")
    start = time.monotonic()
    kwargs = {"timeout": duration} if duration > 0 else {}
    try:
        status = inv.run_command(ops[1:], **kwargs)
    except Cancelled:
        inv.cancel.check()  # our own run was cancelled: propagate
        status = 124
    timed_out = duration > 0 and time.monotonic() - start >= duration
    if timed_out:
        if opts.has("-v", "--verbose"):
            sig = opts.last("-s", "--signal") or "TERM"
            inv.error(f"sending signal {sig.upper().removeprefix('SIG')} to command "
                      f"{quote(ops[1])}")
        if opts.has("--preserve-status"):
            return 128 + 15 if status == 124 else status
        return 124
    return status
