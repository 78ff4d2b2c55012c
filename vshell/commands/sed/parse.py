"""Compiling a GNU sed script into a flat list of commands.

The script is the -e/-f pieces joined by newlines; errors name the piece and the character
as GNU sed does (``-e expression #2, char 5: unterminated `s' command`, or ``file F line
L: ...``).  Blocks become ``{``/``}`` entries whose ``target`` is the matching index, and
branches carry the index of their label, so the executor is a simple program counter.
"""

from __future__ import annotations

import re
from typing import TypeAlias

from vshell.records import field, record
from vshell.text import regex
from vshell.text.escapes import sed_numeric_escapes

# GNU sed's messages.
UNTERM_S = "unterminated `s' command"
UNTERM_Y = "unterminated `y' command"
UNKNOWN_S_OPT = "unknown option to `s'"
MULT_G = "multiple `g' options to `s' command"
MULT_P = "multiple `p' options to `s' command"
MULT_NUM = "multiple number options to `s' command"
ZERO_NUM = "number option to `s' command may not be zero"
Y_LEN = "strings for `y' command are different lengths"
EXCESS = "extra characters after command"
EXPECTED_SLASH = "expected \\ after `a', `c' or `i'"
NO_COMMAND = "missing command"
ONE_ADDR = "command only uses one address"
NO_ADDR = "doesn't want any addresses"
EXCESS_CLOSE = "unexpected `}'"
EXCESS_OPEN = "unmatched `{'"
UNEXPECTED_COMMA = "unexpected `,'"
MULT_BANG = "multiple `!'s"
BAD_ADDR0 = "invalid usage of line address 0"
BAD_STEP = "invalid usage of +N or ~N as first address"
LABEL_MISSING = "\":\" lacks a label"
NO_FILE = "missing filename in r/R/w/W commands"
COMMENT_ADDR = "comments don't accept any addresses"
UNTERM_ADDR = "unterminated address regex"
EXPECTED_NEWER = "expected newer version of sed"
NO_REGEX = "no previous regular expression"
CompiledRegex: TypeAlias = regex.Regex  # (a Subst field is named ``regex``)
SANDBOX = "e/r/w commands disabled in sandbox mode"


