"""grep, egrep, fgrep: print lines that match patterns (GNU grep 3.8 behaviour).

Input is read in large chunks of whole lines and one compiled regex scans a chunk for
selected lines (``(?:R)[^\\n]*(?:\\n|\\Z)``), so Python code runs per *selected* line, not per
line.  The regex runs on raw bytes whenever the pattern does not need character semantics
(see :mod:`vshell.text.regex`); otherwise chunks are decoded (UTF-8 with
surrogateescape, or latin-1 in the C locale) and offsets mapped back for ``-b``.

Known differences from GNU: ``-P`` is Python's ``re`` (no PCRE-only syntax such as
``\\K`` or possessive classes in older forms; ``\\w`` is ASCII); recursion visits directory
entries in name order (GNU uses readdir order); NUL bytes in a binary file split lines for
matching as GNU does, but buffer boundaries (when a NUL is first seen) are ours.
"""

from __future__ import annotations

import re
import stat
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeAlias

from vshell.command import Exit, Invocation, describe_oserror
from vshell.commands._lib.futil import child_name, read_chunks
from vshell.commands._lib.helptext import help_text, version_text
from vshell.commands._lib.opts import Options, parse
from vshell.records import field, record
from vshell.text import glob, regex

if TYPE_CHECKING:
    from vshell.vfs import VFS

CHUNK = 1 << 20

SHORT = "EFGPe:f:iyvwxcLlm:oqsbHhnTZzA:B:C:aD:d:IrRUV"
LONG = [
    "extended-regexp", "fixed-strings", "basic-regexp", "perl-regexp", "regexp=", "file=",
    "ignore-case", "no-ignore-case", "invert-match", "word-regexp", "line-regexp", "count",
    "color=?", "colour=?", "files-without-match", "files-with-matches", "max-count=",
    "only-matching", "quiet", "silent", "no-messages", "byte-offset", "with-filename",
    "no-filename", "label=", "line-number", "initial-tab", "null", "null-data",
    "after-context=", "before-context=", "context=", "text", "binary-files=", "devices=",
    "directories=", "exclude=", "exclude-from=", "exclude-dir=", "include=", "recursive",
    "dereference-recursive", "line-buffered", "binary", "group-separator=",
    "no-group-separator", "version",
]

VERSION = version_text("grep")


# A buffer of input: str (decoded, surrogates for bad bytes), or bytes for a binary file; one
# code path serves both, so the type is the union's common protocol, which typing cannot name.
Text: TypeAlias = Any


class _Quit(Exception):
    """-q found a match: stop everything with status 0."""


@record
class Config:
    mode: str = "G"  # G E F P
    patterns: list[str] = field(default_factory=list)
    icase: bool = False
    invert: bool = False
    word: bool = False
    line: bool = False
    count: bool = False
    list_files: str = ""  # "l" or "L"
    max_count: int = -1
    only: bool = False
    quiet: bool = False
    no_messages: bool = False
    byte_offset: bool = False
    with_filename: bool | None = None
    label: str = "(standard input)"
    line_number: bool = False
    initial_tab: bool = False
    null: bool = False
    eol: bytes = b"\n"
    before: int = -1
    after: int = -1
    binary_files: str = "binary"
    directories: str = "read"
    devices: str = ""  # GNU's default: read devices named as operands, skip them in recursion
    recursive: bool = False
    deref: bool = False
    includes: list[str] = field(default_factory=list)
    excludes: list[str] = field(default_factory=list)
    exclude_dirs: list[str] = field(default_factory=list)
    group_sep: bytes | None = b"--"
    utf8: bool = True
    color: bool = False


# ---------------------------------------------------------------- options


def _context_arg(value: str) -> int:
    try:
        n = int(value)
        if n < 0:
            raise ValueError
        return n
    except ValueError:
        raise Exit(2, f"{value}: invalid context length argument") from None


def _read_pattern_file(inv: Invocation, name: str) -> list[str]:
    try:
        data = b"".join(read_chunks(inv, name))
    except OSError as e:
        e.filename = name
        raise Exit(2, describe_oserror(e)) from None
    text = data.decode("utf-8", "surrogateescape")
    if not text:
        return []
    text = text.removesuffix("\n")
    return text.split("\n")


