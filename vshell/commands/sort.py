"""sort: sort lines of text files with GNU's keys, flags and last-resort ordering.

Locale C.UTF-8 means byte order.  Inputs larger than :data:`RUN_BYTES` are sorted in runs
written to the VFS ``/tmp`` and merged with ``heapq.merge``, so memory stays bounded.
"""

from __future__ import annotations

import heapq
import itertools
import os
import re
from collections.abc import Iterable, Iterator
from typing import Any

from vshell.command import Exit, Invocation
from vshell.commands._lib import textio as tio
from vshell.commands._lib.sortkeys import (
    Key,
    KeyFunction,
    Rev,
    integer_lines,
    key_function,
    numeric_key,
)
from vshell.text.numarg import parse_count

RUN_BYTES = 64 * 1024 * 1024
SLICE_LINES = 16384
"""Lines one ``list.sort`` call orders at most (about 10 ms): a sort is one C call that holds
the GIL, so a bigger buffer is sorted slice by slice, cancel checked between, and the slices
merged lazily with ``heapq.merge`` (stable, like one sort)."""
INT_LINES = 2 * SLICE_LINES
"""Lines a whole-line ``-n`` sort of plain integers orders in one call: ``int`` makes the
keys in C (no Python call per line), so a sort of this many takes about as long."""
MERGE_LINES = 65536
"""Sorted slices are merged pairwise in C up to this many lines a run (a linear merge, a few
milliseconds); more runs than that are merged lazily by ``heapq.merge``."""
_LONG = ["ignore-leading-blanks", "check=?", "dictionary-order", "ignore-case",
         "general-numeric-sort", "human-numeric-sort", "ignore-nonprinting", "key=", "merge",
         "month-sort", "numeric-sort", "output=", "reverse", "random-sort", "random-source=",
         "sort=", "stable", "buffer-size=", "field-separator=", "temporary-directory=",
         "unique", "version-sort", "zero-terminated", "parallel=", "files0-from=",
         "compress-program=", "batch-size="]
_FLAG_OPTS = {"-b": "b", "--ignore-leading-blanks": "b", "-d": "d", "--dictionary-order": "d",
              "-f": "f", "--ignore-case": "f", "-g": "g", "--general-numeric-sort": "g",
              "-h": "h", "--human-numeric-sort": "h", "-i": "i", "--ignore-nonprinting": "i",
              "-M": "M", "--month-sort": "M", "-n": "n", "--numeric-sort": "n", "-R": "R",
              "--random-sort": "R", "-r": "r", "--reverse": "r", "-V": "V",
              "--version-sort": "V"}
_SORT_WORDS = {"general-numeric": "g", "human-numeric": "h", "month": "M", "numeric": "n",
               "random": "R", "version": "V"}


def _die(inv: Invocation, msg: str) -> Exit:
    inv.error(msg)
    return Exit(2)


def _parse_key(inv: Invocation, spec: str) -> Key:
    key = Key()
    s = spec

    def count(s: str, what: str) -> tuple[int, str]:
        m = re.match(r"[0-9]+", s)
        n = parse_count(m.group(0)) if m else None
        if m is None or n is None:
            raise _die(inv, f"{what}: invalid count at start of {tio.quote(s)}")
        return n.value, s[m.end():]  # GNU: a huge count is SIZE_MAX

    n, s = count(s, "invalid number at field start")
    if n == 0:
        raise _die(inv, f"field number is zero: invalid field specification {tio.quote(spec)}")
    key.sword = n - 1
    if s.startswith("."):
        n, s = count(s[1:], "invalid number after '.'")
        if n == 0:
            raise _die(inv, "character offset is zero: invalid field specification "
                       f"{tio.quote(spec)}")
        key.schar = n - 1
    while s and s[0] != ",":
        if not key.set_flag(s[0], "start"):
            raise _die(inv, f"stray character in field spec: invalid field specification "
                       f"{tio.quote(spec)}")
        s = s[1:]
    if s.startswith(","):
        n, s = count(s[1:], "invalid number after ','")
        if n == 0:
            raise _die(inv, f"field number is zero: invalid field specification {tio.quote(spec)}")
        key.eword = n - 1
        if s.startswith("."):
            n, s = count(s[1:], "invalid number after '.'")
            key.echar = n
        while s:
            if not key.set_flag(s[0], "end"):
                raise _die(inv, f"stray character in field spec: invalid field specification "
                           f"{tio.quote(spec)}")
            s = s[1:]
    return key


