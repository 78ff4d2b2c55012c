"""wc: newline, word, character and byte counts, with GNU's column widths."""

from __future__ import annotations

import io
import re
import stat as _stat
from collections.abc import Sequence
from typing import IO

from vshell.command import Invocation
from vshell.commands._lib import textio as tio
from vshell.commands._lib.width import char_width

# Bytes that are neither spaces nor printable: they neither start nor end a word.
_NONPRINT_B = bytes(range(0, 9)) + bytes(range(14, 32)) + b"\x7f"
_NONPRINT_S = re.compile("[\x00-\x08\x0e-\x1f\x7f-\x9f\udc80-\udcff]")
_EXTRA_SPACE = {0x2060: " "}
# ASCII fast path: whitespace -> " ", printable -> "a", so words = count(b" a") (+1)
_WORDMAP = bytes(32 if b in b" \t\n\r\x0b\x0c" else 97 for b in range(256))


class _Counter:
    """Running counts over a stream fed chunk by chunk."""

    def __init__(self, words: bool, chars: bool, maxlen: bool) -> None:
        self.want_words, self.want_chars, self.want_max = words, chars, maxlen
        self.lines = self.words = self.chars = self.bytes = self.maxlen = 0
        self.in_word = False
        self.carry = b""  # an incomplete UTF-8 sequence at a chunk end
        self.linepos = 0

    def feed(self, data: bytes) -> None:
        self.bytes += len(data)
        self.lines += data.count(b"\n")
        if not (self.want_words or self.want_chars or self.want_max):
            return
        if self.carry:
            data = self.carry + data
            self.carry = b""
        if data.isascii():
            if self.want_chars:
                self.chars += len(data)
            if self.want_words:
                t = data.translate(_WORDMAP, _NONPRINT_B)
                if t:
                    n = t.count(b" a") + (t[0] == 97)
                    if self.in_word and t[0] == 97:
                        n -= 1
                    self.words += n
                    self.in_word = t[-1] == 97
            if self.want_max:
                self._maxlen(data.decode("ascii"))
            return
        # keep an incomplete trailing sequence for the next chunk
        cut = _incomplete_tail(data)
        if cut:
            self.carry = data[-cut:]
            data = data[:-cut]
        text = data.decode("utf-8", "surrogateescape")
        if self.want_chars:
            self.chars += len(text) - len(re.findall("[\udc80-\udcff]", text))
        if self.want_words:
            clean = _NONPRINT_S.sub("", text).translate(_EXTRA_SPACE)
            self._words(clean, clean.split(), clean[:1].isspace(), clean[-1:].isspace())
        if self.want_max:
            self._maxlen(text)

    def _words(self, clean: object, parts: list, starts_space: bool, ends_space: bool) -> None:
        if not clean:
            return
        n = len(parts)
        if self.in_word and not starts_space and n:
            n -= 1
        self.words += n
        self.in_word = not ends_space

    def _maxlen(self, text: str) -> None:
        pos = self.linepos
        best = self.maxlen
        for piece in re.split("([\n\r\f\t])", text):
            if not piece:
                continue
            if piece in "\n\r\f":
                if pos > best:
                    best = pos
                pos = 0
            elif piece == "\t":
                pos += 8 - pos % 8
            elif piece.isascii() and piece.isprintable():
                pos += len(piece)
            else:
                for ch in piece:
                    w = char_width(ch)
                    if w > 0:
                        pos += w
        self.linepos = pos
        self.maxlen = best

    def finish(self) -> None:
        if self.carry:
            self.carry = b""
        if self.linepos > self.maxlen:
            self.maxlen = self.linepos


def _incomplete_tail(data: bytes) -> int:
    """Length of a possibly incomplete UTF-8 sequence at the end of ``data`` (0..3)."""
    for back in range(1, min(4, len(data)) + 1):
        b = data[-back]
        if b < 0x80:
            return 0
        if b >= 0xC0:
            need = 2 if b < 0xE0 else 3 if b < 0xF0 else 4
            return back if need > back else 0
    return 0