def _parse(inv: Invocation) -> Options:
    """_opts.parse, with GNU grep's usage line inserted into option errors."""
    return parse(inv, SHORT, LONG, numeric=True, usage_status=2, help_text=GREP_HELP,
                 usage_tail=_usage_tail)


def _usage_tail() -> bytes:
    return USAGE + b"Try 'grep --help' for more information.\n"


USAGE = b"Usage: grep [OPTION]... PATTERNS [FILE]...\n"


# the options that set one field of the configuration to a fixed value
_SETTINGS: dict[str, tuple[str, object]] = {
    "-E": ("mode", "E"), "--extended-regexp": ("mode", "E"),
    "-F": ("mode", "F"), "--fixed-strings": ("mode", "F"),
    "-G": ("mode", "G"), "--basic-regexp": ("mode", "G"),
    "-P": ("mode", "P"), "--perl-regexp": ("mode", "P"),
    "-i": ("icase", True), "-y": ("icase", True), "--ignore-case": ("icase", True),
    "--no-ignore-case": ("icase", False),
    "-v": ("invert", True), "--invert-match": ("invert", True),
    "-w": ("word", True), "--word-regexp": ("word", True),
    "-x": ("line", True), "--line-regexp": ("line", True),
    "-c": ("count", True), "--count": ("count", True),
    "-L": ("list_files", "L"), "--files-without-match": ("list_files", "L"),
    "-l": ("list_files", "l"), "--files-with-matches": ("list_files", "l"),
    "-o": ("only", True), "--only-matching": ("only", True),
    "-q": ("quiet", True), "--quiet": ("quiet", True), "--silent": ("quiet", True),
    "-s": ("no_messages", True), "--no-messages": ("no_messages", True),
    "-b": ("byte_offset", True), "--byte-offset": ("byte_offset", True),
    "-H": ("with_filename", True), "--with-filename": ("with_filename", True),
    "-h": ("with_filename", False), "--no-filename": ("with_filename", False),
    "-n": ("line_number", True), "--line-number": ("line_number", True),
    "-T": ("initial_tab", True), "--initial-tab": ("initial_tab", True),
    "-Z": ("null", True), "--null": ("null", True),
    "-z": ("eol", b"\0"), "--null-data": ("eol", b"\0"),
    "-a": ("binary_files", "text"), "--text": ("binary_files", "text"),
    "-I": ("binary_files", "without-match"),
}


