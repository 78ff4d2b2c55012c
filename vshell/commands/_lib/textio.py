"""Shared input plumbing for the text commands: operands to streams, chunks and records.

Every text command reads its operands the same way (``-`` or no operand = stdin, files
through ``inv.fs`` only) and streams in 64 KiB chunks so memory stays bounded.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import IO

from vshell.command import Exit, Invocation
from vshell.commands._lib import futil as _futil
from vshell.commands._lib import opts as _opts
from vshell.commands._lib.helptext import find_help, find_version
from vshell.text import gnuquote
from vshell.text.numarg import suffix_multiplier

CHUNK = 65536


def options(
    inv: Invocation,
    short: str = "",
    long: tuple[str, ...] | list[str] = (),
    *,
    usage_status: int = 1,
    numeric: bool = False,
    permute: bool = True,
    args: list[str] | None = None,
) -> _opts.Options:
    """Parse options with the command's GNU ``--help`` and ``--version`` texts wired in."""
    longs, help_text, version = _spec(inv.name, long if isinstance(long, tuple) else tuple(long))
    opts = _opts.parse(
        inv,
        short,
        longs,
        args=args,
        usage_status=usage_status,
        numeric=numeric,
        permute=permute,
        help_text=help_text,
    )
    if version is not None and ("--version", None) in opts.items:
        inv.stdout.write(version.encode())
        raise Exit(0)
    return opts


_SPECS: dict[tuple[str, tuple[str, ...]], tuple[tuple[str, ...], str | None, str | None]] = {}


def _spec(name: str, long: tuple[str, ...]
          ) -> tuple[tuple[str, ...], str | None, str | None]:
    """A command's long options with ``version`` added where it has a ``--version`` text,
    its ``--help`` and its ``--version`` text: built once per command (the version text is
    put together from a table, which cost more than parsing a short command line)."""
    key = (name, long)
    got = _SPECS.get(key)
    if got is None:
        version = find_version(name)
        longs = long + ("version",) if version is not None and "version" not in long else long
        got = (longs, find_help(name), version)
        if len(_SPECS) < 512:  # names are the registry's: this stays small
            _SPECS[key] = got
    return got


def usage_error(inv: Invocation, message: str, status: int = 1) -> _opts.UsageError:
    """``name: message`` plus GNU's ``Try 'name --help'`` line; raise the result."""
    inv.stderr.write(
        f"{inv.name}: {message}\nTry '{inv.name} --help' for more information.\n".encode(
            "utf-8", "surrogateescape"
        )
    )
    return _opts.UsageError(status)


def open_input(inv: Invocation, name: str) -> IO[bytes]:
    """The stream for an operand: ``-`` is stdin, anything else a VFS file (may raise)."""
    if name == "-":
        return inv.stdin
    return inv.fs.open(inv.abs(name), "rb")


def close_input(inv: Invocation, f: IO[bytes]) -> None:
    if f is not inv.stdin:
        try:
            f.close()
        except OSError:
            pass


class Concatenated:
    """The operands read as one byte stream (od, hexdump), as GNU and util-linux read them.

    A file that does not open is reported (``open_error``) and skipped; with
    ``read_error`` so is one that fails while being read (without, the error propagates).
    ``status`` becomes 1 on any failure; ``unopened`` counts the files that did not open.
    """

    def __init__(
        self,
        inv: Invocation,
        names: list[str],
        open_error: Callable[[str, OSError], str],
        read_error: Callable[[str, OSError], str] | None = None,
    ) -> None:
        self.inv = inv
        self.names = names
        self.open_error = open_error
        self.read_error = read_error
        self.status = 0
        self.unopened = 0

    def __iter__(self) -> Iterator[bytes]:
        inv = self.inv
        for name in self.names:
            try:
                f = open_input(inv, name)
            except OSError as e:
                inv.error(self.open_error(name, e))
                self.status = 1
                self.unopened += 1
                continue
            try:
                yield from chunks(inv, f)
            except OSError as e:
                if self.read_error is None:
                    raise
                inv.error(self.read_error(name, e))
                self.status = 1
            finally:
                close_input(inv, f)


def open_all(inv: Invocation, names: list[str]) -> list[IO[bytes]]:
    """Open every operand before reading any (comm, paste: they read side by side).

    The first that does not open ends the command, as in GNU.
    """
    files = []
    for name in names:
        try:
            files.append(open_input(inv, name))
        except OSError as e:
            raise Exit(1, _name_and_reason(name, e)) from None
    return files


def two_operands(inv: Invocation, ops: list[str]) -> None:
    """comm and join compare exactly two files: GNU's complaints for fewer or more."""
    if not ops:
        raise usage_error(inv, "missing operand")
    if len(ops) < 2:
        raise usage_error(inv, f"missing operand after {quote(ops[0])}")
    if len(ops) > 2:
        raise usage_error(inv, f"extra operand {quote(ops[2])}")


