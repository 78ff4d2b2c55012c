"""tee: copy standard input to standard output and files (GNU coreutils: -a -i -p)."""

from __future__ import annotations

from typing import IO

from vshell.command import Invocation
from vshell.commands._lib.futil import CHUNK, quotef, strerror
from vshell.commands._lib.helptext import help_text
from vshell.commands._lib.opts import parse

HELP = help_text("tee")


def run(inv: Invocation) -> int:
    opts = parse(inv, "aip", ["append", "ignore-interrupts", "output-error=?"], help_text=HELP)
    mode = "ab" if opts.has("-a", "--append") else "wb"
    nopipe = opts.has("-p", "--output-error")
    status = 0
    outs: list[tuple[str, IO[bytes] | None]] = []
    for op in opts.operands:
        try:
            if op == "-":
                outs.append((op, inv.stdout))
                continue
            outs.append((op, inv.fs.open(inv.abs(op), mode)))
        except OSError as e:
            inv.error(f"{quotef(op)}: {strerror(e)}")
            status = 1
    try:
        while True:
            inv.cancel.check()
            data = inv.stdin.read(CHUNK)
            if not data:
                break
            inv.stdout.write(data)
            for i, (name, f) in enumerate(outs):
                if f is None:
                    continue
                try:
                    f.write(data)
                except BrokenPipeError:
                    if not nopipe:
                        raise  # GNU tee dies of SIGPIPE: 141, no message
                    outs[i] = (name, None)  # -p: a pipe whose reader went is dropped quietly
                except OSError as e:
                    inv.error(f"{quotef(name)}: {strerror(e)}")
                    outs[i] = (name, None)
                    status = 1
    finally:
        for name, f in outs:
            if f is not None and f is not inv.stdout:
                try:
                    f.close()
                except OSError as e:
                    inv.error(f"{quotef(name)}: {strerror(e)}")
                    status = 1
    return status
