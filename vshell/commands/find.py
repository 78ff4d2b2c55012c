"""find: search for files in a directory hierarchy (GNU findutils subset).

Traversal order: GNU find walks directories in readdir order, which is whatever the file
system returns; vshell walks entries sorted by name (byte order) so output is
deterministic.  Everything else follows GNU: the expression grammar (``! -not -a -and -o -or
, ( )``), the implied ``-print``, ``-depth`` with ``-delete``, ``-prune``, ``-quit``,
``-exec … ;`` and ``-exec … {} +`` (run through ``inv.run_command``), and ``-printf``.

Tests: -name -iname -path -ipath -wholename -iwholename -regex -iregex -type -xtype -size
-empty -mtime -mmin -atime -amin -ctime -cmin -newer -anewer -cnewer -perm -user -group
-uid -gid -links -readable -writable -executable -true -false.
Actions: -print -print0 -printf -ls -exec -execdir -delete -prune -quit.
Options: -maxdepth -mindepth -depth -L -H -P -xdev -mount -noleaf -regextype -ignore_readdir_race.
"""

from __future__ import annotations

import os
import re
import stat as st
import time
from collections.abc import Callable
from functools import partialmethod
from typing import TYPE_CHECKING, Any

from vshell.command import Exit, Invocation
from vshell.commands._lib.child import run_child
from vshell.commands._lib.futil import child_name, enc, group_name, owner_name, quote
from vshell.commands._lib.helptext import help_text
from vshell.commands._lib.modes import apply as apply_mode
from vshell.commands._lib.statfields import blocks, by_letter, kind_letter
from vshell.commands._lib.timefmt import localtime, strftime, zone
from vshell.records import field, record
from vshell.text import glob, regex

if TYPE_CHECKING:
    from vshell.vfs import VFS

HELP = help_text("find")

Node = Callable[["Ctx"], bool]


class Quit(Exception):
    pass


@record
class Ctx:
    path: str  # as printed
    abs: str  # absolute virtual path
    depth: int
    start: str
    lst: Any
    follow: bool
    _st: Any = None
    prune: bool = False

    @property
    def st(self) -> Any:
        """The stat used by tests: the link itself, or its target under -L."""
        if self._st is None:
            self._st = self.lst
        return self._st


@record
class Finder:
    inv: Invocation
    follow: str = "P"  # P, L, H
    maxdepth: int | None = None
    mindepth: int = 0
    depth_first: bool = False
    status: int = 0
    has_action: bool = False
    batches: list[Any] = field(default_factory=list)
    now: float = field(default_factory=time.time)
    regextype: str = "emacs"


