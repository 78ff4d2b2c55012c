"""sed: the GNU sed 4.9 stream editor over the VFS.

Text is handled as ``str``: input bytes are decoded per locale (UTF-8 with
surrogateescape, or latin-1 in the C locale -- see :mod:`vshell.text.regex`), so any
byte sequence survives unchanged and regexes see characters as GNU does.  The script is
compiled by :mod:`vshell.commands.sed.parse`; this module reads input (with one line of
look-ahead for ``$``), runs the program and writes output, in place (``-i``) through a
temporary file renamed over the original.

A script that is a single unaddressed ``s`` command (the common ``sed s/a/b/g``) runs on
whole chunks of input with one ``re.sub`` call instead of line by line.
"""

from __future__ import annotations

import io
import re
import secrets
from collections.abc import Iterator

from vshell.command import Exit, Invocation
from vshell.commands._lib.futil import read_chunks
from vshell.commands._lib.helptext import help_text, version_text
from vshell.commands._lib.opts import UsageError, parse
from vshell.commands.sed.parse import (
    NO_REGEX,
    Command,
    Parser,
    Piece,
    Program,
    Regex,
    SedError,
    Subst,
    compile_sed_regex,
)
from vshell.records import replace
from vshell.text import regex

CHUNK = 1 << 16

SHORT = "nse:f:Eri::zul:b"
LONG = [
    "quiet", "silent", "expression=", "file=", "regexp-extended", "separate", "in-place=?",
    "null-data", "zero-terminated", "unbuffered", "line-length=", "posix", "sandbox",
    "follow-symlinks", "binary", "debug", "version",
]

VERSION = version_text("sed")


class _Quit(Exception):
    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class _Fatal(Exception):
    """An I/O error that ends sed with status 4 (message already printed)."""


# ---------------------------------------------------------------- output


class Output:
    """A text sink: buffered, encoded on flush, remembering a missing final newline."""

    def __init__(self, stream, utf8: bool, eol: str, unbuffered: bool = False) -> None:
        self.stream = stream
        self.utf8 = utf8
        self.eol = eol
        self.parts: list[str] = []
        self.size = 0
        self.missing_newline = False
        self.unbuffered = unbuffered

    def write(self, text: str) -> None:
        if self.missing_newline:
            self.parts.append(self.eol)
            self.missing_newline = False
        self.parts.append(text)
        self.size += len(text)
        if self.size > CHUNK or self.unbuffered:
            self.flush()

    def line(self, text: str, newline: bool = True) -> None:
        if self.missing_newline:
            self.parts.append(self.eol)
            self.missing_newline = False
        if newline:
            self.parts.append(text + self.eol)
        else:
            self.parts.append(text)
            self.missing_newline = True
        self.size += len(text)
        if self.size > CHUNK or self.unbuffered:
            self.flush()

    def flush(self) -> None:
        if self.parts:
            data = regex.encode("".join(self.parts), self.utf8)
            self.parts = []
            self.size = 0
            self.stream.write(data)
        if self.unbuffered:
            try:
                self.stream.flush()
            except (AttributeError, ValueError):
                pass


# ---------------------------------------------------------------- input


