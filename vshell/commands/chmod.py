"""chmod: change file mode bits (GNU coreutils: octal and symbolic modes, -R -v -c -f,
--reference).  With -R, symbolic links met during the walk are skipped, as GNU does."""

from __future__ import annotations

import stat as st

from vshell.command import Exit, Invocation
from vshell.commands._lib import modes as _modes
from vshell.commands._lib.futil import child_name, enc, quote, quoteaf, strerror, write_line
from vshell.commands._lib.helptext import help_text
from vshell.commands._lib.opts import parse

HELP = help_text("chmod")


def _split_args(args: list[str]) -> list[str]:
    """Let ``chmod -w f`` work: a mode-looking ``-rwx`` argument is not an option."""
    out: list[str] = []
    for a in args:
        if len(a) > 1 and a[0] == "-" and all(c in "rwxXstugoa+-=,0123456789" for c in a[1:]):
            out.append("\0" + a)
        else:
            out.append(a)
    return out


def run(inv: Invocation) -> int:
    args = _split_args(inv.args)
    opts = parse(
        inv, "cfvR",
        ["changes", "silent", "quiet", "verbose", "reference=", "recursive",
         "preserve-root", "no-preserve-root"],
        args=args, help_text=HELP,
    )
    ops = [a.removeprefix("\0") for a in opts.operands]
    changes = opts.has("-c", "--changes")
    verbose = opts.has("-v", "--verbose")
    quiet = opts.has("-f", "--silent", "--quiet")
    recursive = opts.has("-R", "--recursive")
    ref = opts.last("--reference")
    fs = inv.fs

    def usage(msg: str) -> Exit:
        inv.stderr.write(enc(f"chmod: {msg}\nTry 'chmod --help' for more information.\n"))
        return Exit(1)

    ref_mode: int | None = None
    if ref is not None:
        try:
            ref_mode = st.S_IMODE(fs.stat(inv.abs(ref)).st_mode)
        except OSError as e:
            raise Exit(1, f"failed to get attributes of {quoteaf(ref)}: {strerror(e)}") from None
        spec = ""
    else:
        if not ops:
            raise usage("missing operand")
        spec = ops.pop(0)
        if not ops:
            raise usage(f"missing operand after {quote(spec)}")
        if not _modes.valid(spec):
            raise usage(f"invalid mode: {quote(spec)}")
    if not ops:
        raise usage("missing operand")
    status = 0

    def one(shown: str, path: str, top: bool) -> None:
        nonlocal status
        inv.cancel.check()
        try:
            lst = fs.lstat(path)
        except OSError as e:
            if not quiet:
                inv.error(f"cannot access {quoteaf(shown)}: {strerror(e)}")
            status = 1
            return
        if st.S_ISLNK(lst.st_mode):
            if not top:
                return
            try:
                s = fs.stat(path)
            except OSError as e:
                if not quiet:
                    inv.error(f"cannot operate on dangling symlink {quoteaf(shown)}")
                status = 1
                del e
                return
        else:
            s = lst
        old = st.S_IMODE(s.st_mode)
        new = ref_mode if ref_mode is not None else _modes.apply(spec, old, st.S_ISDIR(s.st_mode))
        try:
            if new != old:
                fs.chmod(path, new)
        except OSError as e:
            if not quiet:
                inv.error(f"changing permissions of {quoteaf(shown)}: {strerror(e)}")
            status = 1
            return
        if verbose or (changes and new != old):
            if new != old:
                write_line(inv, f"mode of {quoteaf(shown)} changed from {old:04o} "
                                f"({_modes.describe(old)}) to {new:04o} ({_modes.describe(new)})")
            else:
                write_line(inv, f"mode of {quoteaf(shown)} retained as {old:04o} "
                                f"({_modes.describe(old)})")
        if recursive and st.S_ISDIR(lst.st_mode):
            try:
                names = sorted(fs.listdir(path))
            except OSError as e:
                inv.error(f"cannot read directory {quoteaf(shown)}: {strerror(e)}")
                status = 1
                return
            for name in names:
                child = child_name(shown, name)
                one(child, path.rstrip("/") + "/" + name, False)

    for op in ops:
        one(op, inv.abs(op), True)
    return status