class _Config:
    def __init__(self) -> None:
        self.keys: list[Key] = []
        self.glob = Key()
        self.tab: bytes | None = None
        self.unique = False
        self.stable = False
        self.eol = b"\n"
        self.salt = b""  # -R's: drawn only when a key is random
        self.whole_numeric = False  # the order is -n of whole lines, then the last resort


def run(inv: Invocation) -> int:
    opts = tio.options(inv, "bcCdfghik:mMno:rRsS:t:T:uVyz", _LONG, usage_status=2)
    cfg = _Config()
    check: str | None = None
    merge = False
    output: str | None = None
    files0: str | None = None
    for k, v in opts.items:
        if k in _FLAG_OPTS:
            cfg.glob.set_flag(_FLAG_OPTS[k])
        elif k == "--sort":
            w = v or ""
            matches = [x for x in _SORT_WORDS if x.startswith(w)] if w else []
            if w in _SORT_WORDS:
                matches = [w]
            if len(matches) != 1:
                inv.error(f"invalid argument {tio.quote(w)} for {tio.quote('--sort')}")
                inv.stderr.write(b"Valid arguments are:\n" + b"".join(
                    f"  - {tio.quote(x)}\n".encode() for x in _SORT_WORDS))
                raise _try(inv, 1)
            cfg.glob.set_flag(_SORT_WORDS[matches[0]])
        elif k in ("-k", "--key"):
            cfg.keys.append(_parse_key(inv, v or ""))
        elif k in ("-t", "--field-separator"):
            t = (v or "").encode("utf-8", "surrogateescape")
            if not t:
                raise _die(inv, "empty tab")
            if len(t) > 1:
                if t == b"\\0":
                    t = b"\0"
                else:
                    raise _die(inv, f"multi-character tab {tio.quote(v or '')}")
            if cfg.tab is not None and cfg.tab != t:
                raise _die(inv, "incompatible tabs")
            cfg.tab = t
        elif k in ("-c", "--check"):
            if v in (None, "diagnose-first"):
                check = "c"
            elif v in ("quiet", "silent"):
                check = "C"
            else:
                inv.error(f"invalid argument {tio.quote(v or '')} for {tio.quote('--check')}")
                inv.stderr.write("Valid arguments are:\n  - \u2018quiet\u2019, \u2018silent\u2019\n"
                                 "  - \u2018diagnose-first\u2019\n".encode())
                raise _try(inv, 1)
        elif k == "-C":
            check = "C"
        elif k in ("-m", "--merge"):
            merge = True
        elif k in ("-o", "--output"):
            output = v
        elif k in ("-s", "--stable"):
            cfg.stable = True
        elif k in ("-u", "--unique"):
            cfg.unique = True
        elif k in ("-z", "--zero-terminated"):
            cfg.eol = b"\0"
        elif k == "--files0-from":
            files0 = v
        elif k in ("-S", "--buffer-size", "-T", "--temporary-directory", "--parallel",
                   "--random-source", "--compress-program", "--batch-size", "-y"):
            pass
    # keys inherit the global options when they have none of their own
    for key in cfg.keys:
        if not key.has_ordering():
            for f in cfg.glob.flags():
                key.set_flag(f)
    for key in cfg.keys + [cfg.glob]:
        if key.incompatible():
            raise _die(inv, f"options '-{key.flags()}' are incompatible")
        if key.random and not cfg.salt:
            cfg.salt = os.urandom(16)
    files = list(opts.operands)
    if files0 is not None:
        if files:
            inv.error(f"extra operand {tio.quote(files[0])}")
            inv.stderr.write(b"file operands cannot be combined with --files0-from\n")
            raise _try(inv)
        try:
            src = tio.open_input(inv, files0)
            data = b"".join(tio.chunks(inv, src))
            tio.close_input(inv, src)
        except OSError as e:
            raise _die(inv, f"cannot open {tio.quote(files0)} for reading: "
                       f"{tio.strerror(e)}") from None
        files = [n.decode("utf-8", "surrogateescape") for n in data.split(b"\0") if n]
    files = files or ["-"]
    keyfn, plain_reverse = _make_key(cfg)
    if check is not None:
        if len(files) > 1:
            raise _die(inv, f"extra operand '{files[1]}' not allowed with -{check}")
        return _check(inv, cfg, files[0], keyfn, plain_reverse, check == "c")
    if merge:
        streams = [_read(inv, name, cfg.eol) for name in files]
        merged: Iterable[bytes] = heapq.merge(*streams, key=keyfn, reverse=plain_reverse) \
            if keyfn is not None else heapq.merge(*streams, reverse=plain_reverse)
        result = _unique(merged, cfg) if cfg.unique else merged
        _emit(inv, cfg, output, result)
        return 0
    tmpnames: list[str] = []
    try:
        batches = itertools.chain.from_iterable(
            _read_batches(inv, name, cfg.eol) for name in files)
        result = _sort_all(inv, cfg, batches, keyfn, plain_reverse, tmpnames)
        _emit(inv, cfg, output, result)
    finally:
        for tmp in tmpnames:
            try:
                inv.fs.unlink(tmp)
            except OSError:
                pass
    return 0