class Input:
    """Lines of the input files, with look-ahead to know the last line."""

    def __init__(self, sed: Sed, files: list[str]) -> None:
        self.sed = sed
        self.files = files
        self.fidx = -1  # the file whose chunks ``gen`` yields
        self.gen: Iterator[tuple[str, bool]] | None = None
        self.buf: list[str] = []  # lines read ahead, all from file ``buf_file``
        self.bi = 0
        self.buf_file = -1
        self.buf_noeol = False  # the last line in buf had no end-of-line
        self.cur_file = -1  # the file of the current line
        self.file_changed = False

    def file_chunks(self, name: str) -> Iterator[tuple[str, bool]]:
        """Decoded chunks of whole lines of one input (the eol after each chunk removed);
        the flag says whether the chunk ended with an eol."""
        sed = self.sed
        inv = sed.inv
        eol_b = sed.eol.encode()
        utf8 = sed.utf8
        if name == "-":
            read = inv.stdin.read
            handle = None
        else:
            try:
                handle = inv.fs.open(inv.abs(name))  # (one walk: a directory says so here)
            except IsADirectoryError:
                if sed.in_place:
                    sed.say(f"couldn't edit {name}: not a regular file")
                    sed.status = 4
                    return
                sed.say(f"read error on {name}: Is a directory")
                raise _Fatal() from None
            except OSError as e:
                sed.say(f"can't read {name}: {e.strerror}")
                sed.status = 2
                return
            read = handle.read
        try:
            rest = b""
            while True:
                inv.cancel.check()
                data = read(sed.chunk)
                if not data:
                    break
                if rest:
                    data = rest + data
                cut = data.rfind(eol_b)
                if cut < 0:
                    rest = data
                    continue
                rest = data[cut + 1 :]
                yield regex.decode(data[:cut], utf8), True
            if rest:
                yield regex.decode(rest, utf8), False
        finally:
            if handle is not None:
                handle.close()

    def _chunk(self) -> bool:
        """Load the next chunk of lines of file ``fidx``; False at its end."""
        while self.gen is not None:
            got = next(self.gen, None)
            if got is None:
                self.gen = None
                return False
            text, ended = got
            self.buf = text.split(self.sed.eol)
            self.bi = 0
            self.buf_file = self.fidx
            self.buf_noeol = not ended
            return True
        return False

    def _fill(self, cross_files: bool) -> bool:
        """Make a line available in ``buf``; False when none is left (in this file only,
        unless ``cross_files``)."""
        while True:
            if self._chunk():
                return True
            if not cross_files or self.fidx + 1 >= len(self.files):
                return False
            self.fidx += 1
            self.sed.file_opened(self.fidx)
            self.gen = self.file_chunks(self.files[self.fidx])

    def next_line(self) -> tuple[str, bool] | None:
        if self.bi >= len(self.buf) and not self._fill(True):
            return None
        line = self.buf[self.bi]
        self.bi += 1
        self.file_changed = self.buf_file != self.cur_file
        self.cur_file = self.buf_file
        return line, not (self.buf_noeol and self.bi == len(self.buf))

    def is_last(self) -> bool:
        """Whether the current line is the last (of its file, with -s/-i)."""
        if self.bi < len(self.buf):
            return False
        if self.sed.separate:
            return self.fidx != self.cur_file or not self._fill(False)
        return not self._fill(True)

    def more_files(self) -> bool:
        """-s/-i: whether files remain after the current one."""
        return self.sed.separate and self.cur_file < len(self.files) - 1

    def current_name(self) -> str:
        if 0 <= self.cur_file < len(self.files):
            return self.files[self.cur_file]
        return "-"


# ---------------------------------------------------------------- the editor