def configure(inv: Invocation) -> tuple[Config, list[str]]:
    opts = _parse(inv)
    cfg = Config()
    cfg.mode = {"egrep": "E", "fgrep": "F"}.get(inv.name, "G")
    cfg.utf8 = regex.is_utf8_locale(inv.env)
    have_patterns = False
    ctx_both = -1
    for key, val in opts.items:
        v = val or ""
        if key in _SETTINGS:
            name, value = _SETTINGS[key]
            setattr(cfg, name, value)
        elif key in ("-e", "--regexp"):
            cfg.patterns.extend(v.split("\n"))
            have_patterns = True
        elif key in ("-f", "--file"):
            cfg.patterns.extend(_read_pattern_file(inv, v))
            have_patterns = True
        elif key in ("--color", "--colour"):
            if val not in (None, "never", "no", "none", "auto", "tty", "if-tty", "always",
                           "yes", "force"):
                inv.stdout.write(GREP_HELP.encode())  # GNU shows --help for a bad WHEN
                raise Exit(0)
            # output is never a terminal here, so "auto" means no colour
            cfg.color = val in ("always", "yes", "force")
        elif key in ("-m", "--max-count"):
            try:
                cfg.max_count = int(v)
            except ValueError:
                raise Exit(2, "invalid max count") from None
        elif key == "--label":
            cfg.label = v
        elif key in ("-A", "--after-context"):
            cfg.after = _context_arg(v)
        elif key in ("-B", "--before-context"):
            cfg.before = _context_arg(v)
        elif key in ("-C", "--context", "-NUM"):
            ctx_both = _context_arg(v)
        elif key == "--binary-files":
            if v not in ("binary", "text", "without-match"):
                raise Exit(2, "unknown binary-files type")
            cfg.binary_files = v
        elif key in ("-D", "--devices"):
            if v not in ("read", "skip"):
                raise Exit(2, "unknown devices method")
            cfg.devices = v
        elif key in ("-d", "--directories"):
            if v not in ("read", "skip", "recurse"):
                raise Exit(2, f"invalid argument ‘{v}’ for ‘--directories’\n"
                              "Valid arguments are:\n  - ‘read’\n  - ‘recurse’\n  - ‘skip’\n"
                              "Usage: grep [OPTION]... PATTERNS [FILE]...\n"
                              "Try 'grep --help' for more information.")
            cfg.directories = v
            if v == "recurse":
                cfg.recursive = True
        elif key in ("-r", "--recursive"):
            cfg.recursive = True
            cfg.directories = "recurse"
        elif key in ("-R", "--dereference-recursive"):
            cfg.recursive = True
            cfg.deref = True
            cfg.directories = "recurse"
        elif key == "--include":
            cfg.includes.append(v)
        elif key == "--exclude":
            cfg.excludes.append(v)
        elif key == "--exclude-from":
            cfg.excludes.extend(p for p in _read_pattern_file(inv, v) if p)
        elif key == "--exclude-dir":
            cfg.exclude_dirs.append(v)
        elif key == "--group-separator":
            cfg.group_sep = v.encode("utf-8", "surrogateescape")
        elif key == "--no-group-separator":
            cfg.group_sep = None
        elif key in ("-V", "--version"):
            inv.stdout.write(VERSION.encode())
            raise Exit(0)
        # -U, --binary, --line-buffered: no effect here
    if cfg.list_files:
        cfg.count = False  # -l/-L win over -c, as in GNU grep
    if ctx_both >= 0:
        if cfg.after < 0:
            cfg.after = ctx_both
        if cfg.before < 0:
            cfg.before = ctx_both
    operands = list(opts.operands)
    if not have_patterns:
        if not operands:
            inv.stderr.write(USAGE + b"Try 'grep --help' for more information.\n")
            raise Exit(2)
        cfg.patterns.extend(operands.pop(0).split("\n"))
    return cfg, operands


# ---------------------------------------------------------------- matching


class Matcher:
    """The compiled patterns: finds selected lines in a buffer and matches within a line.

    Everything runs on raw bytes through :mod:`vshell.text.regex` (RE2, leftmost-longest;
    the bounded backtracker only for back-references).
    """

    def __init__(self, cfg: Config, warn: Callable[[str], None]) -> None:
        self.cfg = cfg
        self.eol = cfg.eol
        self.eol_x: Text = cfg.eol
        self.binary = True
        self.per_line = cfg.mode == "P"
        self._last: tuple[Any, bytes] | None = None
        try:
            self.rx = self._build()
        except regex.RegexError as e:
            raise Exit(2, str(e)) from None
        for w in dict.fromkeys(self.rx.warnings):
            warn(f"warning: {w}")

    def _build(self) -> regex.Regex:
        cfg = self.cfg
        opts: dict[str, Any] = {
            "icase": cfg.icase, "utf8": cfg.utf8, "eol": cfg.eol.decode("latin-1")}
        pats = cfg.patterns
        if cfg.mode == "P":
            if len(pats) > 1:
                raise Exit(2, "the -P option only supports a single pattern")
            if cfg.word or cfg.line:
                p = pats[0] if pats else ""
                p = f"\\b(?:{p})\\b" if cfg.word else f"^(?:{p})$"
                pats = [p]
            return regex.compile(pats[0] if pats else "", "perl", **opts)
        dialect = {"F": "fixed", "E": "ere"}.get(cfg.mode, "bre")
        return regex.compile_many(pats, dialect, word=cfg.word, line=cfg.line, **opts)

    def _scan(self, buf: bytes) -> bytes:
        """The bytes to scan for ``buf`` (NUL and newline swapped under ``-z``)."""
        if not self.rx.swap:
            return buf
        last = self._last
        if last is not None and last[0] is buf:
            return last[1]
        data = self.rx.prepare(buf)
        self._last = (buf, data)
        return data

    def _search(self, buf: bytes, pos: int, end: int):
        try:
            return self.rx.search(self._scan(buf), pos, end)
        except regex.TooComplex:
            raise Exit(2, regex.TOO_COMPLEX) from None

    def lines(self, buf, pos: int, end: int):
        """Spans (start, end-before-eol) of the lines in buf[pos:end] that match."""
        eol = self.eol_x
        find = buf.find
        if self.per_line:  # -P: RE2's Perl classes could cross a line end otherwise
            while pos < end:
                nl = find(eol, pos, end)
                nl = end if nl < 0 else nl
                if self._search(buf, pos, nl) is not None:
                    yield pos, nl
                pos = nl + 1
            return
        try:
            scan_eol = b"\n" if self.rx.swap else eol  # -z scans NUL/newline swapped
            yield from self.rx.lines(self._scan(buf), pos, end, scan_eol)
        except regex.TooComplex:
            raise Exit(2, regex.TOO_COMPLEX) from None

    def count(self, buf, pos: int, end: int) -> int:
        """How many lines of buf[pos:end] match."""
        if self.per_line or self.rx.swap:
            return sum(1 for _ in self.lines(buf, pos, end))
        try:
            return self.rx.count_lines(buf, pos, end, self.eol_x)
        except regex.TooComplex:
            raise Exit(2, regex.TOO_COMPLEX) from None

    def matches(self, buf, start: int, end: int):
        """Non-empty matches (start, end) within one line, for -o."""
        pos = start
        while pos <= end:
            m = self._search(buf, pos, end)
            if m is None:
                return
            s, e = m.span()
            if s == e:
                pos = e + 1
                continue
            yield s, e
            pos = e


