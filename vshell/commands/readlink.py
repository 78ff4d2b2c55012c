"""readlink: print resolved symbolic links or canonical file names.

GNU options: -f -e -m -n -q -s -v -z.
"""

from __future__ import annotations

from vshell.command import Invocation
from vshell.commands._lib.futil import enc, quotef, strerror
from vshell.commands._lib.helptext import help_text
from vshell.commands._lib.opts import parse
from vshell.commands._lib.resolve import canonical

HELP = help_text("readlink")


def run(inv: Invocation) -> int:
    opts = parse(
        inv, "femnqsvz",
        ["canonicalize", "canonicalize-existing", "canonicalize-missing", "no-newline",
         "quiet", "silent", "verbose", "zero"],
        help_text=HELP,
    )
    mode = None
    verbose = False
    for key, _ in opts.items:
        if key in ("-f", "--canonicalize"):
            mode = "f"
        elif key in ("-e", "--canonicalize-existing"):
            mode = "e"
        elif key in ("-m", "--canonicalize-missing"):
            mode = "m"
        elif key in ("-v", "--verbose"):
            verbose = True
        elif key in ("-q", "-s", "--quiet", "--silent"):
            verbose = False
    end = b"\0" if opts.has("-z", "--zero") else b"\n"
    ops = opts.operands
    opts.required(inv)
    if opts.has("-n", "--no-newline"):
        if len(ops) > 1:
            inv.error("ignoring --no-newline with multiple arguments")
        else:
            end = b""
    status = 0
    for op in ops:
        try:
            result = canonical(inv, op, mode) if mode else inv.fs.readlink(inv.abs(op))
        except OSError as e:
            if verbose:
                inv.error(f"{quotef(op)}: {strerror(e)}")
            status = 1
            continue
        inv.stdout.write(enc(result) + end)
    return status
