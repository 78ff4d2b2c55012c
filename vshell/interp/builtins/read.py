"""``read`` and ``mapfile``/``readarray``: input from a descriptor into variables."""

from __future__ import annotations

import re
import threading
import time
from typing import TYPE_CHECKING, Any, cast

from vshell.interp import limits
from vshell.interp.builtins.opts import OptionError, parse_options
from vshell.interp.state import ShellError

if TYPE_CHECKING:
    from vshell.interp.shell import Shell

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


_PER_CHAR = 72  # bytes a character costs while read splits it: a tuple and a list slot
_PIECE = 1 << 20  # a line is read at most this much at a time
_PER_ENTRY = 120  # bytes an array element costs beyond its text (its str, key, dict slot)


def _readline(stream: Any, sh: Shell, charge: limits.GrowingHold, base: int = 0) -> bytes:
    """One line, read a MiB at a time: a line that never ends (``/dev/zero``, ``yes | tr -d
    '\\n'``) is charged to ``charge`` as it grows (``base`` bytes are already charged) and
    stopped by a timeout, instead of growing until the host runs out."""
    piece = stream.readline(_PIECE)
    if len(piece) < _PIECE or piece.endswith(b"\n"):
        return piece
    parts = [piece]
    size = len(piece)
    while True:
        sh.check()
        if not charge.grow(base + size):
            raise limits.MemoryLimitError(base + size, sh.state.memory)
        piece = stream.readline(_PIECE)
        parts.append(piece)
        size += len(piece)
        if len(piece) < _PIECE or piece.endswith(b"\n"):
            return b"".join(parts)


def _read_until(stream: Any, delim: bytes, limit: int | None, sh: Shell) -> tuple[bytes, bool]:
    """Read up to and excluding ``delim`` (or ``limit`` bytes); returns (data, hit_eof)."""
    if delim == b"\n" and limit is None and hasattr(stream, "readline"):
        line = _readline(stream, sh, limits.GrowingHold(sh.state.memory))
        if line.endswith(b"\n"):
            return line[:-1], False
        return line, True
    buf = bytearray()
    while limit is None or len(buf) < limit:
        sh.check()
        c = stream.read(1)
        if not c:
            return bytes(buf), True
        if delim and c == delim:
            return bytes(buf), False
        buf += c
    return bytes(buf), False


def _split_fields(chars: list[tuple[str, bool]], ifs: str, count: int) -> list[str]:
    ws = set(c for c in ifs if c in " \t\n")
    delims = set(ifs)
    fields: list[str] = []
    i = 0
    n = len(chars)
    while i < n and chars[i][0] in ws and not chars[i][1]:
        i += 1
    while i < n and len(fields) < count - 1:
        cur: list[str] = []
        while i < n and not (chars[i][0] in delims and not chars[i][1]):
            cur.append(chars[i][0])
            i += 1
        fields.append("".join(cur))
        if i >= n:
            break
        # consume one delimiter with surrounding IFS whitespace
        if chars[i][0] in ws:
            while i < n and chars[i][0] in ws and not chars[i][1]:
                i += 1
            if i < n and chars[i][0] in delims and chars[i][0] not in ws and not chars[i][1]:
                i += 1
                while i < n and chars[i][0] in ws and not chars[i][1]:
                    i += 1
        else:
            i += 1
            while i < n and chars[i][0] in ws and not chars[i][1]:
                i += 1
    if i < n or len(fields) < count:
        rest = chars[i:]
        # strip trailing IFS whitespace
        end = len(rest)
        while end > 0 and rest[end - 1][0] in ws and not rest[end - 1][1]:
            end -= 1
        rest = rest[:end]
        if len(fields) == count - 1 or not fields or i < n:
            text = "".join(c for c, _ in rest)
            # a single trailing non-whitespace delimiter is dropped (bash)
            if rest and rest[-1][0] in delims and not rest[-1][1] and len(fields) == count - 1:
                inner = rest[:-1]
                if not any(c in delims and not e for c, e in inner):
                    text = "".join(c for c, _ in inner)
            if i < n or text:
                fields.append(text)
    return fields


