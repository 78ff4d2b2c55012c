"""The file tools (read, write, edit, list, glob), all through the sandbox's VFS.

Going through the VFS rather than the host filesystem is the point: deny patterns,
read-only mounts and the mount table hold for these tools exactly as for the shell.
Every failure is a :class:`ToolError` with a stable code, so a model (or a client) can
branch on the code without parsing prose.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat as st
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, BinaryIO

from vshell.command import CancelToken, absolute
from vshell.records import record

if TYPE_CHECKING:
    from vshell.vfs import VFS

READ_MAX_LINES = 2000
READ_MAX_BYTES = 50 * 1024
LINE_SCAN_CAP = 1024 * 1024  # a single line is never buffered beyond this
LINE_SCAN_LIMIT = 16 * 1024 * 1024  # nor scanned for its end beyond this
COUNT_SCAN_LIMIT = 64 * 1024 * 1024  # count total lines only in files up to this size
EDIT_MAX_BYTES = 16 * 1024 * 1024
LIST_MAX_ENTRIES = 1000
GLOB_MAX_MATCHES = 1000
GLOB_TIME_LIMIT = 10.0  # seconds a glob call may walk before it is stopped
_CHUNK = 65536


@record
class ToolError(Exception):
    """A tool failure the client sees as a result with ``isError`` (never a protocol error)."""

    code: str
    message: str

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


_ERRNO_CODES = {
    errno.ENOENT: "E_NOT_FOUND",
    errno.EACCES: "E_DENIED",
    errno.EPERM: "E_DENIED",
    errno.EROFS: "E_READ_ONLY",
    errno.EISDIR: "E_IS_DIRECTORY",
    errno.ENOTDIR: "E_INVALID_ARGUMENT",
    errno.EEXIST: "E_INVALID_ARGUMENT",
    errno.ELOOP: "E_INVALID_ARGUMENT",
    errno.ENAMETOOLONG: "E_INVALID_ARGUMENT",
    errno.EFBIG: "E_TOO_LARGE",
    errno.ENOSPC: "E_TOO_LARGE",
}


def os_error(e: OSError, path: str) -> ToolError:
    """Map an OSError from the VFS to a ToolError naming the path the caller gave."""
    code = _ERRNO_CODES.get(e.errno or 0, "E_IO")
    reason = e.strerror or str(e)
    if code == "E_DENIED":
        reason += " (denied by the sandbox policy)"
    elif code == "E_READ_ONLY":
        reason += " (the mount is read-only)"
    return ToolError(code, f"{path}: {reason}")



def stat_regular(fs: VFS, full: str, path: str, dir_hint: str = "",
                 other_hint: str = "") -> os.stat_result:
    """``fs.stat(full)`` of a file a tool reads whole: a directory or a special file is the
    caller's mistake, told with the hint that says which tool serves it."""
    try:
        info = fs.stat(full)
    except OSError as e:
        raise os_error(e, path) from None
    if st.S_ISDIR(info.st_mode):
        raise ToolError("E_IS_DIRECTORY", f"{path}: is a directory{dir_hint}")
    if not st.S_ISREG(info.st_mode):
        raise ToolError("E_INVALID_ARGUMENT", f"{path}: not a regular file{other_hint}")
    return info


def resolve(cwd: str, path: Any) -> str:
    """An absolute virtual path: relative paths resolve against the session's cwd."""
    if not isinstance(path, str) or not path:
        raise ToolError("E_INVALID_ARGUMENT", "path must be a non-empty string")
    if "\x00" in path:
        raise ToolError("E_INVALID_ARGUMENT", "path must not contain NUL")
    return absolute(cwd, path)  # a final "/" is kept: it must be a directory, links followed


def _looks_binary(sample: bytes) -> bool:
    """NUL bytes, or mostly undecodable bytes, in the first block mean "not text"."""
    if b"\x00" in sample:
        return True
    text = sample.decode("utf-8", "replace")
    bad = text.count("\ufffd") - sample.decode("utf-8", "ignore").count("\ufffd")
    # an incomplete multibyte character at the cut is not evidence of binary
    return bad > 4 and bad * 10 > len(text)


