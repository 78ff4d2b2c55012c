"""curl's file:// transfers, served from the sandbox filesystem (no network involved).

``file:///path``, ``file://localhost/path`` and ``file:/path`` read (or with ``-T`` write)
the virtual path through ``inv.fs``, so deny rules and read-only mounts apply exactly as
for ``cat``.  Messages and exit codes are curl 7.88's: 37 for a file it cannot read, 23
for one it cannot write, 3 for a file URL naming another host.
"""

from __future__ import annotations

import stat as st
import urllib.parse
from collections.abc import Callable
from email.utils import formatdate
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from vshell.command import Invocation
    from vshell.commands.curl import Config, Stats, _Sink

BAD_URL = "URL using bad/illegal format or missing URL"


def is_file_url(url: str) -> bool:
    return url[:5].lower() == "file:"


def path_of(url: str, error: Callable[[int, str], Exception]) -> str:
    """The virtual path a file URL names (query and fragment dropped, %XX decoded)."""
    rest = url[5:]
    if rest.startswith("//"):
        host, slash, tail = rest[2:].partition("/")
        if host.lower() not in ("", "localhost") or not slash:
            raise error(3, BAD_URL)
        rest = "/" + tail
    rest = rest.split("#", 1)[0].split("?", 1)[0]
    if not rest.startswith("/"):
        raise error(3, BAD_URL)
    return urllib.parse.unquote(rest)


def transfer(inv: Invocation, cfg: Config, url: str, sink: _Sink, stats: Stats,
             error: Callable[[int, str], Exception],
             read_source: Callable[[Invocation, str], bytes]) -> None:
    """Read (or with -T write) one file URL; raise ``error(code, message)`` on failure."""
    path = path_of(url, error)
    stats.url_effective = url
    if cfg.upload is not None:
        data = read_source(inv, cfg.upload)
        try:
            with inv.fs.open(path, "wb") as f:
                f.write(data)
        except OSError:
            raise error(23, f"Can't open {path} for writing") from None
        return
    try:
        info = inv.fs.stat(path)
        if st.S_ISDIR(info.st_mode):
            body = b""
        else:
            with inv.fs.open(path, "rb") as f:
                body = f.read()
    except OSError:
        raise error(37, f"Couldn't open file {path}") from None
    ranges = [v for k, v in cfg.headers if k.lower() == "range" and v]
    body = _range(body, ranges[-1].removeprefix("bytes=") if ranges else None)
    if cfg.head or cfg.include:
        header = (f"Content-Length: {len(body)}\r\nAccept-ranges: bytes\r\n"
                  f"Last-Modified: {formatdate(info.st_mtime, usegmt=True)}\r\n")
        sink.write(header.encode() + (b"" if cfg.head else b"\r\n"))
        stats.size_header = len(header)
    if cfg.head:
        return
    sink.write(body)
    stats.size_download = len(body)


def _range(body: bytes, spec: str | None) -> bytes:
    """``-r A-B`` / ``A-`` / ``-N`` applied to the file's bytes."""
    if not spec:
        return body
    start, _, end = spec.partition("-")
    if not start:
        return body[-int(end):] if end.isdigit() else body
    if not start.isdigit():
        return body
    return body[int(start): int(end) + 1] if end.isdigit() else body[int(start):]
