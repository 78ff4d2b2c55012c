"""tac: concatenate and print files in reverse, record by record (GNU semantics).

A file is held in memory while it is reversed (GNU spools pipes to a temp file instead).
"""

from __future__ import annotations

from vshell.command import Exit, Invocation
from vshell.commands._lib import textio as tio
from vshell.text import regex


def run(inv: Invocation) -> int:
    """The command; a back-reference search inside it stops with the run's timeout."""
    with regex.cancellable(inv.cancel.check):
        return _run(inv)


def _run(inv: Invocation) -> int:
    opts = tio.options(inv, "brs:", ["before", "regex", "separator="])
    before = opts.has("-b", "--before")
    use_regex = opts.has("-r", "--regex")
    sep_text = opts.last("-s", "--separator", default="\n") or ""
    sep = sep_text.encode("utf-8", "surrogateescape") or b"\0"
    rx = None
    if use_regex:
        try:  # GNU tac -r: GNU regex's emacs syntax over the whole input
            utf8 = regex.is_utf8_locale(inv.env)
            rx = regex.compile_syntax(sep_text or "\0", "emacs", utf8=utf8)
        except regex.RegexError as e:
            raise Exit(1, f"{e}") from None
    status = 0
    for name in opts.operands or ["-"]:
        data = tio.read_whole(inv, name, open_error=_open_error, read_error=_read_error)
        if data is None:
            status = 1
            continue
        if rx is not None:
            try:
                inv.stdout.write(_reverse_regex(data, rx, before))
            except regex.TooComplex:
                raise Exit(1, regex.TOO_COMPLEX) from None
        else:
            inv.stdout.write(_reverse(data, sep, before))
    return status


def _open_error(name: str, e: OSError) -> str:
    """GNU tac reads a directory and fails there (EISDIR reads as EINVAL)."""
    if isinstance(e, IsADirectoryError):
        return f"{tio.squote(name)}: read error: Invalid argument"
    return f"failed to open {tio.aquote(name)} for reading: {tio.strerror(e)}"


def _read_error(name: str, e: OSError) -> str:
    return f"{tio.squote(name)}: read error: {tio.strerror(e)}"


def _reverse(data: bytes, sep: bytes, before: bool) -> bytes:
    if not data:
        return b""
    parts = data.split(sep)
    if before:
        head = parts[0]
        body = parts[1:]
        if not body:
            return head
        return sep + sep.join(reversed(body)) + head
    last = parts.pop()
    if not parts:
        return last
    return last + sep.join(reversed(parts)) + sep


def _reverse_regex(data: bytes, rx: regex.Regex, before: bool) -> bytes:
    """Separators found scanning backwards, as GNU's re_search from the end does."""
    starts = []
    p = 0
    while p <= len(data):  # every position where a non-empty separator match starts
        m = rx.search(data, p)
        if m is None:
            break
        s = m.start()
        if m.end() > s:  # leftmost-longest: an empty match means none longer starts here
            starts.append(s)
        p = s + 1
    seps: list[tuple[int, int]] = []
    pos = len(data)
    for s in reversed(starts):
        if s >= pos:
            continue
        m = rx.match(data, s, pos)
        if m and m.end() > s:
            seps.append((s, m.end()))
            pos = s
    seps.reverse()
    out: list[bytes] = []
    # records in forward order, each with its separator attached after (or before)
    recs: list[bytes] = []
    prev = 0
    if before:
        for s, _e in seps:
            recs.append(data[prev:s])
            prev = s
        recs.append(data[prev:])
        first = recs.pop(0)
        out = list(reversed(recs))
        out.append(first)
    else:
        for _s, e in seps:
            recs.append(data[prev:e])
            prev = e
        tail = data[prev:]
        out = [tail] + list(reversed(recs))
    return b"".join(out)