# --- read ------------------------------------------------------------------------------
@record
class _Line:
    """One line as read: a bounded head, its length so far, and whether its end was seen."""

    head: bytes
    length: int
    complete: bool = True


def _check(cancel: CancelToken | None) -> None:
    if cancel is not None:
        cancel.check()


def _iter_lines(f: BinaryIO, cancel: CancelToken | None = None) -> Iterator[_Line]:
    """The lines of ``f`` without their newlines; a long line keeps only a head.

    A line longer than ``LINE_SCAN_CAP`` is not buffered; its end is looked for only up
    to ``LINE_SCAN_LIMIT`` bytes, past which the scan stops (a file that is one endless
    line must not keep a tool call busy).  The cancel token is checked per chunk.
    """
    buf = b""
    skipping = False  # inside a line longer than LINE_SCAN_CAP: discard to its end
    head = b""
    length = 0
    while True:
        _check(cancel)
        chunk = f.read(_CHUNK)
        if not chunk:
            break
        if skipping and b"\n" not in chunk:
            length += len(chunk)
            if length > LINE_SCAN_LIMIT:
                yield _Line(head, length, complete=False)
                return
            continue
        buf += chunk
        parts = buf.split(b"\n")
        buf = parts.pop()
        for p in parts:
            if skipping:
                yield _Line(head, length + len(p))
                skipping = False
            else:
                yield _Line(p, len(p))
        if not skipping and len(buf) > LINE_SCAN_CAP:
            skipping, head, length, buf = True, buf[:LINE_SCAN_CAP], len(buf), b""
        elif skipping:
            length += len(buf)
            buf = b""
    if skipping:
        yield _Line(head, length + len(buf))
    elif buf:
        yield _Line(buf, len(buf))


def read_file(fs: VFS, cwd: str, path: Any, offset: Any = None, limit: Any = None, *,
              cancel: CancelToken | None = None) -> tuple[str, dict[str, Any]]:
    """Lines ``offset``.. (1-based) of a text file, capped by lines, bytes and scan length."""
    full = resolve(cwd, path)
    start = _positive_int(offset, "offset", 1)
    count = _positive_int(limit, "limit", READ_MAX_LINES)
    info = stat_regular(fs, full, path, " (use the list tool)", " (use bash)")
    try:
        with fs.open(full, "rb") as f:
            sample = f.read(8192)
            if _looks_binary(sample):
                raise ToolError("E_BINARY", f"{path}: binary file, not text "
                                "(use bash with od, xxd, strings or file)")
            f.seek(0)
            return _read_window(f, path, full, info.st_size, start, count, cancel)
    except OSError as e:
        raise os_error(e, path) from None


def _positive_int(value: Any, name: str, default: int) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ToolError("E_INVALID_ARGUMENT", f"{name} must be a positive integer")
    return value


def _read_window(f: BinaryIO, path: str, full: str, size: int, start: int, count: int,
                 cancel: CancelToken | None = None) -> tuple[str, dict[str, Any]]:
    picked: list[str] = []
    used = 0
    lineno = 0
    more = False
    cut_line = False
    scan_stopped = False
    counting = size <= COUNT_SCAN_LIMIT
    for line in _iter_lines(f, cancel):
        raw, length = line.head, line.length
        lineno += 1
        if not line.complete:
            scan_stopped = True
        if lineno < start:
            continue
        if len(picked) >= count or used >= READ_MAX_BYTES or more:
            more = True
            if not counting:
                break
            continue
        text = raw.decode("utf-8", "replace")
        if length > len(raw) or used + length + 1 > READ_MAX_BYTES:
            if picked:  # leave it for the next call
                more = True
                if not counting:
                    break
                continue
            keep = raw[:READ_MAX_BYTES].decode("utf-8", "ignore")
            how = f"{length} bytes long" if line.complete else \
                f"more than {LINE_SCAN_LIMIT} bytes long, its end was not looked for"
            text = f"{keep} … [line {lineno} cut: {how}; use bash to see it all]"
            cut_line = True
        picked.append(text)
        used += min(length, READ_MAX_BYTES) + 1
    if scan_stopped:
        more, counting = False, False  # nothing past the endless line can be reached
    meta: dict[str, Any] = {"path": full, "file_size": size, "line_count": len(picked),
                            "start_line": start, "truncated": more or cut_line or scan_stopped}
    if scan_stopped:
        meta["scan_stopped"] = True
    if counting:
        meta["total_lines"] = lineno
    if more:
        meta["next_offset"] = start + len(picked)
    if not picked:
        if size == 0:
            meta["empty_reason"] = "empty_file"
            return "", meta
        if scan_stopped:
            return (f"[line {lineno} of {path} is more than {LINE_SCAN_LIMIT} bytes long; "
                    f"offset {start} cannot be reached by this tool: use bash]"), meta
        meta["empty_reason"] = "offset_beyond_eof"
        return f"[offset {start} is past the end of {path} ({lineno} lines)]", meta
    body = "\n".join(picked)
    if more:
        end = start + len(picked) - 1
        of = f" of {lineno}" if counting else ""
        body += f"\n[showing lines {start}-{end}{of}; continue with offset={end + 1}]"
    elif lineno and not body.endswith("\n"):
        body += "\n"
    return body, meta