class SedError(Exception):
    """A script error; ``str(e)`` is the full GNU message without the ``sed: `` prefix."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


@record
class Regex:
    """A compiled sed regex (None pattern = the empty regex: reuse the last one)."""

    pattern: str | None
    icase: bool = False
    multiline: bool = False
    compiled: regex.Regex | None = None


@record
class Addr:
    kind: str  # line last re step zero plus tilde
    n: int = 0
    step: int = 0
    regex: Regex | None = None


@record
class Subst:
    regex: Regex
    parts: list[tuple[str, object]]  # ("lit", str) ("ref", int) ("case", "LUluE")
    globally: bool = False
    print: int = 0
    nth: int = 1
    evaluate: bool = False
    wfile: str | None = None
    has_case: bool = False
    max_ref: int = 0
    fast: tuple[CompiledRegex, str | bool | None] | None = None  # (regex, how), by sed.substitute


@record
class Command:
    name: str
    a1: Addr | None = None
    a2: Addr | None = None
    negate: bool = False
    text: str = ""  # a i c text, label, file name, e command
    int_arg: int | None = None  # q Q exit code, l width
    target: int = -1  # block end / branch destination
    subst: Subst | None = None
    ymap: dict[int, str] | None = None
    range_active: bool = False
    range_closed: bool = False
    range_end: int = 0
    where: str = ""  # for error messages at run time


@record
class Piece:
    """One -e expression or -f file of the script."""

    text: str
    label: str  # "-e expression #1" or "file F"
    is_file: bool = False


@record
class Program:
    commands: list[Command] = field(default_factory=list)
    quiet_from_script: bool = False  # "#n" first line


_ESCAPES = {"a": "\a", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}


class Parser:
    def __init__(
        self, pieces: list[Piece], *, extended: bool, utf8: bool, posix: bool,
        sandbox: bool = False,
    ) -> None:
        self.pieces = pieces
        self.sandbox = sandbox
        self.extended = extended
        self.utf8 = utf8
        self.posix = posix
        self.prog = Program()
        self.blocks: list[int] = []
        self.labels: dict[str, int] = {}
        self.jumps: list[tuple[int, str]] = []
        # current piece
        self.s = ""
        self.i = 0
        self.piece: Piece | None = None

    # -- character reading
    def error(self, msg: str) -> SedError:
        assert self.piece is not None
        if self.piece.is_file:
            line = self.s.count("\n", 0, self.i) + 1
            if self.i > 0 and self.i <= len(self.s) and self.s[self.i - 1] == "\n":
                line -= 1
            return SedError(f"{self.piece.label} line {line}: {msg}")
        return SedError(f"{self.piece.label}, char {self.i}: {msg}")

    def getc(self) -> str:
        """The next character, or '' at the end of the piece."""
        if self.i >= len(self.s):
            return ""
        c = self.s[self.i]
        self.i += 1
        return c

    def peek(self) -> str:
        return self.s[self.i] if self.i < len(self.s) else ""

    def unget(self, c: str) -> None:
        if c:
            self.i -= 1

    def skip_ws(self) -> str:
        """Skip blanks (not newlines) and return the next character (consumed)."""
        while True:
            c = self.getc()
            if c not in (" ", "\t"):
                return c

    # -- top level
    def parse(self) -> Program:
        pending_text: Command | None = None
        for idx, piece in enumerate(self.pieces):
            self.piece = piece
            self.s = piece.text
            self.i = 0
            if idx == 0 and self.s.startswith("#n"):
                self.prog.quiet_from_script = True
            if pending_text is not None:
                # "a\" at the end of one -e continues with the next one
                pending_text.text = self.read_text_body()
                pending_text = None
                continue
            pending_text = self.parse_piece()
        if pending_text is not None:
            pending_text.text = ""
        if self.blocks:
            self.piece = self.pieces[-1] if self.pieces else Piece("", "-e expression #1")
            self.i = 0
            raise SedError(f"{self.piece.label}, char 0: {EXCESS_OPEN}")
        for pc, label in self.jumps:
            if label:
                if label not in self.labels:
                    raise SedError(f"can't find label for jump to `{label}'", 4)
                self.prog.commands[pc].target = self.labels[label]
            else:
                self.prog.commands[pc].target = len(self.prog.commands)
        return self.prog

    def parse_piece(self) -> Command | None:
        """Parse commands until the end of the piece; returns a command awaiting text."""
        while True:
            c = self.getc()
            while c in (" ", "\t", "\n", ";"):
                c = self.getc()
            if not c:
                return None
            self.unget(c)
            cmd = Command("")
            if not self.parse_addresses(cmd):
                pass
            c = self.skip_ws()
            if c == "!":
                cmd.negate = True
                c = self.skip_ws()
                while c in (" ", "\t"):
                    c = self.skip_ws()
                if c == "!":
                    raise self.error(MULT_BANG)
            if not c or c == "\n" or c == ";" and cmd.a1 is not None:
                raise self.error(NO_COMMAND)
            cmd.name = c
            if cmd.a1 is not None and cmd.a1.kind == "zero" and (
                cmd.a2 is None or cmd.a2.kind != "re"
            ):
                raise self.error(BAD_ADDR0)
            awaiting = self.parse_command(cmd)
            if awaiting:
                return cmd

    # -- addresses
    def parse_addresses(self, cmd: Command) -> bool:
        a1 = self.parse_addr()
        if a1 is None:
            if self.peek() == ",":
                self.getc()
                raise self.error(UNEXPECTED_COMMA)
            return False
        if a1.kind in ("plus", "tilde"):
            raise self.error(BAD_STEP)
        cmd.a1 = a1
        c = self.skip_ws()
        if c == ",":
            c = self.skip_ws()
            self.unget(c)
            a2 = self.parse_addr(second=True)
            if a2 is None:
                raise self.error(UNEXPECTED_COMMA)
            cmd.a2 = a2
        else:
            self.unget(c)
        return True

    def parse_addr(self, second: bool = False) -> Addr | None:
        c = self.peek()
        if c.isdigit():
            n = self.read_number()
            if self.peek() == "~" and not second:
                self.getc()
                step = self.read_number() if self.peek().isdigit() else 0
                return Addr("step", n=n, step=step)
            if n == 0 and not second:
                return Addr("zero")
            return Addr("line", n=n)
        if c in "+~" and c:
            self.getc()
            if not self.peek().isdigit():
                raise self.error("expected newer version of sed")
            n = self.read_number()
            return Addr("plus" if c == "+" else "tilde", n=n)
        if c == "$":
            self.getc()
            return Addr("last")
        if c == "/" or c == "\\":
            self.getc()
            delim = "/"
            if c == "\\":
                delim = self.getc()
                if not delim or delim == "\n" or delim == "\\":
                    raise self.error(UNTERM_ADDR)
            pat = self.match_slash(delim, regex=True)
            if pat is None:
                raise self.error(UNTERM_ADDR)
            rx = Regex(pat if pat else None)
            while True:
                f = self.peek()
                if f == "I":
                    rx.icase = True
                    self.getc()
                elif f == "M":
                    rx.multiline = True
                    self.getc()
                else:
                    break
            self.compile_regex(rx)
            return Addr("re", regex=rx)
        return None

    def read_number(self) -> int:
        start = self.i
        while self.peek().isdigit():
            self.i += 1
        return int(self.s[start : self.i])

    def match_slash(self, delim: str, regex: bool) -> str | None:
        """Text up to an unescaped ``delim`` (consumed); None when unterminated.

        A bracket expression is copied whole: the delimiter is not special inside it.
        """
        out: list[str] = []
        while True:
            c = self.getc()
            if not c:
                return None
            if c == "[" and regex:
                text = self.bracket_text()
                if text is None:
                    return None
                out.append(text)
                continue
            if c == delim:
                return "".join(out)
            if c == "\\":
                c = self.getc()
                if not c:
                    return None
                if c == delim:
                    out.append(c)
                elif c == "n" and regex:
                    out.append("\n")
                elif c == "\n":
                    out.append("\n")
                else:
                    out.append("\\" + c)
                continue
            if c == "\n" and regex:
                self.unget(c)
                return None
            out.append(c)

    def bracket_text(self) -> str | None:
        """The rest of a bracket expression after ``[`` (None: unterminated)."""
        start = self.i
        s = self.s
        n = len(s)
        j = start
        if j < n and s[j] == "^":
            j += 1
        if j < n and s[j] == "]":
            j += 1
        while j < n:
            c = s[j]
            if c == "[" and j + 1 < n and s[j + 1] in ":.=":
                end = s.find(s[j + 1] + "]", j + 2)
                if end < 0:
                    break
                j = end + 2
                continue
            if c == "]":
                self.i = j + 1
                body = s[start:j]
                if "\\" in body:
                    body = _BRACKET_ESC.sub(lambda m: _ESCAPES[m.group(1)], body)
                return "[" + body + "]"
            j += 1
        self.i = n
        return None

    def compile_regex(self, rx: Regex) -> None:
        if rx.pattern is None:
            return
        try:
            rx.compiled = compile_sed_regex(
                rx.pattern, self.extended, rx.icase, rx.multiline, self.utf8, self.posix
            )
        except regex.RegexError as e:
            raise self.error(str(e)) from None

    # -- commands
    def end_of_cmd(self) -> None:
        c = self.skip_ws()
        if c in ("", "\n", ";"):
            return
        if c == "}" or c == "#":
            self.unget(c)
            return
        raise self.error(EXCESS)

    def want_addrs(self, cmd: Command, most: int) -> None:
        if most == 0 and cmd.a1 is not None:
            if cmd.name == "}":
                raise self.error("unexpected `}'")
            raise self.error(f"{cmd.name} {NO_ADDR}" if cmd.name != ":" else f": {NO_ADDR}")
        if most == 1 and cmd.a2 is not None:
            raise self.error(ONE_ADDR)

    def parse_command(self, cmd: Command) -> bool:
        """Parse the command body; True when an ``a\\`` text continues in the next piece."""
        prog = self.prog.commands
        name = cmd.name
        cmd.where = self.piece.label if self.piece else ""
        if name == "#":
            if cmd.a1 is not None:
                raise self.error(COMMENT_ADDR)
            while self.getc() not in ("", "\n"):
                pass
            return False
        if name == "{":
            self.blocks.append(len(prog))
            prog.append(cmd)
            return False
        if name == "}":
            if cmd.a1 is not None or cmd.negate:
                raise self.error(EXCESS_CLOSE if cmd.a1 is None else "unexpected `}'")
            if not self.blocks:
                raise self.error(EXCESS_CLOSE)
            open_idx = self.blocks.pop()
            prog[open_idx].target = len(prog)
            prog.append(cmd)
            self.end_of_cmd()
            return False
        if name in "=dDgGhHnNpPxzF":
            prog.append(cmd)
            self.end_of_cmd()
            return False
        if name in "aic":
            c = self.skip_ws()
            if not c:
                raise self.error(EXPECTED_SLASH)
            prog.append(cmd)
            if c == "\\":
                c = self.getc()
                if not c:
                    return True  # text comes from the next -e
                if c == "\n":
                    cmd.text = self.read_text_body()
                    return False
                self.unget(c)
                cmd.text = self.read_text_body()
                return False
            if self.posix:
                raise self.error(EXPECTED_SLASH)
            self.unget(c)
            cmd.text = self.read_text_body()
            return False
        if name == ":":
            if cmd.a1 is not None:
                raise self.error(f": {NO_ADDR}")
            label = self.read_label(colon=True)
            if not label:
                raise self.error(LABEL_MISSING)
            self.labels[label] = len(prog)
            prog.append(cmd)
            return False
        if name in "btT":
            label = self.read_label(colon=False)
            self.jumps.append((len(prog), label))
            cmd.text = label
            prog.append(cmd)
            return False
        if name in "qQlL":
            if name in "qQ":
                self.want_addrs(cmd, 1)
            c = self.skip_ws()
            self.unget(c)
            if c.isdigit():
                cmd.int_arg = self.read_number()
            prog.append(cmd)
            self.end_of_cmd()
            return False
        if name in "rRwWe" and self.sandbox:
            raise self.error(SANDBOX)
        if name in "rRwW":
            cmd.text = self.read_filename()
            if not cmd.text:
                raise self.error(NO_FILE)
            prog.append(cmd)
            return False
        if name == "e":
            c = self.skip_ws()
            self.unget(c)
            start = self.i
            while self.peek() not in ("", "\n"):
                self.i += 1
            cmd.text = self.s[start : self.i]
            prog.append(cmd)
            return False
        if name == "v":
            self.read_label(colon=False)
            prog.append(Command("#"))
            return False
        if name == "s":
            self.parse_s(cmd)
            prog.append(cmd)
            return False
        if name == "y":
            self.parse_y(cmd)
            prog.append(cmd)
            self.end_of_cmd()
            return False
        if name == ";":
            raise self.error(NO_COMMAND)
        raise self.error(f"unknown command: `{name}'")

    def read_label(self, colon: bool) -> str:
        c = self.skip_ws()
        self.unget(c)
        start = self.i
        while True:
            c = self.peek()
            if c in ("", "\n", ";"):
                break
            if not colon and c in (" ", "\t", "}"):
                break
            self.i += 1
        label = self.s[start : self.i].rstrip(" \t") if colon else self.s[start : self.i]
        if not colon:
            self.end_of_cmd()
        elif self.peek() == ";":
            self.getc()
        return label

    def read_filename(self) -> str:
        c = self.skip_ws()
        self.unget(c)
        start = self.i
        while self.peek() not in ("", "\n"):
            self.i += 1
        name = self.s[start : self.i]
        self.getc()
        return name

    def read_text_body(self) -> str:
        """a/i/c text up to an unescaped newline, with GNU's escape processing."""
        out: list[str] = []
        while True:
            c = self.getc()
            if not c or c == "\n":
                break
            if c == "\\":
                c = self.getc()
                if not c:
                    break
                if c in _ESCAPES and not self.posix:
                    out.append(_ESCAPES[c])
                    continue
                special = self.numeric_escape(c)
                if special is not None:
                    out.append(special)
                    continue
                out.append(c)
                continue
            out.append(c)
        return "".join(out) + "\n"

    def numeric_escape(self, c: str) -> str | None:
        """``\\dNNN \\oNNN \\xHH \\cX`` (the backslash and ``c`` already read)."""
        if self.posix:
            return None
        if c == "c":
            x = self.getc()
            if not x:
                return None
            return chr(ord(x.upper()) ^ 0x40)
        base, digits, maxlen = {"d": (10, "0123456789", 3), "o": (8, "01234567", 3),
                                "x": (16, "0123456789abcdefABCDEF", 2)}.get(c, (0, "", 0))
        if not base:
            return None
        start = self.i
        while self.i - start < maxlen and self.peek() and self.peek() in digits:
            self.i += 1
        if self.i == start:
            return None
        return chr(int(self.s[start : self.i], base) & 0xFF)

    # -- s and y
    def parse_s(self, cmd: Command) -> None:
        delim = self.getc()
        if not delim or delim in "\n\\":
            raise self.error(UNTERM_S)
        pat = self.match_slash(delim, regex=True)
        if pat is None:
            raise self.error(UNTERM_S)
        rep = self.match_slash_rhs(delim)
        if rep is None:
            raise self.error(UNTERM_S)
        rx = Regex(pat if pat else None)
        sub = Subst(rx, [])
        have_num = False
        while True:
            c = self.getc()
            if c == "g":
                if sub.globally:
                    raise self.error(MULT_G)
                sub.globally = True
            elif c == "p":
                if sub.print:
                    raise self.error(MULT_P)
                sub.print = 1
            elif c in ("i", "I"):
                rx.icase = True
            elif c in ("m", "M"):
                rx.multiline = True
            elif c == "e":
                if self.sandbox:
                    raise self.error(SANDBOX)
                sub.evaluate = True
            elif c.isdigit() and c:
                if have_num:
                    raise self.error(MULT_NUM)
                self.unget(c)
                n = self.read_number()
                if n == 0:
                    raise self.error(ZERO_NUM)
                sub.nth = n
                have_num = True
            elif c == "w":
                if self.sandbox:
                    raise self.error(SANDBOX)
                sub.wfile = self.read_filename()
                if not sub.wfile:
                    raise self.error(NO_FILE)
                break
            elif c in ("", "\n", ";"):
                break
            elif c in ("}", "#"):
                self.unget(c)
                break
            elif c in (" ", "\t"):
                continue
            else:
                raise self.error(UNKNOWN_S_OPT)
        self.compile_regex(rx)
        sub.parts = self.parse_replacement(rep)
        sub.has_case = any(k == "case" for k, _ in sub.parts)
        sub.max_ref = max((int(v) for k, v in sub.parts if k == "ref"), default=0)  # type: ignore[call-overload]  # a "ref" part holds an int
        if rx.compiled is not None and sub.max_ref > rx.compiled.groups:
            raise self.error(f"invalid reference \\{sub.max_ref} on `s' command's RHS")
        cmd.subst = sub

    def match_slash_rhs(self, delim: str) -> str | None:
        """The replacement, raw (backslash pairs kept) except ``\\delim`` and ``\\newline``."""
        out: list[str] = []
        while True:
            c = self.getc()
            if not c:
                return None
            if c == delim:
                return "".join(out)
            if c == "\n":
                self.unget(c)
                return None
            if c == "\\":
                c = self.getc()
                if not c:
                    return None
                if c == delim and delim != "&":
                    out.append(c)
                elif c == "\n":
                    out.append("\n")
                else:
                    out.append("\\" + c)
                continue
            out.append(c)

    def parse_replacement(self, rep: str) -> list[tuple[str, object]]:
        parts: list[tuple[str, object]] = []
        lit: list[str] = []

        def flush() -> None:
            if lit:
                parts.append(("lit", "".join(lit)))
                lit.clear()

        k = 0
        n = len(rep)
        while k < n:
            c = rep[k]
            k += 1
            if c == "&":
                flush()
                parts.append(("ref", 0))
                continue
            if c != "\\" or k >= n:
                lit.append(c)
                continue
            d = rep[k]
            k += 1
            if d.isdigit():
                flush()
                parts.append(("ref", int(d)))
            elif d in "LUluE" and not self.posix:
                flush()
                parts.append(("case", d))
            elif d == "n":
                lit.append("\n")
            elif d in _ESCAPES and not self.posix:
                lit.append(_ESCAPES[d])
            elif d in "cdox" and not self.posix:
                saved_s, saved_i = self.s, self.i
                self.s, self.i = rep, k
                got = self.numeric_escape(d)
                k = self.i
                self.s, self.i = saved_s, saved_i
                lit.append(got if got is not None else d)
            else:
                lit.append(d)
        flush()
        return parts

    def parse_y(self, cmd: Command) -> None:
        delim = self.getc()
        if not delim or delim in "\n\\":
            raise self.error(UNTERM_Y)
        src = self.y_part(delim)
        dst = self.y_part(delim)
        if len(src) != len(dst):
            raise self.error(Y_LEN)
        cmd.ymap = {ord(a): b for a, b in zip(src, dst, strict=True)}

    def y_part(self, delim: str) -> str:
        out: list[str] = []
        while True:
            c = self.getc()
            if not c:
                raise self.error(UNTERM_Y)
            if c == delim:
                return "".join(out)
            if c == "\\":
                d = self.getc()
                if d == delim:
                    out.append(d)
                elif d in _Y_ESCAPES:
                    out.append(_Y_ESCAPES[d])
                elif d in _ESCAPES and not self.posix:
                    out.append(_ESCAPES[d])
                elif not d:
                    raise self.error(UNTERM_Y)
                else:
                    got = self.numeric_escape(d)
                    if got is None:
                        raise self.error(UNTERM_Y)
                    out.append(got)
                continue
            out.append(c)


# y's own escapes: a backslash, a newline spelt \n or written after the backslash
_Y_ESCAPES = {"\\": "\\", "n": "\n", "\n": "\n"}

_BRACKET_ESC = re.compile(r"\\([afnrtv])")


def compile_sed_regex(
    pattern: str, extended: bool, icase: bool, multiline: bool, utf8: bool, posix: bool = False,
    eol: str | None = None,
) -> regex.Regex:
    """A sed regex: GNU escapes on, glibc's strict syntax, ``.`` matches newline (unless
    ``eol`` makes it line-oriented, for the whole-chunk fast paths)."""
    pattern = sed_numeric_escapes(pattern)
    return regex.compile(
        pattern, "ere" if extended else "bre", icase=icase, utf8=utf8, eol=eol,
        multiline=multiline, strict=True, gnu_escapes=True, posix=posix,
    )
