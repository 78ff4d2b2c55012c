"""du: estimate file space usage (GNU coreutils: -a -b -c -d N -h -k -m -s -0 --apparent-size
--max-depth).  Directories are walked in sorted name order (GNU uses readdir order); a file
with several hard links is counted once, at its first name met."""

from __future__ import annotations

import stat as st
from typing import Any

from vshell.command import Exit, Invocation
from vshell.commands._lib.futil import child_name, enc, human, quoteaf, strerror
from vshell.commands._lib.helptext import help_text
from vshell.commands._lib.opts import parse

HELP = help_text("du")


class Du:
    def __init__(self, inv: Invocation) -> None:
        self.inv = inv
        o = parse(inv, "0abcd:hkms", ["null", "all", "apparent-size", "bytes", "total",
                                       "max-depth=", "human-readable", "summarize"],
                  help_text=HELP)
        self.all = o.has("-a", "--all")
        self.apparent = o.has("--apparent-size", "-b", "--bytes")
        self.total = o.has("-c", "--total")
        self.end = b"\0" if o.has("-0", "--null") else b"\n"
        self.unit = 1024
        self.human = False
        for key, _ in o.items:
            if key in ("-b", "--bytes"):
                self.unit, self.human = 1, False
            elif key == "-k":
                self.unit, self.human = 1024, False
            elif key == "-m":
                self.unit, self.human = 1024 * 1024, False
            elif key in ("-h", "--human-readable"):
                self.human = True
        self.max_depth: int | None = None
        depth = o.last("-d", "--max-depth")
        if depth is not None:
            if not depth.isdigit():
                raise Exit(1, f"invalid maximum depth {quoteaf(depth)}")
            self.max_depth = int(depth)
        if o.has("-s", "--summarize"):
            if self.max_depth not in (None, 0) or self.all:
                inv.error("cannot both summarize and show all entries" if self.all else
                          f"warning: summarizing conflicts with --max-depth={self.max_depth}")
                inv.stderr.write(b"Try 'du --help' for more information.\n")
                raise Exit(1)
            self.max_depth = 0
        self.operands = o.operands or ["."]
        self.seen: set[tuple[int, int]] = set()
        self.status = 0

    def _size(self, s: Any) -> int:
        if self.apparent:
            return s.st_size
        blocks = getattr(s, "st_blocks", None)
        if not blocks and st.S_ISREG(s.st_mode) and s.st_size:
            # a backend without block counts (the in-memory one): whole 4 KiB blocks
            return -(-s.st_size // 4096) * 4096
        return int(blocks or 0) * 512

    def _print(self, size: int, name: str) -> None:
        if self.human:
            text = human(size)
        else:
            text = str(-(-size // self.unit))
        self.inv.stdout.write(enc(text) + b"\t" + enc(name) + self.end)

    def _walk(self, shown: str, path: str, depth: int) -> int:
        fs = self.inv.fs
        self.inv.cancel.check()
        try:
            s = fs.lstat(path)
        except OSError as e:
            self.inv.error(f"cannot access {quoteaf(shown)}: {strerror(e)}")
            self.status = 1
            return 0
        if not st.S_ISDIR(s.st_mode) and s.st_nlink > 1:
            key = (int(s.st_dev), int(s.st_ino))
            if key in self.seen:
                return 0
            self.seen.add(key)
        total = self._size(s)
        visible = self.max_depth is None or depth <= self.max_depth
        if st.S_ISDIR(s.st_mode):
            try:
                names = sorted(fs.listdir(path), key=enc)
            except OSError as e:
                self.inv.error(f"cannot read directory {quoteaf(shown)}: {strerror(e)}")
                self.status = 1
                names = []
            for name in names:
                child = child_name(shown, name)
                total += self._walk(child, path.rstrip("/") + "/" + name, depth + 1)
            if visible:
                self._print(total, shown)
        elif visible and (self.all or depth == 0):
            self._print(total, shown)
        return total

    def run(self) -> int:
        grand = 0
        for op in self.operands:
            grand += self._walk(op, self.inv.abs(op), 0)
        if self.total:
            self._print(grand, "total")
        return self.status


def run(inv: Invocation) -> int:
    return Du(inv).run()