def _name_and_reason(name: str, e: OSError) -> str:
    return f"{squote(name)}: {strerror(e)}"


def each_input(
    inv: Invocation,
    names: list[str],
    work: Callable[[IO[bytes]], None],
    open_error: Callable[[str, OSError], str] = _name_and_reason,
    read_error: Callable[[str, OSError], str] | None = _name_and_reason,
) -> int:
    """Run ``work`` on each operand's stream in turn (no operand: stdin), and the status.

    An operand that cannot be opened (message ``open_error``) or read (``read_error``;
    ``None``: the error propagates) is reported as the GNU tools do, makes the status 1,
    and the next one is taken.
    """
    status = 0
    for name in names or ["-"]:
        try:
            f = open_input(inv, name)
        except OSError as e:
            inv.error(open_error(name, e))
            status = 1
            continue
        try:
            work(f)
        except OSError as e:
            if read_error is None:
                raise
            inv.error(read_error(name, e))
            status = 1
        finally:
            close_input(inv, f)
    return status


def read_whole(
    inv: Invocation,
    name: str,
    open_error: Callable[[str, OSError], str],
    read_error: Callable[[str, OSError], str],
) -> bytes | None:
    """All of one operand's bytes (fmt, tac work on whole files), or None once reported.

    The caller makes its status 1 on None; the messages are each tool's own.
    """
    try:
        f = open_input(inv, name)
    except OSError as e:
        inv.error(open_error(name, e))
        return None
    try:
        return b"".join(chunks(inv, f))
    except OSError as e:
        inv.error(read_error(name, e))
        return None
    finally:
        close_input(inv, f)


def map_lines(inv: Invocation, f: IO[bytes], fn: Callable[[bytes], bytes],
              batch: int = 2048) -> None:
    """Write ``fn(line)`` for each line of ``f`` (its newline kept), a batch at a time."""
    res: list[bytes] = []
    write = inv.stdout.write
    for rec in records(inv, f):
        nl = rec.endswith(b"\n")
        res.append(fn(rec[:-1] if nl else rec) + (b"\n" if nl else b""))
        if len(res) > batch:
            write(b"".join(res))
            res = []
    write(b"".join(res))


def strerror(exc: OSError) -> str:
    """GNU's text for an errno (never the path)."""
    if exc.errno is not None:
        return os.strerror(exc.errno)
    return exc.strerror or str(exc)


# GNU's name quoting (the text layer's): locale style, and shell-escape (always) style
quote = gnuquote.locale_quote
squote = gnuquote.shell_escape
aquote = gnuquote.shell_escape_always


# the cancel-checked reading loop every command uses (futil is the lower helper)
chunks = _futil.chunks


def records(inv: Invocation, f: IO[bytes], delim: bytes = b"\n") -> Iterator[bytes]:
    """Yield delimiter-terminated records (the delimiter kept; the last may lack it)."""
    tail = b""
    for data in chunks(inv, f):
        if tail:
            data = tail + data
        parts = data.split(delim)
        tail = parts.pop()
        for p in parts:
            yield p + delim
    if tail:
        yield tail


def record_batches(
    inv: Invocation, f: IO[bytes], delim: bytes = b"\n", size: int = CHUNK
) -> Iterator[list[bytes]]:
    """Like :func:`records` but a list per chunk (records without the delimiter).

    The final element of the final batch is followed by ``None`` marker semantics: callers
    that care whether the input ended with a delimiter use :func:`records` instead.
    """
    tail = b""
    for data in chunks(inv, f, size):
        if tail:
            data = tail + data
        parts = data.split(delim)
        tail = parts.pop()
        if parts:
            yield parts
    if tail:
        yield [tail]


def write(inv: Invocation, data: bytes) -> None:
    inv.stdout.write(data)


def parse_size(text: str, allow_sign: bool = False) -> int | None:
    """GNU ``xstrtoumax`` with the usual suffixes (b k K m M … kB KiB …); None if invalid."""
    s = text.strip() if text[:1].isspace() else text
    if not s:
        return None
    sign = 1
    if s[0] in "+-":
        if s[0] == "-":
            if not allow_sign:
                return None
            sign = -1
        s = s[1:]
    i = 0
    while i < len(s) and s[i].isdigit():
        i += 1
    num, suf = s[:i], s[i:]
    if not num:
        if not suf:
            return None
        num = "1"
        if suf[0] not in "bkKmMGgTtPpEeZzYyRrQq":
            return None
    n = int(num)
    if not suf:
        return sign * n
    mult = suffix_multiplier(suf)
    if mult is None:
        return None
    return sign * n * mult


