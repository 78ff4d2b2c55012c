"""The running state of an awk program: fields, special variables, input and output.

Everything the compiled closures touch lives on one :class:`State` object.  Records are
split into fields lazily (``fields is None`` until a field or NF is read); ``$0`` is rebuilt
lazily after a field or NF assignment.  Output is buffered as text and encoded on flush.
"""

from __future__ import annotations

import codecs
import io
import re
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Literal

from vshell.commands.awk.regex import compile_ere
from vshell.commands.awk.values import StrNum, num2str_fmt, to_num, to_str

if TYPE_CHECKING:
    import random

    from vshell.command import Invocation
    from vshell.commands.awk.interp import MainInput
    from vshell.text.regex import Match

CHUNK = 1 << 18
# characters str.split() treats as whitespace but awk's default FS does not
_UNSAFE_WS = re.compile(
    "[\r\x0b\x0c\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]"
)
_AWK_WS_FIELDS = re.compile(r"[^ \t\n]+")


class AwkFatal(Exception):
    """A run-time fatal error (``awk: cmd. line:N: fatal: ...``), status 2."""


class Next(Exception):
    pass


class NextFile(Exception):
    pass


class ExitProgram(Exception):
    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class Reader:
    """Records from one byte stream, split by the current RS at each call."""

    def __init__(self, st: State, stream: IO[bytes], name: str) -> None:
        self.st = st
        self.stream = stream
        self.name = name
        self.buf = ""
        self.pos = 0
        self.eof = False
        self.safe = True
        self.batch: list[str] = []
        self.bi = 0
        self.batch_partial = False
        self.decoder = codecs.getincrementaldecoder(st.encoding)(errors=st.errors)

    def fill(self) -> bool:
        """Read one more chunk; False at end of input."""
        if self.eof:
            return False
        self.st.inv.cancel.check()
        data = self.stream.read(CHUNK)
        if not data:
            self.eof = True
            tail = self.decoder.decode(b"", final=True)
            if tail:
                self.buf = self.buf[self.pos :] + tail
                self.pos = 0
            return bool(tail)
        text = self.decoder.decode(data)
        self.buf = self.buf[self.pos :] + text if self.pos < len(self.buf) else text
        self.pos = 0
        if self.st.FS == " ":
            buf = self.buf
            if buf.isascii():
                self.safe = not (
                    "\r" in buf or "\x0b" in buf or "\x0c" in buf or "\x1c" in buf
                    or "\x1d" in buf or "\x1e" in buf or "\x1f" in buf
                )
            else:
                self.safe = _UNSAFE_WS.search(buf) is None
        return True

    def take_batch(self) -> list[str] | None:
        """Every complete line buffered (RS is a newline): the main loop's fast path."""
        while True:
            j = self.buf.rfind("\n", self.pos)
            if j >= self.pos:
                lines = self.buf[self.pos : j].split("\n")
                self.pos = j + 1
                self.batch_partial = False
                self.st.RT = "\n"
                return lines
            if not self.fill():
                if self.pos < len(self.buf):
                    rec = self.buf[self.pos :]
                    self.pos = len(self.buf)
                    self.batch_partial = True
                    self.st.RT = ""
                    return [rec]
                return None

    def unbatch(self) -> None:
        """Give back the records of a batch not yet used (RS changed, or getline)."""
        rest = self.batch[self.bi :]
        self.batch = []
        self.bi = 0
        if rest:
            text = "\n".join(rest) + ("" if self.batch_partial else "\n")
            self.buf = text + self.buf[self.pos :]
            self.pos = 0

    def next_record(self) -> str | None:
        st = self.st
        rs = st.RS
        if st.csv and rs == "\n":
            return self._csv_record()
        if self.bi < len(self.batch):
            if rs == "\n":
                rec = self.batch[self.bi]
                self.bi += 1
                return rec
            self.unbatch()
        if rs == "":
            return self._paragraph()
        if len(rs) == 1 and (rs == "\n" or not st.IGNORECASE):  # one character, found as is
            while True:
                i = self.buf.find(rs, self.pos)
                if i >= 0:
                    rec = self.buf[self.pos : i]
                    self.pos = i + 1
                    st.RT = rs
                    return rec
                if not self.fill():
                    return self._rest()
        pat = compile_ere(rs, bool(st.IGNORECASE)) if len(rs) > 1 else re.compile(
            re.escape(rs), re.I
        )
        while True:
            m = pat.search(self.buf, self.pos)
            if m and m.end() > m.start() and (m.end() < len(self.buf) or self.eof):
                return self._cut(m)
            if not self.fill():
                m = pat.search(self.buf, self.pos)
                if m and m.end() > m.start():
                    return self._cut(m)
                return self._rest()

    def _cut(self, m: Match | re.Match[str]) -> str:
        """The record before separator match ``m``; RT is what matched."""
        rec = self.buf[self.pos : m.start()]
        self.pos = m.end()
        self.st.RT = m.group()
        return rec

    def _rest(self) -> str | None:
        """At end of input: what is left is the last record, with no separator (RT empty)."""
        if self.pos < len(self.buf):
            rec = self.buf[self.pos :]
            self.pos = len(self.buf)
            self.st.RT = ""
            return rec
        return None

    def _csv_record(self) -> str | None:
        """A CSV record: newlines inside double quotes do not end it."""
        start = self.pos
        scan = start
        while True:
            i = self.buf.find("\n", scan)
            if i >= 0:
                if self.buf.count('"', start, i) % 2 == 0:
                    rec = self.buf[start:i]
                    self.pos = i + 1
                    self.st.RT = "\n"
                    return rec
                scan = i + 1
                continue
            scan -= start
            if not self.fill():
                return self._rest() if start < len(self.buf) else None
            start = self.pos
            scan += start

    def _paragraph(self) -> str | None:
        st = self.st
        # skip leading newlines
        while True:
            while self.pos < len(self.buf) and self.buf[self.pos] == "\n":
                self.pos += 1
            if self.pos < len(self.buf) or not self.fill():
                break
        if self.pos >= len(self.buf):
            return None
        pat = re.compile(r"\n\n+")
        while True:
            m = pat.search(self.buf, self.pos)
            if m and (m.end() < len(self.buf) or self.eof):
                return self._cut(m)
            if not self.fill():
                m = pat.search(self.buf, self.pos)
                if m:
                    return self._cut(m)
                rec = self.buf[self.pos :]
                self.pos = len(self.buf)
                if rec.endswith("\n"):
                    rec = rec[:-1]
                    st.RT = "\n"
                else:
                    st.RT = ""
                return rec