def b_read(sh: Shell, name: str, args: list[str]) -> int:
    st = sh.state
    raw = False
    array: str | None = None
    delim = b"\n"
    nchars: int | None = None
    exact = False
    timeout: float | None = None
    fd = 0
    prompt = ""
    names: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if names or not a.startswith("-") or a == "-":
            names.append(a)
            i += 1
            continue
        if a == "--":
            names.extend(args[i + 1 :])
            break
        j = 1
        while j < len(a):
            c = a[j]
            if c in "rse":
                raw = raw or c == "r"
                j += 1
                continue
            if c in "adnNptui":
                val = a[j + 1 :]
                if not val:
                    i += 1
                    if i >= len(args):
                        sh.err(f"read: -{c}: option requires an argument")
                        sh.write_err("read: usage: read [-ers] [-a array] [-d delim] [-i text] "
                                     "[-n nchars] [-N nchars] [-p prompt] [-t timeout] "
                                     "[-u fd] [name ...]\n")
                        return 2
                    val = args[i]
                if c == "a":
                    array = val
                elif c == "d":
                    delim = val.encode("utf-8", "surrogateescape")[:1] or b"\0"
                elif c in "nN":
                    try:
                        nchars = int(val)
                    except ValueError:
                        nchars = -1
                    if nchars < 0:
                        sh.err(f"read: {val}: invalid number")
                        return 1
                    exact = c == "N"
                elif c == "p":
                    prompt = val
                elif c == "t":
                    try:
                        timeout = float(val)
                    except ValueError:
                        sh.err(f"read: {val}: invalid timeout specification")
                        return 1
                elif c == "u":
                    try:
                        fd = int(val)
                    except ValueError:
                        sh.err(f"read: {val}: invalid file descriptor specification")
                        return 1
                break
            sh.err(f"read: -{c}: invalid option")
            sh.write_err("read: usage: read [-ers] [-a array] [-d delim] [-i text] [-n nchars] "
                         "[-N nchars] [-p prompt] [-t timeout] [-u fd] [name ...]\n")
            return 2
        i += 1
    for n in names:
        if not _NAME.match(n) and not re.fullmatch(r"[A-Za-z_]\w*\[.*\]", n):
            sh.err(f"read: `{n}': not a valid identifier")
            return 1
    if array is not None and not _NAME.match(array):
        sh.err(f"read: `{array}': not a valid identifier")
        return 1
    stream = sh.fds.get(fd)
    if stream is None:
        sh.err(f"read: {fd}: invalid file descriptor: Bad file descriptor")
        return 1
    del prompt
    if timeout is not None and timeout == 0:
        return 0
    if exact:
        delim = b""
    try:
        if timeout is not None:
            data, eof, timed_out = _read_with_timeout(stream, delim, nchars, sh, timeout)
            if timed_out:
                return 142
        else:
            data, eof = _read_until(stream, delim, nchars, sh)
    except OSError as e:
        sh.err(f"read: read error: {fd}: {e.strerror or e}")
        return 1
    # backslash processing: continuation lines and escapes
    chars: list[tuple[str, bool]] = []
    if len(data) >= limits.THRESHOLD // 64:  # splitting takes a tuple per character
        limits.need(sh.state.memory, len(data) * _PER_CHAR)
    text = data.decode("utf-8", "surrogateescape")
    if not raw:
        while True:
            k = 0
            out: list[tuple[str, bool]] = []
            cont = False
            while k < len(text):
                c = text[k]
                if c == "\\":
                    if k + 1 < len(text):
                        out.append((text[k + 1], True))
                        k += 2
                        continue
                    if not eof and delim == b"\n" and nchars is None:
                        cont = True
                    k += 1
                    continue
                out.append((c, False))
                k += 1
            chars.extend(out)
            if not cont:
                break
            more, eof = _read_until(stream, delim, nchars, sh)
            text = more.decode("utf-8", "surrogateescape")
    else:
        chars = [(c, False) for c in text]
    ifs = st.get("IFS")
    if ifs is None:
        ifs = " \t\n"
    status = 1 if eof and (not data or delim) else 0
    if eof and not data:
        status = 1
    try:
        if array is not None:
            fields = _split_fields(chars, ifs, 1 << 30) if chars else []
            st.set_array(array, {k: v for k, v in enumerate(fields)})
        elif not names:
            st.set("REPLY", "".join(c for c, _ in chars))
        elif exact:
            sh.set_var(names[0], "".join(c for c, _ in chars))
            for n in names[1:]:
                sh.set_var(n, "")
        else:
            fields = _split_fields(chars, ifs, len(names))
            for k, n in enumerate(names):
                sh.set_var(n, fields[k] if k < len(fields) else "")
    except ShellError as e:
        sh.err(e.message)
        return 1
    return status


