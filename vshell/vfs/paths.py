"""Lexical handling of virtual paths.

Virtual paths are absolute POSIX strings.  ``..`` in a path the caller passes is resolved
lexically and clamped at ``/`` (as ``cd -L`` would), so it can never name anything above a
mount; ``..`` inside a *symlink target* is resolved by the backend, physically.
"""

from __future__ import annotations

__all__ = ["join_parts", "split_path"]


def split_path(path: str) -> tuple[tuple[str, ...], bool]:
    """Return the normalized components of ``path`` and whether it ended with ``/``.

    A relative path is taken relative to ``/`` (callers should pass absolute paths).
    """
    if "\0" in path:
        raise ValueError("embedded null byte")
    parts: list[str] = []
    for name in path.split("/"):
        if name == "" or name == ".":
            continue
        if name == "..":
            if parts:
                parts.pop()
            continue
        parts.append(name)
    trailing = len(path) > 1 and path.endswith("/") or path.endswith("/.")
    return tuple(parts), trailing


def join_parts(parts: tuple[str, ...] | list[str], base: str = "/") -> str:
    """``base`` (an absolute normalized path) joined with ``parts``."""
    if not parts:
        return base
    if base == "/":
        return "/" + "/".join(parts)
    return base + "/" + "/".join(parts)
