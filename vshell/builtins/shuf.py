"""shuf: generate random permutations (GNU coreutils: -e -i LO-HI -n COUNT -o FILE -r -z
--random-source=FILE).  A --random-source file seeds the generator, so runs repeat."""

from __future__ import annotations

import hashlib
import random
import re

from vshell.builtins._futil import CHUNK, enc, quote, quotef, strerror
from vshell.builtins._opts import parse
from vshell.command import Exit, Invocation

HELP = """\
Usage: shuf [OPTION]... [FILE]
  or:  shuf -e [OPTION]... [ARG]...
  or:  shuf -i LO-HI [OPTION]...
Write a random permutation of the input lines to standard output.

  -e, --echo                treat each ARG as an input line
  -i, --input-range=LO-HI   treat each number LO through HI as an input line
  -n, --head-count=COUNT    output at most COUNT lines
  -o, --output=FILE         write result to FILE instead of standard output
      --random-source=FILE  get random bytes from FILE
  -r, --repeat              output lines can be repeated
  -z, --zero-terminated     line delimiter is NUL, not newline
      --help     display this help and exit
"""


def run(inv: Invocation) -> int:
    o = parse(inv, "ei:n:o:rz", ["echo", "input-range=", "head-count=", "output=",
                                  "random-source=", "repeat", "zero-terminated"],
              help_text=HELP)
    echo = o.has("-e", "--echo")
    rng_text = o.last("-i", "--input-range")
    repeat = o.has("-r", "--repeat")
    sep = b"\0" if o.has("-z", "--zero-terminated") else b"\n"
    count: int | None = None
    for key, val in o.items:
        if key in ("-n", "--head-count"):
            if not (val or "").isdigit():
                raise Exit(1, f"invalid line count: {quote(val or '')}")
            c = int(val or "0")
            count = c if count is None else min(count, c)
    if echo and rng_text is not None:
        raise Exit(1, "cannot combine -e and -i options")
    source = o.last("--random-source")
    if source is not None:
        try:
            with inv.fs.open(inv.abs(source), "rb") as f:
                seed = hashlib.sha256(f.read(1 << 16)).digest()
        except OSError as e:
            raise Exit(1, f"{quotef(source)}: {strerror(e)}") from None
        rnd = random.Random(seed)
    else:
        rnd = random.SystemRandom()
    items: list[bytes]
    if echo:
        items = [enc(a) for a in o.operands]
    elif rng_text is not None:
        m = re.fullmatch(r"(\d+)-(\d+)", rng_text)
        if not m or int(m.group(2)) + 1 < int(m.group(1)):
            raise Exit(1, f"invalid input range: {quote(rng_text)}")
        if o.operands:
            inv.stderr.write(enc(f"shuf: extra operand {quote(o.operands[0])}\n"
                                 "Try 'shuf --help' for more information.\n"))
            return 1
        lo, hi = int(m.group(1)), int(m.group(2))
        items = []
        if not repeat and (count is None or count >= hi - lo + 1):
            items = [b"%d" % i for i in range(lo, hi + 1)]
        elif not repeat:
            picks = rnd.sample(range(lo, hi + 1), count or 0)
            return _emit(inv, o.last("-o", "--output"), [b"%d" % i for i in picks], sep)
        else:
            items = [b"%d" % i for i in range(lo, min(hi, lo + 1_000_000) + 1)]
    else:
        if len(o.operands) > 1:
            inv.stderr.write(enc(f"shuf: extra operand {quote(o.operands[1])}\n"
                                 "Try 'shuf --help' for more information.\n"))
            return 1
        name = o.operands[0] if o.operands else "-"
        try:
            data = _read_all(inv, name)
        except OSError as e:
            raise Exit(1, f"{quotef(name)}: {strerror(e)}") from None
        items = data.split(sep)
        if items and items[-1] == b"":
            items.pop()
    if repeat:
        if not items:
            if count:
                raise Exit(1, "no lines to repeat")
            return 0
        return _repeat(inv, o.last("-o", "--output"), items, sep, count, rnd)
    rnd.shuffle(items)
    if count is not None:
        items = items[:count]
    return _emit(inv, o.last("-o", "--output"), items, sep)


def _read_all(inv: Invocation, name: str) -> bytes:
    if name == "-":
        parts = []
        while True:
            inv.cancel.check()
            data = inv.stdin.read(CHUNK)
            if not data:
                return b"".join(parts)
            parts.append(data)
    with inv.fs.open(inv.abs(name), "rb") as f:
        return f.read()


def _emit(inv: Invocation, output: str | None, items: list[bytes], sep: bytes) -> int:
    data = b"".join(i + sep for i in items)
    if output is None:
        inv.stdout.write(data)
        return 0
    try:
        with inv.fs.open(inv.abs(output), "wb") as f:
            f.write(data)
    except OSError as e:
        raise Exit(1, f"{quotef(output)}: {strerror(e)}") from None
    return 0


def _repeat(inv: Invocation, output: str | None, items: list[bytes], sep: bytes,
            count: int | None, rnd: random.Random) -> int:
    if output is not None:
        chosen = [rnd.choice(items) for _ in range(count or 0)]
        return _emit(inv, output, chosen, sep)
    done = 0
    while count is None or done < count:
        inv.cancel.check()
        n = 4096 if count is None else min(4096, count - done)
        inv.stdout.write(b"".join(rnd.choice(items) + sep for _ in range(n)))
        done += n
    return 0
