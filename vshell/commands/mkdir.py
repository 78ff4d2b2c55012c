"""mkdir: make directories (GNU coreutils ``mkdir``: -p -m -v)."""

from __future__ import annotations

import errno

from vshell.command import Exit, Invocation
from vshell.commands._lib import modes as _modes
from vshell.commands._lib.futil import quote, strerror, write_line
from vshell.commands._lib.helptext import help_text
from vshell.commands._lib.opts import parse

HELP = help_text("mkdir")


def run(inv: Invocation) -> int:
    opts = parse(inv, "m:pv", ["mode=", "parents", "verbose"], help_text=HELP)
    parents = opts.has("-p", "--parents")
    verbose = opts.has("-v", "--verbose")
    mode_spec = opts.last("-m", "--mode")
    mode: int | None = None
    if mode_spec is not None:
        try:
            mode = _modes.apply(mode_spec, 0o777, True)
        except ValueError:
            raise Exit(1, f"invalid mode {quote(mode_spec)}") from None
    opts.required(inv)
    status = 0
    fs = inv.fs
    for op in opts.operands:
        inv.cancel.check()
        try:
            if parents:
                _make_parents(inv, op, verbose)
                if fs.isdir(inv.abs(op)):
                    if mode is not None:
                        fs.chmod(inv.abs(op), mode)
                    continue
            fs.mkdir(inv.abs(op), 0o777 if mode is None else mode)
            if mode is not None:
                fs.chmod(inv.abs(op), mode)
            if verbose:
                write_line(inv, f"mkdir: created directory {_q(op)}")
        except OSError as e:
            inv.error(f"cannot create directory {quote(e.filename if _is_prefix(e, op) else op)}"
                      f": {strerror(e)}")
            status = 1
    return status


def _q(name: str) -> str:
    from vshell.commands._lib.futil import quoteaf

    return quoteaf(name)


def _is_prefix(e: OSError, op: str) -> bool:
    return isinstance(e.filename, str) and getattr(e, "_mkdir_prefix", False)


def _make_parents(inv: Invocation, op: str, verbose: bool) -> None:
    """Create every missing ancestor of ``op`` (not ``op`` itself)."""
    fs = inv.fs
    absolute = op.startswith("/")
    parts = [p for p in op.split("/") if p]
    shown = "/" if absolute else ""
    for part in parts[:-1]:
        shown = shown + part if (not shown or shown.endswith("/")) else shown + "/" + part
        if part in (".", ".."):
            continue
        path = inv.abs(shown)
        if fs.isdir(path):
            continue
        try:
            fs.mkdir(path, 0o777)
        except FileExistsError:
            if fs.isdir(path):
                continue
            err = OSError(errno.ENOTDIR, "Not a directory", shown)
            err._mkdir_prefix = True  # type: ignore[attr-defined]  # a marker read by the message code
            raise err from None
        except OSError as e:
            e2 = OSError(e.errno, e.strerror, shown)
            e2._mkdir_prefix = True  # type: ignore[attr-defined]  # a marker read by the message code
            raise e2 from None
        if verbose:
            write_line(inv, f"mkdir: created directory {_q(shown)}")