class Output:
    """An output file or the standard output: text buffered, encoded on flush."""

    def __init__(self, st: State, stream: IO[bytes] | None, owned: bool,
                 cmd: str | None = None) -> None:
        self.st = st
        self.stream = stream
        self.owned = owned
        self.cmd = cmd  # "print | cmd": everything is collected, the command runs at close
        self.parts: list[str] = []
        self.size = 0

    def write(self, text: str) -> None:
        self.parts.append(text)
        self.size += len(text)
        if self.size > 65536 and self.cmd is None:
            self.flush()

    def flush(self) -> None:
        if self.parts and self.cmd is None:
            data = "".join(self.parts).encode(self.st.encoding, self.st.errors)
            self.parts.clear()
            self.size = 0
            self.stream.write(data)  # type: ignore[union-attr]  # None only with a cmd
            if self.stream is not self.st.inv.stdout:
                fl = getattr(self.stream, "flush", None)
                if fl is not None:
                    fl()

    def close(self) -> int:
        if self.cmd is not None:
            data = "".join(self.parts).encode(self.st.encoding, self.st.errors)
            self.parts.clear()
            return self.st.run_shell(self.cmd, stdin=data)
        self.flush()
        if self.owned:
            self.stream.close()  # type: ignore[union-attr]  # None only with a cmd
        return 0


