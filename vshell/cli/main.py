"""The ``vshell`` command line: the contract agents and tools rely on (the main dispatch).

vshell [--mount HOST:VPATH[:ro|:cow]]... [--deny-path PATTERN]... [--allow-net ENTRY]...
       [--timeout DURATION] [--output-limit BYTES] [--memory-fs-limit BYTES]
       [--memory-limit BYTES] [--max-jobs N]
       [--env NAME=VALUE|NAME]... [--cwd VPATH] [--history-file PATH] [--overlay DIR] [--try]
       [-c SCRIPT [NAME [ARG...]] | FILE [ARG...]]
vshell changes|diff|discard --overlay DIR;  vshell sync --overlay DIR [PATH...]
"""

from __future__ import annotations

import gc
import os
import sys

from vshell.cli.args import ConfigError, UsageError, build_sandbox, info_text, parse_args
from vshell.cli.run import run_session

USAGE = """\
usage: vshell [--mount HOST:VPATH[:ro|:cow]]... [--deny-path PATTERN]... [--allow-net ENTRY]...
              [--timeout DURATION] [--output-limit BYTES] [--memory-fs-limit BYTES]
              [--memory-limit BYTES] [--max-jobs N]
              [--env NAME=VALUE|NAME]... [--cwd VPATH] [--history-file PATH]
              [--overlay DIR] [--try]
              [-c SCRIPT | FILE [ARG...]]
       vshell changes|diff|discard --overlay DIR
       vshell sync --overlay DIR [PATH...]
"""

HELP = USAGE + """
A bash-compatible shell for AI agents that never starts a host process: every command is
a Python function over a virtual filesystem of host mounts.

options:
  -c SCRIPT                 run SCRIPT and exit with its status
  -euo pipefail, -x, -lc, -s, -O SHOPT
                            bash's own invocation options, read as bash reads them
  --mount HOST:VPATH[:ro|:cow]
                            expose host directory HOST at virtual path VPATH
                            (read-write, read-only with :ro, or copy-on-write
                            with :cow: the host is never written)
  --deny-path PATTERN       refuse access to paths matching PATTERN (e.g. '**/.env')
  --allow-net ENTRY         allow network access to a host name, '*.' wildcard, IP or CIDR
  --timeout DURATION        stop a run after DURATION, e.g. 500ms, 30s, 1m (0: no deadline;
                            default 30s)
  --output-limit BYTES      keep at most BYTES of stdout and of stderr (default 4194304)
  --memory-fs-limit BYTES   file data /tmp, memory mounts and copy-on-write changes may
                            hold together, e.g. 512M (default 1G; 0: no limit); past it
                            writes fail with "No space left on device"
  --memory-limit BYTES      all the memory one run may hold: shell variables, captured
                            output, pipes, in-memory files and every Python guest together
                            (default 2G; 0: no limit); past it the command fails with
                            "cannot allocate memory" and the shell goes on
  --max-jobs N              background jobs running at once (default 64; 0: no limit)
  --env NAME=VALUE | NAME   set a variable, or copy NAME from the host environment
  --cwd VPATH               start in VPATH (default: the first mount, else /)
  --history-file PATH       REPL only: keep the line history in host file PATH across
                            sessions (default: in-session history only)
  --overlay DIR             keep the copy-on-write changes in host directory DIR so a
                            later run resumes them (review with `vshell changes|diff
                            --overlay DIR`, apply with `vshell sync --overlay DIR`)
  --try                     the REPL (or -c SCRIPT / FILE) over the current directory
                            mounted copy-on-write at its own path; the changes are kept
                            for review (in DIR with --overlay, else a fresh directory in
                            the vshell cache; none is left behind when nothing changed)
  -v, --version             print the version and exit
  -h, --help                show this help and exit

With no -c and no FILE, vshell reads commands from standard input (a REPL on a terminal).
`vshell prepare` compiles the Python runtime now (once per machine, about a minute) and
prints where its cache is.
`vshell mcp [options]` serves the sandbox over the Model Context Protocol instead (see
`vshell mcp --help`); run a script file named mcp as ./mcp.
`vshell changes --overlay DIR` lists the kept changes (A added, M modified, D deleted,
T type changed), `diff` shows them as a unified diff, `sync [PATH...]` applies them
(all, or those under PATH; exit 1 and nothing applied on conflict), `discard` drops them.
Run script files with these names as ./changes etc.
`vshell run [-c SCRIPT | FILE]` runs in the persistent session of this git worktree,
`vshell stop` ends it (`vshell run --help`); `vshell hook|install|uninstall|doctor`
connect coding agents' shell tools to it (`vshell hook --help`).  Script files named
run, stop, hook, install, uninstall or doctor run as ./run etc.
Exit status: the script's; 2 for bad usage or a script that does not parse; 137 when the
timeout stops a run; 130 on SIGINT; 143 on SIGTERM.
"""