def _try(inv: Invocation, status: int = 2) -> Exit:
    inv.stderr.write(b"Try 'sort --help' for more information.\n")
    return Exit(status)


def _make_key(cfg: _Config) -> tuple[KeyFunction | None, bool]:
    """The sort key and whether Python's ``reverse=True`` does the reversing."""
    keys = cfg.keys or ([cfg.glob] if cfg.glob.has_ordering() else [])
    last_resort = not (cfg.stable or cfg.unique)
    whole = not cfg.keys
    if not keys:
        return None, cfg.glob.reverse
    revs = {k.reverse for k in keys}
    if last_resort:
        revs.add(cfg.glob.reverse)
    uniform = len(revs) == 1
    plain_reverse = uniform and keys[0].reverse
    fns = []
    for k in keys:
        if uniform and k.reverse:
            k2 = Key(**{**k.__dict__, "reverse": False})
            fns.append(key_function(k2, cfg.tab, whole, cfg.salt))
        else:
            fns.append(key_function(k, cfg.tab, whole, cfg.salt))
    lr_rev = cfg.glob.reverse and not plain_reverse
    if len(fns) == 1:
        f0 = fns[0]
        if not last_resort:
            return f0, plain_reverse
        if lr_rev:
            return (lambda line: (f0(line), Rev(line))), plain_reverse
        cfg.whole_numeric = f0 is numeric_key
        return (lambda line: (f0(line), line)), plain_reverse
    if not last_resort:
        return (lambda line: tuple(f(line) for f in fns)), plain_reverse
    if lr_rev:
        return (lambda line: (*(f(line) for f in fns), Rev(line))), plain_reverse
    return (lambda line: (*(f(line) for f in fns), line)), plain_reverse


def _ukey(cfg: _Config) -> KeyFunction | None:
    """The key that decides equality for -u (no last resort, no reversal)."""
    keys = cfg.keys or ([cfg.glob] if cfg.glob.has_ordering() else [])
    if not keys:
        return None
    fns = [key_function(Key(**{**k.__dict__, "reverse": False}), cfg.tab, not cfg.keys,
                        cfg.salt) for k in keys]
    return lambda line: tuple(f(line) for f in fns)


def _unique(lines: Iterable[bytes], cfg: _Config) -> Iterator[bytes]:
    uk = _ukey(cfg)
    prev: object = object()
    for line in lines:
        k = uk(line) if uk is not None else line
        if k != prev:
            yield line
            prev = k


def _read(inv: Invocation, name: str, eol: bytes) -> Iterator[bytes]:
    return itertools.chain.from_iterable(_read_batches(inv, name, eol))


def _read_batches(inv: Invocation, name: str, eol: bytes) -> Iterator[list[bytes]]:
    try:
        f = tio.open_input(inv, name)
    except IsADirectoryError:
        raise _die(inv, f"read failed: {tio.squote(name)}: Is a directory") from None
    except OSError as e:
        raise _die(inv, f"cannot read: {tio.squote(name)}: {tio.strerror(e)}") from None
    try:
        yield from tio.record_batches(inv, f, eol)
    except OSError as e:
        raise _die(inv, f"read failed: {tio.squote(name)}: {tio.strerror(e)}") from None
    finally:
        tio.close_input(inv, f)


def _sort_all(inv: Invocation, cfg: _Config, batches: Iterable[list[bytes]],
              keyfn: KeyFunction | None, rev: bool,
              tmpnames: list[str]) -> Iterable[bytes]:
    buf: list[bytes] = []
    size = 0
    runs: list[str] = []
    for batch in batches:
        buf.extend(batch)
        size += sum(map(len, batch)) + 64 * len(batch)
        if size >= RUN_BYTES:
            runs.append(_spill(inv, cfg, _sorted_run(inv, cfg, buf, keyfn, rev), tmpnames))
            buf = []
            size = 0
    if not runs:
        ordered = _sorted_run(inv, cfg, buf, keyfn, rev)
        return _unique(ordered, cfg) if cfg.unique else ordered
    if buf:
        runs.append(_spill(inv, cfg, _sorted_run(inv, cfg, buf, keyfn, rev), tmpnames))
    streams = [_read(inv, r, cfg.eol) for r in runs]
    merged = heapq.merge(*streams, key=keyfn, reverse=rev) if keyfn is not None \
        else heapq.merge(*streams, reverse=rev)
    return _unique(merged, cfg) if cfg.unique else merged


