"""``vshell run``, ``vshell stop`` and the review commands of a scope.

vshell run [--isolation worktree|repo|session] [--session ID] [SANDBOX FLAGS]
           [-c SCRIPT [NAME [ARG...]] | FILE [ARG...]]
vshell stop [--all]
vshell changes|diff|discard --scope, vshell sync --scope [PATH...]   (the scope's session)

The sandbox flags are those of ``vshell`` itself; they win over ``vshell.toml``.  The
caller (vshell/cli/main.py) hands in its own flag parser so the two never drift apart.
"""

from __future__ import annotations

import os
import select
import stat
import sys
from collections.abc import Callable
from typing import Any

from vshell.config import ConfigError, MountEntry, Settings, load_settings

USAGE = """\
usage: vshell run [--isolation worktree|repo|session] [--session ID] [SANDBOX FLAGS]
                  [-c SCRIPT [NAME [ARG...]] | FILE [ARG...]]
       vshell stop [--all | --isolation worktree|repo|session [--session ID]]
       vshell changes|diff|discard --scope;  vshell sync --scope [PATH...]
       (stop and the review commands take --isolation/--session as run does)
"""

HELP = USAGE + """
Run in the persistent session of this scope: the git worktree containing the current
directory (two worktrees get two sessions), the repository (--isolation repo), or a
harness session id (--isolation session --session ID; without an id, the worktree).
The session's server starts on first use, mounts the worktree at its own host path,
keeps cwd, variables, functions and options between calls, and ends after the idle
timeout (vshell.toml idle_timeout, default 30m) or `vshell stop` (`--all`: every scope).
Settings come from vshell.toml (worktree, repository root, ~/.config/vshell); the sandbox
flags of `vshell --help` (--mount, --deny-path, --allow-net, --timeout, --output-limit,
--memory-fs-limit, --memory-limit, --env) win over them.  With cow mounts, review the
pending writes with `vshell changes --scope`, `vshell diff --scope`, `vshell sync
--scope [PATH...]` and `vshell discard --scope`, run in the same scope.
"""

ParseArgs = Callable[[list[str]], Any]
_SANDBOX_FLAGS = {"--mount", "--deny-path", "--allow-net", "--timeout", "--output-limit",
                  "--memory-fs-limit", "--memory-limit", "--env"}


def scope_main(command: str, argv: list[str], parse_args: ParseArgs) -> int:
    """Entry point of ``vshell run|stop|changes|diff|sync|discard`` (no traceback ever)."""
    from vshell.scope.client import ScopeError
    from vshell.scope.runtime import RuntimeDirError

    try:
        if command == "stop":
            return _stop(argv)
        if command == "run":
            return _run(argv, parse_args)
        return _review(command, argv)
    except _Usage as e:
        sys.stderr.write(f"vshell {command}: {e}\n{USAGE}")
        return 2
    except ConfigError as e:
        sys.stderr.write(f"vshell: {e}\n")
        return 2
    except (ScopeError, RuntimeDirError, ValueError) as e:
        sys.stderr.write(f"vshell {command}: {e}\n")
        return 125


class _Usage(Exception):
    pass


def _own_flags(argv: list[str]) -> tuple[dict[str, str], list[str]]:
    """(--isolation / --session values, the rest of argv)."""
    own: dict[str, str] = {}
    rest: list[str] = []
    i = 0
    while i < len(argv):
        a = argv[i]
        name = a.split("=", 1)[0]
        if a in ("-c", "--") or not a.startswith("-"):
            rest += argv[i:]
            break
        if name in ("--isolation", "--session"):
            if "=" in a:
                own[name] = a.split("=", 1)[1]
            elif i + 1 < len(argv):
                i += 1
                own[name] = argv[i]
            else:
                raise _Usage(f"option {name} requires an argument")
        else:
            rest.append(a)
        i += 1
    return own, rest


def _given(argv: list[str]) -> set[str]:
    names = set()
    for a in argv:
        if a in ("-c", "--") or not a.startswith("-"):
            break
        names.add(a.split("=", 1)[0])
    return names


