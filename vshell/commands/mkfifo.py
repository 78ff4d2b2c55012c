"""mkfifo: named pipes cannot be made in the sandbox, and say so.

A FIFO needs open-blocks-until-the-other-end semantics across the commands of a run, which
the VFS backends do not model; a regular file in its place would make ``test -p`` lie and
readers see end of input early.  So every NAME is refused with the error GNU ``mkfifo``
would give where the name cannot be made (a missing parent, an existing name) and
"Operation not supported" otherwise: status 1, nothing created.
"""

from __future__ import annotations

import errno

from vshell.command import Exit, Invocation
from vshell.commands._lib import modes as _modes
from vshell.commands._lib.futil import quoteaf, strerror
from vshell.commands._lib.helptext import help_text
from vshell.commands._lib.opts import parse

HELP = help_text("mkfifo")


def run(inv: Invocation) -> int:
    opts = parse(inv, "m:Z", ["mode=", "context=?"], help_text=HELP)
    mode_spec = opts.last("-m", "--mode")
    if mode_spec is not None:
        try:
            _modes.apply(mode_spec, 0o666, True)
        except ValueError:
            raise Exit(1, "invalid mode") from None
    if not opts.operands:
        inv.stderr.write(b"mkfifo: missing operand\nTry 'mkfifo --help' for more information.\n")
        return 1
    for op in opts.operands:
        inv.cancel.check()
        inv.error(f"cannot create fifo {quoteaf(op)}: {strerror(_why_not(inv, op))}")
    return 1


def _why_not(inv: Invocation, name: str) -> OSError:
    """The error for ``name``: the one mknod(2) would give first, else ENOTSUP."""
    path = inv.abs(name).rstrip("/") or "/"
    fs = inv.fs
    if fs.lexists(path):
        return OSError(errno.EEXIST, "File exists")
    parent = path.rsplit("/", 1)[0] or "/"
    if not fs.exists(parent):
        return OSError(errno.ENOENT, "No such file or directory")
    if not fs.isdir(parent):
        return OSError(errno.ENOTDIR, "Not a directory")
    return OSError(errno.ENOTSUP, "Operation not supported")
