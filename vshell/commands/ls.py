"""ls: list directory contents (GNU coreutils ``ls``), as it prints when stdout is not a tty.

Commands never have a terminal in vshell, so the output is always one name per line with
the literal quoting style, exactly what ``ls | cat`` prints.  Entries sort by name in
C.UTF-8 byte order.  Owner and group are never looked up in the host's user database:
uid/gid 0 print as ``root``, any other id prints as its number (as ``ls -n`` would).
Times are shown in the zone named by the command's ``TZ`` (UTC when unset).
"""

from __future__ import annotations

import os
import stat as st
import time
from typing import TYPE_CHECKING, Any

from vshell.command import Exit, Invocation
from vshell.commands._lib.futil import (
    child_name,
    enc,
    group_name,
    human,
    invalid_arg,
    owner_name,
    quote,
    quoteaf,
    strerror,
)
from vshell.commands._lib.helptext import help_text
from vshell.commands._lib.modes import classify_suffix
from vshell.commands._lib.opts import parse, switches
from vshell.commands._lib.timefmt import localtime, strftime, zone
from vshell.commands._lib.width import char_width
from vshell.records import record

if TYPE_CHECKING:
    from vshell.vfs import VFS

HELP = help_text("ls")

LONG = [
    "all",
    "almost-all",
    "directory",
    "classify=?",
    "full-time",
    "group-directories-first",
    "no-group",
    "human-readable",
    "dereference",
    "numeric-uid-gid",
    "reverse",
    "recursive",
    "time-style=",
    "color=?",
    "format=",
    "sort=",
    "width=",
    "tabsize=",
]

SIX_MONTHS = 31556952 // 2


@record
class Entry:
    name: str  # as displayed
    path: str  # absolute virtual path
    st: Any  # lstat (or stat with -L); None if unknown
    target: str | None = None  # symlink target text
    tstat: Any = None  # stat of the symlink's target (None if dangling)


# the options that only turn a setting on
_SWITCHES = switches(directory="-d --directory", slash="-p", human="-h --human-readable",
                     deref="-L --dereference", long="-l", reverse="-r --reverse",
                     recursive="-R --recursive", dirs_first="--group-directories-first")


