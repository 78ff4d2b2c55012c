"""cut: remove sections from each line (bytes, characters = bytes, or fields), GNU style."""

from __future__ import annotations

import re
from itertools import repeat
from typing import IO

from vshell.command import Invocation
from vshell.commands._lib import textio as tio
from vshell.text.numarg import UINTMAX_MAX, parse_count

_INF = 1 << 62
_BATCH = 1 << 20  # bytes read per batch: big enough that per-batch costs vanish


def _parse_list(inv: Invocation, text: str, fields: bool) -> list[tuple[int, int]]:
    what = "field" if fields else "byte/character position"
    ranges: list[tuple[int, int]] = []
    for item in re.split(r"[,\s]", text) if text else [""]:
        if item == "":
            raise tio.usage_error(
                inv, "fields are numbered from 1" if fields
                else "byte/character positions are numbered from 1")
        m = re.fullmatch(r"(\d*)(-?)(\d*)", item)
        if not m:
            bad = re.match(r"[\d-]*", item)
            assert bad is not None
            if "-" in item and re.fullmatch(r"[\d-]+", item) is not None:
                raise tio.usage_error(inv, "invalid field range" if fields
                                      else "invalid byte or character range")
            val = item
            raise tio.usage_error(inv, f"invalid {what} value {tio.quote(val)}" if fields
                                  else f"invalid {what} {tio.quote(val)}")
        lo_s, dash, hi_s = m.groups()

        def number(digits: str) -> int:
            """GNU: UINTMAX_MAX or more is too large; a line is never _INF long."""
            n = parse_count(digits, limit=UINTMAX_MAX - 1)
            if n is None or n.overflow:
                raise tio.usage_error(inv, (f"field number {tio.quote(digits)} is too large"
                                            if fields else
                                            f"byte/character offset {tio.quote(digits)} is "
                                            "too large"))
            return min(n.value, _INF)

        if not dash:
            n = number(lo_s)
            if n == 0:
                raise tio.usage_error(inv, "fields are numbered from 1" if fields
                                      else "byte/character positions are numbered from 1")
            ranges.append((n, n))
            continue
        if not lo_s and not hi_s:
            raise tio.usage_error(inv, "invalid range with no endpoint: -")
        lo = number(lo_s) if lo_s else 1
        hi = number(hi_s) if hi_s else _INF
        if lo == 0:
            raise tio.usage_error(inv, "fields are numbered from 1" if fields
                                  else "byte/character positions are numbered from 1")
        if hi < lo:
            raise tio.usage_error(inv, "invalid decreasing range")
        ranges.append((lo, hi))
    ranges.sort()
    merged: list[tuple[int, int]] = []
    for lo, hi in ranges:
        if merged and lo <= merged[-1][1]:
            if hi > merged[-1][1]:
                merged[-1] = (merged[-1][0], hi)
        else:
            merged.append((lo, hi))
    return merged


_LISTS: dict[tuple[str, bool], list[tuple[int, int]]] = {}


def _ranges(inv: Invocation, text: str, fields: bool) -> list[tuple[int, int]]:
    """:func:`_parse_list`, once per list (a loop runs the same ``cut`` again and again);
    the list returned is shared: read it, never change it."""
    key = (text, fields)
    got = _LISTS.get(key)
    if got is None:
        got = _parse_list(inv, text, fields)
        if len(_LISTS) >= 256:
            _LISTS.clear()
        _LISTS[key] = got
    return got


