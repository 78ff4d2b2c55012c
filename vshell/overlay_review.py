"""Reviewing and applying the changes held by a sandbox's copy-on-write mounts.

A cow mount keeps every change in memory; this module turns those changes into what a
person (or an agent's supervisor) reads before deciding: a sorted list of changed paths,
a unified diff, and a sync that either applies everything asked for or, on conflict,
nothing.  Host access itself stays in :mod:`vshell.vfs.overlay`.
"""

from __future__ import annotations

import difflib
import stat
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from vshell.records import field, record
from vshell.vfs.overlay import Change, OverlayBackend
from vshell.vfs.overlay_store import OverlayStateError, fresh_overlay_dir, recorded_mounts
from vshell.vfs.paths import join_parts, split_path

if TYPE_CHECKING:
    from vshell.vfs import VFS

# The overlay store's names the front ends need (an ``--overlay DIR``'s record, a fresh
# directory for ``--try``) come from here, so no front end reaches into the VFS.
__all__ = [
    "LETTERS", "OverlayStateError", "SyncResult", "changes", "diff", "discard",
    "format_changes", "fresh_overlay_dir", "overlays", "recorded_mounts", "sync",
]

# The one-letter kinds of ``vshell changes`` and the MCP ``changes`` tool (git's letters).
LETTERS = {"add": "A", "modify": "M", "delete": "D", "type-change": "T"}


def format_changes(changes: Iterable[tuple[str, str]]) -> str:
    """One ``M /w/a.txt`` line per (vpath, kind), in the order given."""
    return "".join(f"{LETTERS.get(kind, '?')} {path}\n" for path, kind in changes)


@record
class SyncResult:
    """What a sync did.  ``ok`` is False on conflict (nothing applied) or failure part-way.

    ``applied`` lists (vpath, kind) exactly as written to the host; ``conflicts`` names the
    host paths changed since the overlay saw them (or unsafe symlinks); ``failed`` and
    ``error`` say which path stopped a sync part-way (everything not applied is still in
    the overlay, so calling sync again retries).
    """

    applied: list[tuple[str, str]] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    failed: str | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return not self.conflicts and self.failed is None


def overlays(fs: VFS) -> list[tuple[str, OverlayBackend]]:
    """(mount point, backend) of every cow mount of a VFS, in mount-point order."""
    found = [(m.vpath, m.backend) for m in fs.mounts if isinstance(m.backend, OverlayBackend)]
    return sorted(found, key=lambda item: item[0])


def _vpath(vroot: str, change: Change) -> str:
    return join_parts(change.parts, vroot)


def changes(fs: VFS) -> list[tuple[str, str]]:
    """Sorted (vpath, "add"|"modify"|"delete"|"type-change") for every cow mount.

    A removed directory is one entry: what it held is not listed again.
    """
    out: list[tuple[str, str]] = []
    for vroot, ov in overlays(fs):
        out.extend((_vpath(vroot, c), c.kind) for c in ov.changes(vroot))
    return collapse_removals(out)


