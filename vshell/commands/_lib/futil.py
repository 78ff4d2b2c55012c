"""Helpers shared by the file commands: GNU's file-name quoting, error text, sizes, reading.

The quoting helpers are :mod:`vshell.text.gnuquote`'s (``quotef``/``quoteaf`` the
shell-escape style, ``quote`` the locale style), under the names GNU's sources use.
"""

from __future__ import annotations

import errno
import os

from vshell.command import Invocation
from vshell.text import gnuquote

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import IO

CHUNK = 65536

# GNU's name quoting lives in the text layer; these are the names the commands use.
quotef = gnuquote.shell_escape
quoteaf = gnuquote.shell_escape_always
quote = gnuquote.locale_quote


def strerror(exc: OSError) -> str:
    """The strerror text GNU prints for ``exc``."""
    if exc.errno == errno.EROFS:
        return "Read-only file system"
    if exc.errno:
        return os.strerror(exc.errno)
    return exc.strerror or str(exc)


def chunks(inv: Invocation, f: IO[bytes], size: int = CHUNK) -> Iterator[bytes]:
    """Read ``f`` to EOF in chunks, checking for cancellation between reads."""
    while True:
        inv.cancel.check()
        data = f.read(size)
        if not data:
            return
        yield data


def read_chunks(inv: Invocation, operand: str) -> Iterator[bytes]:
    """Yield the bytes of ``operand`` (``-`` = stdin) in 64 KiB chunks, checking cancel."""
    if operand == "-":
        yield from chunks(inv, inv.stdin)
        return
    with inv.fs.open(inv.abs(operand), "rb") as f:
        yield from chunks(inv, f)


def human(n: int, base: int = 1024, si_suffix: bool = False) -> str:
    """GNU ``human_readable`` with ceiling rounding (``ls -h``, ``du -h``, ``df -h``)."""
    if n < base:
        return str(n)
    units = "KMGTPEZYRQ"
    b = 1
    for unit in units:
        b *= base
        tenths = -(-n * 10 // b)
        if tenths < 100:
            s = "{}.{}".format(*divmod(tenths, 10))
        else:
            whole = -(-n // b)
            if whole >= base and unit != units[-1]:
                continue
            s = str(whole)
        if unit == "K" and base == 1000 and not si_suffix:
            unit = "k"
        return s + unit
    return str(n)


def child_name(shown: str, name: str) -> str:
    """An entry of directory ``shown`` as the GNU tools print it: no doubled ``/``."""
    return shown + name if shown.endswith("/") else shown + "/" + name


def write_line(inv: Invocation, text: str, end: bytes = b"\n") -> None:
    inv.stdout.write(text.encode("utf-8", "surrogateescape") + end)


def enc(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def dec(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def owner_name(uid: int) -> str:
    """The sandbox never consults the host's user database: uid 0 is ``root``, others numeric."""
    return "root" if uid == 0 else str(uid)


def group_name(gid: int) -> str:
    return "root" if gid == 0 else str(gid)


def invalid_arg(
    inv: Invocation, value: str, option: str, groups: list[list[str]], status: int = 1
) -> Exception:
    """GNU argmatch's complaint about a bad option argument, listing the valid ones."""
    from vshell.command import Exit

    lines = [f"{inv.name}: invalid argument {quote(value)} for {quote(option)}",
             "Valid arguments are:"]
    for group in groups:
        lines.append("  - " + ", ".join(quote(g) for g in group))
    lines.append(f"Try '{inv.name} --help' for more information.")
    inv.stderr.write(enc("\n".join(lines) + "\n"))
    return Exit(status)


def last_switch(items: list[tuple[str, str | None]], yes: tuple[str, ...],
                no: tuple[str, ...], default: bool = False) -> bool:
    """Whether the last of the ``yes``/``no`` options given is a ``yes`` one (``default``
    when neither is): GNU's paired switches (-L/-P, --dereference/--no-dereference)."""
    value = default
    for key, _ in items:
        if key in yes:
            value = True
        elif key in no:
            value = False
    return value
