"""comm: compare two sorted files line by line (GNU order checking and columns)."""

from __future__ import annotations

from vshell.command import Invocation
from vshell.commands._lib import textio as tio


def run(inv: Invocation) -> int:
    opts = tio.options(inv, "123z", ["check-order", "nocheck-order", "output-delimiter=",
                                     "total", "zero-terminated"])
    show = [not opts.has("-1"), not opts.has("-2"), not opts.has("-3")]
    check = "default"
    for k, _ in opts.items:
        if k == "--check-order":
            check = "on"
        elif k == "--nocheck-order":
            check = "off"
    od_text = opts.last("--output-delimiter")
    od = b"\t" if od_text is None else od_text.encode("utf-8", "surrogateescape")
    eol = b"\0" if opts.has("-z", "--zero-terminated") else b"\n"
    ops = opts.operands
    tio.two_operands(inv, ops)
    files = tio.open_all(inv, ops)
    its = [tio.records(inv, f, eol) for f in files]
    pre = [b"", od if show[0] else b"", (od if show[0] else b"") + (od if show[1] else b"")]
    out = inv.stdout
    buf: list[bytes] = []
    totals = [0, 0, 0]
    warned = [False, False]

    def nxt(i: int) -> bytes | None:
        r = next(its[i], None)
        if r is None:
            return None
        return r[:-1] if r.endswith(eol) else r

    cur = [nxt(0), nxt(1)]
    prev: list[bytes | None] = [None, None]
    try:
        while cur[0] is not None or cur[1] is not None:
            a, b = cur
            if a is None:
                order = 1
            elif b is None:
                order = -1
            else:
                order = (a > b) - (a < b)
            if order == 0:
                totals[2] += 1
                if show[2]:
                    buf.append(pre[2] + a + eol)  # type: ignore[operator]  # None only at end of input, checked above
            else:
                # by default a file's order is checked when a line of it is unpairable
                w = 0 if order < 0 else 1
                if check == "default" and not warned[w] and prev[w] is not None \
                        and prev[w] > cur[w]:  # type: ignore[operator]  # None only at end of input, checked above
                    out.write(b"".join(buf))
                    buf = []
                    inv.error(f"file {w + 1} is not in sorted order")
                    warned[w] = True
                if order < 0:
                    totals[0] += 1
                    if show[0]:
                        buf.append(a + eol)  # type: ignore[operator]  # None only at end of input, checked above
                else:
                    totals[1] += 1
                    if show[1]:
                        buf.append(pre[1] + b + eol)  # type: ignore[operator]  # None only at end of input, checked above
            for i in (0, 1):
                if order == (1 if i == 0 else -1):
                    continue
                prev[i] = cur[i]
                cur[i] = nxt(i)
                if cur[i] is not None and check == "on":
                    if not warned[i] and prev[i] is not None and prev[i] > cur[i]:  # type: ignore[operator]  # None only at end of input, checked above
                        out.write(b"".join(buf))
                        buf = []
                        inv.error(f"file {i + 1} is not in sorted order")
                        if check == "on":
                            return 1
                        warned[i] = True
            if len(buf) > 4096:
                out.write(b"".join(buf))
                buf = []
        if opts.has("--total"):
            buf.append(od.join(str(t).encode() for t in totals) + od + b"total" + eol)
        out.write(b"".join(buf))
    finally:
        for f in files:
            tio.close_input(inv, f)
    if any(warned):
        inv.error("input is not in sorted order")
        return 1
    return 0