# ---------------------------------------------------------------- searching


class _File:
    """Per-file state while searching."""

    def __init__(self, name: bytes, quiet: bool, done_on_match: bool) -> None:
        self.name = name
        self.count = 0
        self.lastout: int | None = None  # absolute offset just past the last line output
        self.after_left = 0
        self.done = False
        self.max_done = False
        self.quiet = quiet
        self.done_on_match = done_on_match
        self.nul_seen = False
        self.first_null_count = -1
        self.enc_error = False


class Searcher:
    """Runs the matcher over inputs and prints what GNU grep prints."""

    # the current chunk, and where line numbers and byte offsets were last counted to
    buf: Text
    cpos: int
    cline: int
    bpos: int
    bval: int
    bbase: int

    def __init__(self, inv: Invocation, cfg: Config, matcher: Matcher) -> None:
        self.inv = inv
        self.cfg = cfg
        self.m = matcher
        self.out = inv.stdout
        self.used = False
        self.context = cfg.before >= 0 or cfg.after >= 0
        self.B = max(cfg.before, 0)
        self.A = max(cfg.after, 0)
        self.quiet0 = cfg.quiet or cfg.count or bool(cfg.list_files)
        self.done_on_match0 = cfg.quiet or bool(cfg.list_files)
        self.with_filename = False
        self.check_enc = cfg.utf8 and cfg.binary_files != "text"
        self.eol = cfg.eol
        self.plain = not (
            cfg.byte_offset or self.context or cfg.only or cfg.initial_tab or cfg.color
        )

    # -- output helpers
    def _prefix(self, f: _File, sep: bytes, pos: int) -> bytes:
        cfg = self.cfg
        parts: list[bytes] = []
        color = cfg.color
        csep = _sgr(b"36", sep) if color else sep
        if self.with_filename:
            name = _sgr(b"35", f.name) if color else f.name
            parts.append(name + (b"\0" if cfg.null else csep))
        if cfg.line_number:
            n = str(self._lineno(pos)).encode()
            if cfg.initial_tab:
                n = n.rjust(self.width)
            parts.append((_sgr(b"32", n) if color else n) + csep)
        if cfg.byte_offset:
            b = str(self._byteoff(pos)).encode()
            if cfg.initial_tab:
                b = b.rjust(self.width)
            parts.append((_sgr(b"32", b) if color else b) + csep)
        if cfg.initial_tab and parts:
            parts.append(b"\t")
        return b"".join(parts)

    def _lineno(self, pos: int) -> int:
        buf = self.buf
        if pos >= self.cpos:
            self.cline += buf.count(self.m.eol_x, self.cpos, pos)
        else:
            self.cline -= buf.count(self.m.eol_x, pos, self.cpos)
        self.cpos = pos
        return self.cline

    def _byteoff(self, pos: int) -> int:
        if self.m.binary:
            return self.bbase + pos
        buf = self.buf
        utf8 = self.cfg.utf8
        if pos >= self.bpos:
            self.bval += len(regex.encode(buf[self.bpos : pos], utf8))
        else:
            self.bval -= len(regex.encode(buf[pos : self.bpos], utf8))
        self.bpos = pos
        return self.bval

    def _bytes(self, s: int, e: int) -> bytes:
        if self.m.binary:
            return self.buf[s:e]
        return regex.encode(self.buf[s:e], self.cfg.utf8)

    def _colored(self, ls: int, le: int) -> bytes:
        """The line with its matches highlighted (when --color is on)."""
        if not self.cfg.color:
            return self._bytes(ls, le)
        parts: list[bytes] = []
        pos = ls
        for s, e in self.m.matches(self.buf, ls, le):
            parts.append(self._bytes(pos, s))
            parts.append(_sgr(b"01;31", self._bytes(s, e)))
            pos = e
        parts.append(self._bytes(pos, le))
        return b"".join(parts)

    def _bad_encoding(self, f: _File, s: int, e: int) -> bool:
        if self.buf_valid:
            return False
        if self.m.binary:
            try:
                self.buf[s:e].decode("utf-8")
                return False
            except UnicodeDecodeError:
                pass
        elif not _SURROGATE.search(self.buf, s, e):
            return False
        f.enc_error = True
        f.quiet = True
        f.done_on_match = True
        return True

    def _separator(self, f: _File, ls: int) -> None:
        if (
            self.context
            and self.used
            and self.cfg.group_sep is not None
            and (f.lastout is None or f.lastout != self.base + ls)
        ):
            sep = self.cfg.group_sep
            self.out.write((_sgr(b"36", sep) if self.cfg.color else sep) + b"\n")

    def _context_line(self, f: _File, ls: int, le: int) -> None:
        if not f.quiet:
            self._separator(f, ls)
            if not self.cfg.only and not (self.check_enc and self._bad_encoding(f, ls, le)):
                text = self._colored(ls, le) if self.cfg.invert else self._bytes(ls, le)
                self.out.write(self._prefix(f, b"-", ls) + text + self.eol)
            self.used = True
        f.lastout = self.base + le + 1

    def _after(self, f: _File, limit: int) -> None:
        """Print pending after-context lines of the buffer before ``limit``."""
        if f.after_left <= 0 or f.lastout is None:
            return
        pos = f.lastout - self.base
        if pos < 0:
            return
        buf = self.buf
        eol = self.m.eol_x
        while f.after_left > 0 and pos < limit:
            le = buf.index(eol, pos)
            self._context_line(f, pos, le)
            f.after_left -= 1
            pos = le + 1

    def _selected(self, f: _File, ls: int, le: int) -> None:
        cfg = self.cfg
        f.count += 1
        if cfg.quiet:
            raise _Quit()
        if not f.quiet:
            buf = self.buf
            eol = self.m.eol_x
            if self.context:
                self._after(f, ls)
                start = ls
                for _ in range(self.B):
                    if start <= 0:
                        break
                    p = buf.rfind(eol, 0, start - 1) + 1
                    if f.lastout is not None and self.base + p < f.lastout:
                        break
                    start = p
                while start < ls:
                    e = buf.index(eol, start)
                    self._context_line(f, start, e)
                    start = e + 1
            if not (self.check_enc and not cfg.only and self._bad_encoding(f, ls, le)):
                self._separator(f, ls)
                if cfg.only:
                    for s, e in self.m.matches(buf, ls, le):
                        if self.check_enc and self._bad_encoding(f, s, e):
                            break
                        text = self._bytes(s, e)
                        if cfg.color:
                            text = _sgr(b"01;31", text)
                        self.out.write(self._prefix(f, b":", s) + text + self.eol)
                else:
                    text = self._bytes(ls, le) if cfg.invert else self._colored(ls, le)
                    self.out.write(self._prefix(f, b":", ls) + text + self.eol)
                self.used = True
            f.lastout = self.base + le + 1
            f.after_left = self.A
        if f.done_on_match:
            f.done = True
        elif cfg.max_count >= 0 and f.count >= cfg.max_count:
            f.max_done = True

    def _selected_spans(self, buf, pos: int, end: int):
        if not self.cfg.invert:
            yield from self.m.lines(buf, pos, end)
            return
        eol = self.m.eol_x
        index = buf.index
        for ms, me in self.m.lines(buf, pos, end):
            while pos < ms:
                nl = index(eol, pos)
                yield pos, nl
                pos = nl + 1
            pos = me + 1
        while pos < end:
            nl = index(eol, pos)
            yield pos, nl
            pos = nl + 1

    # -- one input
    def search(self, read: Callable[[int], bytes], name: bytes, size: int | None = None) -> int:
        """Search one input; returns the number of selected lines.

        ``size`` (a regular file's size) sets the -T column width as GNU does.
        """
        cfg = self.cfg
        num = (2**63 - 1) if size is None else size + (1 if cfg.line_number else 0)
        self.width = len(str(num))
        f = _File(name, self.quiet0, self.done_on_match0)
        eol = self.eol
        self.tail: Text = b"" if self.m.binary else ""
        self.tail_line = 1
        self.tail_byte = 0
        self.abs_end = 0  # absolute offset (buffer units) of the end of data processed
        pending: list[bytes] = []
        size = min(CHUNK, 1 << 16)  # small files: do not allocate a big buffer
        while not f.done:
            self.inv.cancel.check()
            data = read(size)
            size = CHUNK
            if data:
                idx = data.rfind(eol)
                if idx < 0:
                    pending.append(data)
                    continue
                raw = b"".join(pending) + data[: idx + 1]
                pending = [data[idx + 1 :]] if idx + 1 < len(data) else []
            else:
                if not pending:
                    break
                raw = b"".join(pending) + eol
                pending = []
            if not self._chunk(f, raw):
                break
        if f.nul_seen and cfg.binary_files == "without-match":
            f.count = 0
        if not self.quiet0 and (
            f.enc_error or (f.nul_seen and 0 <= f.first_null_count < f.count)
        ):
            self.inv.stderr.write(b"grep: " + name + b": binary file matches\n")
        return f.count

    def _chunk(self, f: _File, raw: bytes) -> bool:
        """Process whole lines; False when the file is done."""
        cfg = self.cfg
        if cfg.binary_files != "text" and self.eol == b"\n":
            if not f.nul_seen and b"\0" in raw:
                if cfg.binary_files == "without-match":
                    f.nul_seen = True
                    f.done = True
                    return False
                f.nul_seen = True
                f.first_null_count = f.count
                if not cfg.count:
                    f.quiet = True
                    f.done_on_match = True
            if f.nul_seen:
                raw = raw.replace(b"\0", b"\n")
        text = None
        self.buf_valid = True
        if self.check_enc and not raw.isascii():
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                self.buf_valid = False
        new: Text
        if self.m.binary:
            new = raw
        elif text is not None:
            new = text
        else:
            new = regex.decode(raw, cfg.utf8)
        tail = self.tail
        buf = tail + new if tail else new
        self.buf = buf
        self.base = self.abs_end - len(tail)
        self.abs_end += len(new)
        self.cpos = 0
        self.cline = self.tail_line
        self.bpos = 0
        self.bval = self.bbase = self.tail_byte
        scan_from = len(tail)
        if f.max_done:
            f.lastout = max(f.lastout or 0, self.base + scan_from)
            self._after(f, len(buf))
            if f.after_left <= 0:
                f.done = True
                return False
        elif f.quiet and not f.done_on_match and not cfg.quiet:
            # -c (or output suppressed for a binary file): count only
            n = self.m.count(buf, scan_from, len(buf))
            if cfg.invert:
                n = buf.count(self.m.eol_x, scan_from) - n
            if cfg.max_count >= 0 and f.count + n >= cfg.max_count:
                n = cfg.max_count - f.count
                f.max_done = True
            f.count += n
            if f.max_done:
                f.done = True
                return False
        elif self.plain and not f.quiet and not cfg.invert and not (
            self.check_enc and not self.buf_valid
        ):
            self._plain(f, buf, scan_from)
        else:
            for ls, le in self._selected_spans(buf, scan_from, len(buf)):
                if f.max_done:
                    if f.after_left <= 0:
                        break
                    self._after(f, len(buf))
                    break
                self._selected(f, ls, le)
                if f.done:
                    return False
            else:
                self._after(f, len(buf))
            if f.max_done and f.after_left <= 0:
                f.done = True
                return False
        # keep the last B lines for the next chunk's before-context
        if self.B:
            start = len(buf)
            eol = self.m.eol_x
            for _ in range(self.B):
                if start <= 0:
                    break
                start = buf.rfind(eol, 0, start - 1) + 1
            self.tail_line = self._lineno(start)
            if cfg.byte_offset:
                self.tail_byte = self._byteoff(start)
            self.tail = buf[start:]
        else:
            self.tail_line = self._lineno(len(buf))
            if cfg.byte_offset:
                self.tail_byte = self._byteoff(len(buf))
            self.tail = buf[:0]
        return True

    def _plain(self, f: _File, buf, pos: int) -> None:
        """Selected lines with no prefix, context or -o: copy them out in one write."""
        cfg = self.cfg
        limit = cfg.max_count - f.count if cfg.max_count >= 0 else -1
        prefix = f.name + (b"\0" if cfg.null else b":") if self.with_filename else b""
        out: list[bytes] = []
        binary = self.m.binary
        utf8 = cfg.utf8
        numbered = cfg.line_number
        eol = self.m.eol_x
        count = buf.count
        cpos = self.cpos
        cline = self.cline
        n = 0
        for ls, le in self.m.lines(buf, pos, len(buf)):
            line = buf[ls : le + 1]
            if not binary:
                line = regex.encode(line, utf8)
            if prefix:
                out.append(prefix)
            if numbered:
                cline += count(eol, cpos, ls)
                cpos = ls
                out.append(b"%d:" % cline)
            out.append(line)
            n += 1
            if n == limit:
                f.max_done = True
                break
        self.cpos = cpos
        self.cline = cline
        f.count += n
        if n:
            self.used = True
            self.out.write(b"".join(out))