def _complement(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out = []
    nxt = 1
    for lo, hi in ranges:
        if lo > nxt:
            out.append((nxt, lo - 1))
        nxt = hi + 1
        if hi >= _INF:
            break
    if nxt < _INF:
        out.append((nxt, _INF))
    return out


def _fast_range(ranges: list[tuple[int, int]], od: bytes | None, d: bytes) -> bool:
    """True for ``-fN``, and for ``-fN-`` with N >= 2 when the output delimiter is the input's.

    These select one slice of ``line.split(d, maxsplit)``, which :func:`_fast_fields`
    does for a whole batch in one comprehension instead of a loop body per line.
    """
    if len(ranges) != 1:
        return False
    lo, hi = ranges[0]
    if lo == hi:
        return True
    return hi >= _INF and lo >= 2 and (od is None or od == d)


def _fast_fields(batch: list[bytes], d: bytes, rng: tuple[int, int], only: bool) -> list[bytes]:
    """GNU's field selection for one range accepted by :func:`_fast_range`.

    A line without the delimiter is printed whole (dropped with ``-s``); a line with it but
    fewer than N fields prints empty.
    """
    lo, hi = rng
    k = lo - 1
    if set(map(type, batch)) != {bytes}:  # a stream that hands out bytearrays
        batch = list(map(bytes, batch))
    parts = map(bytes.split, batch, repeat(d), repeat(lo if lo == hi else k))
    if only:
        return [ps[k] if len(ps) > k else b"" for ps in parts if len(ps) > 1]
    return [ps[k] if len(ps) > k else (b"" if len(ps) > 1 else ps[0]) for ps in parts]


def run(inv: Invocation) -> int:
    opts = tio.options(inv, "b:c:d:f:nsz", ["bytes=", "characters=", "delimiter=", "fields=",
                                            "only-delimited", "output-delimiter=",
                                            "complement", "zero-terminated"])
    mode = None
    spec = ""
    delim = None
    for k, v in opts.items:
        if k in ("-b", "--bytes", "-c", "--characters", "-f", "--fields"):
            if mode is not None:
                raise tio.usage_error(inv, "only one list may be specified")
            mode = "f" if k in ("-f", "--fields") else "b"
            spec = v or ""
        elif k in ("-d", "--delimiter"):
            delim = (v or "").encode("utf-8", "surrogateescape")
            if len(delim) > 1:
                raise tio.usage_error(inv, "the delimiter must be a single character")
            if not delim:
                delim = b"\0"
    if mode is None:
        raise tio.usage_error(inv, "you must specify a list of bytes, characters, or fields")
    only = opts.has("-s", "--only-delimited")
    if mode == "b" and delim is not None:
        raise tio.usage_error(
            inv, "an input delimiter may be specified only when operating on fields")
    if mode == "b" and only:
        raise tio.usage_error(inv, "suppressing non-delimited lines makes sense\n"
                              "\tonly when operating on fields")
    ranges = _ranges(inv, spec, mode == "f")
    if opts.has("--complement"):
        ranges = _complement(ranges)
    od_text = opts.last("--output-delimiter")
    eol = b"\0" if opts.has("-z", "--zero-terminated") else b"\n"
    d = delim if delim is not None else b"\t"
    od = od_text.encode("utf-8", "surrogateescape") if od_text is not None else None
    fast = mode == "f" and d != eol and _fast_range(ranges, od, d)
    out = inv.stdout

    def cut_file(f: IO[bytes]) -> None:
        for batch in tio.record_batches(inv, f, eol, _BATCH):
            res: list[bytes] = []
            if fast:
                res = _fast_fields(batch, d, ranges[0], only)
            elif mode == "b" and len(ranges) == 1:
                lo, hi = ranges[0]
                res.extend([line[lo - 1:hi] for line in batch])
            elif mode == "b":
                for line in batch:
                    pieces = [line[lo - 1:hi] for lo, hi in ranges if lo <= len(line)]
                    if od is None:
                        res.append(b"".join(pieces))
                    else:
                        res.append(od.join(p for p in pieces if p))
            else:
                j = od if od is not None else d
                for line in batch:
                    if d not in line:
                        if not only:
                            res.append(line)
                        continue
                    parts = line.split(d)
                    sel: list[bytes] = []
                    for lo, hi in ranges:
                        if lo > len(parts):
                            break
                        sel.extend(parts[lo - 1:hi])
                    res.append(j.join(sel))
            if res:
                out.write(eol.join(res) + eol)

    return tio.each_input(inv, opts.operands, cut_file, read_error=_read_error)


def _read_error(name: str, e: OSError) -> str:
    if isinstance(e, IsADirectoryError):
        return f"{tio.squote(name)}: Is a directory"
    return f"{tio.squote(name)}: {tio.strerror(e)}"
