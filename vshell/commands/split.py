"""split: split a file into pieces (GNU coreutils: -l -b -C -n N|l/N|r/N|K/N, -a -d -x
--numeric-suffixes[=FROM] --hex-suffixes[=FROM] --additional-suffix -e --verbose).

Default suffixes widen as GNU's do (``yz`` is followed by ``zaaa``) unless -a fixes the
length.  -l/-b/-C stream the input in 64 KiB chunks; -n reads it whole to know its size."""

from __future__ import annotations

import re
from typing import IO

from vshell.command import Exit, Invocation
from vshell.commands._lib.futil import enc, quote, quoteaf, strerror
from vshell.commands._lib.helptext import help_text
from vshell.commands._lib.opts import parse
from vshell.commands._lib.textio import chunks
from vshell.text.numarg import INTMAX_MAX, UINTMAX_MAX, parse_count

HELP = help_text("split")

_NAME_MAX = 4096
_SIZE = {"": 1, "b": 512, "K": 1024, "KiB": 1024, "KB": 1000, "M": 1 << 20, "MiB": 1 << 20,
         "MB": 10**6, "G": 1 << 30, "GiB": 1 << 30, "GB": 10**9, "T": 1 << 40, "TB": 10**12,
         "k": 1024, "kB": 1000}


def _size(text: str, what: str, limit: int = INTMAX_MAX) -> int:
    """GNU's ``xdectoumax``: a positive count up to ``limit`` (lines: UINTMAX_MAX; bytes
    and chunks: the largest file offset), else its message."""
    m = re.fullmatch(r"(\d+)([A-Za-z]*)", text)
    if not m or m.group(2) not in _SIZE or (what == "lines" and m.group(2)):
        raise Exit(1, f"invalid number of {what}: {quote(text)}")
    n = int(m.group(1)) * _SIZE[m.group(2)] if len(m.group(1)) <= 40 else limit + 1
    if n == 0:
        raise Exit(1, f"invalid number of {what}: {quote(text)}: Numerical result out of range")
    if n > limit:
        raise Exit(1, f"invalid number of {what}: {quote(text)}: Value too large for defined "
                   "data type")
    return n


class Namer:
    def __init__(self, prefix: str, extra: str, alphabet: str, length: int | None,
                 start: int) -> None:
        self.prefix, self.extra, self.alpha = prefix, extra, alphabet
        self.fixed = length
        self.index = start

    def next(self) -> str:
        i = self.index
        self.index += 1
        base = len(self.alpha)
        if self.fixed is not None:
            if i >= base**self.fixed:
                raise Exit(1, "output file suffixes exhausted")
            return self.prefix + self._digits(i, self.fixed) + self.extra
        level = 0
        while True:
            width = 2 + level
            count = (base - 1) * base ** (width - 1)
            if i < count:
                return self.prefix + self.alpha[-1] * level + self._digits(i, width) + self.extra
            i -= count
            level += 1

    def _digits(self, i: int, width: int) -> str:
        base = len(self.alpha)
        out = []
        for _ in range(width):
            i, r = divmod(i, base)
            out.append(self.alpha[r])
        return "".join(reversed(out))


class Splitter:
    def __init__(self, inv: Invocation, namer: Namer, verbose: bool) -> None:
        self.inv, self.namer, self.verbose = inv, namer, verbose
        self.cur: IO[bytes] | None = None

    def open_next(self) -> None:
        self.close()
        name = self.namer.next()
        if self.verbose:
            self.inv.stdout.write(enc(f"creating file {quoteaf(name)}\n"))
        try:
            self.cur = self.inv.fs.open(self.inv.abs(name), "wb")
        except OSError as e:
            raise Exit(1, f"{quotef_(name)}: {strerror(e)}") from None

    def write(self, data: bytes) -> None:
        assert self.cur is not None
        self.cur.write(data)

    def close(self) -> None:
        if self.cur is not None:
            self.cur.close()
            self.cur = None


def quotef_(name: str) -> str:
    from vshell.commands._lib.futil import quotef

    return quotef(name)