# --- write -----------------------------------------------------------------------------
def _target(fs: VFS, full: str, path: str) -> str:
    """Follow a symlink at ``full`` so a write replaces its target, not the link."""
    if fs.islink(full):
        try:
            return str(fs.realpath(full))
        except OSError as e:
            raise os_error(e, path) from None
    return full


def _make_parents(fs: VFS, parent: str, path: str) -> list[str]:
    """Create missing ancestors one by one; the list lets a failed write remove them again."""
    missing: list[str] = []
    d = parent
    while d != "/" and not fs.isdir(d):
        if fs.lexists(d):
            raise ToolError("E_INVALID_ARGUMENT", f"{path}: {d} exists and is not a directory")
        missing.append(d)
        d = d.rsplit("/", 1)[0] or "/"
    created: list[str] = []
    try:
        for d in reversed(missing):
            fs.mkdir(d)
            created.append(d)
    except OSError as e:
        _remove_dirs(fs, created)
        raise os_error(e, path) from None
    return created


def _remove_dirs(fs: VFS, created: list[str]) -> None:
    for d in reversed(created):
        try:
            fs.rmdir(d)
        except OSError:
            pass


def atomic_write(fs: VFS, full: str, data: bytes, path: str) -> bool:
    """Write ``data`` to a temporary file beside ``full``, then rename it into place.

    A reader never sees a half-written file, and a failure leaves nothing behind (neither
    the temporary file nor directories created for it).  Returns whether ``full`` is new.
    """
    target = _target(fs, full, path)
    if fs.isdir(target):
        raise ToolError("E_IS_DIRECTORY", f"{path}: is a directory")
    parent, name = target.rsplit("/", 1)
    parent = parent or "/"
    try:
        old = fs.stat(target)
    except FileNotFoundError:
        old = None
    except OSError as e:
        raise os_error(e, path) from None
    created = _make_parents(fs, parent, path)
    tmp = f"{parent.rstrip('/')}/.{name}.vshell-{secrets.token_hex(4)}.tmp"
    try:
        with fs.open(tmp, "xb") as f:
            f.write(data)
        if old is not None:
            fs.chmod(tmp, st.S_IMODE(old.st_mode))
        fs.rename(tmp, target)
    except OSError as e:
        try:
            fs.unlink(tmp)
        except OSError:
            pass
        _remove_dirs(fs, created)
        raise os_error(e, path) from None
    return old is None


def write_file(fs: VFS, cwd: str, path: Any, content: Any) -> tuple[str, dict[str, Any]]:
    """Create or overwrite ``path`` with ``content`` (UTF-8), creating parent directories."""
    if not isinstance(content, str):
        raise ToolError("E_INVALID_ARGUMENT", "content must be a string")
    full = resolve(cwd, path)
    if path.endswith("/") or full == "/":
        raise ToolError("E_INVALID_ARGUMENT", f"{path}: a file path must not end with '/'")
    data = content.encode("utf-8", "surrogateescape")
    created = atomic_write(fs, full, data, path)
    how = "created" if created else "overwrote existing"
    return (f"write: {path} ({how}, {len(data)} bytes)",
            {"path": full, "created": created, "bytes": len(data)})


