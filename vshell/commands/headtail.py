"""head and tail: the first or last part of files, as GNU coreutils prints them."""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from typing import IO

from vshell.command import Invocation
from vshell.commands._lib import textio as tio
from vshell.commands._lib.opts import Options

_HEAD_LEGACY = re.compile(r"-(\d+)([bkm]?)([cqlvz]*)\Z")
_TAIL_LEGACY = re.compile(r"([+-])(\d*)([bcl]?)(f?)\Z")
_UNITS = {"b": 512, "k": 1024, "m": 1048576, "": 1}


def _display(name: str) -> str:
    return "standard input" if name == "-" else name


def _settings(inv: Invocation, opts: Options, tail: bool
              ) -> tuple[bool, int, bool, bool | None, bytes]:
    """head's and tail's shared options, the last -c/-n winning: (bytes rather than lines,
    count, its sign flag, -q/-v if given, the line delimiter)."""
    by_bytes, count, flag = False, 10, False
    verbose: bool | None = None
    delim = b"\n"
    for k, v in opts.items:
        if k in ("-c", "--bytes", "-n", "--lines"):
            by_bytes = k in ("-c", "--bytes")
            assert v is not None
            count, flag = _count(inv, v, "bytes" if by_bytes else "lines", tail)
        elif k in ("-q", "--quiet", "--silent"):
            verbose = False
        elif k in ("-v", "--verbose"):
            verbose = True
        elif k in ("-z", "--zero-terminated"):
            delim = b"\0"
    return by_bytes, count, flag, verbose, delim


def _count(inv: Invocation, text: str, what: str, signed_from_start: bool) -> tuple[int, bool]:
    """Parse a -n/-c value: returns (count, sign flag); GNU's message on error."""
    flag = False
    body = text
    if body[:1] == "-" and not signed_from_start:
        flag = True
        body = body[1:]
    elif body[:1] == "+":
        flag = signed_from_start
        body = body[1:]
    elif body[:1] == "-":
        body = body[1:]
    n = tio.parse_size(body) if body[:1] not in "+-" else None
    if n is None:
        raise _bad(inv, what, text)
    return n, flag


def _bad(inv: Invocation, what: str, text: str) -> Exception:
    inv.stderr.write(f"{inv.name}: invalid number of {what}: {tio.quote(text)}\n".encode())
    from vshell.command import Exit

    return Exit(1)


def _open(
    inv: Invocation, name: str, header: bool, first: list[bool], noread: bool = False
) -> IO[bytes] | None:
    try:
        f = tio.open_input(inv, name)
    except IsADirectoryError:
        _header(inv, name, header, first)
        if noread:
            return io.BytesIO()
        inv.error(f"error reading {tio.aquote(name)}: Is a directory")
        return None
    except OSError as e:
        inv.error(f"cannot open {tio.aquote(name)} for reading: {tio.strerror(e)}")
        return None
    _header(inv, name, header, first)
    return f


def _header(inv: Invocation, name: str, header: bool, first: list[bool]) -> None:
    if header:
        inv.stdout.write(("" if first[0] else "\n").encode() + b"==> "
                         + _display(name).encode("utf-8", "surrogateescape") + b" <==\n")
        first[0] = False


def head(inv: Invocation) -> int:
    args = list(inv.args)
    if args and (m := _HEAD_LEGACY.match(args[0])):
        num, unit, flags = m.groups()
        rest = []
        if "c" in flags or unit:
            rest += ["-c", str(int(num) * _UNITS[unit])]
        else:
            rest += ["-n", num]
        rest += ["-" + c for c in flags if c != "c" and c != "l"]
        args = rest + args[1:]
    opts = tio.options(
        inv, "c:n:qvz", ["bytes=", "lines=", "quiet", "silent", "verbose", "zero-terminated"],
        args=args, numeric=True)
    for k, v in opts.items:
        if k == "-NUM":
            raise tio.usage_error(inv, f"invalid trailing option -- {v[:1] if v else ''}")
    bytes_mode, count, allbut, verbose, delim = _settings(inv, opts, False)
    mode = "b" if bytes_mode else "n"
    files = opts.operands or ["-"]
    header = verbose if verbose is not None else len(files) > 1
    status = 0
    first = [True]
    noread = count == 0 and not allbut
    for name in files:
        f = _open(inv, name, header, first, noread)
        if f is None:
            status = 1
            continue
        if mode == "b" or mode == "c":
            ok = _copy_part(inv, name, f, lambda f: _head_bytes(inv, f, count, allbut))
        else:
            ok = _copy_part(inv, name, f, lambda f: _head_lines(inv, f, count, allbut, delim))
        status = status if ok else 1
    return status


def _head_bytes(inv: Invocation, f: IO[bytes], n: int, allbut: bool) -> None:
    out = inv.stdout
    if not allbut:
        while n > 0:
            inv.cancel.check()
            data = f.read(min(n, tio.CHUNK))
            if not data:
                return
            out.write(data)
            n -= len(data)
        return
    buf = b""
    for data in tio.chunks(inv, f):
        buf += data
        if len(buf) > n:
            cut = len(buf) - n
            out.write(buf[:cut])
            buf = buf[cut:]