def run(inv: Invocation) -> int:
    o = parse(inv, "a:b:C:dxel:n:u",
              ["suffix-length=", "additional-suffix=", "bytes=", "line-bytes=",
               "numeric-suffixes=?", "hex-suffixes=?", "elide-empty-files", "lines=", "number=",
               "unbuffered", "verbose"], numeric=True, help_text=HELP)
    mode, amount = "l", 1000
    chunks: tuple[str, int, int] | None = None
    alphabet = "abcdefghijklmnopqrstuvwxyz"
    start = 0
    length: int | None = None
    extra = ""
    elide = o.has("-e", "--elide-empty-files")
    for key, val in o.items:
        v = val or ""
        if key in ("-l", "--lines"):
            mode, amount = "l", _size(v, "lines", UINTMAX_MAX)
        elif key == "-NUM":
            mode, amount = "l", _size(v, "lines", UINTMAX_MAX)
        elif key in ("-b", "--bytes"):
            mode, amount = "b", _size(v, "bytes")
        elif key in ("-C", "--line-bytes"):
            mode, amount = "C", _size(v, "bytes")
        elif key in ("-n", "--number"):
            m = re.fullmatch(r"(?:([lr])/)?(?:(\d+)/)?(\d+)", v)
            if not m:
                raise Exit(1, f"invalid number of chunks: {quote(v)}")
            n = _size(m.group(3), "chunks")
            k = parse_count(m.group(2)).value if m.group(2) else 0  # type: ignore[union-attr]  # the group matched the number pattern
            if k > n:
                raise Exit(1, f"invalid chunk number: {quote(m.group(2) or '')}")
            mode = "n"
            chunks = (m.group(1) or "", k, n)
        elif key in ("-a", "--suffix-length"):
            parsed = parse_count(v) if v.isdigit() else None
            if parsed is None:
                raise Exit(1, f"invalid suffix length: {quote(v)}")
            if parsed.overflow or parsed.value > INTMAX_MAX // 4:
                raise Exit(1, f"invalid suffix length: {quote(v)}: Value too large for "
                           "defined data type")
            if parsed.value > _NAME_MAX:  # no file system takes such a name
                raise Exit(1, f"{quote(v)}-character suffixes: File name too long")
            length = parsed.value
        elif key == "--additional-suffix":
            if "/" in v:
                raise Exit(1, f"invalid suffix {quote(v)}, contains directory separator")
            extra = v
        elif key in ("-d", "--numeric-suffixes"):
            alphabet = "0123456789"
            start = int(v) if v.isdigit() else 0
        elif key in ("-x", "--hex-suffixes"):
            alphabet = "0123456789abcdef"
            start = int(v, 16) if v and all(c in "0123456789abcdefABCDEF" for c in v) else 0
    ops = o.operands
    if len(ops) > 2:
        inv.stderr.write(enc(f"split: extra operand {quote(ops[2])}\n"
                             "Try 'split --help' for more information.\n"))
        return 1
    source = ops[0] if ops else "-"
    prefix = ops[1] if len(ops) > 1 else "x"
    if chunks is not None and length is None:
        need = 2
        while len(alphabet) ** need < chunks[2] + start:
            need += 1
        length = need
    if length is None and start:
        length = 2
    namer = Namer(prefix, extra, alphabet, length, start)
    out = Splitter(inv, namer, o.has("--verbose"))
    try:
        src = inv.stdin if source == "-" else inv.fs.open(inv.abs(source), "rb")
    except OSError as e:
        raise Exit(1, f"cannot open {quoteaf(source)} for reading: {strerror(e)}") from None
    try:
        if mode == "n":
            assert chunks is not None
            _by_chunks(inv, src, out, chunks, elide)
        else:
            _stream(inv, src, out, mode, amount)
    finally:
        out.close()
        if src is not inv.stdin:
            src.close()
    return 0


def _stream(inv: Invocation, src: IO[bytes], out: Splitter, mode: str, amount: int) -> None:
    left = 0  # lines or bytes left in the current file
    pending = b""
    for data in chunks(inv, src):
        if mode in ("b", "l"):
            pos = 0
            while pos < len(data):
                if left == 0:
                    out.open_next()
                    left = amount
                if mode == "b":  # -b: up to ``left`` bytes
                    end = min(pos + left, len(data))
                    left -= end - pos
                else:  # -l: up to ``left`` whole lines (the last maybe cut by the chunk)
                    end = pos
                    for _ in range(left):
                        nl = data.find(b"\n", end)
                        if nl < 0:
                            end = len(data)
                            break
                        end = nl + 1
                        left -= 1
                out.write(data[pos:end])
                pos = end
        else:
            pending += data
            pending = _line_bytes(out, pending, amount, final=False)
    if mode == "C" and pending:
        _line_bytes(out, pending, amount, final=True)


def _line_bytes(out: Splitter, data: bytes, amount: int, final: bool) -> bytes:
    """-C: as many whole lines as fit in ``amount`` bytes; an overlong line is cut."""
    pos = 0
    while len(data) - pos >= amount or (final and pos < len(data)):
        window = data[pos : pos + amount]
        cut = window.rfind(b"\n") + 1
        if len(data) - pos <= amount and final:
            cut = len(data) - pos
        elif cut == 0:
            cut = len(window)
        out.open_next()
        out.write(data[pos : pos + cut])
        pos += cut
    return data[pos:]


def _by_chunks(inv: Invocation, src: IO[bytes], out: Splitter, spec: tuple[str, int, int],
               elide: bool) -> None:
    kind, only, n = spec
    data = b"".join(chunks(inv, src))
    size = len(data)
    lines = data.splitlines(keepends=True) if kind == "r" else []

    def piece(k: int, start: int) -> tuple[bytes, int]:
        """Chunk ``k`` (0-based) and where the next one starts; nothing is listed up front,
        so a huge N costs time the cancel token bounds, not memory."""
        if kind == "r":
            return b"".join(lines[k::n]), start
        if kind == "l":
            per = size // n
            boundary = (k + 1) * per
            if k == n - 1:
                end = size
            elif boundary <= start:
                end = start
            else:
                nl = data.find(b"\n", boundary - 1)
                end = size if nl < 0 else nl + 1
            return data[start:end], max(start, end)
        chunk = size // n
        return data[k * chunk : (k + 1) * chunk if k < n - 1 else size], start

    if only:
        if kind == "l":  # where chunk K starts depends on the chunks before it
            at = 0
            for k in range(only):
                inv.cancel.check()
                got, at = piece(k, at)
        else:
            got, _ = piece(only - 1, 0)
        inv.stdout.write(got)
        return
    at = 0
    for k in range(n):
        inv.cancel.check()
        chunk_data, at = piece(k, at)
        if elide and not chunk_data:
            if (kind == "r" and k >= len(lines)) or (kind == "l" and at >= size) or size == 0:
                break  # every later chunk is empty too
            continue
        out.open_next()
        out.write(chunk_data)
