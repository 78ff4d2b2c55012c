"""cmp: compare two files byte by byte (GNU diffutils: -b -i SKIP[:SKIP2] -l -n -s, SKIP
operands).  Differences are located with slice comparisons, never a per-byte loop over
equal data."""

from __future__ import annotations

import re
from typing import IO

from vshell.command import Exit, Invocation
from vshell.commands._lib.futil import CHUNK, enc, strerror
from vshell.commands._lib.helptext import help_text
from vshell.commands._lib.opts import parse

HELP = help_text("cmp")

_SUFFIX = {"": 1, "k": 1024, "K": 1024, "kB": 1000, "KB": 1000, "M": 1 << 20, "MB": 10**6,
           "G": 1 << 30, "GB": 10**9, "KiB": 1024, "MiB": 1 << 20, "GiB": 1 << 30}


def _num(inv: Invocation, text: str, what: str) -> int:
    m = re.fullmatch(r"(\d+)([A-Za-z]*)", text)
    if not m or m.group(2) not in _SUFFIX:
        inv.stderr.write(enc(f"cmp: invalid {what} '{text}'\n"
                             "cmp: Try 'cmp --help' for more information.\n"))
        raise Exit(2)
    return int(m.group(1)) * _SUFFIX[m.group(2)]


def _vis(b: int) -> str:
    prefix = ""
    if b >= 128:
        prefix, b = "M-", b - 128
    if b < 32:
        return prefix + "^" + chr(b + 64)
    if b == 127:
        return prefix + "^?"
    return prefix + chr(b)


def _first_diff(a: bytes, b: bytes) -> int:
    """Index of the first differing byte of two equal-length, unequal byte strings."""
    lo, hi = 0, len(a)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if a[lo:mid] != b[lo:mid]:
            hi = mid
        else:
            lo = mid
    return lo


class _Reader:
    def __init__(self, f: IO[bytes], skip: int) -> None:
        self.f = f
        self.buf = b""
        while skip > 0:
            data = f.read(min(skip, CHUNK))
            if not data:
                break
            skip -= len(data)

    def read(self, n: int) -> bytes:
        while len(self.buf) < n:
            data = self.f.read(CHUNK)
            if not data:
                break
            self.buf += data
        out, self.buf = self.buf[:n], self.buf[n:]
        return out


def run(inv: Invocation) -> int:
    o = parse(inv, "bi:ln:s", ["print-bytes", "ignore-initial=", "verbose", "bytes=", "quiet",
                                "silent", "print-chars"], help_text=HELP, usage_status=2)
    show_bytes = o.has("-b", "--print-bytes", "--print-chars")
    verbose = o.has("-l", "--verbose")
    silent = o.has("-s", "--quiet", "--silent")
    if verbose and silent:
        inv.stderr.write(b"cmp: options -l and -s are incompatible\n"
                         b"cmp: Try 'cmp --help' for more information.\n")
        return 2
    limit = None
    lim = o.last("-n", "--bytes")
    if lim is not None:
        limit = _num(inv, lim, "--bytes value")
    skips = [0, 0]
    ign = o.last("-i", "--ignore-initial")
    if ign is not None:
        first, _, second = ign.partition(":")
        skips = [_num(inv, first, "--ignore-initial value"),
                 _num(inv, second or first, "--ignore-initial value")]
    ops = o.operands
    if not ops:
        inv.stderr.write(b"cmp: missing operand after 'cmp'\n"
                         b"cmp: Try 'cmp --help' for more information.\n")
        return 2
    if len(ops) > 4:
        inv.stderr.write(enc(f"cmp: extra operand '{ops[4]}'\n"
                             "cmp: Try 'cmp --help' for more information.\n"))
        return 2
    names = [ops[0], ops[1] if len(ops) > 1 else "-"]
    for k, text in enumerate(ops[2:4]):
        skips[k] = _num(inv, text, "--ignore-initial value")
    if len(ops) == 3:
        skips[1] = 0
    files: list[IO[bytes]] = []
    sizes: list[int | None] = []
    try:
        for name in names:
            if name == "-":
                files.append(inv.stdin)
                sizes.append(None)
                continue
            try:
                path = inv.abs(name)
                files.append(inv.fs.open(path, "rb"))
                sizes.append(inv.fs.stat(path).st_size)
            except OSError as e:
                if not silent:
                    inv.error(f"{name}: {strerror(e)}")
                return 2
        return _compare(inv, names, files, sizes, skips, limit, show_bytes, verbose, silent)
    finally:
        for f in files:
            if f is not inv.stdin:
                f.close()


def _compare(inv: Invocation, names: list[str], files: list[IO[bytes]], sizes: list[int | None],
             skips: list[int], limit: int | None, show_bytes: bool, verbose: bool,
             silent: bool) -> int:
    ra, rb = _Reader(files[0], skips[0]), _Reader(files[1], skips[1])
    known = [s - k for s, k in zip(sizes, skips, strict=True) if s is not None]
    width = len(str(max(min(known), 0))) if known else 1
    offset = 0
    lines = 0
    differ = False
    out = inv.stdout
    while True:
        inv.cancel.check()
        n = CHUNK if limit is None else min(CHUNK, limit - offset)
        if n <= 0:
            break
        a, b = ra.read(n), rb.read(n)
        m = min(len(a), len(b))
        if a[:m] != b[:m]:
            if not verbose:
                i = _first_diff(a[:m], b[:m])
                if not silent:
                    line = lines + a.count(b"\n", 0, i) + 1
                    text = f"{names[0]} {names[1]} differ: byte {offset + i + 1}, line {line}"
                    if show_bytes:
                        text += (f" is {a[i]:3o} {_vis(a[i])} {b[i]:3o} {_vis(b[i])}")
                    out.write(enc(text) + b"\n")
                return 1
            pos = 0
            rows = []
            while pos < m:
                if a[pos:m] == b[pos:m]:
                    break
                i = pos + _first_diff(a[pos:m], b[pos:m])
                if show_bytes:
                    rows.append(f"{offset + i + 1:>{width}} {a[i]:3o} {_vis(a[i]):<4} "
                                f"{b[i]:3o} {_vis(b[i])}\n")
                else:
                    rows.append(f"{offset + i + 1:>{width}} {a[i]:3o} {b[i]:3o}\n")
                pos = i + 1
            out.write(enc("".join(rows)))
            differ = True
        lines += a.count(b"\n", 0, m)
        offset += m
        if len(a) != len(b):
            short = 0 if len(a) < len(b) else 1
            if not silent:
                if offset == 0 and not verbose:
                    inv.error(f"EOF on {names[short]} which is empty")
                elif verbose:
                    inv.error(f"EOF on {names[short]} after byte {offset}")
                else:
                    inv.error(f"EOF on {names[short]} after byte {offset}, line {lines}")
            return 1
        if not a:
            break
    return 1 if differ else 0
