"""rm: remove files or directories (GNU coreutils ``rm``: -r -R -f -v -d).

Never prompts (commands have no terminal).  Symbolic links are removed, never followed.
Refuses ``.``/``..`` operands and, with -r, ``/`` (GNU's --preserve-root default).
"""

from __future__ import annotations

import errno
import stat as st

from vshell.command import Invocation
from vshell.commands._lib.futil import child_name, quoteaf, strerror, write_line
from vshell.commands._lib.helptext import help_text
from vshell.commands._lib.opts import parse

HELP = help_text("rm")


class _Rm:
    def __init__(self, inv: Invocation, force: bool, recursive: bool, dirs: bool,
                 verbose: bool) -> None:
        self.inv = inv
        self.force = force
        self.recursive = recursive
        self.dirs = dirs
        self.verbose = verbose

    def fail(self, shown: str, e: OSError | str) -> bool:
        text = e if isinstance(e, str) else strerror(e)
        self.inv.error(f"cannot remove {quoteaf(shown)}: {text}")
        return False

    def remove(self, shown: str, path: str, top: bool) -> bool:
        fs = self.inv.fs
        self.inv.cancel.check()
        try:
            # "link/" names the directory the link points to (POSIX trailing-slash rule)
            lst = fs.stat(path) if top and shown.endswith("/") else fs.lstat(path)
        except OSError as e:
            if self.force and e.errno == errno.ENOENT:
                return True
            return self.fail(shown, e)
        if st.S_ISDIR(lst.st_mode):
            if not self.recursive:
                if not self.dirs:
                    return self.fail(shown, "Is a directory")
                return self._rmdir(shown, path)
            ok = True
            try:
                names = sorted(fs.listdir(path))
            except OSError as e:
                return self.fail(shown, e)
            for name in names:
                child_shown = child_name(shown, name)
                ok = self.remove(child_shown, path.rstrip("/") + "/" + name, False) and ok
            if not ok:
                return False
            if fs.islink(path):
                return self.fail(shown, "Not a directory")
            return self._rmdir(shown, path)
        if shown.endswith("/") and not st.S_ISDIR(lst.st_mode):
            return self.fail(shown, "Not a directory")
        try:
            fs.unlink(path)
        except OSError as e:
            if self.force and e.errno == errno.ENOENT:
                return True
            return self.fail(shown, e)
        self._said(shown, False)
        return True

    def _rmdir(self, shown: str, path: str) -> bool:
        """Remove the (now empty) directory ``path``: shared by ``-d`` and the end of ``-r``."""
        try:
            self.inv.fs.rmdir(path)
        except OSError as e:
            return self.fail(shown, e)
        self._said(shown, True)
        return True

    def _said(self, shown: str, is_dir: bool) -> None:
        if self.verbose:
            what = "removed directory" if is_dir else "removed"
            write_line(self.inv, f"{what} {quoteaf(shown)}")


def run(inv: Invocation) -> int:
    opts = parse(
        inv,
        "fiIrRdv",
        ["force", "recursive", "dir", "verbose", "no-preserve-root", "preserve-root=?",
         "interactive=?"],
        help_text=HELP,
    )
    force = recursive = dirs = verbose = False
    preserve_root = True
    for key, _ in opts.items:
        if key in ("-f", "--force"):
            force = True
        elif key in ("-r", "-R", "--recursive"):
            recursive = True
        elif key in ("-d", "--dir"):
            dirs = True
        elif key in ("-v", "--verbose"):
            verbose = True
        elif key == "--no-preserve-root":
            preserve_root = False
        elif key == "--preserve-root":
            preserve_root = True
        elif key in ("-i", "-I", "--interactive"):
            force = False  # no terminal: nothing to ask, behave as without -f
    if force and not opts.operands:
        return 0
    opts.required(inv)
    worker = _Rm(inv, force, recursive, dirs, verbose)
    status = 0
    for op in opts.operands:
        last = op.rstrip("/").rsplit("/", 1)[-1]
        if last in (".", ".."):
            inv.error(f"refusing to remove '.' or '..' directory: skipping {quoteaf(op)}")
            status = 1
            continue
        path = inv.abs(op)
        if recursive and preserve_root and path == "/":
            inv.error("it is dangerous to operate recursively on '/'")
            inv.error("use --no-preserve-root to override this failsafe")
            status = 1
            continue
        if not worker.remove(op, path, True):
            status = 1
    return status