# --- edit ------------------------------------------------------------------------------
def _parse_edits(edits: Any) -> list[tuple[str, str]]:
    if not isinstance(edits, list) or not edits:
        raise ToolError("E_INVALID_ARGUMENT", "edits must be a non-empty list")
    out = []
    for i, e in enumerate(edits):
        if not isinstance(e, dict):
            raise ToolError("E_INVALID_ARGUMENT", f"edits[{i}] must be an object")
        old, new = e.get("oldText"), e.get("newText")
        if not isinstance(old, str) or not old:
            raise ToolError("E_INVALID_ARGUMENT", f"edits[{i}].oldText must be a non-empty string")
        if not isinstance(new, str):
            raise ToolError("E_INVALID_ARGUMENT", f"edits[{i}].newText must be a string")
        out.append((old, new))
    return out


def edit_file(fs: VFS, cwd: str, path: Any, edits: Any, *,
              cancel: CancelToken | None = None) -> tuple[str, dict[str, Any]]:
    """Apply exact-text replacements, each matching exactly once, all or none."""
    full = resolve(cwd, path)
    pairs = _parse_edits(edits)
    target = _target(fs, full, path)
    try:
        info = fs.stat(target)
        if st.S_ISDIR(info.st_mode):
            raise ToolError("E_IS_DIRECTORY", f"{path}: is a directory")
        if info.st_size > EDIT_MAX_BYTES:
            raise ToolError("E_TOO_LARGE", f"{path}: {info.st_size} bytes; edit works on files "
                            f"up to {EDIT_MAX_BYTES} bytes (use bash, e.g. sed)")
        with fs.open(target, "rb") as f:
            raw = _read_bounded(f, EDIT_MAX_BYTES + 1, cancel)
    except OSError as e:
        raise os_error(e, path) from None
    if b"\x00" in raw[:8192]:
        raise ToolError("E_BINARY", f"{path}: binary file, not text")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ToolError("E_BINARY", f"{path}: not UTF-8 text") from None
    spans: list[tuple[int, int, str, int]] = []
    for i, (old, new) in enumerate(pairs):
        _check(cancel)
        at = text.find(old)
        if at < 0:
            raise ToolError("E_NO_MATCH", f"{path}: edits[{i}].oldText was not found "
                            "(it must match the file exactly, whitespace included)")
        again = text.find(old, at + 1)
        if again >= 0:
            n = _count_overlapping(text, old)
            raise ToolError("E_AMBIGUOUS", f"{path}: edits[{i}].oldText matches {n} times; "
                            "add surrounding lines so it matches exactly once")
        spans.append((at, at + len(old), new, i))
    spans.sort()
    for (_a0, a1, _, i), (b0, _b1, _, j) in zip(spans, spans[1:], strict=False):
        if b0 < a1:
            raise ToolError("E_INVALID_ARGUMENT", f"{path}: edits[{i}] and edits[{j}] overlap")
    pieces = []
    pos = 0
    for a, b, new, _ in spans:
        pieces.append(text[pos:a])
        pieces.append(new)
        pos = b
    pieces.append(text[pos:])
    result = "".join(pieces)
    changed = result != text
    data = result.encode("utf-8")
    if changed:
        _check(cancel)  # the last point where stopping leaves the file as it was
        atomic_write(fs, target, data, path)
    first = text.count("\n", 0, spans[0][0]) + 1
    summary = (f"edit: {path} ({len(pairs)} edit{'s' if len(pairs) != 1 else ''} applied, "
               f"first at line {first})" if changed else f"edit: {path} (no changes)")
    return summary, {"path": full, "edits": len(pairs), "changed": changed, "bytes": len(data)}


def _read_bounded(f: BinaryIO, limit: int, cancel: CancelToken | None) -> bytes:
    """Up to ``limit`` bytes, a chunk at a time so a cancel is noticed."""
    parts: list[bytes] = []
    left = limit
    while left > 0:
        _check(cancel)
        chunk = f.read(min(_CHUNK * 16, left))
        if not chunk:
            break
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)