_COUNTS = {"-c": "bytes", "--bytes": "bytes", "-m": "chars", "--chars": "chars",
           "-l": "lines", "--lines": "lines", "-w": "words", "--words": "words",
           "-L": "maxlen", "--max-line-length": "maxlen"}


def run(inv: Invocation) -> int:
    opts = tio.options(
        inv, "clLmw", ["bytes", "chars", "lines", "max-line-length", "words", "files0-from="]
    )
    want = {_COUNTS[k] for k, _ in opts.items if k in _COUNTS}
    files: list[str] = list(opts.operands)
    f0 = opts.last("--files0-from")
    if f0 is not None:
        if files:
            inv.error(f"extra operand {tio.aquote(files[0])}")
            inv.stderr.write(b"file operands cannot be combined with --files0-from\n")
            inv.stderr.write(b"Try 'wc --help' for more information.\n")
            return 1
        try:
            src = tio.open_input(inv, f0)
            data = b"".join(tio.chunks(inv, src))
            tio.close_input(inv, src)
        except OSError as e:
            inv.error(f"cannot open {tio.aquote(f0)} for reading: {tio.strerror(e)}")
            return 1
        files = [n.decode("utf-8", "surrogateescape") for n in data.split(b"\0") if n]
    if not want:
        want = {"lines", "words", "bytes"}
    order = [k for k in ("lines", "words", "chars", "bytes", "maxlen") if k in want]
    no_operand = not files and f0 is None
    names = files or ["-"]
    width = _width(inv, names, len(order), no_operand)
    tot = _Counter(False, False, False)
    status = 0
    for name in names:
        c = _Counter("words" in want, "chars" in want, "maxlen" in want)
        shown: str | None = None if no_operand else name
        try:
            f: IO[bytes] = tio.open_input(inv, name)
        except IsADirectoryError:
            inv.error(f"{tio.squote(name)}: Is a directory")
            status = 1
            _print(inv, c, order, width, shown)
            continue
        except OSError as e:
            inv.error(f"{tio.squote(name)}: {tio.strerror(e)}")
            status = 1
            continue
        try:
            for data in tio.chunks(inv, f, 1 << 20):
                c.feed(data)
        except OSError as e:
            inv.error(f"{tio.squote(name)}: {tio.strerror(e)}")
            status = 1
        finally:
            tio.close_input(inv, f)
        c.finish()
        _print(inv, c, order, width, shown)
        tot.lines += c.lines
        tot.words += c.words
        tot.chars += c.chars
        tot.bytes += c.bytes
        tot.maxlen = max(tot.maxlen, c.maxlen)
    if len(names) > 1:
        _print(inv, tot, order, width, "total")
    return status


def _width(inv: Invocation, names: list[str], ncounts: int, no_operand: bool) -> int:
    """GNU's rule: digits of the regular files' total size; at least 7 with a non-file."""
    if len(names) == 1 and ncounts == 1:
        return 1
    minimum, total = 1, 0
    for name in names:
        if name == "-":
            size = _stdin_file_size(inv)
            if size is None:
                minimum = 7
            else:
                total += size
            continue
        try:
            st = inv.fs.stat(inv.abs(name))
        except OSError:
            continue
        if _stat.S_ISREG(st.st_mode):
            total += st.st_size
        else:
            minimum = 7
    return max(minimum, len(str(total)))


def _stdin_file_size(inv: Invocation) -> int | None:
    """The size of stdin when it is a redirected file (``wc < f``), None for a pipe."""
    f = inv.stdin
    if not isinstance(f, io.BufferedReader):
        return None
    try:
        if not f.seekable():
            return None
        pos = f.tell()
        size = f.seek(0, 2)
        f.seek(pos)
        return size
    except (OSError, ValueError):
        return None


def _print(inv: Invocation, c: _Counter, order: Sequence[str], width: int,
           name: str | None) -> None:
    vals = [getattr(c, k) for k in order]
    line = " ".join(str(v).rjust(width) for v in vals)
    if name is not None:
        # GNU wc 9 quotes a name in its counts only when a newline would break the line
        line += " " + (tio.squote(name) if "\n" in name else name)
    inv.stdout.write(line.encode("utf-8", "surrogateescape") + b"\n")
