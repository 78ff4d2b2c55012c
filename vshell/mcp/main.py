"""``vshell mcp [sandbox flags] [mcp flags]``: argument handling for the MCP subcommand.

The sandbox flags are parsed by :func:`vshell.cli.args.parse_args` itself, so the server and the
shell can never disagree on what ``--mount`` or ``--deny-path`` means; only the four
server flags are taken out first.
"""

from __future__ import annotations

import logging
import os
import re
import sys
from typing import Any

from vshell.cli.args import (
    UsageError,
    build_sandbox,
    info_text,
    parse_args,
    parse_duration,
    parse_size,
    sandbox_options,
)
from vshell.mcp import clientconfig
from vshell.mcp.budget import DEFAULT_MAX_RESULT_BYTES
from vshell.records import record

USAGE = """\
usage: vshell mcp [--mount HOST:VPATH[:ro|:cow]]... [--deny-path PATTERN]... [--allow-net ENTRY]...
                  [--timeout DURATION] [--output-limit BYTES] [--memory-fs-limit BYTES]
                  [--memory-limit BYTES] [--max-jobs N]
                  [--env NAME=VALUE|NAME]... [--cwd VPATH] [--overlay DIR]
                  [--command-timeout DURATION] [--max-result-bytes BYTES]
                  [--http [HOST:]PORT] [--token TOKEN]
                  [--workers N] [--worker-memory BYTES] [--max-sessions N]
                  [--session-ttl DURATION]
"""

HELP = USAGE + """
Serve persistent vshell sessions over the Model Context Protocol, one per MCP session
(stdio: the one client; HTTP: each Mcp-Session-Id), each in a worker process: tools bash, read,
write, edit, list, glob and view_image, job_start, job_output, job_send, job_signal,
job_kill and jobs for background jobs, and changes, diff and sync to review and apply
what the session wrote to --mount HOST:VPATH:cow mounts.  Over stdio by default (stdout carries
only the protocol; logs go to stderr), or streamable HTTP at http://HOST:PORT/mcp with
--http.

The sandbox flags are those of `vshell` (see `vshell --help`) but the REPL's --try and
--history-file.  --timeout, when given, is a hard ceiling for every command; without it
only --command-timeout applies.

server options:
  --command-timeout DURATION  stop a bash call that passes no `timeout` after DURATION
                              (default 60s; 0: no default)
  --max-result-bytes BYTES    budget for one encoded tool result (default 8388608; 0: none);
                              larger output is cut head + tail with a marker
  --http [HOST:]PORT          serve streamable HTTP instead of stdio (HOST defaults to
                              127.0.0.1; PORT 0 picks a free port, printed on stderr)
  --token TOKEN               HTTP only: require `Authorization: Bearer TOKEN` (also read
                              from $VSHELL_MCP_TOKEN)
  --print-config CLIENT       print the JSON config block for CLIENT (claude-desktop, cursor,
                              vscode, claude-code, windsurf) that starts this vshell by
                              absolute path with the other flags given, and exit

pool options:
  --workers N                 worker processes started ahead of time (default: the number
                              of cores); 0 runs every session in this process, on threads
  --worker-memory BYTES       cap each worker's memory (an rlimit; default 4G; 0: none); a
                              worker over it is replaced and its sessions' state is lost
  --max-sessions N            sessions open at once (default 32; 0: no limit; --overlay
                              allows 1); one more is refused with E_TOO_MANY_SESSIONS
  --session-ttl DURATION      HTTP only: end a session idle for DURATION (default 30m;
                              0: never); DELETE ends one at once
"""


@record
class ServerOptions:
    command_timeout: float | None = 60.0
    max_result_bytes: int = DEFAULT_MAX_RESULT_BYTES
    http: tuple[str, int] | None = None
    token: str | None = None
    timeout_given: bool = False
    workers: int | None = None  # None: one per core
    worker_memory: int | None = 4 << 30
    max_sessions: int = 32
    session_ttl: float | None = 1800.0


_LOOPBACK = ("127.0.0.1", "localhost", "::1")
_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
_OWN = ("--command-timeout", "--max-result-bytes", "--http", "--token", "--workers",
        "--worker-memory", "--max-sessions", "--session-ttl")


def split_args(argv: list[str]) -> tuple[ServerOptions, list[str]]:
    """Take the server's own flags out of ``argv``; the rest are sandbox flags."""
    so = ServerOptions()
    rest: list[str] = []
    i = 0
    while i < len(argv):
        a = argv[i]
        name, eq, inline = a.partition("=") if a.startswith("--") else (a, "", "")
        if name not in _OWN:
            if name == "--timeout":
                so.timeout_given = True
            rest.append(a)
            i += 1
            continue
        if eq:
            val = inline
        elif i + 1 < len(argv):
            i += 1
            val = argv[i]
        else:
            raise UsageError(f"option {name} requires an argument")
        if name == "--command-timeout":
            so.command_timeout = parse_duration(val)
        elif name == "--max-result-bytes":
            so.max_result_bytes = parse_size(val)
        elif name == "--http":
            so.http = parse_listen(val)
        elif name in ("--workers", "--max-sessions"):
            if not re.fullmatch(r"\d{1,6}", val.strip()):
                raise UsageError(f"invalid {name} {val!r} (want a whole number)")
            if name == "--workers":
                so.workers = int(val)
            else:
                so.max_sessions = int(val)
        elif name == "--worker-memory":
            so.worker_memory = parse_size(val) or None
        elif name == "--session-ttl":
            so.session_ttl = parse_duration(val) or None
        else:
            so.token = val
        i += 1
    return so, rest


