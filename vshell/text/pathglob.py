"""Pathname expansion over a virtual filesystem (any object with scandir, isdir and
exists), with bash's rules.

The pattern is walked one ``/``-separated component at a time: a component without
magic is taken literally (never listed, so ``sub/*.c`` only reads ``sub``), a magic one
is matched against the directory's entries.  Results keep the pattern's own spelling for
literal parts (``./``, ``../``, ``a//b``) and come back in bash's C.UTF-8 order
(code points).  Nothing here reports errors: unreadable or missing directories simply
contribute nothing, and the caller decides what an empty result means (nullglob,
failglob, or the word unchanged).
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol

from vshell.records import record
from vshell.text.glob import compile_glob as compile_pattern
from vshell.text.glob import has_magic, unescape

__all__ = ["GlobFS", "glob_expand", "split_globignore"]


class GlobFS(Protocol):
    """What the walk reads of a filesystem (the VFS; ``lexists`` too when it has one)."""

    def scandir(self, path: str) -> Iterable[Any]: ...
    def isdir(self, path: str) -> bool: ...
    def exists(self, path: str) -> bool: ...


def glob_expand(
    fs: GlobFS,
    cwd: str,
    pattern: str,
    *,
    dotglob: bool = False,
    extglob: bool = True,
    nocaseglob: bool = False,
    globstar: bool = False,
    globignore: list[str] | None = None,
    check: Callable[[], None] | None = None,
) -> list[str]:
    """Expand ``pattern`` (backslash-escape convention) against ``fs`` from ``cwd``.

    Relative patterns give relative results, absolute ones absolute.  Hidden names need a
    literal leading dot unless ``dotglob``; ``.`` and ``..`` never match a wildcard.  With
    ``globstar`` a ``**`` component matches zero or more directories (symlinked
    directories are listed but not descended into).  A trailing ``/`` keeps directories
    only.  Names matching any ``globignore`` pattern are dropped.  ``[]`` when nothing
    matches.  ``check`` (the run's cancellation check) is called before each directory is
    read and at each entry, so a walk through looping links ends when the run does.
    """
    g = _Globber(fs, cwd, dotglob, extglob, nocaseglob, globstar, globignore or [],
                 check or _no_check)
    body = pattern.rstrip("/")
    suffix = pattern[len(body):]
    if not body:
        return []
    parts = body.split("/")
    results = list(g.walk(parts, suffix))
    if globignore:
        results = [r for r in results if not g.ignored(r)]
    return sorted(set(results))


@record
class _Globber:
    """One expansion: the filesystem and directory, the shell options in force, GLOBIGNORE's
    patterns and the run's cancellation check."""

    fs: GlobFS
    cwd: str
    dotglob: bool
    extglob: bool
    nocase: bool
    globstar: bool
    ignore: list[str]
    check: Callable[[], None]

    def ignored(self, path: str) -> bool:
        """Whether GLOBIGNORE drops ``path``.  Like bash, wildcards stop at "/" and take
        leading dots, except a final ``*``, which takes the rest of the path."""
        for pat in self.ignore:
            body = pat.rstrip("*")
            trailing = len(body) < len(pat) and (len(body) - len(body.rstrip("\\"))) % 2 == 0
            g = compile_pattern(body if trailing else pat, extglob=self.extglob, pathname=True,
                                dotglob=True)
            if g.prefix_ends(path) if trailing else g.fullmatch(path):
                return True
        return False

    def abs(self, display: str) -> str:
        """Virtual path of a result prefix (the VFS normalizes ``..`` and ``//``)."""
        return posixpath.join(self.cwd, display) if display else self.cwd

    def entries(self, display: str) -> list[Any]:
        self.check()
        try:
            return list(self.fs.scandir(self.abs(display)))
        except (OSError, ValueError):
            return []

    def lexists(self, display: str) -> bool:
        fn = getattr(self.fs, "lexists", None) or self.fs.exists
        try:
            return bool(fn(self.abs(display)))
        except (OSError, ValueError):
            return False

    def isdir(self, display: str) -> bool:
        try:
            return bool(self.fs.isdir(self.abs(display)))
        except (OSError, ValueError):
            return False

    def walk(self, parts: list[str], suffix: str) -> Iterator[str]:
        """Yield matches; ``prefixes`` are result texts so far, each ending in ``/`` or ''."""
        prefixes = [""]
        last = len(parts) - 1
        globbed = False  # whether the prefixes came from matching (bash spells them bare)
        for k, comp in enumerate(parts):
            final = k == last
            nxt: list[str] = []
            if comp == "":
                # leading / of an absolute pattern, or a doubled slash: keep it as written
                prefixes = [p + "/" for p in prefixes]
                if final:
                    yield from (p for p in prefixes if p and self.isdir(p))
                continue
            if self.globstar and comp == "**":
                for p in prefixes:
                    if final:
                        yield from self._globstar_final(p, suffix, globbed)
                    else:
                        nxt.append(p)
                        nxt.extend(d + "/" for d in self._subdirs(p, links=bool(p)))
                prefixes = nxt
                globbed = True
                continue
            if not has_magic(comp, self.extglob):
                name = unescape(comp)
                for p in prefixes:
                    if not final:
                        nxt.append(p + name + "/")
                    elif suffix and self.isdir(p + name) or not suffix and self.lexists(p + name):
                        yield p + name + suffix
                prefixes = nxt
                continue
            rx = compile_pattern(
                comp, extglob=self.extglob, nocase=self.nocase, pathname=True,
                dotglob=self.dotglob,
            )
            want_dir = not final or bool(suffix)
            for p in prefixes:
                for e in self.entries(p):
                    self.check()
                    name = e.name
                    if name in (".", "..") or not rx.fullmatch(name):
                        continue
                    if want_dir and not _is_dir(e):
                        continue
                    if final:
                        yield p + name + suffix
                    else:
                        nxt.append(p + name + "/")
            prefixes = nxt
            globbed = True
            if not prefixes:
                return

    def _visible(self, name: str) -> bool:
        return name not in (".", "..") and (self.dotglob or not name.startswith("."))

    def _tree(self, prefix: str) -> Iterator[tuple[str, bool, bool]]:
        """Every visible name below ``prefix`` (depth first): path, is a dir, is a link.

        Symlinks to directories count as directories but are not descended into.
        """
        for e in self.entries(prefix):
            self.check()
            if not self._visible(e.name):
                continue
            path = prefix + e.name
            is_dir = _is_dir(e)
            link = _is_symlink(e)
            yield path, is_dir, link
            if is_dir and not link:
                yield from self._tree(path + "/")

    def _subdirs(self, prefix: str, links: bool) -> Iterator[str]:
        """Directories below ``prefix`` for a ``**/`` in the middle of a pattern.

        Symlinked directories are never descended into; bash still tries the next
        component inside them when the ``**`` has a directory before it (``a/**/x``
        finds ``a/link/x``) but not at the start of the pattern (``**/x``).
        """
        for path, is_dir, link in self._tree(prefix):
            if is_dir and (links or not link):
                yield path

    def _globstar_final(self, prefix: str, suffix: str, globbed: bool) -> Iterator[str]:
        """A final ``**``: the directory itself, then everything below it.

        The directory itself keeps its slash when it was written literally (``a/**``
        gives ``a/``) but not when it was matched (``[a]/**`` gives ``a``), as bash does.
        """
        if prefix and self.isdir(prefix):
            yield prefix.rstrip("/") + (suffix or ("" if globbed else "/"))
        for path, is_dir, _link in self._tree(prefix):
            if suffix and not is_dir:
                continue
            yield path + suffix


def _no_check() -> None:
    pass


def _is_dir(entry: Any) -> bool:
    try:
        return bool(entry.is_dir())
    except (OSError, ValueError):
        return False


def _is_symlink(entry: Any) -> bool:
    fn = getattr(entry, "is_symlink", None)
    try:
        return bool(fn()) if fn is not None else False
    except (OSError, ValueError):
        return False


def split_globignore(value: str) -> list[str]:
    """GLOBIGNORE's patterns: colon-separated, but a colon inside ``[…]`` (``[[:alpha:]]``)
    belongs to the bracket expression."""
    out: list[str] = []
    cur: list[str] = []
    depth = 0
    i = 0
    while i < len(value):
        c = value[i]
        if c == "\\" and i + 1 < len(value):
            cur.append(value[i:i + 2])
            i += 2
            continue
        if c == "[":
            depth += 1
        elif c == "]" and depth:
            depth -= 1
        elif c == ":" and depth == 0:
            out.append("".join(cur))
            cur = []
            i += 1
            continue
        cur.append(c)
        i += 1
    out.append("".join(cur))
    return [p for p in out if p]
