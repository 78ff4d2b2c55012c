"""shuf: generate random permutations (GNU coreutils: -e -i LO-HI -n COUNT -o FILE -r -z
--random-source=FILE).  A --random-source file seeds the generator, so runs repeat."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable

from vshell.command import Exit, Invocation
from vshell.commands._lib.futil import CHUNK, enc, quote, quotef, strerror
from vshell.commands._lib.helptext import help_text
from vshell.commands._lib.opts import parse
from vshell.text.numarg import SIZE_MAX, parse_count

HELP = help_text("shuf")


_MAX_LINES = 1 << 23  # a permutation longer than this is refused as GNU's would be


def run(inv: Invocation) -> int:
    o = parse(inv, "ei:n:o:rz", ["echo", "input-range=", "head-count=", "output=",
                                  "random-source=", "repeat", "zero-terminated"],
              help_text=HELP)
    echo = o.has("-e", "--echo")
    rng_text = o.last("-i", "--input-range")
    repeat = o.has("-r", "--repeat")
    sep = b"\0" if o.has("-z", "--zero-terminated") else b"\n"
    count: int | None = None
    ranges_seen = False
    for key, val in o.items:
        if key in ("-n", "--head-count"):
            parsed = parse_count(val or "")
            if parsed is None:
                raise Exit(1, f"invalid line count: {quote(val or '')}")
            count = parsed.value if count is None else min(count, parsed.value)
        elif key in ("-i", "--input-range") and ranges_seen:
            raise Exit(1, "multiple -i options specified")
        elif key in ("-i", "--input-range"):
            ranges_seen = True
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
        lo, n_lines = _input_range(rng_text)
        if o.operands:
            inv.stderr.write(enc(f"shuf: extra operand {quote(o.operands[0])}\n"
                                 "Try 'shuf --help' for more information.\n"))
            return 1
        if repeat:
            if n_lines == 0:
                if count:
                    raise Exit(1, "no lines to repeat")
                return 0
            return _repeat(inv, o.last("-o", "--output"),
                           lambda: b"%d" % (lo + rnd.randrange(n_lines)), sep, count)
        want = n_lines if count is None else min(count, n_lines)
        if want > _MAX_LINES:
            raise Exit(1, "memory exhausted")  # GNU's xalloc_die: a permutation this long
        if want * 2 < n_lines:  # a few picks from a big range: no list of all of it
            seen: dict[int, None] = {}
            while len(seen) < want:
                inv.cancel.check()
                seen.setdefault(lo + rnd.randrange(n_lines))
            return _emit(inv, o.last("-o", "--output"), [b"%d" % i for i in seen], sep)
        items = [b"%d" % i for i in range(lo, lo + n_lines)]
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
        return _repeat(inv, o.last("-o", "--output"), lambda: rnd.choice(items), sep, count)
    rnd.shuffle(items)
    if count is not None:
        items = items[:count]
    return _emit(inv, o.last("-o", "--output"), items, sep)


def _read_all(inv: Invocation, name: str) -> bytes:
    if name == "-":
        parts: list[bytes] = []
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


def _input_range(text: str) -> tuple[int, int]:
    """GNU's ``-i LO-HI``: each bound a decimal up to SIZE_MAX; (LO, number of lines)."""
    lo_text, dash, hi_text = text.partition("-")
    if not dash:
        lo_text, hi_text = "", text
    lo = _range_bound(lo_text) if dash else 0
    hi = _range_bound(hi_text)
    n_lines = (hi - lo + 1) % (SIZE_MAX + 1)
    if not dash or (lo <= hi) == (n_lines == 0):
        raise Exit(1, f"invalid input range: {quote(text)}")
    return lo, n_lines


def _range_bound(text: str) -> int:
    n = parse_count(text)
    if n is None:
        raise Exit(1, f"invalid input range: {quote(text)}")
    if n.overflow:
        raise Exit(1, f"invalid input range: {quote(text)}: Value too large for defined data"
                   " type")
    return n.value


def _repeat(inv: Invocation, output: str | None, pick: Callable[[], bytes], sep: bytes,
            count: int | None) -> int:
    """``count`` (None: endless) random lines from ``pick``, streamed in batches."""
    f = None
    if output is not None:
        try:
            f = inv.fs.open(inv.abs(output), "wb")
        except OSError as e:
            raise Exit(1, f"{quotef(output)}: {strerror(e)}") from None
    out = f or inv.stdout
    done = 0
    try:
        while count is None or done < count:
            inv.cancel.check()
            n = 4096 if count is None else min(4096, count - done)
            out.write(b"".join(pick() + sep for _ in range(n)))
            done += n
    except OSError as e:
        if f is None:
            raise
        raise Exit(1, f"{quotef(output or '')}: {strerror(e)}") from None
    finally:
        if f is not None:
            f.close()
    return 0
