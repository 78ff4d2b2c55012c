"""paste: merge lines of files side by side (or serially with -s), GNU delimiters."""

from __future__ import annotations

from collections.abc import Iterator

from vshell.command import Exit, Invocation
from vshell.commands._lib import textio as tio


def _delims(text: str) -> list[bytes]:
    raw = text.encode("utf-8", "surrogateescape")
    out: list[bytes] = []
    i = 0
    while i < len(raw):
        c = raw[i:i + 1]
        if c == b"\\" and i + 1 < len(raw):
            n = raw[i + 1:i + 2]
            out.append({b"n": b"\n", b"t": b"\t", b"\\": b"\\", b"0": b"",
                        b"b": b"\b", b"f": b"\f", b"r": b"\r", b"v": b"\v"}.get(n, n))
            i += 2
            continue
        if c == b"\\":
            raise Exit(1, f"delimiter list ends with an unescaped backslash: {text}")
        out.append(c)
        i += 1
    return out or [b""]


def run(inv: Invocation) -> int:
    opts = tio.options(inv, "d:sz", ["delimiters=", "serial", "zero-terminated"])
    delims = _delims(opts.last("-d", "--delimiters", default="\t") or "")
    serial = opts.has("-s", "--serial")
    eol = b"\0" if opts.has("-z", "--zero-terminated") else b"\n"
    names = opts.operands or ["-"]
    files = tio.open_all(inv, names)
    out = inv.stdout
    try:
        if serial:
            for f in files:
                res: list[bytes] = []
                n = 0
                first = True
                for rec in tio.records(inv, f, eol):
                    line = rec[:-1] if rec.endswith(eol) else rec
                    if not first:
                        res.append(delims[(n - 1) % len(delims)])
                    res.append(line)
                    first = False
                    n += 1
                    if len(res) > 4096:
                        out.write(b"".join(res))
                        res = []
                if not first or True:
                    res.append(eol)
                out.write(b"".join(res))
            return 0
        shared: dict[int, Iterator[bytes]] = {}
        iters: list[Iterator[bytes]] = []
        for f in files:
            if id(f) not in shared:
                shared[id(f)] = tio.records(inv, f, eol)
            iters.append(shared[id(f)])
        # stdin named several times is read round-robin, as GNU does
        done = [False] * len(iters)
        while True:
            row: list[bytes] = []
            got = False
            for i, it in enumerate(iters):
                line = b""
                if not done[i]:
                    got_rec = next(it, None)
                    if got_rec is None:
                        done[i] = True
                    else:
                        got = True
                        line = got_rec[:-1] if got_rec.endswith(eol) else got_rec
                row.append(line)
                if i < len(iters) - 1:
                    row.append(delims[i % len(delims)])
            if not got:
                break
            out.write(b"".join(row) + eol)
    finally:
        for f in files:
            tio.close_input(inv, f)
    return 0