_SURROGATE = re.compile("[\udc80-\udcff]")

# GNU grep's default GREP_COLORS: ms=01;31:mc=01;31:sl=:cx=:fn=35:ln=32:bn=32:se=36
_END = b"\33[m\33[K"


def _sgr(code: bytes, text: bytes) -> bytes:
    return b"\33[" + code + b"m\33[K" + text + _END


# ---------------------------------------------------------------- files and the command


def _is_device(fs: VFS, vpath: str) -> bool:
    """A character or block device, FIFO or socket (what ``-D`` is about)."""
    mode = fs.stat(vpath).st_mode
    return stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def _size(fs, vpath: str) -> int | None:
    """A regular file's size (for -T), None otherwise."""
    if not fs.isfile(vpath):
        return None
    try:
        return fs.stat(vpath).st_size
    except OSError:
        return None


def _name_matches(pat: str, path: str, command_line: bool) -> bool:
    """GNU grep: a file met in a walk by its base name, a command-line one by any name
    suffix (the whole name or a part after a ``/``); ``*`` crosses ``/``."""
    if command_line:
        return glob.fnmatch_suffix(pat, path)
    return glob.fnmatch(pat, path.rstrip("/").rsplit("/", 1)[-1])


def _excluded(cfg: Config, path: str, command_line: bool) -> bool:
    if any(_name_matches(pat, path, command_line) for pat in cfg.excludes):
        return True
    if cfg.includes:
        return not any(_name_matches(pat, path, command_line) for pat in cfg.includes)
    return False


