"""uniq: report or omit repeated lines (adjacent), with GNU's field/char skipping."""

from __future__ import annotations

from typing import IO

from vshell.command import Exit, Invocation
from vshell.commands._lib import textio as tio
from vshell.text.numarg import parse_count

_LOWER = bytes.maketrans(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ", b"abcdefghijklmnopqrstuvwxyz")


def _choice(inv: Invocation, opt: str, value: str, valid: list[str]) -> str:
    matches = [v for v in valid if v.startswith(value)]
    if value in valid:
        return value
    if len(matches) == 1 and value:
        return matches[0]
    kind = "ambiguous" if len(matches) > 1 and value else "invalid"
    inv.error(f"{kind} argument {tio.quote(value)} for {tio.quote(opt)}")
    inv.stderr.write(b"Valid arguments are:\n" + b"".join(
        f"  - {tio.quote(v)}\n".encode() for v in valid))
    inv.stderr.write(f"Try '{inv.name} --help' for more information.\n".encode())
    raise Exit(1)


def _num(inv: Invocation, v: str, what: str) -> int:
    """GNU uniq's ``size_opt``: a plain count, a huge one clamped to SIZE_MAX."""
    n = parse_count(v) if v.lstrip(" +").isdigit() else None
    if n is None:
        raise Exit(1, f"{v}: invalid number of {what}")
    return n.value


def run(inv: Invocation) -> int:
    opts = tio.options(inv, "cdDf:is:uw:z", [
        "count", "repeated", "all-repeated=?", "skip-fields=", "ignore-case", "skip-chars=",
        "unique", "check-chars=", "zero-terminated", "group=?"], numeric=True)
    count = repeated = unique = icase = False
    all_rep: str | None = None
    group: str | None = None
    skip_f = skip_c = 0
    width: int | None = None
    eol = b"\n"
    for k, v in opts.items:
        if k in ("-c", "--count"):
            count = True
        elif k in ("-d", "--repeated"):
            repeated = True
        elif k == "-D":
            all_rep = "none"
        elif k == "--all-repeated":
            all_rep = "none" if v is None else _choice(
                inv, "--all-repeated", v, ["none", "prepend", "separate"])
        elif k == "--group":
            group = "separate" if v is None else _choice(
                inv, "--group", v, ["prepend", "append", "separate", "both"])
        elif k in ("-f", "--skip-fields"):
            skip_f = _num(inv, v or "", "fields to skip")
        elif k == "-NUM":
            skip_f = _num(inv, v or "0", "fields to skip")
        elif k in ("-s", "--skip-chars"):
            skip_c = _num(inv, v or "", "bytes to skip")
        elif k in ("-w", "--check-chars"):
            width = _num(inv, v or "", "bytes to compare")
        elif k in ("-i", "--ignore-case"):
            icase = True
        elif k in ("-u", "--unique"):
            unique = True
        elif k in ("-z", "--zero-terminated"):
            eol = b"\0"
    ops = opts.operands
    if len(ops) > 2:
        raise tio.usage_error(inv, f"extra operand {tio.quote(ops[2])}")
    if group is not None and (count or repeated or unique or all_rep is not None):
        raise tio.usage_error(inv, "--group is mutually exclusive with -c/-d/-D/-u")
    if count and all_rep is not None:
        raise tio.usage_error(
            inv, "printing all duplicated lines and repeat counts is meaningless")
    src = ops[0] if ops else "-"
    try:
        f = tio.open_input(inv, src)
    except IsADirectoryError:
        raise Exit(1, f"error reading {tio.aquote(src)}") from None
    except OSError as e:
        raise Exit(1, f"{tio.squote(src)}: {tio.strerror(e)}") from None
    out_f = None
    if len(ops) == 2 and ops[1] != "-":
        try:
            out_f = inv.fs.open(inv.abs(ops[1]), "wb")
        except OSError as e:
            raise Exit(1, f"{tio.squote(ops[1])}: {tio.strerror(e)}") from None
    out = out_f or inv.stdout
    # whole lines without grouping modes: a plain loop (see _whole_lines)
    plain = not (skip_f or skip_c or width is not None or icase) and group is None \
        and all_rep is None

    def keyof(line: bytes) -> bytes:
        p = 0
        n = len(line)
        for _ in range(skip_f):
            if p >= n:
                break
            while p < n and line[p] in b" \t":
                p += 1
            while p < n and line[p] not in b" \t":
                p += 1
        p += skip_c
        k = line[p:]
        if width is not None:
            k = k[:width]
        if icase:
            k = k.translate(_LOWER)
        return k

    simple = not (skip_f or skip_c or width is not None or icase)
    buf: list[bytes] = []
    state = {"first_group": True}

    def start_group(line: bytes) -> None:
        """A new group begins with ``line`` (streamed modes emit it at once)."""
        if group is not None:
            if group in ("prepend", "both") or (group == "separate"
                                                and not state["first_group"]):
                buf.append(b"")
            buf.append(line)
            state["first_group"] = False

    def repeat(first: bytes, line: bytes, n: int) -> None:
        """``line`` is the ``n``-th (n >= 2) line of the current group."""
        if group is not None:
            buf.append(line)
        elif all_rep is not None:
            if n == 2:
                if all_rep == "prepend" or (all_rep == "separate" and not state["first_group"]):
                    buf.append(b"")
                state["first_group"] = False
                if not unique:
                    buf.append(first)
            buf.append(line)

    def end_group(first: bytes, n: int) -> None:
        if group is not None:
            if group == "append":
                buf.append(b"")
            return
        if all_rep is not None:
            return
        if (repeated and n < 2) or (unique and n > 1):
            return
        buf.append(b"%7d " % n + first if count else first)

    first: bytes | None = None
    curkey: bytes | None = None
    n = 0
    try:
        if plain:
            _whole_lines(inv, f, out, eol, count, repeated, unique)
            return 0
        for batch in tio.record_batches(inv, f, eol):
            for line in batch:
                key = line if simple else keyof(line)
                if first is not None and key == curkey:
                    n += 1
                    repeat(first, line, n)
                    continue
                if first is not None:
                    end_group(first, n)
                first, curkey, n = line, key, 1
                start_group(line)
            if buf:
                out.write(eol.join(buf) + eol)
                buf.clear()
        if first is not None:
            end_group(first, n)
        if group == "both" and not state["first_group"]:
            buf.append(b"")
        if buf:
            out.write(eol.join(buf) + eol)
    except OSError as e:
        raise Exit(1, f"{tio.squote(src)}: {tio.strerror(e)}") from None
    finally:
        tio.close_input(inv, f)
        if out_f is not None:
            out_f.close()
    return 0


def _whole_lines(inv: Invocation, f: IO[bytes], out: IO[bytes], eol: bytes, count: bool,
                 repeated: bool, unique: bool) -> None:
    """uniq [-c] [-d] [-u] comparing whole lines: the loop without the hooks of the
    grouping modes, one write per batch of input."""
    first: bytes | None = None
    n = 0
    res: list[bytes] = []
    add = res.append
    for batch in tio.record_batches(inv, f, eol):
        for line in batch:
            if line == first:
                n += 1
                continue
            if first is not None and not ((repeated and n < 2) or (unique and n > 1)):
                add(b"%7d " % n + first if count else first)
            first, n = line, 1
        if res:
            out.write(eol.join(res) + eol)
            res.clear()
    if first is not None and not ((repeated and n < 2) or (unique and n > 1)):
        out.write((b"%7d " % n + first if count else first) + eol)
