"""ln: make links between files (GNU coreutils: -s -f -n -v -T -t -r? no).

A symbolic link whose target would resolve outside the mount holding the link is refused
("Permission denied"): the VFS never follows such a link, and an agent should learn at once
that it cannot reach there.
"""

from __future__ import annotations

import stat as st

from vshell.command import Exit, Invocation
from vshell.commands._lib.copy import basename, link_escapes
from vshell.commands._lib.futil import child_name, enc, quoteaf, strerror, write_line
from vshell.commands._lib.helptext import help_text
from vshell.commands._lib.opts import parse

HELP = help_text("ln")


def run(inv: Invocation) -> int:
    opts = parse(
        inv, "fnst:TvLP",
        ["force", "no-dereference", "symbolic", "target-directory=", "no-target-directory",
         "verbose", "logical", "physical"],
        help_text=HELP,
    )
    force = opts.has("-f", "--force")
    no_deref = opts.has("-n", "--no-dereference")
    symbolic = opts.has("-s", "--symbolic")
    verbose = opts.has("-v", "--verbose")
    target_dir = opts.last("-t", "--target-directory")
    no_target = opts.has("-T", "--no-target-directory")
    fs = inv.fs
    ops = opts.operands

    def usage(msg: str) -> Exit:
        inv.stderr.write(enc(f"ln: {msg}\nTry 'ln --help' for more information.\n"))
        return Exit(1)

    if not ops:
        raise usage("missing file operand")

    def is_dir_dest(name: str) -> bool:
        p = inv.abs(name)
        if no_deref and fs.islink(p):
            return False
        return fs.isdir(p)

    if target_dir is not None:
        if no_target:
            raise usage("cannot combine --target-directory (-t) and --no-target-directory (-T)")
        if not fs.isdir(inv.abs(target_dir)):
            raise Exit(1, f"target directory {quoteaf(target_dir)}: No such file or directory")
        work = [(t, child_name(target_dir, basename(t))) for t in ops]
    elif len(ops) == 1:
        work = [(ops[0], basename(ops[0]))]
    elif no_target:
        if len(ops) > 2:
            raise usage(f"extra operand {quoteaf(ops[2])}")
        work = [(ops[0], ops[1])]
    elif is_dir_dest(ops[-1]):
        work = [(t, child_name(ops[-1], basename(t))) for t in ops[:-1]]
    elif len(ops) > 2:
        why = "Not a directory" if fs.exists(inv.abs(ops[-1])) else "No such file or directory"
        raise Exit(1, f"target {quoteaf(ops[-1])}: {why}")
    else:
        work = [(ops[0], ops[1])]
    status = 0
    for target, link in work:
        inv.cancel.check()
        link_abs = inv.abs(link)
        kind = "symbolic link" if symbolic else "hard link"
        if not symbolic:
            try:
                ts = fs.lstat(inv.abs(target))
            except OSError as e:
                inv.error(f"failed to access {quoteaf(target)}: {strerror(e)}")
                status = 1
                continue
            if st.S_ISDIR(ts.st_mode):
                inv.error(f"{target}: hard link not allowed for directory")
                status = 1
                continue
        elif link_escapes(inv, target, link_abs):
            inv.error(f"failed to create symbolic link {quoteaf(link)}: Operation not permitted")
            status = 1
            continue
        if link.endswith("/") and not fs.isdir(link_abs):
            inv.error(f"failed to create {kind} {quoteaf(link)}: No such file or directory")
            status = 1
            continue
        exists = fs.islink(link_abs) or fs.exists(link_abs)
        if exists and force:
            try:
                if fs.isdir(link_abs) and not fs.islink(link_abs):
                    inv.error(f"{quoteaf(link)}: cannot overwrite directory")
                    status = 1
                    continue
                fs.unlink(link_abs)
            except OSError as e:
                inv.error(f"cannot remove {quoteaf(link)}: {strerror(e)}")
                status = 1
                continue
        try:
            if symbolic:
                fs.symlink(target, link_abs)
            else:
                fs.link(inv.abs(target), link_abs)
        except OSError as e:
            inv.error(f"failed to create {kind} {quoteaf(link)}: {strerror(e)}")
            status = 1
            continue
        if verbose:
            arrow = "->" if symbolic else "=>"
            write_line(inv, f"{quoteaf(link)} {arrow} {quoteaf(target)}")
    return status