class Parser:
    def __init__(self, finder: Finder, tokens: list[str]) -> None:
        self.f = finder
        self.inv = finder.inv
        self.toks = tokens
        self.i = 0

    def error(self, msg: str) -> Exit:
        return Exit(1, msg)

    def peek(self) -> str | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self) -> str:
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def arg(self, pred: str) -> str:
        if self.i >= len(self.toks):
            raise self.error(f"missing argument to `{pred}'")
        return self.take()

    def parse(self) -> Node | None:
        if self.peek() is None:
            return None
        node = self.comma()
        if self.peek() is not None:
            tok = self.peek()
            if tok == ")":
                raise self.error("invalid expression; you have too many ')'")
            raise self.error(f"unexpected extra predicate '{tok}'")
        return node

    def comma(self) -> Node:
        left = self.or_()
        while self.peek() == ",":
            self.take()
            right = self.or_()
            left = _seq(left, right)
        return left

    def or_(self) -> Node:
        left = self.and_()
        while self.peek() in ("-o", "-or"):
            op = self.take()
            if self.peek() is None or self.peek() in (")", "-o", "-or", ","):
                raise self.error(f"invalid expression; you have used a binary operator '{op}' "
                                 "with nothing after it.")
            right = self.and_()
            left = _or(left, right)
        return left

    def and_(self) -> Node:
        left = self.not_()
        while True:
            tok = self.peek()
            if tok is None or tok in (")", "-o", "-or", ","):
                return left
            if tok in ("-a", "-and"):
                self.take()
                if self.peek() is None or self.peek() in (")", "-o", "-or", ","):
                    raise self.error(f"invalid expression; you have used a binary operator "
                                     f"'{tok}' with nothing after it.")
            right = self.not_()
            left = _and(left, right)

    def not_(self) -> Node:
        tok = self.peek()
        if tok in ("!", "-not"):
            self.take()
            if self.peek() is None:
                raise self.error(f"invalid expression; you have used a unary operator '{tok}' "
                                 "with nothing after it.")
            inner = self.not_()
            return lambda c: not inner(c)
        return self.primary()

    def primary(self) -> Node:
        tok = self.take()
        if tok == "(":
            if self.peek() == ")":
                raise self.error("invalid expression; empty parentheses are not allowed.")
            node = self.comma()
            if self.peek() != ")":
                raise self.error("invalid expression; I was expecting to find a ')' somewhere "
                                 "but did not see one.")
            self.take()
            return node
        if tok == ")":
            raise self.error("invalid expression; you have too many ')'")
        if not tok.startswith("-") or tok == "-":
            raise self.error(f"paths must precede expression: `{tok}'")
        handler = getattr(self, "p_" + tok[1:].replace("-", "_"), None)
        if handler is None or tok[1:] in ("", "a", "o"):
            raise self.error(f"unknown predicate `{tok}'")
        return handler(tok)

    # --- options (always true) ---------------------------------------------------------
    def _depth_limit(self, tok: str, limit: str) -> Node:
        """-maxdepth/-mindepth N: set the finder's ``limit``."""
        v = self.arg(tok)
        if not v.isdigit():
            raise self.error(f"Expected a positive decimal integer argument to {tok}, but got "
                             f"{quote(v)}")
        setattr(self.f, limit, int(v))
        return _true

    p_maxdepth = partialmethod(_depth_limit, limit="maxdepth")
    p_mindepth = partialmethod(_depth_limit, limit="mindepth")

    def p_depth(self, tok: str) -> Node:
        self.f.depth_first = True
        return _true

    p_d = p_depth

    def p_xdev(self, tok: str) -> Node:
        return _true

    p_mount = p_noleaf = p_ignore_readdir_race = p_noignore_readdir_race = p_xdev
    p_nowarn = p_warn = p_daystart = p_xdev

    def p_regextype(self, tok: str) -> Node:
        v = self.arg(tok)
        if v not in ("emacs", "posix-extended", "posix-basic", "egrep", "grep", "sed",
                     "posix-egrep", "posix-awk", "awk", "gnu-awk", "findutils-default"):
            raise self.error(f"Unknown regular expression type {quote(v)}; valid types are "
                             "'findutils-default', 'ed', 'emacs', 'gnu-awk', 'grep', "
                             "'posix-awk', 'awk', 'posix-basic', 'posix-egrep', 'egrep', "
                             "'posix-extended', 'posix-minimal-basic', 'sed'.")
        self.f.regextype = v
        return _true

    # --- tests -------------------------------------------------------------------------
    def p_true(self, tok: str) -> Node:
        return _true

    def p_false(self, tok: str) -> Node:
        return lambda c: False

    def _name(self, tok: str, icase: bool) -> Node:
        pat = self.arg(tok)
        rx = glob.compile_fnmatch(pat, icase)

        def test(c: Ctx) -> bool:
            base = c.path.rstrip("/")
            base = base.rsplit("/", 1)[-1] if base else "/"
            return rx.fullmatch(base) is not None

        return test

    p_name = partialmethod(_name, icase=False)
    p_iname = partialmethod(_name, icase=True)

    def _path(self, tok: str, icase: bool) -> Node:
        rx = glob.compile_fnmatch(self.arg(tok), icase)
        return lambda c: rx.fullmatch(c.path) is not None

    p_path = p_wholename = partialmethod(_path, icase=False)
    p_ipath = p_iwholename = partialmethod(_path, icase=True)

    def _regex(self, tok: str, icase: bool) -> Node:
        pat = self.arg(tok)
        try:
            rx = regex.compile_syntax(pat, self.f.regextype, icase=icase)
        except regex.RegexError:
            raise self.error(f"Invalid regular expression {quote(pat)}") from None

        def test(c) -> bool:
            try:
                return rx.fullmatch(c.path) is not None
            except regex.TooComplex:
                raise Exit(1, regex.TOO_COMPLEX) from None

        return test

    p_regex = partialmethod(_regex, icase=False)
    p_iregex = partialmethod(_regex, icase=True)

    def _types(self, tok: str) -> set[str]:
        v = self.arg(tok)
        kinds = v.split(",")
        if not v or any(k not in ("b", "c", "d", "p", "f", "l", "s", "D") for k in kinds):
            if len(v) > 1 and "," not in v:
                raise self.error(f"Must separate multiple arguments to {tok} using: ','")
            raise self.error(f"Unknown argument to {tok}: {v}")
        return set(kinds)

    def p_type(self, tok: str) -> Node:
        kinds = self._types(tok)
        return lambda c: kind_letter(c.st.st_mode) in kinds

    def p_xtype(self, tok: str) -> Node:
        kinds = self._types(tok)
        fs = self.inv.fs

        def test(c: Ctx) -> bool:
            if c.follow or not st.S_ISLNK(c.lst.st_mode):
                try:
                    s = fs.lstat(c.abs) if c.follow else c.lst
                except OSError:
                    s = c.lst
                return kind_letter(s.st_mode) in kinds
            try:
                return kind_letter(fs.stat(c.abs).st_mode) in kinds
            except OSError:
                return "l" in kinds

        return test

    def p_size(self, tok: str) -> Node:
        v = self.arg(tok)
        m = re.fullmatch(r"([+-]?)(\d+)([bcwkMG]?)", v)
        if not m:
            suffix = v.lstrip("+-0123456789")[:1]
            if suffix and v.lstrip("+-")[:1].isdigit():
                raise self.error(f"invalid -size type `{suffix}'")
            raise self.error(f"invalid argument `{v}' to `{tok}'")
        sign, num, unit = m.group(1), int(m.group(2)), m.group(3) or "b"
        mult = {"b": 512, "c": 1, "w": 2, "k": 1024, "M": 1 << 20, "G": 1 << 30}[unit]

        def test(c: Ctx) -> bool:
            units = -(-c.st.st_size // mult)
            return _cmp(sign, units, num)

        return test

    def p_empty(self, tok: str) -> Node:
        fs = self.inv.fs

        def test(c: Ctx) -> bool:
            s = c.st
            if st.S_ISREG(s.st_mode):
                return s.st_size == 0
            if st.S_ISDIR(s.st_mode):
                try:
                    return not fs.listdir(c.abs)
                except OSError:
                    return False
            return False

        return test

    def _time(self, tok: str, attr: str, unit: float) -> Node:
        v = self.arg(tok)
        m = re.fullmatch(r"([+-]?)(\d+(?:\.\d*)?)", v)
        if not m:
            raise self.error(f"invalid argument `{v}' to `{tok}'")
        sign, num = m.group(1), float(m.group(2))
        now = self.f.now

        def test(c: Ctx) -> bool:
            t = getattr(c.st, attr)
            age = (now - t) / unit
            if unit == 86400:
                age = float(int(age // 1))
                return _cmp(sign, age, num)
            # -mmin/-amin/-cmin: GNU rounds the age up to whole minutes
            age_up = -(-(now - t) // unit)
            return _cmp(sign, age_up, num)

        return test

    p_mtime = partialmethod(_time, attr="st_mtime", unit=86400)
    p_atime = partialmethod(_time, attr="st_atime", unit=86400)
    p_ctime = partialmethod(_time, attr="st_ctime", unit=86400)
    p_mmin = partialmethod(_time, attr="st_mtime", unit=60)
    p_amin = partialmethod(_time, attr="st_atime", unit=60)
    p_cmin = partialmethod(_time, attr="st_ctime", unit=60)

    def _newer(self, tok: str, attr: str) -> Node:
        ref = self.arg(tok)
        try:
            s = self.inv.fs.stat(self.inv.abs(ref))
        except OSError as e:
            raise self.error(f"{quote(ref)}: {e.strerror or 'No such file or directory'}"
                             ) from None
        ref_ns = _ns(s, "mtime")
        return lambda c: _ns(c.st, attr) > ref_ns

    p_newer = partialmethod(_newer, attr="mtime")
    p_anewer = partialmethod(_newer, attr="atime")
    p_cnewer = partialmethod(_newer, attr="ctime")

    def p_perm(self, tok: str) -> Node:
        v = self.arg(tok)
        kind = ""
        spec = v
        if v[:1] in ("-", "/", "+"):
            kind, spec = v[0], v[1:]
        try:
            want = apply_mode(spec, 0, False, umask=0)
        except ValueError:
            raise self.error(f"invalid mode {quote(v)}") from None

        def test(c: Ctx) -> bool:
            mode = st.S_IMODE(c.st.st_mode)
            if kind == "-":
                return mode & want == want
            if kind in ("/", "+"):
                return want == 0 or bool(mode & want)
            return mode == want

        return test

    def _id(self, tok: str, attr: str, namer: Callable[[int], str]) -> Node:
        v = self.arg(tok)
        if v.isdigit():
            n = int(v)
            return lambda c: getattr(c.st, attr) == n
        if v == "root":
            return lambda c: getattr(c.st, attr) == 0
        raise self.error(f"{quote(v)} is not the name of a known "
                         f"{'user' if attr == 'st_uid' else 'group'}")

    p_user = partialmethod(_id, attr="st_uid", namer=owner_name)
    p_group = partialmethod(_id, attr="st_gid", namer=group_name)

    def _num(self, tok: str, attr: str) -> Node:
        v = self.arg(tok)
        m = re.fullmatch(r"([+-]?)(\d+)", v)
        if not m:
            raise self.error(f"invalid argument `{v}' to `{tok}'")
        sign, num = m.group(1), int(m.group(2))
        return lambda c: _cmp(sign, getattr(c.st, attr), num)

    p_uid = partialmethod(_num, attr="st_uid")
    p_gid = partialmethod(_num, attr="st_gid")
    p_links = partialmethod(_num, attr="st_nlink")
    p_inum = partialmethod(_num, attr="st_ino")

    def _access(self, tok: str, mode: int) -> Node:
        fs = self.inv.fs
        return lambda c: fs.access(c.abs, mode)

    p_readable = partialmethod(_access, mode=os.R_OK)
    p_writable = partialmethod(_access, mode=os.W_OK)
    p_executable = partialmethod(_access, mode=os.X_OK)

    # --- actions -------------------------------------------------------------------------
    def p_print(self, tok: str) -> Node:
        self.f.has_action = True
        out = self.inv.stdout
        return lambda c: out.write(enc(c.path) + b"\n") is not None or True

    def p_print0(self, tok: str) -> Node:
        self.f.has_action = True
        out = self.inv.stdout
        return lambda c: out.write(enc(c.path) + b"\0") is not None or True

    def p_printf(self, tok: str) -> Node:
        self.f.has_action = True
        fmt = self.arg(tok)
        render = _Printf(self.f, fmt)
        out = self.inv.stdout
        return lambda c: out.write(render(c)) is not None or True

    def p_ls(self, tok: str) -> Node:
        self.f.has_action = True
        out = self.inv.stdout
        tz = zone(self.inv.env)
        now = self.f.now
        fs = self.inv.fs

        def act(c: Ctx) -> bool:
            s = c.st
            blocks = getattr(s, "st_blocks", None)
            if blocks is None:
                blocks = -(-s.st_size // 512)
            kb = -(-int(blocks) // 2)
            t = s.st_mtime
            fmt = "%b %e %H:%M" if now - 15778476 < t <= now + 1 else "%b %e  %Y"
            when = strftime(fmt, localtime(int(t), tz))
            line = (f"{s.st_ino:>9} {kb:>6} {st.filemode(s.st_mode)} {s.st_nlink:>3} "
                    f"{owner_name(s.st_uid):<8} {group_name(s.st_gid):<8} {s.st_size:>8} "
                    f"{when} {c.path}")
            if st.S_ISLNK(s.st_mode):
                try:
                    line += " -> " + fs.readlink(c.abs)
                except OSError:
                    pass
            out.write(enc(line) + b"\n")
            return True

        return act

    def p_prune(self, tok: str) -> Node:
        def act(c: Ctx) -> bool:
            c.prune = True
            return True

        return act

    def p_quit(self, tok: str) -> Node:
        def act(c: Ctx) -> bool:
            raise Quit

        return act

    def p_delete(self, tok: str) -> Node:
        self.f.has_action = True
        self.f.depth_first = True
        fs = self.inv.fs
        finder = self.f

        def act(c: Ctx) -> bool:
            if c.path in (".", "./"):
                return True
            try:
                if st.S_ISDIR(c.lst.st_mode):
                    fs.rmdir(c.abs)
                else:
                    fs.unlink(c.abs)
            except OSError as e:
                finder.inv.error(f"cannot delete {quote(c.path)}: "
                                 f"{e.strerror or os.strerror(e.errno or 0)}")
                finder.status = 1
                return False
            return True

        return act

    def _exec(self, tok: str, in_dir: bool) -> Node:
        self.f.has_action = True
        argv: list[str] = []
        while True:
            if self.i >= len(self.toks):
                raise self.error(f"missing argument to `{tok}'")
            a = self.take()
            if a == ";":
                break
            if a == "+" and argv and argv[-1] == "{}":
                argv.pop()
                return self._exec_batch(tok, argv, in_dir)
            argv.append(a)
        if not argv:
            raise self.error(f"missing argument to `{tok}'")
        finder = self.f
        inv = self.inv

        def act(c: Ctx) -> bool:
            name = c.path
            cwd = None
            if in_dir:
                name = "./" + _basename(c.path)
                cwd = c.abs.rsplit("/", 1)[0] or "/"
            cmd = [a.replace("{}", name) for a in argv]
            return _run(inv, finder, cmd, cwd) == 0

        return act

    def _exec_batch(self, tok: str, argv: list[str], in_dir: bool) -> Node:
        if not argv:
            raise self.error(f"missing argument to `{tok}'")
        batch: dict[str | None, list[str]] = {}
        finder = self.f
        inv = self.inv
        limit = 5000

        def flush(cwd: str | None) -> None:
            names = batch.pop(cwd, [])
            if names:
                if _run(inv, finder, [*argv, *names], cwd) != 0:
                    finder.status = 1

        def act(c: Ctx) -> bool:
            cwd = None
            name = c.path
            if in_dir:
                name = "./" + _basename(c.path)
                cwd = c.abs.rsplit("/", 1)[0] or "/"
            batch.setdefault(cwd, []).append(name)
            if len(batch[cwd]) >= limit:
                flush(cwd)
            return True

        def finish() -> None:
            for cwd in list(batch):
                flush(cwd)

        finder.batches.append(finish)
        return act

    p_exec = partialmethod(_exec, in_dir=False)
    p_execdir = partialmethod(_exec, in_dir=True)


def _run(inv: Invocation, finder: Finder, argv: list[str], cwd: str | None) -> int:
    if cwd is not None:
        return run_child(inv, argv, cwd=cwd)
    return run_child(inv, argv)


def _true(c: Ctx) -> bool:
    return True


def _and(a: Node, b: Node) -> Node:
    return lambda c: a(c) and b(c)


def _or(a: Node, b: Node) -> Node:
    return lambda c: a(c) or b(c)


def _seq(a: Node, b: Node) -> Node:
    def both(c: Ctx) -> bool:
        a(c)
        return b(c)

    return both


def _cmp(sign: str, value: float, num: float) -> bool:
    if sign == "+":
        return value > num
    if sign == "-":
        return value < num
    return value == num


def _ns(s: Any, which: str) -> int:
    v = getattr(s, f"st_{which}_ns", None)
    return int(v) if v is not None else int(getattr(s, f"st_{which}") * 1e9)


def _basename(path: str) -> str:
    stripped = path.rstrip("/")
    return stripped.rsplit("/", 1)[-1] if stripped else "/"


_ESC = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
        "0": "\0", "\\": "\\"}


# -printf's letters for plain stat fields (the others need the walk: path, depth, times)
_FIELD_OF = by_letter(s="size", b="blocks", n="nlink", i="ino", u="user", g="group", U="uid",
                      G="gid", M="mode_string")


class _Printf:
    """-printf FORMAT, compiled once into pieces."""

    _DIRECTIVE = re.compile(r"%([-+ #0]*)(\d*)(?:\.(\d+))?([TAC][A-Za-z@+]|[A-Za-z%@])?")

    def __init__(self, finder: Finder, fmt: str) -> None:
        self.f = finder
        self.tz = zone(finder.inv.env)
        self.pieces: list[tuple[str, str, str, str | None]] = []
        text: list[str] = []
        i = 0
        while i < len(fmt):
            c = fmt[i]
            if c == "\\" and i + 1 < len(fmt):
                n = fmt[i + 1]
                if n == "c":
                    self.pieces.append(("", "", "", "\\c"))
                    text = []
                    break
                if n in "01234567":
                    m = re.match(r"[0-7]{1,3}", fmt[i + 1 :])
                    assert m
                    text.append(chr(int(m.group(), 8)))
                    i += 1 + len(m.group())
                    continue
                text.append(_ESC.get(n, "\\" + n))
                i += 2
                continue
            if c == "%":
                m = self._DIRECTIVE.match(fmt, i)
                if m and m.group(4):
                    if text:
                        self.pieces.append(("", "", "".join(text), None))
                        text = []
                    self.pieces.append((m.group(1), m.group(2), m.group(3) or "", m.group(4)))
                    i = m.end()
                    continue
                text.append("%")
                i += 1
                continue
            text.append(c)
            i += 1
        if text:
            self.pieces.append(("", "", "".join(text), None))

    def __call__(self, c: Ctx) -> bytes:
        out: list[str] = []
        for flags, width, prec_or_text, conv in self.pieces:
            if conv is None:
                out.append(prec_or_text)
                continue
            if conv == "\\c":
                break
            value = self.value(c, conv)
            prec = prec_or_text
            if isinstance(value, int):
                spec = "%" + flags + width + "d"
                out.append(spec % value)
            else:
                if prec:
                    value = value[: int(prec)]
                spec = "%" + flags.replace("0", "") + width + "s"
                out.append(spec % value)
        return enc("".join(out))

    def value(self, c: Ctx, conv: str) -> int | str:
        s = c.st
        field = _FIELD_OF.get(conv)
        if field is not None:
            return field(s)
        if conv == "%":
            return "%"
        if conv == "p":
            return c.path
        if conv == "f":
            return _basename(c.path)
        if conv == "h":
            stripped = c.path.rstrip("/")
            if "/" not in stripped:
                return "."
            head = stripped.rsplit("/", 1)[0]
            return head or "/"
        if conv == "P":
            if c.depth == 0:
                return ""
            return c.path[len(c.start) :].lstrip("/")
        if conv == "H":
            return c.start
        if conv == "d":
            return c.depth
        if conv == "m":
            return f"{st.S_IMODE(s.st_mode):o}"
        if conv == "y":
            return kind_letter(c.lst.st_mode if not c.follow else s.st_mode)
        if conv == "Y":
            try:
                return kind_letter(self.f.inv.fs.stat(c.abs).st_mode)
            except OSError:
                return "N" if not self.f.inv.fs.islink(c.abs) else "N"
        if conv == "l":
            if st.S_ISLNK(c.lst.st_mode):
                try:
                    return self.f.inv.fs.readlink(c.abs)
                except OSError:
                    return ""
            return ""
        if conv == "k":
            return -(-blocks(s) // 2)
        if conv in "tac":
            which = {"t": "mtime", "a": "atime", "c": "ctime"}[conv]
            return self._ctime(s, which)
        if conv[0] in "TAC" and len(conv) == 2:
            which = {"T": "mtime", "A": "atime", "C": "ctime"}[conv[0]]
            return self._time_part(s, which, conv[1])
        return ""

    def _ctime(self, s: Any, which: str) -> str:
        secs, ns = divmod(_ns(s, which), 1_000_000_000)
        d = localtime(secs, self.tz)
        return strftime("%a %b %e %H:%M:%S.", d) + f"{ns:09d}0" + strftime(" %Y", d)

    def _time_part(self, s: Any, which: str, k: str) -> str:
        secs, ns = divmod(_ns(s, which), 1_000_000_000)
        if k == "@":
            return f"{secs}.{ns:09d}0"
        d = localtime(secs, self.tz)
        if k == "S":
            return strftime("%S", d) + f".{ns:09d}0"
        if k == "T":
            return strftime("%H:%M:%S", d) + f".{ns:09d}0"
        if k == "+":
            return strftime("%Y-%m-%d+%H:%M:%S", d) + f".{ns:09d}0"
        return strftime("%" + k, d, ns)


def run(inv: Invocation) -> int:
    """The command; a back-reference search inside it stops with the run's timeout."""
    with regex.cancellable(inv.cancel.check):
        return _find(inv)


def _find(inv: Invocation) -> int:
    args = list(inv.args)
    if args == ["--help"]:
        inv.stdout.write(HELP.encode())
        return 0
    finder = Finder(inv)
    while args and args[0] in ("-L", "-H", "-P", "-O0", "-O1", "-O2", "-O3", "-D"):
        finder.follow = args.pop(0)[1] if args[0] in ("-L", "-H", "-P") else finder.follow
    starts: list[str] = []
    while args and not (args[0].startswith("-") and args[0] != "-") and args[0] not in (
            "(", "!", ")", ","):
        starts.append(args.pop(0))
    parser = Parser(finder, args)
    expr = parser.parse()
    if expr is None:
        expr = _true
    if not finder.has_action:
        inner = expr
        out = inv.stdout

        def expr(c: Ctx) -> bool:
            if inner(c):
                out.write(enc(c.path) + b"\n")
            return True

    try:
        for start in starts or ["."]:
            _walk_start(finder, start, expr)
    except Quit:
        pass
    for finish in finder.batches:
        finish()
    return finder.status


def _walk_start(finder: Finder, start: str, expr: Node) -> None:
    inv = finder.inv
    fs = inv.fs
    path = inv.abs(start)
    if start == "":
        inv.error("\u2018\u2019: No such file or directory")
        finder.status = 1
        return
    try:
        follow = finder.follow in ("L", "H")
        lst = fs.lstat(path)
        s = lst
        if follow and st.S_ISLNK(lst.st_mode):
            try:
                s = fs.stat(path)
            except OSError:
                s = lst
    except OSError as e:
        inv.error(f"{quote(start)}: {e.strerror or os.strerror(e.errno or 0)}")
        finder.status = 1
        return
    _visit(finder, start, path, 0, start, lst, s, expr)


def _visit(finder: Finder, shown: str, path: str, depth: int, start: str, lst: Any, s: Any,
           expr: Node) -> None:
    inv = finder.inv
    inv.cancel.check()
    follow = finder.follow == "L" or (finder.follow == "H" and depth == 0)
    ctx = Ctx(shown, path, depth, start, lst, follow and s is not lst, s)
    in_range = depth >= finder.mindepth and (finder.maxdepth is None or depth <= finder.maxdepth)
    if not finder.depth_first and in_range:
        expr(ctx)
    descend = st.S_ISDIR(s.st_mode) and not ctx.prune and (
        finder.maxdepth is None or depth < finder.maxdepth)
    if descend:
        fs = inv.fs
        try:
            names = sorted(fs.listdir(path), key=enc)
        except OSError as e:
            inv.error(f"{quote(shown)}: {e.strerror or os.strerror(e.errno or 0)}")
            finder.status = 1
            names = []
        for name in names:
            child_shown = child_name(shown, name)
            child = path.rstrip("/") + "/" + name
            try:
                clst = fs.lstat(child)
            except OSError as e:
                inv.error(f"{quote(child_shown)}: {e.strerror or os.strerror(e.errno or 0)}")
                finder.status = 1
                continue
            cs = clst
            if finder.follow == "L" and st.S_ISLNK(clst.st_mode):
                try:
                    cs = fs.stat(child)
                except OSError:
                    cs = clst
                if st.S_ISDIR(cs.st_mode) and _is_ancestor(fs, child, path):
                    inv.error(f"File system loop detected; {quote(child_shown)} is part of "
                              f"the same file system loop as {quote(start)}.")
                    finder.status = 1
                    continue
            _visit(finder, child_shown, child, depth + 1, start, clst, cs, expr)
    if finder.depth_first and in_range:
        expr(ctx)


def _is_ancestor(fs: VFS, child: str, parent: str) -> bool:
    try:
        real_child = fs.realpath(child)
        real_parent = fs.realpath(parent)
    except OSError:
        return False
    return real_parent == real_child or real_parent.startswith(real_child.rstrip("/") + "/")
