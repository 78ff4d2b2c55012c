"""``vshell changes|diff|sync|discard --overlay DIR`` and ``vshell --try``.

These make the copy-on-write workflow usable from a terminal: an agent (or a person in
``--try``) works on a cow view whose changes persist in DIR, and a person later reviews
and applies them.  The review subcommands rebuild the cow mounts from DIR's own record,
so no ``--mount`` has to be repeated (and a wrong one cannot be given).
"""

from __future__ import annotations

import os
import shlex
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vshell.cli import Options

LETTERS = {"add": "A", "modify": "M", "delete": "D", "type-change": "T"}

_USAGE = {
    "changes": "usage: vshell changes --overlay DIR\n",
    "diff": "usage: vshell diff --overlay DIR\n",
    "sync": "usage: vshell sync --overlay DIR [PATH...]\n",
    "discard": "usage: vshell discard --overlay DIR\n",
}

_HELP = {
    "changes": "List the changes kept in DIR: A added, M modified, D deleted, T type changed.\n",
    "diff": "Show the changes kept in DIR as a unified diff (binary files only named).\n",
    "sync": "Apply the changes kept in DIR to the host (all, or those under each PATH).\n"
    "On conflict (a host file changed since it was copied) nothing is applied: exit 1.\n",
    "discard": "Drop every change kept in DIR; the host is untouched.\n",
}


def _usage_error(cmd: str, message: str) -> int:
    sys.stderr.write(f"vshell {cmd}: {message}\n{_USAGE[cmd]}")
    return 2


def _parse(cmd: str, argv: list[str]) -> tuple[str | None, list[str], bool]:
    """(overlay dir, paths, wants help); raises ValueError with a usage message."""
    overlay: str | None = None
    paths: list[str] = []
    i = 0
    only_paths = False
    while i < len(argv):
        a = argv[i]
        if only_paths or not a.startswith("-") or a == "-":
            paths.append(a)
        elif a == "--":
            only_paths = True
        elif a in ("-h", "--help"):
            return overlay, paths, True
        elif a == "--overlay":
            if i + 1 >= len(argv):
                raise ValueError("option --overlay requires an argument")
            i += 1
            overlay = argv[i]
        elif a.startswith("--overlay="):
            overlay = a.split("=", 1)[1]
        else:
            raise ValueError(f"unknown option {a}")
        i += 1
    if paths and cmd != "sync":
        raise ValueError(f"unexpected argument {paths[0]!r}")
    if overlay is None:
        raise ValueError("--overlay DIR is required")
    return overlay, paths, False


def open_overlay(directory: str) -> Any:
    """A Sandbox over the cow mounts recorded in ``directory`` (SandboxConfigError if none)."""
    from vshell.sandbox import HostMount, Sandbox, SandboxConfigError
    from vshell.vfs.overlay_store import OverlayStateError, recorded_mounts

    try:
        recorded = recorded_mounts(directory)
    except OverlayStateError as e:
        raise SandboxConfigError(str(e)) from None
    if not recorded:
        raise SandboxConfigError(f"{directory}: the overlay records no mounts")
    mounts = [HostMount(host, vpath, cow=True) for host, vpath in recorded]
    return Sandbox(mounts=mounts, overlay_dir=directory, timeout=None)


def format_changes(changes: list[tuple[str, str]]) -> str:
    return "".join(f"{LETTERS.get(kind, '?')} {path}\n" for path, kind in changes)


def review_main(cmd: str, argv: list[str]) -> int:
    """Run one review subcommand; the exit status (2 usage/config, 1 sync not applied)."""
    from vshell.sandbox import SandboxConfigError

    try:
        overlay, paths, wants_help = _parse(cmd, argv)
    except ValueError as e:
        return _usage_error(cmd, str(e))
    if wants_help:
        sys.stdout.write(_USAGE[cmd] + "\n" + _HELP[cmd])
        return 0
    assert overlay is not None
    try:
        sb = open_overlay(overlay)
    except SandboxConfigError as e:
        sys.stderr.write(f"vshell {cmd}: {e}\n")
        return 2
    with sb:
        if cmd == "changes":
            sys.stdout.write(format_changes(sb.changes()))
            return 0
        if cmd == "diff":
            sys.stdout.write(sb.diff())
            return 0
        if cmd == "discard":
            sb.discard()
            return 0
        selected = [p if p.startswith("/") else os.path.abspath(p) for p in paths] or None
        result = sb.sync(selected)
        sys.stdout.write(format_changes(sorted(result.applied)))
        for path in result.conflicts:
            sys.stderr.write(f"vshell sync: conflict: {path} changed on the host\n")
        if result.conflicts:
            sys.stderr.write("vshell sync: nothing applied\n")
            return 1
        if result.failed is not None:
            sys.stderr.write(
                f"vshell sync: stopped at {result.failed}: {result.error}; "
                "the rest is still in the overlay\n"
            )
            return 1
        return 0


def try_main(opts: Options) -> int:
    """``vshell --try``: a REPL over a cow view of the current directory, kept for review."""
    from vshell.cachedir import cache_dir
    from vshell.cli import build_sandbox
    from vshell.repl import run_repl
    from vshell.sandbox import SandboxConfigError
    from vshell.vfs.overlay_store import fresh_overlay_dir

    here = os.getcwd()
    if opts.overlay is None:
        base = cache_dir()
        if base is None:
            sys.stderr.write("vshell: --try: no private cache directory; use --overlay DIR\n")
            return 2
        try:
            opts.overlay = fresh_overlay_dir(base)
        except OSError as e:
            sys.stderr.write(f"vshell: --try: {e}\n")
            return 2
    opts.mounts.insert(0, (here, here, "cow"))
    if opts.cwd is None:
        opts.cwd = here
    try:
        sb = build_sandbox(opts)
    except SandboxConfigError as e:
        sys.stderr.write(f"vshell: {e}\n")
        return 2
    with sb:
        status = run_repl(sb, history_file=opts.history_file)
        changes = sb.changes()
    if changes:
        sys.stderr.write(f"vshell: {len(changes)} change(s):\n" + format_changes(changes))
    else:
        sys.stderr.write("vshell: no changes\n")
    sys.stderr.write(
        f"vshell: changes kept in {opts.overlay}; "
        f"apply them with: vshell sync --overlay {shlex.quote(opts.overlay)}\n"
    )
    return status