def _head_lines(inv: Invocation, f: IO[bytes], n: int, allbut: bool, delim: bytes) -> None:
    out = inv.stdout
    if not allbut:
        if n == 0:
            return
        for data in tio.chunks(inv, f):
            c = data.count(delim)
            if c >= n:
                rest = data.split(delim, n)[-1]  # what follows the n-th delimiter
                out.write(data[: len(data) - len(rest)])
                return
            out.write(data)
            n -= c
        return
    buf = b""
    for data in tio.chunks(inv, f):
        buf += data
        c = buf.count(delim)
        if c > n:
            parts = buf.split(delim, c - n)
            out.write(delim.join(parts[:-1]) + delim)
            buf = parts[-1]
    if buf and not buf.endswith(delim) and buf.count(delim) >= n:
        # the unterminated last line counts as a line
        keep = buf.count(delim) + 1 - n
        parts = buf.split(delim, keep)
        if n == 0:
            out.write(buf)
        else:
            out.write(delim.join(parts[:-1]) + delim)


def tail(inv: Invocation) -> int:
    args = list(inv.args)
    if 1 <= len(args) <= 3 and (len(args) < 3 or args[1] == "--") \
            and (m := _TAIL_LEGACY.match(args[0])) and args[0] not in ("-", "--") \
            and (len(args) == 1 or not (args[1].startswith("-") and len(args[1]) > 1)
                 or args[1] == "--"):
        sign, num, unit, follow = m.groups()
        if sign == "-" and not num and (unit == "c" or not (unit or follow)):
            pass
        elif sign == "+" or num or unit or follow:
            if follow:
                raise tio.usage_error(inv, "option -f is not supported in vshell")
            n = int(num) if num else 10
            if unit == "b":
                n *= 512
            key = "-c" if unit in ("b", "c") else "-n"
            args = [key, (sign if sign == "+" else "") + str(n)] + args[1:]
    skip = False
    for a in args:
        if skip:
            skip = False
            continue
        if a == "--":
            break
        if a in ("-n", "-c", "--lines", "--bytes"):
            skip = True
        elif re.match(r"-\d", a):
            inv.error(f"option used in invalid context -- {a[1]}")
            return 1
    opts = tio.options(
        inv, "c:n:qvz", ["bytes=", "lines=", "quiet", "silent", "verbose", "zero-terminated"],
        args=args, numeric=True)
    for k, v in opts.items:
        if k == "-NUM":
            inv.error(f"option used in invalid context -- {v[:1] if v else ''}")
            return 1
    bytes_mode, count, from_start, verbose, delim = _settings(inv, opts, True)
    mode = "c" if bytes_mode else "n"
    files = opts.operands or ["-"]
    if count == 0 and not from_start:
        return 0
    header = verbose if verbose is not None else len(files) > 1
    status = 0
    first = [True]
    for name in files:
        f = _open(inv, name, header, first)
        if f is None:
            status = 1
            if mode == "c" and _is_dir(inv, name):
                return 1  # GNU's tail -c gives up at a directory
            continue
        if mode == "c":
            ok = _copy_part(inv, name, f, lambda f: _tail_bytes(inv, f, count, from_start))
        else:
            ok = _copy_part(inv, name, f, lambda f: _tail_lines(inv, f, count, from_start, delim))
        status = status if ok else 1
    return status


def _copy_part(inv: Invocation, name: str, f: IO[bytes], copy: Callable[[IO[bytes]], None]
               ) -> bool:
    """Run head's or tail's copy over one open operand; a read error is reported GNU's way
    (False), and the operand is closed either way."""
    try:
        copy(f)
        return True
    except IsADirectoryError:
        inv.error(f"error reading {tio.aquote(name)}: Is a directory")
    except OSError as e:
        inv.error(f"error reading {tio.aquote(name)}: {tio.strerror(e)}")
    finally:
        tio.close_input(inv, f)
    return False


def _tail_bytes(inv: Invocation, f: IO[bytes], n: int, from_start: bool) -> None:
    out = inv.stdout
    if from_start:
        skip = max(n - 1, 0)
        for data in tio.chunks(inv, f):
            if skip:
                if len(data) <= skip:
                    skip -= len(data)
                    continue
                data = data[skip:]
                skip = 0
            out.write(data)
        return
    if n == 0:
        for _ in tio.chunks(inv, f):
            pass
        return
    buf = b""
    for data in tio.chunks(inv, f):
        buf += data
        if len(buf) > 2 * n + tio.CHUNK:
            buf = buf[-n:]
    out.write(buf[-n:])


def _tail_lines(inv: Invocation, f: IO[bytes], n: int, from_start: bool, delim: bytes) -> None:
    out = inv.stdout
    if from_start:
        skip = max(n - 1, 0)
        for data in tio.chunks(inv, f):
            if skip:
                c = data.count(delim)
                if c < skip:
                    skip -= c
                    continue
                data = data.split(delim, skip)[-1]
                skip = 0
            out.write(data)
        return
    buf = b""
    limit = tio.CHUNK * 4
    for data in tio.chunks(inv, f):
        buf += data
        if len(buf) > limit:
            buf = _last_lines(buf, n, delim)
            limit = max(tio.CHUNK * 4, len(buf) * 2)
    out.write(_last_lines(buf, n, delim))


def _last_lines(buf: bytes, n: int, delim: bytes) -> bytes:
    if n == 0:
        return b""
    if n <= 64:  # a few lines: found from the end, not by splitting all before them
        end = len(buf) - 1 if buf.endswith(delim) else len(buf)
        for _ in range(n):
            end = buf.rfind(delim, 0, end)
            if end < 0:
                return buf
        return buf[end + 1 :]
    lines = buf.count(delim) + (0 if buf.endswith(delim) or not buf else 1)
    if lines <= n:
        return buf
    return buf.split(delim, lines - n)[-1]


def _is_dir(inv: Invocation, name: str) -> bool:
    return name != "-" and inv.fs.isdir(inv.abs(name))