class Ls:
    def __init__(self, inv: Invocation) -> None:
        self.inv = inv
        o = parse(inv, "aAcdFghGiLlnoprRsStu1CxmT:w:", LONG + ["inode", "size"],
                  help_text=HELP, usage_status=2)
        self.operands = o.operands
        self.all = self.almost = self.directory = self.classify = self.slash = False
        self.long = self.human = self.deref = self.numeric = self.reverse = False
        self.recursive = self.dirs_first = False
        self.inode = o.has("-i", "--inode")
        self.blocks = o.has("-s", "--size")
        self.show_owner = self.show_group = True
        self.sort = "name"
        self.time = "mtime"
        self.style = "locale"
        self.layout = "single"  # or vertical (-C), horizontal (-x), commas (-m)
        self.line_width = -1  # not given with -w: $COLUMNS decides when a layout needs it
        self.tabsize = 8
        for key, val in o.items:
            if key in ("-l", "-g", "-o", "-n", "--numeric-uid-gid", "--full-time", "-1"):
                self.layout = "single"
            elif key in ("-C", "-x", "-m"):
                self.long = False
                self.layout = {"-C": "vertical", "-x": "horizontal", "-m": "commas"}[key]
            elif key in ("-w", "--width"):
                if not (val or "").isdigit():
                    raise Exit(2, f"invalid line width: {quote(val or '')}")
                self.line_width = int(val or "0")
            elif key in ("-T", "--tabsize"):
                if not (val or "").isdigit():
                    raise Exit(2, f"invalid tab size: {quote(val or '')}")
                self.tabsize = int(val or "0")

            if key in ("-a", "--all"):
                self.all, self.almost = True, False
            elif key in ("-A", "--almost-all"):
                self.almost, self.all = True, False
            elif key == "-c":
                self.time = "ctime"
            elif key == "-u":
                self.time = "atime"
            elif key in _SWITCHES:
                setattr(self, _SWITCHES[key], True)
            elif key in ("-F", "--classify"):
                if val not in (None, "always", "yes", "force", "auto", "tty", "if-tty",
                               "never", "no", "none"):
                    self._bad_arg(val or "", "--classify")
                self.classify = val not in ("never", "no", "none", "auto", "tty", "if-tty")
            elif key == "--full-time":
                self.long, self.style = True, "full-iso"
            elif key == "-g":
                self.long, self.show_owner = True, False
            elif key == "-o":
                self.long, self.show_group = True, False
            elif key in ("-G", "--no-group"):
                self.show_group = False
            elif key in ("-n", "--numeric-uid-gid"):
                self.long, self.numeric = True, True
            elif key == "-S":
                self.sort = "size"
            elif key == "-t":
                self.sort = "time"
            elif key == "--time-style":
                v = val or ""
                v = v.removeprefix("posix-")
                if v not in ("full-iso", "long-iso", "iso", "locale") and not v.startswith("+"):
                    self._bad_arg(v, "--time-style")
                self.style = v
            elif key == "--color":
                if val not in (None, "never", "no", "none", "auto", "tty", "if-tty"):
                    self._bad_arg(val or "", "--color")
            elif key == "--format":
                layouts = {"vertical": "vertical", "horizontal": "horizontal",
                           "across": "horizontal", "commas": "commas"}
                if val in ("long", "verbose"):
                    self.long, self.layout = True, "single"
                elif val in layouts:
                    self.long, self.layout = False, layouts[val or ""]
                elif val == "single-column":
                    self.long, self.layout = False, "single"
                else:
                    self._bad_arg(val or "", "--format")
            elif key == "--sort":
                choices = {"none": "name", "name": "name", "size": "size", "time": "time"}
                if val not in choices:
                    self._bad_arg(val or "", "--sort")
                self.sort = choices[val or ""]
            elif key == "-1":
                pass
        if self.line_width < 0:
            self.line_width = 80
            if self.layout != "single" and not self.long:
                self.line_width = self._env_width(inv.env.get("COLUMNS", ""))
        if self.time != "mtime" and not self.long and self.sort == "name":
            self.sort = "time"
        self.tz = zone(inv.env)
        self.now = time.time()
        self.status = 0
        self.out: list[bytes] = []
        self.printed = False

    def _env_width(self, text: str) -> int:
        """$COLUMNS when it is a number (0: no limit), else GNU's 80 (with a warning)."""
        if text.isdigit():
            return int(text)
        if text:
            self.inv.error(f"ignoring invalid width in environment variable COLUMNS: "
                           f"{quote(text)}")
        return 80

    def _bad_arg(self, val: str, opt: str) -> None:
        groups = {
            "--classify": [["always", "yes", "force"], ["never", "no", "none"],
                           ["auto", "tty", "if-tty"]],
            "--color": [["always", "yes", "force"], ["never", "no", "none"],
                        ["auto", "tty", "if-tty"]],
            "--time-style": [["full-iso"], ["long-iso"], ["iso"], ["locale"]],
            "--format": [["verbose", "long"], ["commas"], ["horizontal", "across"],
                         ["vertical"], ["single-column"]],
            "--sort": [["none"], ["time"], ["size"], ["extension"], ["version"],
                       ["width"], ["name"]],
        }[opt]
        raise invalid_arg(self.inv, val, opt, groups, 1)

    # --- gathering -------------------------------------------------------------------
    def _make(self, name: str, path: str, command_line: bool) -> Entry | None:
        fs = self.inv.fs
        try:
            lst = fs.lstat(path)
        except OSError as e:
            self.inv.error(f"cannot access {quoteaf(name if command_line else path_for(name))}: "
                           f"{strerror(e)}")
            self.status = 2 if command_line else 1
            return None
        entry = Entry(name, path, lst)
        if st.S_ISLNK(lst.st_mode):
            follow = self.deref or (
                command_line and not (self.long or self.classify or self.directory)
            ) or (command_line and name.endswith("/"))
            try:
                entry.tstat = fs.stat(path)
            except OSError:
                entry.tstat = None
            if follow and entry.tstat is not None:
                entry.st = entry.tstat
            elif self.deref and entry.tstat is None:
                self.inv.error(f"cannot access {quoteaf(name)}: No such file or directory")
                self.status = 1
            _read_target(fs, entry, path)
        return entry

    def _key_sort(self, entries: list[Entry]) -> list[Entry]:
        def name_key(e: Entry) -> bytes:
            return enc(e.name)

        entries = sorted(entries, key=name_key)
        if self.sort == "size":
            entries.sort(key=lambda e: -e.st.st_size)
        elif self.sort == "time":
            entries.sort(key=lambda e: -self._time_ns(e.st))
        if self.reverse:
            entries.reverse()
        if self.dirs_first:
            entries.sort(key=lambda e: not self._is_dir(e))
        return entries

    def _time_ns(self, s: Any) -> int:
        attr = {"mtime": "st_mtime_ns", "atime": "st_atime_ns", "ctime": "st_ctime_ns"}[self.time]
        v = getattr(s, attr, None)
        if v is None:
            v = int(getattr(s, "st_" + self.time) * 1_000_000_000)
        return int(v)

    def _is_dir(self, e: Entry) -> bool:
        if st.S_ISDIR(e.st.st_mode):
            return True
        return st.S_ISLNK(e.st.st_mode) and e.tstat is not None and st.S_ISDIR(e.tstat.st_mode)

    # --- output ----------------------------------------------------------------------
    def _indicator(self, mode: int) -> str:
        if st.S_ISDIR(mode):
            return "/"
        return classify_suffix(mode) if self.classify else ""

    def _name(self, e: Entry) -> str:
        text = e.name
        if self.long and e.target is not None:
            text += " -> " + e.target
            if (self.classify or self.slash) and e.tstat is not None:
                ind = self._indicator(e.tstat.st_mode)
                if self.classify or ind == "/":
                    text += ind
            return text
        if self.classify or self.slash:
            ind = self._indicator(e.st.st_mode)
            if self.classify or ind == "/":
                text += ind
        return text

    def _when(self, s: Any) -> str:
        ns = self._time_ns(s)
        secs = ns // 1_000_000_000
        d = localtime(secs, self.tz)
        style = self.style
        if style == "full-iso":
            return strftime("%Y-%m-%d %H:%M:%S.%N %z", d, ns % 1_000_000_000)
        if style == "long-iso":
            return strftime("%Y-%m-%d %H:%M", d)
        if style.startswith("+"):
            fmt = style[1:]
            old, _, new = fmt.partition("\n")
            fmt = old if not new or not self._recent(ns) else new
            return strftime(fmt, d, ns % 1_000_000_000)
        recent = self._recent(ns)
        if style == "iso":
            return strftime("%m-%d %H:%M" if recent else "%Y-%m-%d ", d)
        return strftime("%b %e %H:%M" if recent else "%b %e  %Y", d)

    def _recent(self, ns: int) -> bool:
        t = ns / 1e9
        if t > self.now:
            self.now = time.time()
        return self.now - SIX_MONTHS < t <= self.now

    def _blocks(self, s: Any) -> int:
        b = getattr(s, "st_blocks", None)
        if not b and st.S_ISREG(s.st_mode) and s.st_size:
            return -(-s.st_size // 4096) * 8  # a backend without block counts
        return int(b or 0)

    def _size_text(self, s: Any) -> str:
        if st.S_ISCHR(s.st_mode) or st.S_ISBLK(s.st_mode):
            rdev = getattr(s, "st_rdev", 0)
            return f"{os.major(rdev)}, {os.minor(rdev)}"
        return human(s.st_size) if self.human else str(s.st_size)

    def _prefix(self, entries: list[Entry]) -> dict[int, str]:
        """The -i / -s columns, right-aligned over the listing."""
        cols: dict[int, list[str]] = {id(e): [] for e in entries}
        if self.inode:
            w = max((len(str(e.st.st_ino)) for e in entries), default=0)
            for e in entries:
                cols[id(e)].append(str(e.st.st_ino).rjust(w))
        if self.blocks:
            texts = {id(e): self._blocks_text(self._blocks(e.st)) for e in entries}
            w = max((len(t) for t in texts.values()), default=0)
            for e in entries:
                cols[id(e)].append(texts[id(e)].rjust(w))
        return {k: "".join(p + " " for p in v) for k, v in cols.items()}

    def _blocks_text(self, blocks: int) -> str:
        return human(blocks * 512) if self.human else str(-(-blocks * 512 // 1024))

    def _print_entries(self, entries: list[Entry], widths_from: list[Entry] | None = None) -> None:
        out = self.out
        prefix = self._prefix(entries) if (self.inode or self.blocks) else {}
        if not self.long:
            cells = [prefix.get(id(e), "") + self._name(e) for e in entries]
            if self.layout == "single" or not cells:
                for text in cells:
                    out.append(enc(text) + b"\n")
            elif self.layout == "commas":
                out.append(enc(_commas(cells, self.line_width)))
            else:
                tabs = self.tabsize if self.line_width else 0  # GNU: no tabs without a limit
                out.append(enc(_columns(cells, self.line_width, tabs,
                                        self.layout == "vertical")))
            return
        rows = []
        for e in widths_from if widths_from is not None else entries:
            s = e.st
            owner = str(s.st_uid) if self.numeric else owner_name(s.st_uid)
            group = str(s.st_gid) if self.numeric else group_name(s.st_gid)
            rows.append((e, str(s.st_nlink), owner, group, self._size_text(s)))
        w_link = max((len(r[1]) for r in rows), default=0)
        w_own = max((len(r[2]) for r in rows), default=0)
        w_grp = max((len(r[3]) for r in rows), default=0)
        w_size = max((len(r[4]) for r in rows), default=0)
        by_id = {id(r[0]): r for r in rows}
        for e in entries:
            r = by_id[id(e)]
            parts = [st.filemode(e.st.st_mode), r[1].rjust(w_link)]
            if self.show_owner:
                parts.append(r[2].ljust(w_own))
            if self.show_group:
                parts.append(r[3].ljust(w_grp))
            parts.append(r[4].rjust(w_size))
            parts.append(self._when(e.st))
            parts.append(self._name(e))
            out.append(enc(prefix.get(id(e), "") + " ".join(parts)) + b"\n")

    def _list_dir(self, shown: str, path: str, command_line: bool, header: bool) -> None:
        fs = self.inv.fs
        try:
            names = fs.listdir(path)
        except OSError as e:
            self.inv.error(f"cannot open directory {quoteaf(shown)}: {strerror(e)}")
            self.status = 2 if command_line else 1
            return
        if header:
            if self.printed:
                self.out.append(b"\n")
            self.out.append(enc(shown) + b":\n")
        self.printed = True
        entries: list[Entry] = []
        if self.all:
            for dot in (".", ".."):
                try:
                    s = fs.lstat(path if dot == "." else _parent(path))
                except OSError:
                    try:  # above a mount there may be nothing to stat: show the dir itself
                        s = fs.lstat(path)
                    except OSError:
                        continue
                entries.append(Entry(dot, path + "/" + dot, s))
        for name in names:
            if name.startswith(".") and not (self.all or self.almost):
                continue
            child = path.rstrip("/") + "/" + name
            made = self._make_child(name, child, shown)
            if made is not None:
                entries.append(made)
        entries = self._key_sort(entries)
        if self.long or self.blocks:
            total = sum(self._blocks(e.st) for e in entries)
            self.out.append(b"total " + enc(self._blocks_text(total)) + b"\n")
        self._print_entries(entries)
        self._flush()
        if self.recursive:
            for entry in entries:
                if entry.name in (".", "..") or not st.S_ISDIR(entry.st.st_mode):
                    continue
                sub = child_name(shown, entry.name)
                self.inv.cancel.check()
                self._list_dir(sub, entry.path, False, True)

    def _make_child(self, name: str, path: str, shown: str) -> Entry | None:
        fs = self.inv.fs
        try:
            lst = fs.lstat(path)
        except OSError as e:
            full = _join(shown, name)
            self.inv.error(f"cannot access {quoteaf(full)}: {strerror(e)}")
            self.status = 1
            return None
        entry = Entry(name, path, lst)
        if st.S_ISLNK(lst.st_mode):
            try:
                entry.tstat = fs.stat(path)
            except OSError:
                entry.tstat = None
            if self.deref:
                if entry.tstat is not None:
                    entry.st = entry.tstat
                else:
                    full = _join(shown, name)
                    self.inv.error(f"cannot access {quoteaf(full)}: No such file or directory")
                    self.status = 1
            _read_target(fs, entry, path)
        return entry

    def _flush(self) -> None:
        if self.out:
            self.inv.stdout.write(b"".join(self.out))
            self.out = []

    def run(self) -> int:
        operands = self.operands or ["."]
        files: list[Entry] = []
        dirs: list[Entry] = []
        for op in operands:
            e = self._make(op, self.inv.abs(op), True)
            if e is None:
                continue
            if not self.directory and st.S_ISDIR(e.st.st_mode):
                dirs.append(e)
            else:
                files.append(e)
        if files:
            every = files + dirs
            files = self._key_sort(files)
            self._print_entries(files, widths_from=every if self.long else None)
            self.printed = True
            self._flush()
        dirs = self._key_sort(dirs)
        header = self.recursive or len(operands) > 1
        for e in dirs:
            self.inv.cancel.check()
            self._list_dir(e.name, e.path, True, header)
        self._flush()
        return self.status


MIN_COLUMN_WIDTH = 3


def _read_target(fs: VFS, entry: Entry, path: str) -> None:
    """A symlink entry's target as ``-l`` shows it ("" when it cannot be read)."""
    if st.S_ISLNK(entry.st.st_mode):
        try:
            entry.target = fs.readlink(path)
        except OSError:
            entry.target = ""


def _text_width(text: str) -> int:
    return sum(char_width(c) for c in text)


def _indent(frm: int, to: int, tabsize: int) -> str:
    """GNU ls's indent(): tabs where a whole tab stop fits, then spaces."""
    out = []
    while frm < to:
        if tabsize and to // tabsize > (frm + 1) // tabsize:
            out.append("\t")
            frm += tabsize - frm % tabsize
        else:
            out.append(" ")
            frm += 1
    return "".join(out)


def _layout(widths: list[int], line_width: int, by_columns: bool) -> list[int]:
    """The column widths of the widest layout that fits (GNU's calculate_columns)."""
    n = len(widths)
    max_idx = line_width // MIN_COLUMN_WIDTH if line_width else n
    max_cols = max(1, min(max_idx, n))
    best = None
    for cols in range(max_cols, 0, -1):
        col_arr = [MIN_COLUMN_WIDTH] * cols
        rows = (n + cols - 1) // cols
        line_len = cols * MIN_COLUMN_WIDTH
        ok = True
        for i, w in enumerate(widths):
            idx = i // rows if by_columns else i % cols
            real = w + (0 if idx == cols - 1 else 2)
            if col_arr[idx] < real:
                line_len += real - col_arr[idx]
                col_arr[idx] = real
                if line_width and line_len >= line_width:
                    ok = False
                    break
        if ok or cols == 1:
            best = col_arr
            break
    return best or [max(widths)]


def _columns(cells: list[str], line_width: int, tabsize: int, by_columns: bool) -> str:
    widths = [_text_width(c) for c in cells]
    col_arr = _layout(widths, line_width, by_columns)
    cols = len(col_arr)
    n = len(cells)
    lines = []
    if by_columns:
        rows = (n + cols - 1) // cols
        for row in range(rows):
            parts, pos, col, i = [], 0, 0, row
            while True:
                parts.append(cells[i])
                width = col_arr[col]
                col += 1
                nxt = i + rows
                if nxt >= n:
                    break
                parts.append(_indent(pos + widths[i], pos + width, tabsize))
                pos += width
                i = nxt
            lines.append("".join(parts))
        return "".join(line + "\n" for line in lines)
    parts, pos = [cells[0]], 0
    for i in range(1, n):
        col = i % cols
        if col == 0:
            parts.append("\n")
            pos = 0
        else:
            parts.append(_indent(pos + widths[i - 1], pos + col_arr[col - 1], tabsize))
            pos += col_arr[col - 1]
        parts.append(cells[i])
    return "".join(parts) + "\n"


def _commas(cells: list[str], line_width: int) -> str:
    parts, pos = [], 0
    for i, cell in enumerate(cells):
        length = _text_width(cell) if line_width else 0
        if i:
            if not line_width or pos + length + 2 < line_width:
                pos += 2
                parts.append(", ")
            else:
                pos = 0
                parts.append(",\n")
        parts.append(cell)
        pos += length
    return "".join(parts) + "\n"


def _parent(path: str) -> str:
    return path.rsplit("/", 1)[0] or "/"


def path_for(name: str) -> str:
    return name


def _join(shown: str, name: str) -> str:
    """GNU's ``attach``: a child of ``.`` is shown without the ``./`` prefix."""
    if shown == ".":
        return name
    return child_name(shown, name)




def run(inv: Invocation) -> int:
    return Ls(inv).run()