def parse_listen(text: str) -> tuple[str, int]:
    """``PORT``, ``:PORT``, ``HOST:PORT`` or ``[V6]:PORT``; the host defaults to loopback."""
    m = re.fullmatch(r"(?:\[([0-9A-Fa-f:.]+)\]|([^:\[\]]*))?:?(\d{1,5})", text.strip())
    if not m or int(m.group(3)) > 65535:
        raise UsageError(f"invalid --http {text!r} (want [HOST:]PORT, e.g. 127.0.0.1:8765)")
    host = m.group(1) or m.group(2) or "127.0.0.1"
    return host, int(m.group(3))


def main(argv: list[str]) -> int:
    """Entry point of ``vshell mcp``; returns the process exit status."""
    try:
        client, argv = clientconfig.split_print_config(argv)
        so, rest = split_args(argv)
        opts = parse_args(rest)
        if opts.action == "run" and (opts.command is not None or opts.file is not None):
            bad = "-c" if opts.command is not None else opts.file
            raise UsageError(f"vshell mcp takes no script ({bad!r})")
        if opts.shell_prelude is not None or opts.stdin_script:
            raise UsageError("bash's invocation options (-e, -o NAME, -s, ...) are for the shell;"
                             " a session sets them with `set` in a bash call")
        for flag, given in (("--try", opts.try_mode), ("--history-file", opts.history_file)):
            if given:
                raise UsageError(f"{flag} is for the REPL, not for vshell mcp")
    except (UsageError, clientconfig.ConfigError) as e:
        sys.stderr.write(f"vshell mcp: {e}\nTry 'vshell mcp --help' for more information.\n")
        return 2
    if client is not None:
        return clientconfig.print_config(client, argv)
    info = info_text(opts, HELP)
    if info is not None:
        sys.stdout.write(info)
        return 0
    if so.token and so.http is None:
        sys.stderr.write("vshell mcp: --token only applies with --http\n")
        return 2
    token = so.token or os.environ.get("VSHELL_MCP_TOKEN") or None
    if so.http is not None and not token and so.http[0] not in _LOOPBACK:
        sys.stderr.write(f"vshell mcp: warning: serving {so.http[0]} without --token; anyone "
                         "who can reach it can run commands in the sandbox\n")
    try:
        from vshell.mcp import server
    except ImportError as e:
        sys.stderr.write(f"vshell mcp: the MCP SDK is not installed ({e}); "
                         "install it with: pip install 'vshell[mcp]'\n")
        return 2
    from vshell.sandbox import SandboxConfigError

    if not so.timeout_given:
        opts.timeout = None  # the per-call default (--command-timeout) governs instead
    try:
        build_sandbox(opts).close()  # bad options fail here, before any session or worker
    except SandboxConfigError as e:
        sys.stderr.write(f"vshell mcp: {e}\n")
        return 2
    level = os.environ.get("VSHELL_MCP_LOG", "WARNING").upper()
    logging.basicConfig(stream=sys.stderr,  # stdout is the protocol: logs go to stderr only
                        level=level if level in _LEVELS else "WARNING",
                        format="vshell mcp: %(levelname)s %(name)s: %(message)s")
    sessions = _sessions(so, sandbox_options(opts))
    if so.http is not None:
        host, port = so.http
        return server.serve_http(sessions, host, port, token)
    return server.serve_stdio(sessions)


def _sessions(so: ServerOptions, options: dict[str, Any]) -> Any:
    """The server's sessions: in worker processes, or in this process with --workers 0."""
    from vshell.mcp.sessions import InProcessSession, PooledSession, Sessions
    from vshell.mcp.tools import ServerConfig
    from vshell.sandbox import Sandbox

    cfg = ServerConfig(so.command_timeout, so.max_result_bytes)
    # one overlay directory holds one session's changes: a second session would share it
    limit = 1 if options.get("overlay_dir") else so.max_sessions
    ttl = so.session_ttl if so.http is not None else None
    if so.workers == 0:
        return Sessions(lambda: InProcessSession(Sandbox(**options), cfg),
                        max_sessions=limit, ttl=ttl)
    from vshell.pool import SandboxPool

    pool = SandboxPool(so.workers or os.cpu_count() or 1, worker_memory=so.worker_memory,
                       preload=("vshell.mcp.tools",), **options)
    return Sessions(lambda: PooledSession(pool.session(eager=False), cfg),
                    max_sessions=limit, ttl=ttl, pool=pool)
