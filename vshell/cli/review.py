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
from typing import TYPE_CHECKING

from vshell.cli.args import build_sandbox
from vshell.cli.run import run_session
from vshell.command import normpath
from vshell.overlay_review import (
    OverlayStateError,
    format_changes,
    fresh_overlay_dir,
    overlays,
    recorded_mounts,
)

if TYPE_CHECKING:
    from vshell.cli.args import Options
    from vshell.sandbox import Sandbox

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


def open_overlay(directory: str) -> Sandbox:
    """A Sandbox over the cow mounts recorded in ``directory`` (SandboxConfigError if none)."""
    from vshell.sandbox import HostMount, Sandbox, SandboxConfigError

    try:
        recorded = recorded_mounts(directory)
    except OverlayStateError as e:
        raise SandboxConfigError(str(e)) from None
    if not recorded:
        raise SandboxConfigError(f"{directory}: the overlay records no mounts")
    mounts = [HostMount(host, vpath, cow=True) for host, vpath in recorded]
    return Sandbox(mounts=mounts, overlay_dir=directory, timeout=None)


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
        selected: list[str] | None = None
        if paths:
            selected, unknown = sandbox_paths(sb, paths)
            for p in unknown:
                sys.stderr.write(f"vshell sync: {p}: no change there (see `vshell changes "
                                 f"--overlay {shlex.quote(overlay)}`)\n")
            if unknown:
                sys.stderr.write("vshell sync: nothing applied\n")
                return 1
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


def sandbox_paths(sb: Sandbox, paths: list[str]) -> tuple[list[str], list[str]]:
    """(sandbox paths, the arguments that name no change) for ``vshell sync PATH...``.

    A PATH may be a sandbox path (``/w/a.txt``), a host path inside a mount's host
    directory, or a relative path: against the host's working directory when that lies in
    a mount, else against each mount point.  The first reading that names a change wins.
    """
    mounts = [(vroot, ov.host_dir) for vroot, ov in overlays(sb.fs)]
    changed = [p for p, _ in sb.changes()]

    def names_change(v: str) -> bool:
        top = v.rstrip("/")
        return any(c == v or c.startswith(top + "/") for c in changed)

    def from_host(h: str) -> list[str]:
        out: list[str] = []
        for host in {os.path.abspath(h), os.path.realpath(h)}:
            for vroot, hdir in mounts:
                for root in {os.path.abspath(hdir), os.path.realpath(hdir)}:
                    if host == root or host.startswith(root.rstrip("/") + "/"):
                        out.append(normpath(vroot.rstrip("/") + host[len(root):]))
        return out

    chosen: list[str] = []
    unknown: list[str] = []
    for p in paths:
        if p.startswith("/"):
            candidates = [normpath(p), *from_host(p)]
        else:
            candidates = [*from_host(os.path.join(os.getcwd(), p)),
                          *(normpath(f"{vroot.rstrip('/')}/{p}") for vroot, _ in mounts)]
        hit = next((v for v in candidates if names_change(v)), None)
        if hit is None:
            unknown.append(p)
        else:
            chosen.append(hit)
    return chosen, unknown


def try_main(opts: Options) -> int:
    """``vshell --try [-c SCRIPT | FILE]``: the REPL, or the script, over a cow view of the
    current directory; the changes are kept for review and the summary says how to apply
    them.  An overlay that ends up empty is removed, not left behind."""
    from vshell.cachedir import cache_dir
    from vshell.sandbox import SandboxConfigError

    here = os.getcwd()
    created = opts.overlay is None or not os.path.exists(opts.overlay)
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
        if created:
            _remove_overlay(opts.overlay)
        sys.stderr.write(f"vshell: {e}\n")
        return 2
    with sb:
        status = run_session(sb, opts, piped_script=False)
        changes = sb.changes()
    if not changes:
        sys.stderr.write("vshell: no changes\n")
        if created:
            _remove_overlay(opts.overlay)
        return status
    sys.stderr.write(f"vshell: {len(changes)} change(s):\n" + format_changes(changes))
    sys.stderr.write(
        f"vshell: changes kept in {opts.overlay}; "
        f"apply them with: vshell sync --overlay {shlex.quote(opts.overlay)}\n"
    )
    return status


def _remove_overlay(directory: str) -> None:
    """Remove an overlay directory this run created and left empty of changes."""
    import shutil

    shutil.rmtree(directory, ignore_errors=True)


def discard_notice(sb: Sandbox) -> str | None:
    """What ``-c``/FILE runs without ``--overlay`` say when cow changes die with them."""
    if not overlays(sb.fs):
        return None
    try:
        n = len(sb.changes())
    except OSError:
        return None
    if not n:
        return None
    return (f"vshell: {n} change(s) under copy-on-write mounts discarded at exit; "
            "to keep them, run with --overlay DIR, then review with `vshell changes "
            "--overlay DIR` and apply with `vshell sync --overlay DIR`\n")
