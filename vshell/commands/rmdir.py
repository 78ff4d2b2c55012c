"""rmdir: remove empty directories (GNU coreutils: -p -v --ignore-fail-on-non-empty)."""

from __future__ import annotations

import errno

from vshell.command import Invocation
from vshell.commands._lib.futil import quoteaf, strerror, write_line
from vshell.commands._lib.helptext import help_text
from vshell.commands._lib.opts import parse

HELP = help_text("rmdir")


def run(inv: Invocation) -> int:
    opts = parse(inv, "pv", ["ignore-fail-on-non-empty", "parents", "verbose"], help_text=HELP)
    parents = opts.has("-p", "--parents")
    verbose = opts.has("-v", "--verbose")
    ignore = opts.has("--ignore-fail-on-non-empty")
    opts.required(inv)
    status = 0
    for op in opts.operands:
        inv.cancel.check()
        path = op
        while True:
            if verbose:
                write_line(inv, f"rmdir: removing directory, {quoteaf(path)}")
            try:
                inv.fs.rmdir(inv.abs(path))
            except OSError as e:
                if not (ignore and e.errno in (errno.ENOTEMPTY, errno.EEXIST)):
                    why = strerror(e)
                    if e.errno == errno.ENOTDIR and _names_link_to_dir(inv, path):
                        why = "Symbolic link not followed"  # GNU's words for "link/"
                    inv.error(f"failed to remove {quoteaf(path)}: {why}")
                    status = 1
                break
            if not parents:
                break
            stripped = path.rstrip("/")
            if "/" not in stripped:
                break
            path = stripped.rsplit("/", 1)[0].rstrip("/")
            if not path:
                break
    return status


def _names_link_to_dir(inv: Invocation, path: str) -> bool:
    """``path`` ends in ``/`` and names a symlink to a directory (rmdir removes no link)."""
    if not path.endswith("/"):
        return False
    full = inv.abs(path.rstrip("/") or "/")
    return inv.fs.islink(full) and inv.fs.isdir(full)
