"""touch: change file timestamps, creating missing files (GNU coreutils: -a -c -d -h -m -r -t)."""

from __future__ import annotations

import errno
import re
import time

from vshell.command import Exit, Invocation
from vshell.commands._lib import dateparse as _dateparse
from vshell.commands._lib.futil import invalid_arg, quote, quoteaf, strerror
from vshell.commands._lib.helptext import help_text
from vshell.commands._lib.opts import parse
from vshell.commands._lib.timefmt import zone

HELP = help_text("touch")


def parse_stamp(stamp: str, now: float, inv: Invocation) -> int:
    """``[[CC]YY]MMDDhhmm[.ss]`` in the command's zone, as seconds since the epoch."""
    import datetime as _dt

    m = re.fullmatch(r"(\d{8}|\d{10}|\d{12})(?:\.(\d{2}))?", stamp)
    if not m:
        raise ValueError(stamp)
    digits = m.group(1)
    tz = zone(inv.env)
    if len(digits) == 8:
        year = _dt.datetime.fromtimestamp(now, tz).year
    elif len(digits) == 10:
        yy = int(digits[:2])
        year = 1900 + yy if yy >= 69 else 2000 + yy
        digits = digits[2:]
    else:
        year = int(digits[:4])
        digits = digits[4:]
    mo, d, h, mi = (int(digits[i : i + 2]) for i in (0, 2, 4, 6))
    sec = int(m.group(2) or 0)
    if sec == 60:
        sec = 59
    try:
        return int(_dt.datetime(year, mo, d, h, mi, sec, tzinfo=tz).timestamp())
    except ValueError:
        raise ValueError(stamp) from None


def run(inv: Invocation) -> int:
    opts = parse(
        inv, "acd:fhmr:t:",
        ["no-create", "date=", "no-dereference", "reference=", "time="],
        help_text=HELP,
    )
    atime = mtime = False
    create = True
    follow = True
    when_ns: tuple[int, int] | None = None
    now = time.time()
    for key, val in opts.items:
        if key == "-a":
            atime = True
        elif key == "-m":
            mtime = True
        elif key in ("-c", "--no-create"):
            create = False
        elif key in ("-h", "--no-dereference"):
            follow = False
            create = False
        elif key == "--time":
            if val in ("access", "atime", "use"):
                atime = True
            elif val in ("modify", "mtime"):
                mtime = True
            else:
                raise invalid_arg(
                    inv, val or "", "--time", [["atime", "access", "use"], ["mtime", "modify"]]
                )
        elif key in ("-d", "--date"):
            try:
                secs, nanos = _dateparse.parse(val or "", now, zone(inv.env))
            except ValueError:
                raise Exit(1, f"invalid date format {quote(val or '')}") from None
            ns = secs * 1_000_000_000 + nanos
            when_ns = (ns, ns)
        elif key == "-t":
            try:
                secs = parse_stamp(val or "", now, inv)
            except ValueError:
                raise Exit(1, f"invalid date format {quote(val or '')}") from None
            when_ns = (secs * 1_000_000_000, secs * 1_000_000_000)
        elif key in ("-r", "--reference"):
            try:
                ref = inv.fs.stat(inv.abs(val or ""))
            except OSError as e:
                raise Exit(1, f"failed to get attributes of {quoteaf(val or '')}: "
                              f"{strerror(e)}") from None
            when_ns = (_ns(ref, "atime"), _ns(ref, "mtime"))
    if not atime and not mtime:
        atime = mtime = True
    if not opts.operands:
        inv.stderr.write(b"touch: missing file operand\n"
                         b"Try 'touch --help' for more information.\n")
        return 1
    status = 0
    fs = inv.fs
    for op in opts.operands:
        inv.cancel.check()
        path = inv.abs(op)
        try:
            exists = fs.lexists(path) if hasattr(fs, "lexists") else (
                fs.exists(path) or fs.islink(path))
            if not exists:
                if not create:
                    continue
                with fs.open(path, "ab"):
                    pass
                if when_ns is None and atime and mtime:
                    continue
        except OSError as e:
            if e.errno == errno.EISDIR:
                pass
            else:
                inv.error(f"cannot touch {quoteaf(op)}: {strerror(e)}")
                status = 1
                continue
        try:
            if when_ns is None:
                cur = time.time_ns()
                target = (cur, cur)
            else:
                target = when_ns
            if not (atime and mtime):
                old = fs.stat(path) if follow else fs.lstat(path)
                target = (target[0] if atime else _ns(old, "atime"),
                          target[1] if mtime else _ns(old, "mtime"))
            fs.utime(path, ns=target, follow_symlinks=follow)
        except OSError as e:
            inv.error(f"setting times of {quoteaf(op)}: {strerror(e)}")
            status = 1
    return status


def _ns(s: object, which: str) -> int:
    v = getattr(s, f"st_{which}_ns", None)
    if v is None:
        v = int(getattr(s, f"st_{which}") * 1_000_000_000)
    return int(v)