def _count_overlapping(text: str, sub: str) -> int:
    n, at = 0, text.find(sub)
    while at >= 0:
        n += 1
        at = text.find(sub, at + 1)
    return n


# --- list and glob -----------------------------------------------------------------------
_KIND_NAMES = {st.S_IFDIR: "directory", st.S_IFREG: "file", st.S_IFLNK: "symlink"}


def _kind(mode: int) -> str:
    """The ``type`` a list row reports for a file of ``mode``."""
    return _KIND_NAMES.get(st.S_IFMT(mode), "other")


def list_dir(fs: VFS, cwd: str, path: Any = None, *,
             cancel: CancelToken | None = None) -> tuple[str, dict[str, Any]]:
    """A sorted listing of one directory with each entry's type and size."""
    given = "." if path is None else path
    full = resolve(cwd, given)
    try:
        entries = fs.scandir(full)
    except OSError as e:
        raise os_error(e, given) from None
    entries.sort(key=lambda d: d.name)
    rows: list[dict[str, Any]] = []
    lines: list[str] = []
    for d in entries[:LIST_MAX_ENTRIES]:
        _check(cancel)
        row: dict[str, Any] = {"name": d.name}
        try:
            lst = d.stat(follow_symlinks=False)
            kind = _kind(lst.st_mode)
            size = lst.st_size
            if kind == "symlink":
                row["target"] = fs.readlink(d.path)
                try:
                    real = d.stat(follow_symlinks=True)
                    row["target_type"] = _kind(real.st_mode)
                    size = real.st_size
                except OSError:
                    row["target_type"] = "missing"
        except OSError:
            kind, size = "other", 0
        row["type"] = kind
        row["size"] = size
        rows.append(row)
        suffix = "/" if kind == "directory" or row.get("target_type") == "directory" else ""
        link = f" -> {row['target']}" if kind == "symlink" else ""
        sz = "-" if kind == "directory" else str(size)
        lines.append(f"{kind[0]} {sz:>10}  {d.name}{suffix}{link}")
    truncated = len(entries) > LIST_MAX_ENTRIES
    if truncated:
        lines.append(f"[{len(entries) - LIST_MAX_ENTRIES} more entries not shown; "
                     "use bash (ls, find) to see them]")
    text = "\n".join(lines) + "\n" if lines else f"{given}: empty directory\n"
    return text, {"path": full, "entries": rows, "total": len(entries), "truncated": truncated}


def glob_files(fs: VFS, cwd: str, pattern: Any, path: Any = None) -> tuple[str, dict[str, Any]]:
    """Paths matching a shell pattern (``**`` spans directories) from ``path`` or the cwd."""
    from vshell.text.pathglob import glob_expand

    if not isinstance(pattern, str) or not pattern or "\x00" in pattern:
        raise ToolError("E_INVALID_ARGUMENT", "pattern must be a non-empty string")
    base = cwd if path is None else resolve(cwd, path)
    if path is not None:
        try:
            if not st.S_ISDIR(fs.stat(base).st_mode):
                raise ToolError("E_INVALID_ARGUMENT", f"{path}: not a directory")
        except OSError as e:
            raise os_error(e, path) from None
    deadline = time.monotonic() + GLOB_TIME_LIMIT

    def check() -> None:  # a walk through looping links (a -> ., */*/*/...) must end
        if time.monotonic() > deadline:
            raise ToolError("E_TIMEOUT", f"glob stopped after {GLOB_TIME_LIMIT:g}s; "
                            "narrow the pattern or use bash (find)")

    matches = glob_expand(fs, base, pattern, globstar=True, check=check)
    truncated = len(matches) > GLOB_MAX_MATCHES
    shown = matches[:GLOB_MAX_MATCHES]
    if not shown:
        text = f"no paths match {pattern}\n"
    else:
        text = "\n".join(shown) + "\n"
        if truncated:
            text += (f"[{len(matches) - GLOB_MAX_MATCHES} more matches not shown; "
                     "narrow the pattern]\n")
    return text, {"base": base, "matches": shown, "total": len(matches), "truncated": truncated}


__all__ = ["ToolError", "atomic_write", "edit_file", "glob_files", "list_dir", "os_error",
           "read_file", "resolve", "write_file"]