class State:
    """Interpreter state shared by all compiled closures."""

    def __init__(self, inv: Invocation, utf8: bool) -> None:
        self.inv = inv
        self.encoding = "utf-8" if utf8 else "latin-1"
        self.errors = "surrogateescape" if utf8 else "strict"
        self.G: list[object] = []
        self.record = ""
        self.fields: list[str] | None = []
        self.rec_dirty = False
        self.ws_safe = True
        self.nr = 0
        self.fnr = 0
        self.FS = " "
        self.OFS = " "
        self.ORS = "\n"
        self.RS = "\n"
        self.SUBSEP = "\x1c"
        self.CONVFMT = "%.6g"
        self.OFMT = "%.6g"
        self.FILENAME = ""
        self.RT = ""
        self.RSTART = 0.0
        self.RLENGTH = -1.0
        self.IGNORECASE = 0.0
        # FS as a function (None: awk's default whitespace split; False: before the first FS)
        self._fs_split: Callable[[str], list[str]] | Literal[False] | None = False
        self.csv = False
        self.set_FS(" ")
        self.stdout = Output(self, inv.stdout, owned=False)
        self.outputs: dict[str, Output] = {}
        self.inputs: dict[str, Reader] = {}
        self.cmd_status: dict[str, int] = {}
        self.main: MainInput | None = None  # set while the main loop reads input
        self.srand_seed = 0.0
        self.prev_seed = 0.0
        self._rng: random.Random | None = None

    @property
    def rng(self) -> random.Random:
        """rand()'s generator, seeded with gawk's 0 when a program first draws from it
        (seeding costs more than most short runs)."""
        if self._rng is None:
            import random

            self._rng = random.Random(0)
        return self._rng

    # ------------------------------------------------------------------ fields
    def set_FS(self, fs: str) -> None:
        if self.fields is None and self._fs_split is not False:
            self.split_record()  # the record read so far keeps the FS it was read with
        self.FS = fs
        if fs == " ":
            self._fs_split = None
        elif fs == "":
            self._fs_split = list
        elif len(fs) == 1 and fs != "\\":
            if fs == "\t" or not self.IGNORECASE or not fs.isalpha():
                self._fs_split = _char_splitter(fs)
            else:
                self._fs_split = compile_ere(re.escape(fs), True).split
        elif fs == "\\":
            self._fs_split = _char_splitter("\\")
        else:
            self._fs_split = compile_ere(fs, bool(self.IGNORECASE)).split
        self.refresh_split()

    def refresh_split(self) -> None:
        """Choose ``rsplit`` (record → fields) for the current FS, RS and input."""
        self.rsplit: Callable[[str], list[str]]
        if self.csv:
            self.rsplit = csv_split
            return
        fs_split = self._fs_split
        if fs_split is None:
            if self.ws_safe:
                self.rsplit = str.split
            else:
                self.rsplit = _AWK_WS_FIELDS.findall
            return
        assert fs_split is not False, "State.__init__ sets FS first"
        splitter = fs_split
        if self.RS == "" and self.FS != " ":

            def para_split(rec: str) -> list[str]:
                if not rec:
                    return []
                return [x for part in splitter(rec) for x in part.split("\n")]

            self.rsplit = para_split
            return

        def split(rec: str) -> list[str]:
            return splitter(rec) if rec else []

        self.rsplit = split

    def set_ws_safe(self, safe: bool) -> None:
        if safe != self.ws_safe:
            self.ws_safe = safe
            self.refresh_split()

    def set_RS(self, rs: str) -> None:
        self.RS = rs
        self.refresh_split()

    def split_record(self) -> list[str]:
        f = self.fields = self.rsplit(self.record)
        return f

    def get0(self) -> str:
        if self.rec_dirty:
            self.record = self.OFS.join(self.fields or [])
            self.rec_dirty = False
        return self.record

    def set0(self, text: str) -> None:
        self.record = text
        self.fields = None
        self.rec_dirty = False
        self.set_ws_safe(_UNSAFE_WS.search(text) is None)

    def get_field(self, i: int) -> object:
        if i == 0:
            return StrNum(self.get0())
        if i < 0:
            raise AwkFatal(f"attempt to access field {i}")
        f = self.fields
        if f is None:
            f = self.split_record()
        if i <= len(f):
            return StrNum(f[i - 1])
        return ""

    def get_field_str(self, i: int) -> str:
        if i == 0:
            return self.get0()
        if i < 0:
            raise AwkFatal(f"attempt to access field {i}")
        f = self.fields
        if f is None:
            f = self.split_record()
        return f[i - 1] if i <= len(f) else ""

    def set_field(self, i: int, value: object) -> None:
        if i == 0:
            self.set0(to_str(value, self.CONVFMT))
            return
        if i < 0:
            raise AwkFatal(f"attempt to access field {i}")
        f = self.fields
        if f is None:
            self.get0()
            f = self.split_record()
        if i > len(f):
            f.extend([""] * (i - len(f)))
        f[i - 1] = to_str(value, self.CONVFMT)
        self.rec_dirty = True

    def get_nf(self) -> float:
        f = self.fields
        if f is None:
            f = self.split_record()
        return float(len(f))

    def set_nf(self, value: object) -> None:
        n = int(to_num(value))
        if n < 0:
            raise AwkFatal(f"NF set to negative value {n}")
        f = self.fields
        if f is None:
            f = self.split_record()
        if n < len(f):
            del f[n:]
        else:
            f.extend([""] * (n - len(f)))
        self.rec_dirty = True

    # ------------------------------------------------------------------ output
    def output(self, op: str | None, target: object) -> Output:
        if op is None:
            return self.stdout
        name = to_str(target, self.CONVFMT)
        out = self.outputs.get(name)
        if out is not None:
            return out
        if op == "|" or op == "|&":
            self.stdout.flush()
            out = Output(self, None, owned=False, cmd=name)
        elif name in ("/dev/stdout", "-"):
            out = self.stdout
        elif name == "/dev/stderr":
            self.stdout.flush()
            out = Output(self, self.inv.stderr, owned=False)
        else:
            try:
                stream = self.inv.fs.open(self.inv.abs(name), "ab" if op == ">>" else "wb")
            except OSError as e:
                raise AwkFatal(
                    f'can\'t redirect to `{name}\' ({e.strerror or "error"})'
                ) from None
            out = Output(self, stream, owned=True)
        self.outputs[name] = out
        return out

    def flush_all(self) -> None:
        self.stdout.flush()
        for out in self.outputs.values():
            if out.cmd is None:
                out.flush()

    def close(self, name: str) -> float:
        status = -1
        out = self.outputs.pop(name, None)
        if out is not None:
            if out is self.stdout:
                out.flush()
                status = 0
            else:
                if out.cmd is not None:
                    self.stdout.flush()
                status = out.close()
        rd = self.inputs.pop(name, None)
        if rd is not None:
            status = self.cmd_status.pop(name, 0)
            closer = getattr(rd.stream, "close", None)
            if closer is not None and rd.stream is not self.inv.stdin:
                closer()
        return float(status)

    def close_all(self) -> None:
        for name in list(self.outputs):
            self.close(name)
        for name in list(self.inputs):
            self.close(name)
        self.stdout.flush()

    # ------------------------------------------------------------------ commands
    def run_shell(self, cmd: str, stdin: bytes | None = None, stdout: object = None) -> int:
        inv = self.inv
        if inv.run_command is None:
            inv.stderr.write(b"awk: running commands is not available here\n")
            return 127
        self.stdout.flush()
        status = inv.run_command(
            ["sh", "-c", cmd],
            stdin=stdin if stdin is not None else b"",
            stdout=stdout if stdout is not None else inv.stdout,
            stderr=inv.stderr,
        )
        return int(status or 0)

    def cmd_reader(self, cmd: str) -> Reader:
        rd = self.inputs.get(cmd)
        if rd is None:
            buf = io.BytesIO()
            self.flush_all()
            self.cmd_status[cmd] = self.run_shell(cmd, stdout=buf)
            buf.seek(0)
            rd = Reader(self, buf, cmd)
            self.inputs[cmd] = rd
        return rd

    def file_reader(self, name: str) -> Reader | None:
        rd = self.inputs.get(name)
        if rd is None:
            if name in ("-", "/dev/stdin"):
                stream = self.inv.stdin
            else:
                try:
                    stream = self.inv.fs.open(self.inv.abs(name), "rb")
                except OSError:
                    return None
            rd = Reader(self, stream, name)
            self.inputs[name] = rd
        return rd

    def num2str(self, x: float) -> str:
        return num2str_fmt(x, self.CONVFMT)


def csv_split(rec: str) -> list[str]:
    """Fields of a CSV record (``--csv``): "quoted, fields" with "" for a quote."""
    if not rec:
        return []
    fields: list[str] = []
    i, n = 0, len(rec)
    while True:
        if i < n and rec[i] == '"':
            j = i + 1
            buf: list[str] = []
            while j < n:
                c = rec[j]
                if c == '"':
                    if j + 1 < n and rec[j + 1] == '"':
                        buf.append('"')
                        j += 2
                        continue
                    j += 1
                    break
                buf.append(c)
                j += 1
            k = rec.find(",", j)
            if k < 0:
                fields.append("".join(buf) + rec[j:])
                return fields
            fields.append("".join(buf) + rec[j:k])
            i = k + 1
            continue
        k = rec.find(",", i)
        if k < 0:
            fields.append(rec[i:])
            return fields
        fields.append(rec[i:k])
        i = k + 1


def _char_splitter(ch: str):
    def split(rec: str) -> list[str]:
        return rec.split(ch)

    return split
