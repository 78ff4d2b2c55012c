"""xargs: build and run command lines from standard input (GNU findutils: -0 -a -d -E -I
-i -L -l -n -P -r -s -t -x).  Commands run one after another through ``inv.run_command``
(-P is accepted and runs them sequentially); each gets an empty standard input."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import IO

from vshell.command import Exit, Invocation
from vshell.commands._lib.child import run_child
from vshell.commands._lib.futil import enc, quote
from vshell.commands._lib.helptext import help_text
from vshell.commands._lib.opts import parse
from vshell.commands._lib.textio import record_batches, records

HELP = help_text("xargs")

MAX_CHARS = 131072


def _unescape_delim(text: str) -> str:
    if len(text) == 1:
        return text
    table = {"\\n": "\n", "\\t": "\t", "\\0": "\0", "\\\\": "\\", "\\r": "\r", "\\a": "\a",
             "\\b": "\b", "\\f": "\f", "\\v": "\v"}
    if text in table:
        return table[text]
    m = re.fullmatch(r"\\(?:x([0-9a-fA-F]{1,2})|([0-7]{1,3}))", text)
    if m:
        return chr(int(m.group(1), 16) if m.group(1) else int(m.group(2), 8))
    raise ValueError(text)


def _lines(inv: Invocation, src: IO[bytes]) -> Iterator[str]:
    """Input lines (with their newline), read in 64 KiB chunks as they arrive."""
    for line in records(inv, src):
        yield line.decode("utf-8", "surrogateescape")


def _records(inv: Invocation, src: IO[bytes], sep: bytes) -> Iterator[tuple[str, int]]:
    """-0 / -d: items split on ``sep`` only, streamed."""
    n = 0
    for batch in record_batches(inv, src, sep):
        for part in batch:
            yield part.decode("utf-8", "surrogateescape"), n
            n += 1


def _split_quoted(lines: Iterable[str], eof: str | None) -> Iterator[tuple[str, int]]:
    """Whitespace-separated items with ' " and backslash quoting; (item, line number).

    A line ending in a blank continues onto the next for -L, as GNU counts lines."""
    logical = 0
    for line in lines:
        cur: list[str] = []
        have = False
        i, n = 0, len(line)
        while i < n:
            c = line[i]
            if c in " \t\n":
                if have:
                    word = "".join(cur)
                    if eof is not None and word == eof:
                        return
                    yield word, logical
                    cur, have = [], False
                i += 1
                continue
            if c in "'\"":
                end = line.find(c, i + 1)
                if end < 0:
                    kind = "single" if c == "'" else "double"
                    raise Exit(1, f"unmatched {kind} quote; by default quotes are special to "
                                  "xargs unless you use the -0 option")
                cur.append(line[i + 1 : end])
                have = True
                i = end + 1
                continue
            if c == "\\" and i + 1 < n:
                cur.append(line[i + 1])
                have = True
                i += 2
                continue
            cur.append(c)
            have = True
            i += 1
        if have:
            word = "".join(cur)
            if eof is not None and word == eof:
                return
            yield word, logical
        body = line.rstrip("\n")
        if body.strip() and not body.endswith((" ", "\t")):
            logical += 1


def _replace_lines(lines: Iterable[str], eof: str | None) -> Iterator[tuple[str, int]]:
    """-I: each non-blank input line is one argument (leading blanks removed)."""
    for i, line in enumerate(lines):
        stripped = line.rstrip("\n").lstrip(" \t")
        if eof is not None and stripped == eof:
            return
        if stripped:
            yield stripped, i


def _bad_number(inv: Invocation, value: str, opt: str) -> Exit:
    inv.stderr.write(enc(f'xargs: invalid number "{value}" for -{opt} option\n'
                         "Try 'xargs --help' for more information.\n"))
    return Exit(1)


def run(inv: Invocation) -> int:
    opts = parse(
        inv, "0a:d:E:I:i::L:l::n:P:rs:tx",
        ["null", "arg-file=", "delimiter=", "eof=?", "replace=?", "max-lines=", "max-args=",
         "max-procs=", "no-run-if-empty", "max-chars=", "verbose", "exit", "show-limits",
         "open-tty", "process-slot-var="],
        permute=False, help_text=HELP,
    )
    null = delim = None
    replace: str | None = None
    max_lines = max_args = None
    max_chars = MAX_CHARS
    eof: str | None = None
    for key, val in opts.items:
        if key in ("-0", "--null"):
            null, delim = True, None
        elif key in ("-d", "--delimiter"):
            try:
                delim = _unescape_delim(val or "")
            except ValueError:
                raise Exit(1, f"invalid input delimiter specification {val}: the delimiter "
                              "must be either a single character or an escape sequence "
                              "starting with \\.") from None
            null = None
        elif key in ("-E", "--eof"):
            eof = val or None
        elif key in ("-I", "-i", "--replace"):
            replace = val if val else "{}"
            max_lines, max_args = 1, None
        elif key in ("-L", "--max-lines", "-l"):
            v = val if val is not None else "1"
            if not v.isdigit() or int(v) < 1:
                raise _bad_number(inv, v, "L")
            max_lines, max_args = int(v), None
            replace = None if key != "-l" else replace
        elif key in ("-n", "--max-args"):
            if not (val or "").isdigit() or int(val or "0") < 1:
                raise _bad_number(inv, val or '', "n")
            max_args = int(val or "1")
            if replace is None:
                max_lines = None
        elif key in ("-P", "--max-procs"):
            if not (val or "").isdigit():
                raise _bad_number(inv, val or '', "P")
        elif key in ("-s", "--max-chars"):
            if not (val or "").isdigit() or int(val or "0") < 1:
                raise _bad_number(inv, val or '', "s")
            max_chars = int(val or "0")
    no_run_empty = opts.has("-r", "--no-run-if-empty")
    verbose = opts.has("-t", "--verbose")
    command = opts.operands or ["echo"]
    arg_file = opts.last("-a", "--arg-file")
    src: IO[bytes] = inv.stdin
    if arg_file is not None:
        try:
            src = inv.fs.open(inv.abs(arg_file), "rb")
        except OSError as e:
            raise Exit(1, f"Cannot open input file {quote(arg_file)}: "
                          f"{e.strerror or 'No such file or directory'}") from None
    items: Iterator[tuple[str, int]]
    if null or delim is not None:
        items = _records(inv, src, b"\0" if null else enc(delim or "\0"))
    elif replace is not None:
        items = _replace_lines(_lines(inv, src), eof)
    else:
        items = _split_quoted(_lines(inv, src), eof)
    batches = _batches(items, command, max_args, max_lines, max_chars, replace)
    if not no_run_empty and replace is None:
        batches = _at_least_one(batches)
    try:
        return _run_batches(inv, batches, command, replace, verbose)
    finally:
        if src is not inv.stdin:
            src.close()


def _run_batches(inv: Invocation, batches: Iterator[list[str]], command: list[str],
                 replace: str | None, verbose: bool) -> int:
    status = 0
    for args in batches:
        inv.cancel.check()
        if replace is not None:
            argv = [a.replace(replace, args[0]) for a in command]
        else:
            argv = [*command, *args]
        if verbose:
            inv.stderr.write(enc(" ".join(argv)) + b"\n")
        rc = run_child(inv, argv, stdin=b"")
        if rc == 255:
            inv.error(f"{argv[0]}: exited with status 255; aborting")
            return 124
        if rc in (126, 127):
            return rc
        if 1 <= rc <= 125:
            status = 123
        elif rc > 128:
            inv.error(f"{argv[0]}: terminated by signal {rc - 128}")
            return 125
    return status


def _at_least_one(batches: Iterator[list[str]]) -> Iterator[list[str]]:
    """GNU runs the command once even without input, unless -r."""
    empty = True
    for b in batches:
        empty = False
        yield b
    if empty:
        yield []


def _batches(items: Iterator[tuple[str, int]], command: list[str], max_args: int | None,
             max_lines: int | None, max_chars: int, replace: str | None,
             ) -> Iterator[list[str]]:
    """Command lines, produced as soon as each is full (so commands start while input
    is still arriving)."""
    if replace is not None:
        for word, _ in items:
            yield [word]
        return
    base = sum(len(enc(a)) + 1 for a in command)
    cur: list[str] = []
    size = base
    lines_seen: set[int] = set()
    for word, line in items:
        wsize = len(enc(word)) + 1
        new_line = line not in lines_seen
        if cur and (
            (max_args is not None and len(cur) >= max_args)
            or (max_lines is not None and new_line and len(lines_seen) >= max_lines)
            or size + wsize > max_chars
        ):
            yield cur
            cur, size, lines_seen = [], base, set()
        cur.append(word)
        size += wsize
        lines_seen.add(line)
    if cur:
        yield cur
