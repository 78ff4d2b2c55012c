"""join: join lines of two sorted files on a common field (GNU semantics and checks)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from vshell.command import Exit, Invocation
from vshell.commands._lib import textio as tio

_BLANKS = re.compile(rb"[ \t\n]+")
_LOWER = bytes.maketrans(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ", b"abcdefghijklmnopqrstuvwxyz")


class _Input:
    def __init__(self, inv: Invocation, name: str, eol: bytes) -> None:
        self.name = name
        self.f = tio.open_input(inv, name)
        self.it: Iterator[bytes] = tio.records(inv, self.f, eol)
        self.eol = eol
        self.lineno = 0

    def next(self) -> bytes | None:
        r = next(self.it, None)
        if r is None:
            return None
        self.lineno += 1
        return r[:-1] if r.endswith(self.eol) else r


def _num(inv: Invocation, v: str) -> int:
    try:
        n = int(v)
    except ValueError:
        n = 0
    if n < 1:
        raise Exit(1, f"invalid field number: {tio.quote(v)}")
    return n


def run(inv: Invocation) -> int:
    opts = tio.options(inv, "a:e:i1:2:j:o:t:v:z", [
        "ignore-case", "check-order", "nocheck-order", "zero-terminated", "header"])
    f1 = f2 = 1
    unpaired = [False, False]
    only_unpaired = False
    empty: bytes | None = None
    fmt: list[tuple[int, int]] | None = None
    auto = False
    tab: bytes | None = None
    icase = False
    check = "default"
    eol = b"\n"
    header = False
    for k, v in opts.items:
        v = v or ""
        if k in ("-a", "-v"):
            if v not in ("1", "2"):
                raise Exit(1, f"invalid field number: {tio.quote(v)}")
            unpaired[int(v) - 1] = True
            if k == "-v":
                only_unpaired = True
        elif k == "-e":
            empty = v.encode("utf-8", "surrogateescape")
        elif k in ("-i", "--ignore-case"):
            icase = True
        elif k == "-1":
            f1 = _num(inv, v)
        elif k == "-2":
            f2 = _num(inv, v)
        elif k == "-j":
            f1 = f2 = _num(inv, v)
        elif k == "-o":
            if v == "auto":
                auto = True
                continue
            fmt = fmt or []
            for spec in re.split(r"[,\s]+", v.strip()):
                if spec == "0":
                    fmt.append((0, 0))
                    continue
                m = re.fullmatch(r"([^.]*)\.(.*)", spec)
                if not m or m.group(1) not in ("1", "2"):
                    raise Exit(1, f"invalid file number in field spec: "
                               f"{tio.quote(m.group(1) if m else spec)}")
                fmt.append((int(m.group(1)), _num(inv, m.group(2))))
        elif k == "-t":
            t = v.encode("utf-8", "surrogateescape")
            if len(t) > 1:
                if t == b"\\0":
                    t = b"\0"
                else:
                    raise Exit(1, f"multi-character tab {tio.quote(v)}")
            tab = t if t else b"\n"
        elif k == "--check-order":
            check = "on"
        elif k == "--nocheck-order":
            check = "off"
        elif k in ("-z", "--zero-terminated"):
            eol = b"\0"
        elif k == "--header":
            header = True
    ops = opts.operands
    tio.two_operands(inv, ops)
    ins = []
    for name in ops:
        try:
            ins.append(_Input(inv, name, eol))
        except OSError as e:
            raise Exit(1, f"{tio.squote(name)}: {tio.strerror(e)}") from None
    osep = tab if tab is not None and tab != b"\n" else b" "
    if tab == b"\n":
        osep = b" "
    out = inv.stdout
    buf: list[bytes] = []
    joinf = (f1 - 1, f2 - 1)
    autocounts: list[int] | None = None

    def fields(line: bytes) -> list[bytes]:
        if tab is None:
            s = line.lstrip(b" \t\n")
            if not s:
                return []
            return _BLANKS.split(s.rstrip(b" \t\n")) if s.rstrip(b" \t\n") else []
        if tab == b"\n":
            return [line]
        return line.split(tab)

    def key(fl: list[bytes], which: int) -> bytes:
        j = joinf[which]
        k = fl[j] if j < len(fl) else b""
        return k.translate(_LOWER) if icase else k

    def emit(l1: list[bytes] | None, l2: list[bytes] | None) -> None:
        nonlocal autocounts
        parts: list[bytes] = []
        if fmt is not None or auto:
            spec = fmt
            if spec is None:
                assert autocounts is not None
                spec = [(0, 0)] + [(1, i + 1) for i in range(autocounts[0]) if i != joinf[0]] \
                    + [(2, i + 1) for i in range(autocounts[1]) if i != joinf[1]]
            for fno, n in spec:
                if fno == 0:
                    src, j = (l1, joinf[0]) if l1 is not None else (l2, joinf[1])
                else:
                    src, j = (l1 if fno == 1 else l2), n - 1
                if src is not None and j < len(src):
                    parts.append(src[j])
                else:
                    parts.append(empty if empty is not None else b"")
        else:
            src, j = (l1, joinf[0]) if l1 is not None else (l2, joinf[1])
            assert src is not None
            if j < len(src):
                parts.append(src[j])
            elif empty is not None:
                parts.append(empty)
            else:
                parts.append(b"")
            for which, fl in ((0, l1), (1, l2)):
                if fl is None:
                    continue
                parts.extend(x for i, x in enumerate(fl) if i != joinf[which])
        buf.append(osep.join(parts) + eol)
        if len(buf) > 4096:
            out.write(b"".join(buf))
            buf.clear()

    warned = [False, False]
    seen_unpairable = False
    prev_key: list[bytes | None] = [None, None]

    def get(which: int) -> list[bytes] | None:
        line = ins[which].next()
        if line is None:
            return None
        fl = fields(line)
        k = key(fl, which)
        pk = prev_key[which]
        if pk is not None and check != "off" and (check == "on" or seen_unpairable) \
                and not warned[which] and pk > k:
            out.write(b"".join(buf))
            buf.clear()
            inv.stderr.write(f"join: {ins[which].name}:{ins[which].lineno}: is not sorted: ".encode(
                "utf-8", "surrogateescape") + line + b"\n")
            if check == "on":
                raise Exit(1)
            warned[which] = True
        prev_key[which] = k
        return fl

    def same_key_run(which: int, k: bytes) -> list[list[bytes]]:
        """The current line of one file and the lines after it with the same key."""
        line = cur[which]
        assert line is not None
        run = [line]
        while True:
            cur[which] = get(which)
            nxt = cur[which]
            if nxt is None or key(nxt, which) != k:
                return run
            run.append(nxt)

    cur: list[list[bytes] | None] = [None, None]
    try:
        cur = [get(0), get(1)]
        if header:
            if cur[0] is not None or cur[1] is not None:
                if auto:
                    autocounts = [len(cur[0] or []), len(cur[1] or [])]
                emit(cur[0] if cur[0] is not None else None, cur[1])
            prev_key = [None, None]
            cur = [get(0), get(1)]
        if auto and autocounts is None:
            autocounts = [len(cur[0] or []), len(cur[1] or [])]
        while cur[0] is not None and cur[1] is not None:
            k1, k2 = key(cur[0], 0), key(cur[1], 1)
            if k1 < k2:
                if unpaired[0]:
                    emit(cur[0], None)
                seen_unpairable = True
                cur[0] = get(0)
                continue
            if k1 > k2:
                if unpaired[1]:
                    emit(None, cur[1])
                seen_unpairable = True
                cur[1] = get(1)
                continue
            seq1 = same_key_run(0, k1)
            seq2 = same_key_run(1, k2)
            if not only_unpaired:
                for a in seq1:
                    for b in seq2:
                        emit(a, b)
        for which in (0, 1):
            if cur[which] is not None and (unpaired[which] or check != "off"):
                seen_unpairable = True
            while cur[which] is not None:
                if unpaired[which]:
                    emit(cur[which] if which == 0 else None, cur[which] if which == 1 else None)
                elif check == "off" or warned[which]:
                    break
                cur[which] = get(which)
        out.write(b"".join(buf))
    finally:
        for i in ins:
            tio.close_input(inv, i.f)
    if any(warned):
        inv.error("input is not in sorted order")
        return 1
    return 0
