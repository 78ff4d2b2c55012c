"""basename: strip directory and suffix from file names (GNU coreutils: -a -s -z)."""

from __future__ import annotations

from vshell.command import Invocation
from vshell.commands._lib.futil import enc, quote
from vshell.commands._lib.helptext import help_text
from vshell.commands._lib.opts import parse

HELP = help_text("basename")


def base(name: str, suffix: str = "") -> str:
    """POSIX basename; the suffix is removed only if something remains."""
    stripped = name.rstrip("/")
    if not stripped:
        return "/" if name else ""
    result = stripped.rsplit("/", 1)[-1]
    if suffix and result != suffix and result.endswith(suffix):
        result = result[: -len(suffix)]
    return result


def _usage(inv: Invocation, msg: str) -> int:
    inv.stderr.write(enc(f"basename: {msg}\nTry 'basename --help' for more information.\n"))
    return 1


def run(inv: Invocation) -> int:
    opts = parse(inv, "as:z", ["multiple", "suffix=", "zero"], help_text=HELP)
    multiple = opts.has("-a", "--multiple", "-s", "--suffix")
    suffix = opts.last("-s", "--suffix") or ""
    end = b"\0" if opts.has("-z", "--zero") else b"\n"
    names = opts.operands
    if not names:
        return _usage(inv, "missing operand")
    if not multiple:
        if len(names) > 2:
            return _usage(inv, f"extra operand {quote(names[2])}")
        if len(names) == 2:
            suffix = names[1]
        names = names[:1]
    inv.stdout.write(b"".join(enc(base(n, suffix)) + end for n in names))
    return 0