def _dir_excluded(cfg: Config, path: str) -> bool:
    base = path.rstrip("/").rsplit("/", 1)[-1]
    return any(glob.fnmatch(pat, base) for pat in cfg.exclude_dirs)


class Grep:
    def __init__(self, inv: Invocation, cfg: Config) -> None:
        self.inv = inv
        self.cfg = cfg
        self.matched = False
        self.error = False
        self.searcher = Searcher(inv, cfg, Matcher(cfg, self.warn))

    def warn(self, msg: str) -> None:
        self.inv.error(msg)

    def oserror(self, e: OSError, display: str) -> None:
        self.error = True
        if not self.cfg.no_messages:
            e.filename = display
            self.inv.error(describe_oserror(e))

    def report(self, display: bytes, count: int) -> None:
        cfg = self.cfg
        out = self.inv.stdout
        if count:
            self.matched = True
        name = _sgr(b"35", display) if cfg.color else display
        if cfg.count:
            if self.searcher.with_filename:
                sep = _sgr(b"36", b":") if cfg.color else b":"
                out.write(name + (b"\0" if cfg.null else sep))
            out.write(b"%d\n" % count)
        display = name
        end = b"\0" if cfg.null else b"\n"
        if cfg.list_files == "l" and count or cfg.list_files == "L" and not count:
            out.write(display + end)

    def stdin(self) -> None:
        label = self.cfg.label.encode("utf-8", "surrogateescape")
        self.report(label, self.searcher.search(self.inv.stdin.read, label))

    def path(self, path: str, display: str, command_line: bool) -> None:
        cfg = self.cfg
        inv = self.inv
        fs = inv.fs
        vpath = inv.abs(path)
        self.inv.cancel.check()
        try:
            isdir = fs.isdir(vpath)
            if not isdir and (cfg.includes or cfg.excludes) and _excluded(cfg, path, True):
                return
            if isdir:
                if cfg.directories == "skip":
                    return
                if cfg.directories == "recurse":
                    if command_line and cfg.exclude_dirs and _dir_excluded(cfg, path) and \
                            path not in (".", "./"):
                        return
                    self.walk(vpath, display)
                    return
                raise IsADirectoryError(21, "Is a directory", display)
            if cfg.devices == "skip" and _is_device(fs, vpath):
                return
            self.search_file(vpath, display)
        except BrokenPipeError:
            raise
        except OSError as e:
            self.oserror(e, display)

    def search_file(self, vpath: str, display: str) -> None:
        """Search one regular file, reported under the name ``display``."""
        fs = self.inv.fs
        with fs.open(vpath) as f:
            dname = display.encode("utf-8", "surrogateescape")
            size = _size(fs, vpath) if self.cfg.initial_tab else None
            self.report(dname, self.searcher.search(f.read, dname, size))

    def walk(self, vdir: str, display: str, ancestors: frozenset = frozenset()) -> None:
        cfg = self.cfg
        fs = self.inv.fs
        try:
            st = fs.stat(vdir)
            key = (st.st_dev, st.st_ino)
            if key in ancestors:
                self.inv.error(f"{display}: warning: recursive directory loop")
                return
            ancestors = ancestors | {key}
            entries = sorted(fs.scandir(vdir), key=lambda e: e.name)
        except BrokenPipeError:
            raise
        except OSError as e:
            self.oserror(e, display)
            return
        for ent in entries:
            self.inv.cancel.check()
            child = ent.name if not display else (
                child_name(display, ent.name)
            )
            vchild = vdir.rstrip("/") + "/" + ent.name
            try:
                if ent.is_symlink() and not cfg.deref:
                    continue
                if ent.is_dir(follow_symlinks=True):
                    if cfg.exclude_dirs and _dir_excluded(cfg, child):
                        continue
                    self.walk(vchild, child, ancestors)
                    continue
            except BrokenPipeError:
                raise
            except OSError as e:
                self.oserror(e, child)
                continue
            if (cfg.includes or cfg.excludes) and _excluded(cfg, child, False):
                continue
            try:
                if cfg.devices != "read" and _is_device(fs, vchild):
                    continue
                self.search_file(vchild, child)
            except BrokenPipeError:
                raise
            except OSError as e:
                self.oserror(e, child)


def run(inv: Invocation) -> int:
    """The command; a back-reference search inside it stops with the run's timeout."""
    with regex.cancellable(inv.cancel.check):
        return _run(inv)


def _run(inv: Invocation) -> int:
    cfg, files = configure(inv)
    if cfg.max_count == 0:
        return 1
    g = Grep(inv, cfg)
    implicit = False
    if not files:
        if cfg.recursive:
            files = ["."]
            implicit = True
        else:
            files = ["-"]
    if cfg.with_filename is None:
        g.searcher.with_filename = len(files) > 1 or (cfg.recursive and (
            implicit or any(inv.fs.isdir(inv.abs(p)) for p in files if p != "-")))
    else:
        g.searcher.with_filename = cfg.with_filename
    try:
        for name in files:
            if name == "-":
                g.stdin()
            else:
                g.path(name, "" if implicit else name, True)
    except _Quit:
        return 0
    if g.error and not (cfg.quiet and g.matched):
        return 2
    return 0 if g.matched else 1


GREP_HELP = help_text("grep")