def settings_for(cwd: str, argv: list[str], parse_args: ParseArgs,
                 isolation: str | None) -> tuple[Settings, Any]:
    """The layered settings with the command line's sandbox flags on top, and the
    parsed command line."""
    from vshell.scope.resolve import find_worktree, repo_root_of

    worktree, gitdir = find_worktree(cwd)
    settings = load_settings(worktree, repo_root_of(gitdir) if gitdir else None)
    try:
        opts = parse_args(argv)
    except Exception as e:  # the CLI's UsageError / ConfigError
        raise _Usage(str(e)) from None
    given = _given(argv)
    for flag in given:
        if flag.startswith("-") and flag not in _SANDBOX_FLAGS and flag not in ("-h", "--help"):
            raise _Usage(f"option {flag} is not for vshell run")
    if isolation is not None:
        if isolation not in ("worktree", "repo", "session"):
            raise _Usage(f"--isolation {isolation}: want worktree, repo or session")
        settings.isolation = isolation
    settings.mounts += [MountEntry(h, v, m) for h, v, m in opts.mounts]
    settings.deny += [p for p in opts.deny if p not in settings.deny]
    settings.allow_net += [e for e in opts.allow_net if e not in settings.allow_net]
    for flag, attr in (("--timeout", "timeout"), ("--output-limit", "output_limit"),
                       ("--memory-fs-limit", "memory_fs_limit"),
                       ("--memory-limit", "memory_limit")):
        if flag in given:
            setattr(settings, attr, getattr(opts, attr))
    return settings, opts


def _scope_and_spec(cwd: str, settings: Settings, session: str | None,
                    env: dict[str, str] | None = None) -> tuple[Any, str, dict[str, Any]]:
    from vshell.scope.resolve import resolve_scope
    from vshell.scope.runtime import socket_path
    from vshell.scope.spec import build_spec

    scope = resolve_scope(cwd, settings.isolation, session)
    return scope, str(socket_path(scope.ident)), build_spec(scope, settings, cwd, env)


def _run(argv: list[str], parse_args: ParseArgs) -> int:
    from vshell.scope.client import call

    own, rest = _own_flags(argv)
    if any(a in ("-h", "--help") for a in rest[:1]) or argv[:1] in (["-h"], ["--help"]):
        sys.stdout.write(HELP)
        return 0
    cwd = os.getcwd()
    settings, opts = settings_for(cwd, rest, parse_args, own.get("--isolation"))
    if opts.command is None and opts.file is None:
        raise _Usage("want -c SCRIPT or FILE")
    _, path, spec = _scope_and_spec(cwd, settings, own.get("--session"), opts.env)
    message: dict[str, Any] = {"op": "run", "timeout": settings.timeout,
                               "stdin": _read_stdin()}
    if opts.command is not None:
        message.update(script=opts.command, args=list(opts.args))
    else:
        message.update(file=opts.file, args=[opts.file, *opts.args])
    return call(path, spec, message)


def _read_stdin() -> str:
    """Piped or redirected input, as ``vshell -c`` would read it; nothing from a terminal
    or from an inherited pipe with nothing ready (an agent's tool may leave one open)."""
    from vshell.scope import protocol

    if sys.stdin is None:
        return ""
    try:
        fd = sys.stdin.fileno()
        mode = os.fstat(fd).st_mode
    except (OSError, ValueError):
        return ""
    if stat.S_ISREG(mode):
        return protocol.pack(sys.stdin.buffer.read())
    if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        if not select.select([fd], [], [], 0.05)[0]:
            return ""
        return protocol.pack(sys.stdin.buffer.read())
    return ""


def _stop(argv: list[str]) -> int:
    from vshell.scope.client import stop
    from vshell.scope.runtime import runtime_dir

    if argv[:1] in (["-h"], ["--help"]):
        sys.stdout.write(HELP)
        return 0
    if argv == ["--all"]:
        base = runtime_dir()
        for name in sorted(os.listdir(base)):
            if name.endswith(".sock"):
                stop(str(base / name))
        return 0
    own, rest = _own_flags(argv)
    if rest:
        raise _Usage(f"unexpected argument {rest[0]}")
    path, _ = _this_scope(own)
    if not stop(path):
        sys.stderr.write("vshell stop: no session is running in this scope\n")
    return 0


def _this_scope(own: dict[str, str]) -> tuple[str, dict[str, Any]]:
    """(socket path, spec) of the cwd's scope under vshell.toml and --isolation/--session."""
    cwd = os.getcwd()
    settings = load_settings(*_roots(cwd))
    if "--isolation" in own:
        settings.isolation = own["--isolation"]
    _, path, spec = _scope_and_spec(cwd, settings, own.get("--session"))
    return path, spec


def _roots(cwd: str) -> tuple[str, str | None]:
    from vshell.scope.resolve import find_worktree, repo_root_of

    worktree, gitdir = find_worktree(cwd)
    return worktree, repo_root_of(gitdir) if gitdir else None


def _review(action: str, argv: list[str]) -> int:
    from vshell.scope.client import call

    own, rest = _own_flags(argv)
    argv = [a for a in rest if a != "--scope"]
    if any(a.startswith("-") for a in argv):
        raise _Usage(f"unknown option {next(a for a in argv if a.startswith('-'))}")
    if argv and action != "sync":
        raise _Usage(f"unexpected argument {argv[0]}")
    path, spec = _this_scope(own)
    paths = [os.path.realpath(p) for p in argv]
    return call(path, spec, {"op": "review", "action": action, "paths": paths})