class Sed:
    def __init__(self, inv: Invocation) -> None:
        self.inv = inv
        self.status = 0
        self.quiet = False
        self.separate = False
        self.in_place = False
        self.suffix = ""
        self.eol = "\n"
        self.line_len = 70
        self.posix = False
        self.sandbox = False
        self.unbuffered = False
        self.extended = False
        self.utf8 = regex.is_utf8_locale(inv.env)
        self.prog = Program()
        self.lineno = 0
        self.last_regex: Regex | None = None
        self.wfiles: dict[str, Output] = {}
        self.rfiles: dict[str, Iterator[tuple[str, bool]] | None] = {}
        self.append: list[tuple[str, str]] = []  # ("text", s) ("file", name) ("line", name)
        self.tflag = False
        self.out: Output
        self.stdout_out = Output(inv.stdout, self.utf8, "\n")
        self.stderr_out = Output(inv.stderr, self.utf8, "\n")
        self.inplace_target: tuple[str, str, io.BytesIO] | None = None
        self.jumps = 0  # branches taken (the token is checked every 1024)
        self.input: Input
        self.chunk = CHUNK

    def say(self, msg: str) -> None:
        self.stdout_flush()
        self.inv.error(msg)

    def stdout_flush(self) -> None:
        self.stdout_out.flush()

    # -- setup
    def configure(self) -> list[str]:
        inv = self.inv
        try:
            opts = parse(inv, SHORT, LONG, help_text=SED_HELP, usage_tail=_usage)
        except UsageError:
            raise Exit(1) from None
        pieces: list[Piece] = []
        n_expr = 0
        for key, val in opts.items:
            v = val or ""
            if key in ("-n", "--quiet", "--silent"):
                self.quiet = True
            elif key in ("-e", "--expression"):
                n_expr += 1
                pieces.append(Piece(v, f"-e expression #{n_expr}"))
            elif key in ("-f", "--file"):
                pieces.append(self.script_file(v))
            elif key in ("-E", "-r", "--regexp-extended"):
                self.extended = True
            elif key in ("-s", "--separate"):
                self.separate = True
            elif key in ("-i", "--in-place"):
                self.in_place = True
                self.separate = True
                self.suffix = v
            elif key in ("-z", "--null-data", "--zero-terminated"):
                self.eol = "\0"
            elif key in ("-u", "--unbuffered"):
                self.unbuffered = True
            elif key in ("-l", "--line-length"):
                try:
                    self.line_len = int(v)
                except ValueError:
                    self.line_len = 0
            elif key == "--posix":
                self.posix = True
            elif key == "--sandbox":
                self.sandbox = True
            elif key == "--debug":
                raise Exit(1, "--debug is not supported")
            elif key == "--version":
                inv.stdout.write(VERSION.encode())
                raise Exit(0)
        operands = list(opts.operands)
        if not pieces:
            if not operands:
                inv.stderr.write(_usage())
                raise Exit(1)
            pieces.append(Piece(operands.pop(0), "-e expression #1"))
        if self.utf8 and any(_INVALID.search(p.text) for p in pieces):
            # A script in a legacy 8-bit encoding: work byte-wise (as GNU's matcher
            # effectively does for invalid sequences), so its bytes match the input's.
            self.utf8 = False
            for p in pieces:
                p.text = regex.decode(regex.encode(p.text, True), False)
        self.stdout_out = Output(inv.stdout, self.utf8, self.eol, self.unbuffered)
        self.stderr_out = Output(inv.stderr, self.utf8, "\n")
        self.out = self.stdout_out
        self.prog = _compiled(pieces, self.extended, self.utf8, self.posix, self.sandbox)
        if self.prog.quiet_from_script:
            self.quiet = True
        self.open_wfiles()
        if self.in_place and not operands:
            raise Exit(1, "no input files")
        return operands or ["-"]

    def script_file(self, name: str) -> Piece:
        inv = self.inv
        try:
            data = b"".join(read_chunks(inv, name))
        except OSError as e:
            raise Exit(4, f"couldn't open file {name}: {e.strerror}") from None
        return Piece(regex.decode(data, self.utf8), f"file {name}", is_file=True)

    def open_wfiles(self) -> None:
        for cmd in self.prog.commands:
            name = None
            if cmd.name in "wW":
                name = cmd.text
            elif cmd.subst is not None and cmd.subst.wfile:
                name = cmd.subst.wfile
            if name and name not in self.wfiles:
                self.wfiles[name] = self.open_w(name)

    def open_w(self, name: str) -> Output:
        if name == "/dev/stdout":
            return self.stdout_out
        if name == "/dev/stderr":
            return self.stderr_out
        try:
            handle = self.inv.fs.open(self.inv.abs(name), "wb")
        except OSError as e:
            raise Exit(4, f"couldn't open file {name}: {e.strerror}") from None
        return Output(handle, self.utf8, self.eol, unbuffered=True)

    # -- in-place
    def file_opened(self, idx: int) -> None:
        """Called when input moves to file ``idx``: commit the previous in-place file."""
        if not self.in_place:
            return
        self.commit_in_place()
        name = self.input.files[idx]
        if name == "-":
            self.out = self.stdout_out
            return
        buf = io.BytesIO()
        self.inplace_target = (name, self.inv.abs(name), buf)
        self.out = Output(buf, self.utf8, self.eol)

    def commit_in_place(self) -> None:
        if self.inplace_target is None:
            return
        name, vpath, buf = self.inplace_target
        self.inplace_target = None
        self.out.flush()
        self.out = self.stdout_out
        fs = self.inv.fs
        if not fs.isfile(vpath):
            return
        directory = vpath.rsplit("/", 1)[0] or "/"
        tmp = f"{directory.rstrip('/')}/sed{secrets.token_hex(4)}"
        tmp_shown = (name.rsplit("/", 1)[0] + "/" if "/" in name else "") + tmp.rsplit("/", 1)[1]
        try:
            handle = fs.open(tmp, "wb")
        except OSError as e:
            self.say(f"couldn't open temporary file {tmp_shown}: {e.strerror}")
            raise _Fatal() from None
        try:
            mode = fs.stat(vpath).st_mode & 0o7777
            with handle as f:
                f.write(buf.getvalue())
            try:
                fs.chmod(tmp, mode)
            except OSError:
                pass
            if self.suffix:
                if "/" in self.suffix:  # GNU: "*" is the name as given, from the cwd
                    backup = self.inv.abs(self.suffix.replace("*", name))
                elif "*" in self.suffix:
                    base = vpath.rsplit("/", 1)[1]
                    backup = directory.rstrip("/") + "/" + self.suffix.replace("*", base)
                else:
                    backup = vpath + self.suffix
                fs.rename(vpath, backup)
            fs.rename(tmp, vpath)
        except OSError as e:
            self.say(f"cannot rename {name}: {e.strerror}")
            self.status = 4
            try:
                fs.unlink(tmp)
            except OSError:
                pass

    # -- running
    def run(self, files: list[str]) -> int:
        self.input = Input(self, files)
        self.reset_ranges()
        fast = self.fast_path()
        try:
            if fast is not None:
                self.run_fast(fast)
            else:
                self.loop()
        except _Quit as q:
            self.status = q.status if q.status else self.status
        except _Fatal:
            self.status = 4
        try:
            self.finish()
        except _Fatal:
            self.status = 4
        return self.status

    def finish(self) -> None:
        if self.in_place:
            self.commit_in_place()
        self.out.flush()
        self.stdout_out.flush()
        self.stderr_out.flush()
        for w in self.wfiles.values():
            w.flush()
            if w is not self.stdout_out and w is not self.stderr_out:
                try:
                    w.stream.close()
                except OSError:
                    pass

    def loop(self) -> None:
        inp = self.input
        cmds = self.prog.commands
        ps: str | None = None
        keep = False  # D restarted the cycle without reading
        had_eol = True
        check = self.inv.cancel.check
        while True:
            if not self.lineno & 1023:
                check()
            if not keep:
                got = inp.next_line()
                if got is None:
                    return
                ps, had_eol = got
                self.lineno += 1
                self.tflag = False
                if inp.file_changed and self.separate and self.lineno > 1:
                    self.lineno = 1
                    self.reset_ranges()
            keep = False
            self.had_eol = had_eol
            self.ps = ps or ""
            action = self.execute(cmds)
            if action == "D":
                keep = True
                ps = self.ps
                self.flush_append()
                continue
            if action != "delete" and not self.quiet:
                self.out.line(self.ps, self.had_eol)
            self.flush_append()
            if action == "quit":
                if self.out.missing_newline:  # GNU ends the output line when quitting
                    self.out.write("")
                raise _Quit(self.quit_status)
            if self.unbuffered:
                self.out.flush()

    def reset_ranges(self) -> None:
        for cmd in self.prog.commands:
            if cmd.a2 is not None:  # (the others are shared by every run: never changed)
                cmd.range_active = cmd.a1 is not None and cmd.a1.kind == "zero"
                cmd.range_closed = False

    # -- addresses
    def match_regex(self, rx: Regex, text: str) -> bool:
        comp = self.resolve(rx)
        return comp.search(text) is not None

    def resolve(self, rx: Regex):
        if rx.pattern is None:
            if self.last_regex is None or self.last_regex.compiled is None:
                raise Exit(1, f"-e expression #1, char 0: {NO_REGEX}")
            return self.last_regex.compiled
        self.last_regex = rx
        assert rx.compiled is not None
        return rx.compiled

    def match_addr(self, a, ) -> bool:
        kind = a.kind
        if kind == "line":
            return self.lineno == a.n
        if kind == "re":
            return self.match_regex(a.regex, self.ps)
        if kind == "last":
            return self.input.is_last()
        if kind == "step":
            if a.step <= 0:
                return self.lineno == a.n
            return self.lineno >= a.n and (self.lineno - a.n) % a.step == 0
        return False

    def selected(self, cmd: Command) -> bool:
        """Whether ``cmd`` applies to this line (GNU's range rules; ``!`` applied)."""
        a1 = cmd.a1
        if a1 is None:
            return not cmd.negate
        a2 = cmd.a2
        if a2 is None:
            return self.match_addr(a1) != cmd.negate
        line = self.lineno
        if not cmd.range_active:
            if cmd.range_closed or a1.kind == "zero":
                return cmd.negate
            if a1.kind == "line":
                # GNU: a line-number start that was skipped (e.g. by d) still opens the range
                if line < a1.n:
                    return cmd.negate
            elif not self.match_addr(a1):
                return cmd.negate
            k = a2.kind
            one = False
            if k == "line":
                one = a2.n <= line
                cmd.range_end = a2.n
            elif k == "plus":
                one = a2.n == 0
                cmd.range_end = line + a2.n
            elif k == "tilde":
                one = a2.n <= 0
                if not one:
                    cmd.range_end = (line // a2.n + 1) * a2.n
            elif k == "last":
                one = self.input.is_last()
            if one:
                self.close_range(cmd)
            else:
                cmd.range_active = True
            return not cmd.negate
        k = a2.kind
        if k in ("line", "plus", "tilde"):
            if line >= cmd.range_end:
                self.close_range(cmd)
            return (line <= cmd.range_end) != cmd.negate
        if k == "last":
            if self.input.is_last():
                self.close_range(cmd)
            return not cmd.negate
        if self.match_regex(a2.regex, self.ps):  # type: ignore[arg-type]  # kind "re": has one
            self.close_range(cmd)
        return not cmd.negate

    @staticmethod
    def close_range(cmd: Command) -> None:
        cmd.range_active = False
        if cmd.a1 is not None and cmd.a1.kind in ("line", "zero"):
            cmd.range_closed = True

    # -- the commands
    def branch(self, target: int) -> int:
        """A taken ``b``/``t``/``T``: ``:a; ba`` loops without reading a line, so the
        token is checked here too (every 1024 jumps)."""
        self.jumps += 1
        if not self.jumps & 1023:
            self.inv.cancel.check()
        return target

    def execute(self, cmds: list[Command]) -> str:
        """Run the program on the pattern space; returns "", "delete", "D" or "quit"."""
        pc = 0
        n = len(cmds)
        out = self.out
        while pc < n:
            cmd = cmds[pc]
            name = cmd.name
            if name in ("}", "#", ":"):
                pc += 1
                continue
            a1 = cmd.a1
            if a1 is None:
                chosen = not cmd.negate
            elif cmd.a2 is None and (rx := a1.regex) is not None and rx.pattern is not None:
                self.last_regex = rx
                found = rx.compiled.search(self.ps)  # type: ignore[union-attr]  # compiled with its pattern
                chosen = (found is not None) != cmd.negate
            else:
                chosen = self.selected(cmd)
            if not chosen:
                pc = cmd.target + 1 if name == "{" else pc + 1
                continue
            pc += 1
            if name == "{":
                continue
            if name == "s":
                assert cmd.subst is not None
                self.substitute(cmd.subst)
            elif name == "p":
                out.line(self.ps, self.had_eol)
            elif name == "P":
                i = self.ps.find("\n")
                out.line(self.ps if i < 0 else self.ps[:i], i >= 0 or self.had_eol)
            elif name == "d":
                return "delete"
            elif name == "D":
                i = self.ps.find("\n")
                if i < 0:
                    return "delete"
                self.ps = self.ps[i + 1 :]
                return "D"
            elif name == "n":
                if self.input.is_last():
                    if self.input.more_files():
                        return ""  # -s/-i: end this cycle, go on with the next file
                    if not self.posix:
                        self.quit_status = 0
                        return "quit"
                    return "delete"
                if not self.quiet:
                    out.line(self.ps, self.had_eol)
                if not self.read_next(append=False):
                    return "quit" if not self.posix else "delete"
            elif name == "N":
                if self.input.is_last():
                    if self.input.more_files():
                        return ""
                    self.quit_status = 0
                    if self.posix:
                        return "delete"
                    return "quit"
                self.read_next(append=True)
            # the "ends with a newline" flag travels with the text, as in GNU
            elif name in ("g", "G"):  # copy (g) or append (G) the hold space
                self.ps = self.hold if name == "g" else self.ps + "\n" + self.hold
                self.had_eol = self.hold_eol
            elif name in ("h", "H"):  # copy (h) or append (H) to the hold space
                self.hold = self.ps if name == "h" else self.hold + "\n" + self.ps
                self.hold_eol = self.had_eol
            elif name == "x":
                self.ps, self.hold = self.hold, self.ps
                self.had_eol, self.hold_eol = self.hold_eol, self.had_eol
            elif name == "b":
                pc = self.branch(cmd.target)
            elif name == "t":
                if self.tflag:
                    self.tflag = False
                    pc = self.branch(cmd.target)
            elif name == "T":
                if not self.tflag:
                    pc = self.branch(cmd.target)
                else:
                    self.tflag = False
            elif name == "a":
                self.append.append(("text", cmd.text))
            elif name == "i":
                out.write(cmd.text)
            elif name == "c":
                if cmd.a2 is None or not cmd.range_active or cmd.negate:
                    out.write(cmd.text)
                return "delete"
            elif name == "=":
                out.write(f"{self.lineno}\n")
            elif name == "l":
                self.list_ps(cmd.int_arg)
            elif name == "q":
                self.quit_status = cmd.int_arg or 0
                return "quit"
            elif name == "Q":
                raise _Quit(cmd.int_arg or 0)
            elif name == "r":
                self.append.append(("file", cmd.text))
            elif name == "R":
                self.append.append(("line", cmd.text))
            elif name == "w":
                self.wfiles[cmd.text].line(self.ps, self.had_eol)
            elif name == "W":
                self.wfiles[cmd.text].line(self.ps.split("\n", 1)[0])
            elif name == "y":
                assert cmd.ymap is not None
                self.ps = self.ps.translate(cmd.ymap)
            elif name == "z":
                self.ps = ""
            elif name == "F":
                out.write(self.input.current_name() + "\n")
            elif name == "e":
                if cmd.text:
                    out.write(self.shell(cmd.text))
                else:
                    self.ps = self.shell(self.ps).removesuffix("\n")
            elif name == "L":
                pass
        return ""

    hold = ""
    hold_eol = True
    quit_status = 0
    had_eol = True
    ps = ""

    def read_next(self, append: bool) -> bool:
        got = self.input.next_line()
        if got is None:
            return False
        self.flush_append()
        line, self.had_eol = got
        self.lineno += 1
        if append:
            self.ps = self.ps + "\n" + line
        else:
            self.ps = line
        return True

    def flush_append(self) -> None:
        if not self.append:
            return
        items = self.append
        self.append = []
        out = self.out
        for kind, value in items:
            if kind == "text":
                out.write(value)
            elif kind == "file":
                data = self.read_whole(value)
                if data:
                    out.write(data)
            else:
                got = self.read_one_line(value)
                if got is not None:
                    out.line(got[0], True)

    def read_whole(self, name: str) -> str | None:
        inv = self.inv
        try:
            if name == "/dev/stdin" or name == "-":
                data = inv.stdin.read()
            else:
                with inv.fs.open(inv.abs(name)) as f:
                    data = f.read()
        except OSError:
            return None
        return regex.decode(data, self.utf8)

    def read_one_line(self, name: str) -> tuple[str, bool] | None:
        if name not in self.rfiles:
            text = self.read_whole(name)
            if text is None:
                self.rfiles[name] = None
            else:
                lines = text.split(self.eol)
                if lines and lines[-1] == "":
                    lines.pop()
                self.rfiles[name] = iter([(x, True) for x in lines])
        it = self.rfiles[name]
        if it is None:
            return None
        return next(it, None)

    def list_ps(self, width: int | None) -> None:
        width = self.line_len if width is None else width
        line_len = width - 1 if width > 0 else 0
        data = regex.encode(self.ps, self.utf8)
        out: list[str] = []
        col = 0
        for b in data:
            if b == 0x5C:
                piece = "\\\\"
            elif b in _L_ESC:
                piece = _L_ESC[b]
            elif 0x20 <= b < 0x7F:
                piece = chr(b)
            else:
                piece = f"\\{b:03o}"
            if width > 0 and col + len(piece) > line_len:
                out.append("\\\n")
                col = 0
            out.append(piece)
            col += len(piece)
        out.append("$\n")
        self.out.write("".join(out))

    def shell(self, command: str) -> str:
        """Run ``command`` with the sandbox's sh; its standard output as text."""
        inv = self.inv
        self.out.flush()
        self.stdout_out.flush()
        if inv.run_command is None:
            raise Exit(1, "e: cannot run commands here")
        buf = io.BytesIO()
        inv.run_command(["sh", "-c", command], stdin=b"", stdout=buf)
        return regex.decode(buf.getvalue(), self.utf8)

    # -- s///
    def substitute(self, sub: Subst) -> None:
        comp = self.resolve(sub.regex)
        ps = self.ps
        cached = sub.fast
        fast = cached[1] if cached is not None and cached[0] is comp else _simple_sub(comp, sub)
        if fast is not None:
            if fast.__class__ is not str:
                fast = self.case_expander(sub)
            new, n = comp.subn(fast, ps, 0 if sub.globally else 1)
            if not n:
                return
            self.ps = new
            self.tflag = True
            self.after_subst(sub)
            return
        search = comp.search
        pos = 0
        count = 0
        out: list[str] = []
        done = False
        prev_end = -1
        n = len(ps)
        while pos <= n:
            m = search(ps, pos)
            if m is None:
                break
            s, e = m.span()
            if s == e and s == prev_end:
                if s >= n:
                    break
                out.append(ps[pos : s + 1])
                pos = s + 1
                continue
            count += 1
            if count >= sub.nth:
                out.append(ps[pos:s])
                out.append(self.expand(sub, m))
                done = True
                if not sub.globally:
                    pos = e
                    break
            else:
                out.append(ps[pos:e])
            prev_end = e
            if s == e:
                if s < n:
                    out.append(ps[s])
                pos = s + 1
            else:
                pos = e
        if not done:
            return
        out.append(ps[pos:])
        self.ps = "".join(out)
        self.tflag = True
        self.after_subst(sub)

    def after_subst(self, sub: Subst) -> None:
        if sub.evaluate:
            self.ps = self.shell(self.ps).removesuffix("\n")
        if sub.print:
            self.out.line(self.ps, self.had_eol)
        if sub.wfile:
            self.wfiles[sub.wfile].line(self.ps, self.had_eol)

    def case_expander(self, sub: Subst):
        expand = self.expand
        return lambda m: expand(sub, m)

    @staticmethod
    def expand(sub: Subst, m) -> str:
        if not sub.has_case:
            return "".join(
                v if k == "lit" else (m.group(v) or "")  # type: ignore[misc]  # a non-"lit" part holds a group number
                for k, v in sub.parts
            )
        out: list[str] = []
        mode = ""  # "L" / "U" / ""
        one = ""  # "l" / "u" / ""
        for k, v in sub.parts:
            if k == "case":
                if v in ("L", "U"):
                    mode = str(v)
                    one = ""
                elif v == "E":
                    mode = ""
                    one = ""
                else:
                    one = str(v)
                continue
            text = str(v) if k == "lit" else (m.group(v) or "")
            if mode == "L":
                text = text.lower()
            elif mode == "U":
                text = text.upper()
            if one and text:
                text = (text[0].lower() if one == "l" else text[0].upper()) + text[1:]
                one = ""
            out.append(text)
        return "".join(out)

    # -- the whole-chunk fast path
    def fast_path(self):
        """How to run the script on whole chunks, or None.

        Unaddressed ``s/re/rep/[g]`` commands, one or several (``s/a/b/g; s/^/> /``), and
        grep-like ``/re/p`` with -n or ``/re/d``.
        """
        cmds = self.prog.commands
        if not cmds or self.in_place or self.unbuffered or self.eol != "\n" or self.posix:
            return None
        cmd = cmds[0]
        if len(cmds) == 1 and cmd.name in "pd" and cmd.a1 is not None and cmd.a2 is None \
                and cmd.a1.kind == "re":
            return self.grep_like(cmd)
        if self.quiet:
            return None
        steps = []
        for i, cmd in enumerate(cmds):
            step = self.chunk_subst(cmd)
            if step is None:
                return None
            parts = cmd.subst.parts if cmd.subst is not None else []
            if i < len(cmds) - 1 and any(k == "lit" and "\n" in str(v) for k, v in parts):
                # a newline put into the pattern space: the next command would see one
                # pattern space where the chunk has two lines
                return None
            steps.append(step)
        return ("subst", True, steps, None)

    def chunk_subst(self, cmd: Command):
        """How an unaddressed ``s`` runs on a chunk of whole lines, or None: the lines of
        the chunk are separate pattern spaces when neither its regex nor what it writes
        holds a newline."""
        sub = cmd.subst
        if cmd.name != "s" or cmd.a1 is not None or cmd.negate or sub is None:
            return None
        if sub.print or sub.evaluate or sub.wfile or sub.has_case or sub.nth != 1:
            return None
        rx = sub.regex
        comp = self.line_regex(rx)
        if comp is None or rx.pattern is None:
            return None
        template = "".join(
            str(v).replace("\\", "\\\\") if k == "lit" else f"\\g<{v}>" for k, v in sub.parts
        )
        if rx.pattern in ("^", "$") and all(k == "lit" for k, _ in sub.parts):
            # s/^/> / and s/$/;/: text put before or after every line, no regex at all
            replacement = "".join(str(v) for _, v in sub.parts)
            return ("prefix" if rx.pattern == "^" else "suffix", True, None, replacement)
        specials = "\\.[*^$+?(){}|" if self.extended else "\\.[*^$"
        literal = rx.pattern
        if (
            not rx.icase
            and literal
            and not any(ch in specials for ch in literal)
            and all(k == "lit" for k, _ in sub.parts)
        ):
            replacement = "".join(str(v) for _, v in sub.parts)
            return ("lit", sub.globally, literal, replacement)
        if sub.globally and comp.search("") is not None:
            return None  # empty matches: keep to the general loop
        if not sub.globally:
            return ("re1", False, comp, sub)
        return ("re", sub.globally, comp, template)

    def line_regex(self, rx: Regex | None) -> regex.Regex | None:
        """``rx`` compiled for the chunk fast paths, or None where it may span lines."""
        if rx is None or rx.pattern is None or rx.multiline or rx.compiled is None:
            return None
        if "\n" in rx.pattern or "\\n" in rx.pattern:
            return None
        try:
            return compile_sed_regex(rx.pattern, self.extended, rx.icase, False, self.utf8,
                                     eol="\n")
        except regex.RegexError:
            return None

    def grep_like(self, cmd: Command):
        """``-n /re/p`` or ``/re/d`` (either with ``!``) as a scan for matching lines."""
        if (cmd.name == "p") != self.quiet:
            return None
        scan = self.line_regex(cmd.a1.regex if cmd.a1 is not None else None)
        if scan is None:
            return None
        keep_matching = (cmd.name == "p") != cmd.negate
        return ("grep", keep_matching, scan, None)

    def run_grep_like(self, keep_matching: bool, scan) -> None:
        out = self.out
        for name in self.input.files:
            for text, ended in self.input.file_chunks(name):
                text += "\n"
                pieces: list[str] = []
                pos = 0
                last_kept = False
                for ls, le in _selected_lines(scan, text):
                    if keep_matching:
                        pieces.append(text[ls:le])
                    elif ls > pos:
                        pieces.append(text[pos:ls])
                    pos = le
                if keep_matching:
                    last_kept = pos == len(text)
                else:
                    if pos < len(text):
                        pieces.append(text[pos:])
                    last_kept = pos < len(text)
                if not pieces:
                    continue
                result = "".join(pieces)
                if not ended and last_kept:
                    out.line(result[:-1], False)
                else:
                    out.write(result)
                out.flush()

    def run_fast(self, fast) -> None:
        kind, globally, what, template = fast
        if kind == "grep":
            self.run_grep_like(globally, what)
            return
        out = self.out
        self.chunk = 1 << 20
        for name in self.input.files:
            for text, ended in self.input.file_chunks(name):
                for kind, globally, what, template in fast[2]:
                    if kind == "prefix":
                        text = template + text.replace("\n", "\n" + template)
                    elif kind == "suffix":
                        text = text.replace("\n", template + "\n") + template
                    elif kind == "lit":
                        if globally:
                            text = text.replace(what, template)
                        else:
                            text = "\n".join([x.replace(what, template, 1)
                                              for x in text.split("\n")])
                    elif globally:
                        text = what.sub(template, text)
                    else:
                        text = self.first_per_line(what, template, text)
                out.line(text, ended)
                out.flush()


    def first_per_line(self, regex, sub: Subst, text: str) -> str:
        """Replace the first match on each line (``s/re/rep/`` without ``g``).

        ``regex`` is line-oriented (eol ``\\n``), so one search over the chunk finds the
        next line with a match: RE2 skips the others without a Python call per line.
        """
        spans_iter = regex.first_per_line(text)
        if spans_iter is not None and not sub.has_case:
            return _first_per_line_spans(spans_iter, sub, text)
        expand = self.expand
        find = text.find
        out: list[str] = []
        pos = 0  # start of the first line not yet handled
        for m in regex.finditer(text):
            s, e = m.span()
            if s < pos:
                continue  # a later match on a line already substituted
            nl = find("\n", e)
            out.append(text[pos:s])
            out.append(expand(sub, m))
            if nl < 0:
                out.append(text[e:])
                return "".join(out)
            out.append(text[e : nl + 1])
            pos = nl + 1
        out.append(text[pos:])
        return "".join(out)


def _first_per_line_spans(spans_iter, sub: Subst, text: str) -> str:
    """:meth:`first_per_line` from raw spans (byte and character offsets agree): no match
    object, the replacement's pieces cut straight from ``text``."""
    parts = [(k == "lit", v) for k, v in sub.parts]
    find = text.find
    out: list[str] = []
    add = out.append
    pos = 0
    for spans in spans_iter:
        s, e = spans[0]
        add(text[pos:s])
        for is_lit, v in parts:
            if is_lit:
                add(v)  # type: ignore[arg-type]  # a literal part holds a str
            else:
                a, b = spans[v]
                if a >= 0:
                    add(text[a:b])
        nl = find("\n", e)
        if nl < 0:
            add(text[e:])
            return "".join(out)
        add(text[e : nl + 1])
        pos = nl + 1
    add(text[pos:])
    return "".join(out)


def _selected_lines(comp: regex.Regex, text: str):
    """Spans (start, end past the newline) of the lines of ``text`` that ``comp`` matches;
    ``text`` ends with a newline and ``comp`` is line-oriented (eol ``\\n``)."""
    pos = 0
    n = len(text)
    find = text.find
    rfind = text.rfind
    while pos < n:
        m = comp.search(text, pos)
        if m is None or m.start() >= n:
            return
        s = m.start()
        k = rfind("\n", pos, s)
        ls = k + 1 if k >= 0 else pos
        nl = find("\n", s)
        yield ls, nl + 1
        pos = nl + 1


_PROGRAMS: dict[tuple, Program] = {}


def _compiled(pieces: list[Piece], extended: bool, utf8: bool, posix: bool,
              sandbox: bool) -> Program:
    """The script compiled, once per script text and dialect (a shell loop runs the same
    ``sed`` again and again); each run gets its own copies of the commands, which hold
    the state of its address ranges."""
    key = (tuple((p.text, p.label, p.is_file) for p in pieces), extended, utf8, posix, sandbox)
    prog = _PROGRAMS.get(key)
    if prog is None:
        try:
            prog = Parser(pieces, extended=extended, utf8=utf8, posix=posix,
                          sandbox=sandbox).parse()
        except SedError as e:
            raise Exit(e.status, str(e)) from None
        if len(_PROGRAMS) >= 128:
            _PROGRAMS.clear()
        _PROGRAMS[key] = prog
    return Program([_fresh(cmd) if cmd.a2 is not None else cmd for cmd in prog.commands],
                   prog.quiet_from_script)


def _fresh(cmd: Command) -> Command:
    """A copy of a range command (only those change as a run goes: the range's state),
    sharing what never changes (its compiled regex, texts).

    Made by the constructor, not by copying ``__dict__``: an instance built that way keeps
    CPython's compact attribute layout, which the per-line loop reads ~10 % faster."""
    return replace(cmd)


def _simple_sub(comp: regex.Regex, sub: Subst) -> str | bool | None:
    """How ``re.subn`` can do this substitution: a template string, True (a function is
    needed for case conversion), or None (GNU's empty-match/longest rules need our loop)."""
    cached = sub.fast
    if cached is not None and cached[0] is comp:
        return cached[1]
    result: str | bool | None
    if sub.nth != 1 or comp.search("") is not None:
        result = None
    elif sub.has_case:
        result = True
    else:
        result = "".join(
            str(v).replace("\\", "\\\\") if k == "lit" else f"\\g<{v}>" for k, v in sub.parts
        )
    sub.fast = (comp, result)
    return result


_INVALID = re.compile("[\udc80-\udcff]")


def _usage() -> bytes:
    """The usage text GNU sed prints on a usage error (its --help minus the last line)."""
    return SED_HELP.rsplit("E-mail bug reports", 1)[0].encode()


_L_ESC = {7: "\\a", 8: "\\b", 12: "\\f", 10: "\\n", 13: "\\r", 9: "\\t", 11: "\\v"}


def run(inv: Invocation) -> int:
    """The command; a back-reference search inside it stops with the run's timeout."""
    with regex.cancellable(inv.cancel.check):
        return _run(inv)


def _run(inv: Invocation) -> int:
    sed = Sed(inv)
    files = sed.configure()
    try:
        return sed.run(files)
    except regex.TooComplex:
        sed.out.flush()
        raise Exit(4, regex.TOO_COMPLEX) from None


__all__ = ["compile_sed_regex", "run"]


SED_HELP = help_text("sed")