def collapse_removals(items: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """Sorted changes with what a deleted directory held left out (it is implied)."""
    collapsed: list[tuple[str, str]] = []
    gone: str | None = None
    for path, kind in sorted(items):
        if gone is not None and path.startswith(gone + "/") and kind == "delete":
            continue
        if kind == "delete":
            gone = path
        elif gone is not None and not path.startswith(gone + "/"):
            gone = None
        collapsed.append((path, kind))
    return collapsed


def _text(data: bytes | None) -> list[str] | None:
    """Lines of ``data`` when it is text; None when binary (NUL byte or not UTF-8)."""
    if data is None:
        return []
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8").splitlines(keepends=True)
    except UnicodeDecodeError:
        return None


def _unified(old: list[str], new: list[str], name: str) -> str:
    out: list[str] = []
    for line in difflib.unified_diff(old, new, f"a/{name}", f"b/{name}"):
        if line.endswith("\n"):
            out.append(line)
        else:
            out.append(line + "\n\\ No newline at end of file\n")
    return "".join(out)


def diff(fs: VFS) -> str:
    """Unified diff of changed files and symlinks, git's ``old mode``/``new mode`` lines
    for a mode change; binary files are only named, directories only by a mode change."""
    parts: list[str] = []
    for vroot, ov in overlays(fs):
        for c in ov.changes(vroot):
            name = _vpath(vroot, c).lstrip("/")
            old_entry, new_entry = ov.entries(c, vroot)
            old, new = ov.contents(c, vroot)
            header = _mode_header(name, old_entry, new_entry)
            old_lines = _link_lines(old_entry) or _text(old)
            new_lines = _link_lines(new_entry) or _text(new)
            if old_lines is None or new_lines is None:
                if old != new:
                    parts.append(header + f"Binary files a/{name} and b/{name} differ\n")
                elif header:
                    parts.append(header)
                continue
            body = _unified(old_lines, new_lines, name) if old_lines != new_lines else ""
            if header or body:
                parts.append(header + body)
    return "".join(parts)


def _link_lines(entry: tuple[int, str | None] | None) -> list[str] | None:
    """A symlink's target as the one line of its "contents", as git shows it."""
    if entry is None or entry[1] is None:
        return None
    return [entry[1]]


def _mode_header(name: str, old: tuple[int, str | None] | None,
                 new: tuple[int, str | None] | None) -> str:
    """git's extended header for a created, deleted or re-moded entry ('' for none)."""
    def octal(mode: int) -> str:
        return "120000" if stat.S_ISLNK(mode) else f"{mode:06o}"  # git's symlink mode

    if old is not None and new is not None and old[0] != new[0]:
        return (f"diff --git a/{name} b/{name}\nold mode {octal(old[0])}\n"
                f"new mode {octal(new[0])}\n")
    if old is None and new is not None and stat.S_ISLNK(new[0]):
        return f"diff --git a/{name} b/{name}\nnew file mode {octal(new[0])}\n"
    if new is None and old is not None and stat.S_ISLNK(old[0]):
        return f"diff --git a/{name} b/{name}\ndeleted file mode {octal(old[0])}\n"
    return ""


def _selector(vroot: str, paths: Sequence[str] | None) -> Any:
    """A predicate on mount-relative parts: inside one of ``paths`` (or everything)."""
    if paths is None:
        return None
    root, _ = split_path(vroot)
    wanted: list[tuple[str, ...]] = []
    for p in paths:
        parts, _ = split_path(p)
        if parts[: len(root)] == root:
            wanted.append(parts[len(root) :])
        elif root[: len(parts)] == parts:
            wanted.append(())  # a path above the mount selects all of it
    if not wanted:
        return lambda parts: False
    return lambda parts: any(parts[: len(w)] == w for w in wanted)


def sync(fs: VFS, paths: Iterable[str] | None = None) -> SyncResult:
    """Apply cow changes (under ``paths`` if given) to the host; see SyncResult."""
    selected = None if paths is None else list(paths)
    result = SyncResult()
    mounts = overlays(fs)
    # Check every mount first so a conflict anywhere applies nothing anywhere.
    for vroot, ov in mounts:
        select = _selector(vroot, selected)
        todo = [c for c in ov.changes(vroot) if select is None or select(c.parts)]
        result.conflicts.extend(join_parts(p, vroot) for p in ov.preflight(todo, vroot))
    if result.conflicts:
        result.conflicts.sort()
        return result
    for vroot, ov in mounts:
        report = ov.sync(vroot, _selector(vroot, selected))
        result.applied.extend((_vpath(vroot, c), c.kind) for c in report.applied)
        if report.conflicts:
            result.conflicts.extend(join_parts(p, vroot) for p in report.conflicts)
            break
        if report.failed is not None:
            result.failed = join_parts(report.failed, vroot)
            result.error = str(report.error)
            break
    return result


def discard(fs: VFS) -> None:
    """Drop every change held by the cow mounts."""
    for _, ov in overlays(fs):
        ov.discard()
