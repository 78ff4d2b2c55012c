"""dirname: strip the last component from file names (GNU coreutils: -z)."""

from __future__ import annotations

from vshell.command import Invocation
from vshell.commands._lib.futil import enc
from vshell.commands._lib.helptext import help_text
from vshell.commands._lib.opts import parse

HELP = help_text("dirname")


def parent(name: str) -> str:
    """POSIX dirname, keeping a leading ``//`` as GNU does."""
    stripped = name.rstrip("/")
    if not stripped:
        return "/" if name else "."
    if "/" not in stripped:
        return "."
    head = stripped.rsplit("/", 1)[0]
    trimmed = head.rstrip("/")
    if not trimmed:
        return "//" if head == "//" else "/"
    return trimmed


def run(inv: Invocation) -> int:
    opts = parse(inv, "z", ["zero"], help_text=HELP)
    end = b"\0" if opts.has("-z", "--zero") else b"\n"
    opts.required(inv)
    inv.stdout.write(b"".join(enc(parent(n)) + end for n in opts.operands))
    return 0
