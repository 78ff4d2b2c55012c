"""date: print the date and time (GNU coreutils: -d STRING, -u, -r FILE, -I[FMT], -R,
--rfc-3339=FMT, +FORMAT).  The zone is ``TZ`` from the command's environment (UTC when
unset); setting the clock (-s) is refused.  See ``_dateparse`` for the -d grammar."""

from __future__ import annotations

import datetime as _dt
import time

from vshell.command import Exit, Invocation
from vshell.commands._lib import dateparse as _dateparse
from vshell.commands._lib.futil import enc, invalid_arg, quote, quotef, strerror
from vshell.commands._lib.helptext import help_text
from vshell.commands._lib.opts import parse
from vshell.commands._lib.timefmt import WidthTooLarge, strftime, zone

HELP = help_text("date")

_ISO = {
    "date": "%Y-%m-%d", "hours": "%Y-%m-%dT%H%:z", "minutes": "%Y-%m-%dT%H:%M%:z",
    "seconds": "%Y-%m-%dT%H:%M:%S%:z", "ns": "%Y-%m-%dT%H:%M:%S,%N%:z",
}
_RFC3339 = {"date": "%Y-%m-%d", "seconds": "%Y-%m-%d %H:%M:%S%:z",
            "ns": "%Y-%m-%d %H:%M:%S.%N%:z"}


def run(inv: Invocation) -> int:
    opts = parse(inv, "d:I::Rr:us:", ["date=", "iso-8601=?", "rfc-email", "rfc-822",
                                       "rfc-2822", "rfc-3339=", "reference=", "utc",
                                       "universal", "set=", "debug"], help_text=HELP)
    env = dict(inv.env)
    fmt: str | None = None
    when: str | None = None
    ref: str | None = None
    for key, val in opts.items:
        if key in ("-u", "--utc", "--universal"):
            env["TZ"] = "UTC0"
        elif key in ("-d", "--date"):
            when = val or ""
        elif key in ("-r", "--reference"):
            ref = val or ""
        elif key in ("-I", "--iso-8601"):
            choice = _match(val or "date", list(_ISO))
            if choice is None:
                raise invalid_arg(inv, val or "", "--iso-8601",
                                  [["hours"], ["minutes"], ["date"], ["seconds"], ["ns"]])
            fmt = _ISO[choice]
        elif key in ("-R", "--rfc-email", "--rfc-822", "--rfc-2822"):
            fmt = "%a, %d %b %Y %H:%M:%S %z"
        elif key == "--rfc-3339":
            choice = _match(val or "", list(_RFC3339))
            if choice is None:
                raise invalid_arg(inv, val or "", "--rfc-3339", [[k] for k in _RFC3339])
            fmt = _RFC3339[choice]
        elif key in ("-s", "--set"):
            raise Exit(1, "cannot set date: Operation not permitted")
    operands = opts.operands
    if operands:
        if operands[0].startswith("+"):
            if fmt is not None:
                raise Exit(1, "multiple output formats specified")
            fmt = operands[0][1:]
            if len(operands) > 1:
                inv.stderr.write(enc(f"date: extra operand {quote(operands[1])}\n"
                                     "Try 'date --help' for more information.\n"))
                return 1
        else:
            inv.stderr.write(enc(f"date: invalid date {quote(operands[0])}\n") if len(
                operands) == 1 else enc(f"date: extra operand {quote(operands[1])}\n"
                                        "Try 'date --help' for more information.\n"))
            return 1
    if when is not None and ref is not None:
        inv.stderr.write(b"date: the options to specify dates for printing are mutually "
                         b"exclusive\nTry 'date --help' for more information.\n")
        return 1
    tz = zone(env)
    now = time.time()
    if ref is not None:
        try:
            s = inv.fs.stat(inv.abs(ref))
        except OSError as e:
            raise Exit(1, f"{quotef(ref)}: {strerror(e)}") from None
        ns = getattr(s, "st_mtime_ns", None)
        ns = int(ns) if ns is not None else int(s.st_mtime * 1e9)
        secs, nanos = divmod(ns, 1_000_000_000)
    elif when is not None:
        try:
            secs, nanos = _dateparse.parse(when, now, tz)
        except (ValueError, OverflowError):
            raise Exit(1, f"invalid date {quote(when)}") from None
        if not -(1 << 63) <= secs < 1 << 63:  # past time_t: GNU's parser refuses it
            raise Exit(1, f"invalid date {quote(when)}")
    else:
        ns = time.time_ns()
        secs, nanos = divmod(ns, 1_000_000_000)
    try:
        d = _dt.datetime.fromtimestamp(secs, tz)
    except (OverflowError, ValueError, OSError):
        raise Exit(1, f"time {quote(str(secs))} is out of range") from None
    try:
        text = strftime(fmt if fmt is not None else "%a %b %e %H:%M:%S %Z %Y", d, nanos)
    except WidthTooLarge:
        raise Exit(1, "memory exhausted") from None
    inv.stdout.write(enc(text) + b"\n")
    return 0


def _match(value: str, choices: list[str]) -> str | None:
    if value in choices:
        return value
    found = [c for c in choices if c.startswith(value)] if value else []
    return found[0] if len(found) == 1 else None
