"""mv: move (rename) files (GNU coreutils: -f -n -u -v -T -t).

A rename within one mount is a VFS rename; across mounts (EXDEV) the tree is copied with
modes and times kept and the source removed, as GNU does.
"""

from __future__ import annotations

import errno
import stat as st

from vshell.command import Invocation
from vshell.commands._lib.copy import Copier, CopyOptions, is_inside, same_file
from vshell.commands._lib.futil import last_switch, quoteaf, strerror, write_line
from vshell.commands._lib.helptext import help_text
from vshell.commands._lib.opts import parse
from vshell.commands._lib.targets import pairs

HELP = help_text("mv")


def _remove_tree(inv: Invocation, path: str) -> None:
    fs = inv.fs
    if fs.isdir(path) and not fs.islink(path):
        for name in fs.listdir(path):
            _remove_tree(inv, path.rstrip("/") + "/" + name)
        fs.rmdir(path)
    else:
        fs.unlink(path)


def run(inv: Invocation) -> int:
    opts = parse(
        inv, "fint:Tuv",
        ["force", "interactive", "no-clobber", "target-directory=", "no-target-directory",
         "update", "verbose"],
        help_text=HELP,
    )
    # -f and -i undo an earlier -n (the last of them wins); the rest are plain switches
    no_clobber = last_switch(opts.items, ("-n", "--no-clobber"),
                             ("-f", "--force", "-i", "--interactive"))
    target_dir = opts.last("-t", "--target-directory")
    no_target = opts.has("-T", "--no-target-directory")
    update = opts.has("-u", "--update")
    verbose = opts.has("-v", "--verbose")
    fs = inv.fs
    status = 0
    for src, dst in pairs(inv, opts.operands, target_dir, no_target):
        inv.cancel.check()
        s_abs, d_abs = inv.abs(src), inv.abs(dst)
        try:
            s = fs.lstat(s_abs)
        except OSError as e:
            inv.error(f"cannot stat {quoteaf(src)}: {strerror(e)}")
            status = 1
            continue
        try:
            d = fs.lstat(d_abs)
        except OSError:
            d = None
        if dst.endswith("/") and not st.S_ISDIR(s.st_mode) and (
                d is None or not st.S_ISDIR(d.st_mode)):
            inv.error(f"cannot move {quoteaf(src)} to {quoteaf(dst)}: Not a directory")
            status = 1
            continue
        if d is not None and same_file(s, d):
            inv.error(f"{quoteaf(src)} and {quoteaf(dst)} are the same file")
            status = 1
            continue
        if d is not None and no_clobber:
            continue
        if d is not None and update and d.st_mtime_ns >= s.st_mtime_ns:
            continue
        if st.S_ISDIR(s.st_mode) and is_inside(fs, s_abs, d_abs):
            inv.error(f"cannot move {quoteaf(src)} to a subdirectory of itself, {quoteaf(dst)}")
            status = 1
            continue
        if d is not None and st.S_ISDIR(d.st_mode) and not st.S_ISDIR(s.st_mode):
            inv.error(f"cannot overwrite directory {quoteaf(dst)} with non-directory")
            status = 1
            continue
        if d is not None and st.S_ISDIR(s.st_mode) and not st.S_ISDIR(d.st_mode):
            inv.error(f"cannot overwrite non-directory {quoteaf(dst)} "
                      f"with directory {quoteaf(src)}")
            status = 1
            continue
        try:
            fs.rename(s_abs, d_abs)
        except OSError as e:
            if e.errno != errno.EXDEV:
                inv.error(f"cannot move {quoteaf(src)} to {quoteaf(dst)}: {strerror(e)}")
                status = 1
                continue
            if not _cross_mount(inv, src, s_abs, dst, d_abs, d):
                status = 1
                continue
        if verbose:
            write_line(inv, f"renamed {quoteaf(src)} -> {quoteaf(dst)}")
    return status


def _cross_mount(inv: Invocation, src: str, s_abs: str, dst: str, d_abs: str, d: object) -> bool:
    fs = inv.fs
    if d is not None:
        try:
            _remove_tree(inv, d_abs)
        except OSError as e:
            inv.error(f"cannot remove {quoteaf(dst)}: {strerror(e)}")
            return False
    copier = Copier(inv, CopyOptions(recursive=True, deref="never", preserve_mode=True,
                                     preserve_times=True, prog="mv"))
    if not copier.copy(src, s_abs, dst, d_abs):
        return False
    try:
        _remove_tree(inv, s_abs)
    except OSError as e:
        inv.error(f"cannot remove {quoteaf(src)}: {strerror(e)}")
        return False
    return fs is not None
