"""Canonical names for readlink -f/-e/-m and realpath, resolved inside the VFS.

``mode`` is ``"e"`` (every component must exist), ``"f"`` (all but the last) or ``"m"``
(none need exist).  Symlinks are read with the VFS's readlink, so a name never resolves
to anything the sandbox cannot see.
"""

from __future__ import annotations

import errno
import os
import stat as st

from vshell.command import Invocation

MAX_LINKS = 40


def canonical(inv: Invocation, name: str, mode: str, follow: bool = True) -> str:
    """The absolute virtual path for ``name``; OSError(errno) when ``mode`` forbids."""
    fs = inv.fs
    # no lexical normalisation first: "link/.." is the parent of the link's target (GNU)
    full = name if name.startswith("/") else inv.dir.rstrip("/") + "/" + name
    pending = [p for p in full.split("/") if p]
    trailing_slash = name.endswith("/")
    done: list[str] = []
    links = 0
    pending.reverse()
    while pending:
        part = pending.pop()
        if part == ".":
            continue
        if part == "..":
            if done:
                done.pop()
            continue
        cur = "/" + "/".join([*done, part])
        is_last = not pending
        try:
            lst = fs.lstat(cur)
        except OSError as e:
            if e.errno != errno.ENOENT:
                raise
            if _leads_to_mount(fs, cur):  # e.g. /home above a mount at /home/me/project
                done.append(part)
                continue
            if mode == "m" or (mode == "f" and is_last):
                done.append(part)
                continue
            raise
        if st.S_ISLNK(lst.st_mode) and follow:
            links += 1
            if links > MAX_LINKS:
                raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), name)
            target = fs.readlink(cur)
            parts = [p for p in target.split("/") if p]
            if target.startswith("/"):
                done = []
            pending.extend(reversed(parts))
            continue
        if st.S_ISLNK(lst.st_mode):  # not following (-s): judge by what it points to
            try:
                lst = fs.stat(cur)
            except OSError:
                if mode == "e" or (mode == "f" and not is_last):
                    raise
        if not is_last and not st.S_ISDIR(lst.st_mode) and mode != "m":
            raise OSError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), name)
        if is_last and trailing_slash and not st.S_ISDIR(lst.st_mode) and mode != "m":
            raise OSError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), name)
        done.append(part)
    return "/" + "/".join(done)


def _leads_to_mount(fs, path: str) -> bool:
    """Whether ``path`` is a directory on the way to a mount point (the VFS may not list
    such a directory itself, yet the walk must pass through it)."""
    prefix = path.rstrip("/") + "/"
    mounts = getattr(fs, "mounts", ())
    return any(m.vpath.startswith(prefix) for m in (mounts() if callable(mounts) else mounts))


def relative(path: str, base: str) -> str:
    """``path`` relative to the directory ``base`` (both absolute, normalised)."""
    p = [x for x in path.split("/") if x]
    b = [x for x in base.split("/") if x]
    i = 0
    while i < len(p) and i < len(b) and p[i] == b[i]:
        i += 1
    parts = [".."] * (len(b) - i) + p[i:]
    return "/".join(parts) or "."