def _sorted_run(inv: Invocation, cfg: _Config, buf: list[bytes], keyfn: KeyFunction | None,
                rev: bool) -> Iterable[bytes]:
    """``buf`` in order: sorted in place if small, else slice by slice and merged lazily."""
    if cfg.whole_numeric and len(buf) <= INT_LINES:
        ties = integer_lines(buf)
        if ties is not None:  # plain integers: keys made by int() in C, two stable sorts
            if ties:
                buf.sort(reverse=rev)  # the last resort first, then the value keeps it
            try:
                buf.sort(key=int, reverse=rev)
                return buf
            except ValueError:
                pass  # a number past int()'s digit limit: the general sort below orders all
    if len(buf) <= SLICE_LINES:
        buf.sort(key=keyfn, reverse=rev)
        return buf
    runs: list[list] = []
    for i in range(0, len(buf), SLICE_LINES):
        inv.cancel.check()
        piece: list = buf[i:i + SLICE_LINES]
        if keyfn is not None:  # each key made once: (key, position, line), position signed
            sign = -1 if rev else 1  # so that equal keys keep input order either way
            piece = [(keyfn(line), sign * (i + j), line) for j, line in enumerate(piece)]
        piece.sort(reverse=rev)
        runs.append(piece)
    buf.clear()
    width = SLICE_LINES
    while len(runs) > 1 and width < MERGE_LINES:  # neighbours merged in C: timsort sees two
        merged = []                                # runs and merges them in linear time
        for i in range(0, len(runs), 2):
            inv.cancel.check()
            pair = runs[i] + runs[i + 1] if i + 1 < len(runs) else runs[i]
            pair.sort(reverse=rev)
            merged.append(pair)
        runs, width = merged, width * 2
    ordered = runs[0] if len(runs) == 1 else heapq.merge(*runs, reverse=rev)
    return ordered if keyfn is None else (entry[2] for entry in ordered)


def _spill(inv: Invocation, cfg: _Config, lines: Iterable[bytes], tmpnames: list[str]) -> str:
    name = f"/tmp/.vshell-sort-{os.getpid()}-{id(lines)}-{len(tmpnames)}"
    tmpnames.append(name)
    it = iter(lines)
    with inv.fs.open(name, "wb") as f:
        while batch := list(itertools.islice(it, 10000)):
            inv.cancel.check()
            f.write(cfg.eol.join(batch) + cfg.eol)
    return name


def _emit(inv: Invocation, cfg: _Config, output: str | None, lines: Iterable[bytes]) -> None:
    if output is not None and output != "-":
        lines = list(lines) if not isinstance(lines, list) else lines
        try:
            out = inv.fs.open(inv.abs(output), "wb")
        except OSError as e:
            raise _die(inv, f"open failed: {tio.squote(output)}: {tio.strerror(e)}") from None
        try:
            _write(inv, out, cfg.eol, lines)
        finally:
            out.close()
        return
    _write(inv, inv.stdout, cfg.eol, lines)


def _write(inv: Invocation, out, eol: bytes, lines: Iterable[bytes]) -> None:
    it = iter(lines)
    while True:
        inv.cancel.check()
        batch = list(itertools.islice(it, 8192))
        if not batch:
            return
        out.write(eol.join(batch) + eol)


def _check(inv: Invocation, cfg: _Config, name: str, keyfn: KeyFunction | None, rev: bool,
           loud: bool) -> int:
    prev = None
    prevk: Any = None  # the key of ``prev``: a comparable that mypy cannot pair with ``k``
    for n, line in enumerate(_read(inv, name, cfg.eol), 1):
        k = keyfn(line) if keyfn is not None else line
        if prev is not None:
            if cfg.unique:
                bad = not (prevk < k) if not rev else not (k < prevk)
            else:
                bad = (k < prevk) if not rev else (prevk < k)
            if bad:
                if loud:
                    text = line.decode("utf-8", "surrogateescape")
                    inv.stderr.write(f"sort: {name}:{n}: disorder: {text}\n".encode(
                        "utf-8", "surrogateescape"))
                return 1
        prev, prevk = line, k
    return 0