def _read_with_timeout(stream: Any, delim: bytes, nchars: int | None, sh: Shell,
                       timeout: float) -> tuple[bytes, bool, bool]:
    result: list[Any] = []

    def work() -> None:
        try:
            result.append(_read_until(stream, delim, nchars, sh))
        except BaseException as e:  # noqa: BLE001
            result.append(e)

    t = threading.Thread(target=work, daemon=True)
    t.start()
    end = time.monotonic() + timeout
    while t.is_alive() and time.monotonic() < end:
        sh.check()
        sh.ctx.cancel.waiting()
        t.join(min(0.05, max(0.0, end - time.monotonic())))
    if not result:
        return b"", False, True
    r = result[0]
    if isinstance(r, BaseException):
        raise r
    return r[0], r[1], False


_MAPFILE_BAD = {"n": "invalid line count", "s": "invalid line count",
                "O": "invalid array origin", "c": "invalid callback quantum",
                "u": "invalid file descriptor specification"}


def _mapfile_number(opt: str, text: str) -> int | None:
    """bash's checks: a legal number, >= 0 (> 0 for -c), that fits its C int."""
    from vshell.text.numarg import INT_MAX, shell_number

    n = shell_number(text)
    if n is None or n < 0 or (opt == "c" and n == 0):
        return None
    if n > (INT_MAX if opt == "u" else 2 * INT_MAX + 1):
        return None
    return n


def b_mapfile(sh: Shell, name: str, args: list[str]) -> int:
    st = sh.state
    delim = b"\n"
    strip = False
    callback: str | None = None
    # the numeric options: -n count, -O origin, -s skip, -u fd, -c quantum
    numbers = {"n": 0, "O": 0, "s": 0, "u": 0, "c": 5000}
    target = "MAPFILE"
    usage = (f"{name} [-d delim] [-n count] [-O origin] [-s count] [-t] [-u fd] "
             "[-C callback] [-c quantum] [array]")
    try:
        opts, rest = parse_options(sh, name, args, "d:n:O:s:tu:C:c:", usage)
    except OptionError as e:
        return e.status
    for flag, val in opts:
        opt = flag[1]
        val = val or ""
        if opt in numbers:
            parsed = _mapfile_number(opt, val)
            if parsed is None:
                sh.err(f"{name}: {val}: {_MAPFILE_BAD[opt]}")
                return 1
            numbers[opt] = parsed
        elif opt == "d":
            delim = val.encode()[:1] if val else b"\x00"
        elif opt == "t":
            strip = True
        elif opt == "C":
            callback = val
    count, origin, skip, fd, quantum = (numbers[opt] for opt in "nOsuc")
    if rest:
        target = rest[0]
    stream = sh.fds.get(fd)
    if stream is None:
        sh.err(f"{name}: {fd}: invalid file descriptor: Bad file descriptor")
        return 1
    items: dict[int, str] = {}
    v = st.lookup(target)
    if origin and v is not None and isinstance(v.value, dict):
        items = dict(cast("dict[int, str]", v.value))  # an indexed array
    idx = origin
    read = 0
    total = 0  # bytes read so far, charged as they accumulate (set_array charges the result)
    charge = limits.GrowingHold(sh.state.memory)
    while True:
        sh.check()
        if count and read >= count + skip:
            break
        if delim == b"\n" and hasattr(stream, "readline"):
            line = _readline(stream, sh, charge, total)
        else:
            buf = bytearray()
            while True:
                c = stream.read(1)
                if not c:
                    break
                buf += c
                if c == delim:
                    break
                if not len(buf) & 0xFFFF:  # a long record: stop it at a timeout or limit
                    sh.check()
                    if not charge.grow(total + len(buf)):
                        raise limits.MemoryLimitError(total + len(buf), sh.state.memory)
            line = bytes(buf)
        if not line:
            break
        total += len(line) + _PER_ENTRY
        if total >= limits.THRESHOLD and not charge.grow(total):
            raise limits.MemoryLimitError(total, sh.state.memory)
        read += 1
        if read <= skip:
            continue
        if (strip or delim == b"\x00") and line.endswith(delim):
            line = line[:-1]  # a NUL cannot live in a shell string, so it never stays
        items[idx] = line.decode("utf-8", "surrogateescape")
        if callback and (idx - origin + 1) % quantum == 0:
            quoted = "'" + items[idx].replace("'", "'\\''") + "'"  # shell quoting, not repr
            sh.run_source(f"{callback} {idx} {quoted}", top=False)
        idx += 1
    try:
        st.set_array(target, items)
    except ShellError as e:
        sh.err(e.message)
        return 1
    return 0