REVIEW_COMMANDS = ("changes", "diff", "sync", "discard")


def console() -> None:
    """The ``vshell`` command and ``python -m vshell``: :func:`main`, then exit with its status.

    Garbage collection walks the modules' objects again and again while they are made
    (a collection per 700 new objects) and once more at the exit: about 4 ms of a
    ``vshell -c true``, which makes no garbage before its run.  So the entry scripts turn
    the collector off while they import this module; here what exists (modules, nothing a
    run leaves behind) is frozen, out of every collection, and the collector turned back
    on.  After ``main`` the run's own garbage is collected, finalizers and all, as the exit
    would, and the rest frozen too: the exit's collections have nothing left to walk.
    """
    gc.freeze()
    gc.enable()
    status = main()
    gc.collect()
    gc.freeze()
    sys.exit(status)


def main(argv: list[str] | None = None) -> int:
    """The ``vshell`` entry point; a failure of vshell itself is a message, never a traceback."""
    try:
        return _main(argv)
    except KeyboardInterrupt:
        return 130
    except Exception as e:  # noqa: BLE001 - the last line of defence
        if os.environ.get("VSHELL_DEBUG"):
            raise
        sys.stderr.write(f"vshell: internal error: {type(e).__name__}: {e}\n")
        return 125


def _main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "mcp":  # the MCP server subcommand (a script named mcp: ./mcp)
        from vshell.mcp.main import main as mcp_main

        return mcp_main(argv[1:])
    if argv and argv[0] == "prepare":  # compile the Python runtime now (a script: ./prepare)
        from vshell.sandbox import prepare_python

        return prepare_python(argv[1:])
    if argv and argv[0] in ("hook", "install", "uninstall", "doctor"):  # issue 20
        from vshell.harness.cli import harness_main

        return harness_main(argv[0], argv[1:])
    if argv and (argv[0] in ("run", "stop") or argv[0] in REVIEW_COMMANDS and "--scope" in argv):
        from vshell.scope.cli import scope_main

        return scope_main(argv[0], argv[1:], parse_args)
    if argv and argv[0] in REVIEW_COMMANDS:  # a script file named like one: ./changes
        from vshell.cli.review import review_main

        return review_main(argv[0], argv[1:])
    try:
        opts = parse_args(argv)
    except ConfigError as e:
        sys.stderr.write(f"vshell: {e}\n")
        return 2
    except UsageError as e:
        sys.stderr.write(f"vshell: {e}\nTry 'vshell --help' for more information.\n")
        return 2
    info = info_text(opts, HELP)
    if info is not None:
        sys.stdout.write(info)
        return 0
    if opts.try_mode:
        from vshell.cli.review import try_main

        return try_main(opts)
    from vshell.sandbox import SandboxConfigError

    try:
        sb = build_sandbox(opts)
    except SandboxConfigError as e:
        sys.stderr.write(f"vshell: {e}\n")
        return 2
    with sb:
        status = run_session(sb, opts, piped_script=True)
        if opts.overlay is None and any(m == "cow" for _, _, m in opts.mounts):
            # cow changes die with this process: say so
            from vshell.cli.review import discard_notice

            notice = discard_notice(sb)
            if notice:
                sys.stderr.write(notice)
        return status
