"""Command search as bash does it: the hash table of remembered locations, ``PATH`` in the
VFS, and vshell's own commands standing in for the system's.

Below :mod:`vshell.interp.simple` (which runs what this finds) so that the builtins that
look commands up (``command -p``, ``hash``, ``type``) import it downward.
"""

from __future__ import annotations

import stat as _stat

from vshell.interp.builtins import registry as builtins_registry
from vshell.lazy import lazy_function

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    from vshell.interp.host_tools import hint
    from vshell.interp.shell import Shell
else:  # imported at first use (start-up): a stand-in puts the real one in its place
    hint = lazy_function("vshell.interp.host_tools", "hint", globals())


def not_found(sh: Shell, name: str) -> int:
    """bash's ``name: command not found`` (127), and for a well-known host program the one
    line that says why it cannot exist here."""
    sh.ctx.last_not_found = True
    sh.err(f"{name}: command not found")
    why = hint(name)
    if why is not None:
        sh.write_err(why)
    return 127


VSHELL_COMMAND = "\0vshell"  # the hash-table entry of one of vshell's own commands


def resolve_command(sh: Shell, name: str, *, default_path: bool = False) -> tuple[str, str | None]:
    """What ``name`` runs: ("file", path) for a script on PATH in the VFS (as bash, a file
    earlier on PATH wins), ("vshell", None) for vshell's or the host's command, else
    ("none", None).  Hits are remembered like bash's hash table."""
    st = sh.state
    table: dict[str, list] = st.hash
    if not default_path:
        hit = table.get(name)
        if hit is not None:
            table[name] = [hit[0], hit[1] + 1]  # replaced: a subshell's copy shares entries
            return ("vshell", None) if hit[0] == VSHELL_COMMAND else ("file", hit[0])
    path, own = _find(sh, name, "/usr/bin:/bin" if default_path else None)
    if path is not None and own is None:
        if not default_path:
            table[name] = [path, 1]
        return "file", path
    if sh.find_command(name) is not None:
        if not default_path:
            table[name] = [VSHELL_COMMAND, 1]
        return "vshell", None
    return "none", None


SYSTEM_BIN_DIRS = frozenset(("/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin"))


def system_path_command(sh: Shell, path: str) -> str | None:
    """``/bin/echo`` or ``/usr/bin/env`` when no mount provides it: vshell's own command.

    Scripts name system tools by absolute path; vshell has no host binaries, so such a
    path means the command of that name (never a host program).
    """
    folder, _, base = path.rpartition("/")
    if folder not in SYSTEM_BIN_DIRS or not base:
        return None
    if sh.find_command(base) is not None or builtins_registry.is_builtin(
            base, builtins_registry.disabled_in(sh.state)):
        return base
    return None


_CACHE_MAX = 512  # searches remembered (by name, PATH and directory) before starting over


def find_in_path(sh: Shell, name: str, pathvar: str | None = None) -> str | None:
    """The first executable regular file called ``name`` along ``pathvar`` (PATH)."""
    return _find(sh, name, pathvar)[0]


def _find(sh: Shell, name: str, pathvar: str | None) -> tuple[str | None, str | None]:
    """(the file :func:`find_in_path` finds, the vshell command that file stands for).

    A search is remembered under bash's hash table, for every shell of the session (a
    pipeline stage's finds die with it): the answer stands while the VFS counts no change
    (``VFS.changes``), and, when a mount is one the host can change behind vshell's back,
    for the rest of this run only."""
    fs = sh.ctx.fs
    st = sh.state
    if pathvar is None:
        pathvar = st.get("PATH") or ""
    if "/dev" in pathvar or "/proc" in pathvar:  # what these hold depends on the shell
        path = _search(sh, name, pathvar)
        return path, None if path is None else fs.own_command(path)
    cache = st.search_cache
    key = (name, pathvar, st.cwd)
    changes = fs.changes  # read before the search: a change made during it makes it stale
    run = None if fs.closed else sh.ctx.run
    hit = cache.get(key)
    if hit is not None and hit[0] == changes and hit[1] is run:
        return hit[2]
    path = _search(sh, name, pathvar)
    found = path, None if path is None else fs.own_command(path)
    if len(cache) >= _CACHE_MAX:
        cache.clear()
    cache[key] = (changes, run, found)
    return found


def _search(sh: Shell, name: str, pathvar: str) -> str | None:
    fs = sh.ctx.fs
    for d in pathvar.split(":"):
        if not d:
            d = "."
        full = sh.abspath(d + "/" + name)
        try:
            info = fs.stat(full)
        except OSError:
            continue
        if _stat.S_ISREG(info.st_mode) and info.st_mode & 0o111:
            return full
    return None
