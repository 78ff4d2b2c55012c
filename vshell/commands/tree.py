"""tree: list directories as a tree (the ``tree`` 2.x default output: -a -d -L N -f -F -I -P
--dirsfirst --noreport).  Entries sort by name in byte order; symbolic links are shown as
``name -> target`` and never descended (links to directories count as directories)."""

from __future__ import annotations

import os
import stat as st

from vshell.command import Exit, Invocation
from vshell.commands._lib.futil import enc
from vshell.commands._lib.helptext import help_text
from vshell.commands._lib.modes import classify_suffix
from vshell.commands._lib.opts import parse
from vshell.text import glob

HELP = help_text("tree")

def _any_match(patterns: list[str], name: str) -> bool:
    """tree's ``-P``/``-I``: each pattern is alternatives split at every ``|``, matched
    against the entry's name as fnmatch(3) reads it (linear, no backtracking)."""
    return any(glob.fnmatch(alt, name) for p in patterns for alt in p.split("|"))


TEE, ELL, BAR, GAP = "├── ", "└── ", "│\u00a0\u00a0 ", "    "


class Tree:
    def __init__(self, inv: Invocation) -> None:
        self.inv = inv
        o = parse(inv, "adfFL:P:I:n", ["noreport", "dirsfirst", "charset=", "noreport"],
                  help_text=HELP)
        self.all = o.has("-a")
        self.dirs_only = o.has("-d")
        self.full = o.has("-f")
        self.classify = o.has("-F")
        self.report = not o.has("--noreport")
        self.dirs_first = o.has("--dirsfirst")
        self.include = o.all("-P")
        self.exclude = o.all("-I")
        level = o.last("-L")
        self.max_level: int | None = None
        if level is not None:
            if not level.isdigit() or int(level) < 1:
                inv.stderr.write(b"tree: Invalid level, must be greater than 0.\n")
                raise Exit(1)
            self.max_level = int(level)
        self.roots = o.operands or ["."]
        self.dirs = self.files = 0
        self.out: list[str] = []

    def _suffix(self, mode: int) -> str:
        return classify_suffix(mode) if self.classify else ""

    def _entries(self, path: str) -> list[tuple[str, os.stat_result, os.stat_result | None]]:
        fs = self.inv.fs
        result = []
        for name in fs.listdir(path):
            if name.startswith(".") and not self.all:
                continue
            child = path.rstrip("/") + "/" + name
            try:
                lst = fs.lstat(child)
            except OSError:
                continue
            try:
                target = fs.stat(child) if st.S_ISLNK(lst.st_mode) else lst
            except OSError:
                target = None
            is_dir = target is not None and st.S_ISDIR(target.st_mode)
            if self.dirs_only and not is_dir:
                continue
            if (not st.S_ISDIR(lst.st_mode) and self.include
                    and not _any_match(self.include, name)):
                continue
            if _any_match(self.exclude, name):
                continue
            result.append((name, lst, target))
        result.sort(key=lambda e: enc(e[0]))
        if self.dirs_first:
            result.sort(key=lambda e: not (e[2] is not None and st.S_ISDIR(e[2].st_mode)))
        return result

    def _walk(self, path: str, shown: str, prefix: str, depth: int) -> None:
        self.inv.cancel.check()
        try:
            entries = self._entries(path)
        except OSError:
            return
        for i, (name, lst, target) in enumerate(entries):
            last = i == len(entries) - 1
            child_shown = shown.rstrip("/") + "/" + name if self.full else name
            text = child_shown
            is_link = st.S_ISLNK(lst.st_mode)
            is_dir = target is not None and st.S_ISDIR(target.st_mode)
            if is_link:
                try:
                    link = self.inv.fs.readlink(path.rstrip("/") + "/" + name)
                except OSError:
                    link = ""
                text += " -> " + link
                if target is not None:
                    text += self._suffix(target.st_mode)
            else:
                text += self._suffix(lst.st_mode)
            self.out.append(prefix + (ELL if last else TEE) + text)
            if is_dir:
                self.dirs += 1
                if not is_link and (self.max_level is None or depth < self.max_level):
                    self._walk(path.rstrip("/") + "/" + name, child_shown,
                               prefix + (GAP if last else BAR), depth + 1)
            else:
                self.files += 1

    def run(self) -> int:
        status = 0
        fs = self.inv.fs
        for root in self.roots:
            path = self.inv.abs(root)
            if not fs.isdir(path):
                self.out.append(root + "  [error opening dir]")
                if fs.exists(path) or fs.islink(path):
                    self.files += 1
                else:
                    status = 2
                continue
            try:
                mode = fs.stat(path).st_mode
            except OSError:
                mode = 0
            self.out.append(root + self._suffix(mode))
            try:
                nonempty = bool(self._entries(path))
            except OSError:
                nonempty = False
            if nonempty:
                self.dirs += 1
            self._walk(path, root, "", 1)
        if self.report:
            d = f"{self.dirs} director{'y' if self.dirs == 1 else 'ies'}"
            if self.dirs_only:
                self.out.append(f"\n{d}")
            else:
                self.out.append(f"\n{d}, {self.files} file{'' if self.files == 1 else 's'}")
        self.inv.stdout.write(enc("\n".join(self.out) + "\n"))
        return status


def run(inv: Invocation) -> int:
    return Tree(inv).run()
