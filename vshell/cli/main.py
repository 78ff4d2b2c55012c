"""The ``vshell`` command line: the contract agents and tools rely on.

vshell [--mount HOST:VPATH[:ro|:cow]]... [--deny-path PATTERN]... [--allow-net ENTRY]...
       [--timeout DURATION] [--output-limit BYTES] [--memory-fs-limit BYTES]
       [--memory-limit BYTES] [--max-jobs N]
       [--env NAME=VALUE|NAME]... [--cwd VPATH] [--history-file PATH] [--overlay DIR] [--try]
       [-c SCRIPT [NAME [ARG...]] | FILE [ARG...]]
vshell changes|diff|discard --overlay DIR;  vshell sync --overlay DIR [PATH...]
"""

from __future__ import annotations

import os
import re
import signal
import sys
from typing import TYPE_CHECKING, Any

from vshell import __version__
from vshell.records import field, record

if TYPE_CHECKING:
    from vshell.sandbox import Sandbox

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


class UsageError(Exception):
    """A malformed command line: printed with the ``Try 'vshell --help'`` hint."""


class ConfigError(UsageError):
    """A well-formed option naming something that is not there (no --help hint)."""


@record
class Options:
    mounts: list[tuple[str, str, str]] = field(default_factory=list)
    deny: list[str] = field(default_factory=list)
    allow_net: list[str] = field(default_factory=list)
    timeout: float | None = 30.0
    output_limit: int = 4 * 1024 * 1024
    memory_fs_limit: int | None = 1 << 30
    memory_limit: int | None = 2 << 30
    max_jobs: int | None = 64
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    command: str | None = None
    file: str | None = None
    args: list[str] = field(default_factory=list)
    action: str = "run"
    history_file: str | None = None
    overlay: str | None = None
    try_mode: bool = False


_DURATION = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)")
_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def parse_duration(text: str) -> float | None:
    """Go-style durations ("500ms", "1m30s", "0"); a bare number means seconds."""
    t = text.strip()
    if t in ("0", "0s"):
        return None
    if re.fullmatch(r"\d+(\.\d*)?", t):
        v = float(t)
        return v or None
    pos = 0
    total = 0.0
    for m in _DURATION.finditer(t):
        if m.start() != pos:
            break
        total += float(m.group(1)) * _UNITS[m.group(2)]
        pos = m.end()
    if pos != len(t) or not t:
        raise UsageError(f"invalid duration {text!r} (use e.g. 500ms, 30s, 1m)")
    return total or None


def parse_size(text: str) -> int:
    m = re.fullmatch(r"(\d+)([kKmMgG]i?[bB]?|[bB])?", text.strip())
    if not m:
        raise UsageError(f"invalid byte count {text!r}")
    n = int(m.group(1))
    unit = (m.group(2) or "").lower()[:1]
    return n * {"": 1, "b": 1, "k": 1024, "m": 1024**2, "g": 1024**3}[unit]


def parse_args(argv: list[str]) -> Options:
    o = Options()
    specs: list[str] = []  # the --mount texts, for messages naming an earlier one
    i = 0

    def value(flag: str) -> str:
        nonlocal i
        if "=" in argv[i] and argv[i].startswith("--"):
            return argv[i].split("=", 1)[1]
        if i + 1 >= len(argv) or (argv[i + 1].startswith("-") and len(argv[i + 1]) > 1):
            raise UsageError(f"option {flag} requires an argument")
        i += 1
        return argv[i]

    while i < len(argv):
        a = argv[i]
        name = a.split("=", 1)[0] if a.startswith("--") else a
        if name in ("-h", "--help"):
            o.action = "help"
            return o
        if name in ("-v", "--version"):
            o.action = "version"
            return o
        if name == "--mount":
            spec = value(name)
            mount = _parse_mount(spec)
            _check_host(spec, mount[0])
            for earlier, (_, vpath, _) in zip(specs, o.mounts, strict=True):
                if vpath.rstrip("/") == mount[1].rstrip("/"):
                    raise UsageError(f"--mount {spec}: {vpath} is already mounted by "
                                     f"--mount {earlier}")
            specs.append(spec)
            o.mounts.append(mount)
        elif name == "--deny-path":
            o.deny.append(value(name))
        elif name == "--allow-net":
            o.allow_net.append(value(name))
        elif name == "--timeout":
            o.timeout = parse_duration(value(name))
        elif name == "--output-limit":
            o.output_limit = parse_size(value(name))
        elif name == "--memory-fs-limit":
            o.memory_fs_limit = parse_size(value(name)) or None
        elif name == "--memory-limit":
            o.memory_limit = parse_size(value(name)) or None
        elif name == "--max-jobs":
            o.max_jobs = _parse_count(name, value(name)) or None
        elif name == "--env":
            entry = value(name)
            k, eq, v = entry.partition("=")
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", k):
                raise UsageError(f"invalid --env entry {entry!r}")
            if eq:
                o.env[k] = v
            elif k in os.environ:
                o.env[k] = os.environ[k]
        elif name == "--cwd":
            o.cwd = value(name)
            if not o.cwd.startswith("/"):
                raise UsageError(f"--cwd {o.cwd}: must be an absolute path in the sandbox"
                                 " (a mount point such as /work, or a directory under one)")
        elif name == "--history-file":
            o.history_file = value(name)
        elif name == "--overlay":
            o.overlay = value(name)
        elif name == "--try":
            o.try_mode = True
        elif a == "-c":
            if i + 1 >= len(argv):
                raise UsageError("option -c requires an argument")
            o.command = argv[i + 1]
            o.args = argv[i + 2 :]
            return o
        elif a == "--":
            if i + 1 < len(argv):
                o.file = argv[i + 1]
                o.args = argv[i + 2 :]
            return o
        elif a.startswith("-") and a != "-":
            raise UsageError(f"unknown option {a}")
        else:
            o.file = a
            o.args = argv[i + 1 :]
            return o
        i += 1
    return o


_MODES = ("ro", "rw", "cow")


def _parse_mount(spec: str) -> tuple[str, str, str]:
    """``HOST:VPATH[:MODE]`` as (host, vpath, mode); each fault named in its own words."""
    parts = spec.split(":")
    mode = "rw"
    if len(parts) >= 3 and not parts[-1].startswith("/"):
        mode = parts.pop()
        if mode not in _MODES:
            raise UsageError(f"--mount {spec}: unknown mode {mode!r} (use ro or cow)")
        if len(parts) >= 3 and parts[-1] in _MODES:
            raise UsageError(f"--mount {spec}: more than one mode ({parts[-1]} and {mode});"
                             " give one of ro or cow")
    host, vpath = ":".join(parts[:-1]), parts[-1]
    if len(parts) < 2 or not host or not vpath:
        raise UsageError(f"--mount {spec}: want HOST:VPATH[:ro|:cow], e.g. --mount .:/work")
    if not vpath.startswith("/"):
        raise UsageError(f"--mount {spec}: VPATH {vpath!r} must be an absolute path in the"
                         " sandbox, e.g. /work")
    if any(p in (".", "..") for p in vpath.split("/")):
        raise UsageError(f"--mount {spec}: VPATH {vpath!r} must not contain '.' or '..'")
    return host, vpath, mode


def _check_host(spec: str, host: str) -> None:
    """A mount's host side must be an existing directory (said before any sandbox starts)."""
    if not os.path.exists(host):
        raise ConfigError(f"--mount {spec}: no such directory: {host}")
    if not os.path.isdir(host):
        raise ConfigError(f"--mount {spec}: not a directory: {host}")


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


def _parse_count(flag: str, text: str) -> int:
    if not text.isdigit() or len(text) > 9:
        raise UsageError(f"invalid {flag} value {text!r} (a whole number)")
    return int(text)


def build_sandbox(opts: Options) -> Sandbox:
    """The Sandbox the sandbox flags describe (shared by the shell and ``vshell mcp``)."""
    from vshell.sandbox import HostMount, Sandbox

    return Sandbox(
        mounts=[HostMount(h, v, readonly=m == "ro", cow=m == "cow") for h, v, m in opts.mounts],
        deny=opts.deny,
        allow_net=opts.allow_net,
        env=opts.env,
        timeout=opts.timeout,
        output_limit=opts.output_limit,
        memory_fs_limit=opts.memory_fs_limit,
        memory_limit=opts.memory_limit,
        max_jobs=opts.max_jobs,
        cwd=opts.cwd,
        overlay_dir=opts.overlay,
    )


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
    if opts.action == "help":
        sys.stdout.write(HELP)
        return 0
    if opts.action == "version":
        sys.stdout.write(f"vshell {__version__}\n")
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
        if opts.command is not None:
            sb.dash_c = True
            status = run_script(sb, opts.command, opts.args, None)
        elif opts.file is not None:
            status = run_file(sb, opts.file, opts.args)
        elif sys.stdin is not None and not sys.stdin.isatty():
            status = _run_stdin_script(sb)
        else:
            from vshell.cli.repl import run_repl

            status = run_repl(sb, history_file=opts.history_file)
        if opts.overlay is None and any(m == "cow" for _, _, m in opts.mounts):
            # cow changes die with this process: say so
            from vshell.cli.review import discard_notice

            notice = discard_notice(sb)
            if notice:
                sys.stderr.write(notice)
        return status


class _Signals:
    """SIGINT / SIGTERM cancel the running script; the status says which."""

    def __init__(self) -> None:
        self.token = None
        self.received: int | None = None

    def __enter__(self) -> _Signals:
        self._old = {}
        for sig in (signal.SIGINT, signal.SIGTERM):
            try:
                self._old[sig] = signal.signal(sig, self._handle)
            except ValueError:
                pass
        return self

    def _handle(self, signum: int, frame: object) -> None:
        self.received = signum
        if self.token is not None:
            self.token.cancel("interrupt" if signum == signal.SIGINT else "terminate")

    def __exit__(self, *exc: object) -> None:
        for sig, old in self._old.items():
            signal.signal(sig, old)


# A C loop that never lets go of the interpreter (Python's ``re`` backtracking through a
# pathological pattern, say) starves the thread that enforces --timeout.  The kernel does
# not need the interpreter: SIGALRM, left at its default action, ends the process (status
# 142) once the timeout and this grace have passed.  Only the one-shot CLI arms it.
_WATCHDOG_GRACE = 5


def _arm_watchdog(timeout: float | None) -> bool:
    if not timeout or not hasattr(signal, "alarm"):
        return False
    try:
        if signal.getsignal(signal.SIGALRM) not in (signal.SIG_DFL, None):
            return False  # someone else owns SIGALRM (vshell as a library in a host)
        signal.alarm(int(timeout) + _WATCHDOG_GRACE + 1)
    except (ValueError, OSError):  # not the main thread
        return False
    return True


def run_script(sb, script: str, args: list[str], name: str | None) -> int:  # type: ignore[no-untyped-def]

    if args:
        sb._state.script_name = args[0]
        sb._state.positional = list(args[1:])
    elif name is not None:
        sb._state.script_name = name
    stdin = sys.stdin.buffer if sys.stdin is not None else None
    out = _StdStream(sys.stdout.buffer)
    err = _StdStream(sys.stderr.buffer)
    res, stopped = _exec_once(sb, script, stdin, out, err)
    return stopped if stopped is not None else res.exit_code


def _exec_once(sb, script: str, stdin: Any, out: Any, err: Any) -> tuple[Any, int | None]:  # type: ignore[no-untyped-def]
    """One ``exec`` under the CLI's signal handlers and watchdog: its Result, and the status
    a signal, a cancel or the timeout stopped it with (None when it ran to its end)."""
    from vshell.command import CancelToken
    from vshell.result import Outcome

    with _Signals() as sigs:
        token = CancelToken()
        sigs.token = token  # type: ignore[assignment]
        armed = _arm_watchdog(sb.timeout)
        try:
            res = sb.exec(script, stdin=stdin, stdout=out, stderr=err, cancel=token)
        finally:
            if armed:
                signal.alarm(0)
    if res.truncated:
        sys.stderr.write(f"vshell: output truncated at {sb.output_limit} bytes\n")
    if sigs.received == signal.SIGTERM:
        return res, 143
    if sigs.received == signal.SIGINT or res.outcome is Outcome.CANCELED:
        return res, 130
    if res.outcome is Outcome.TIMED_OUT:
        return res, 137
    return res, None


def run_file(sb, path: str, args: list[str]) -> int:  # type: ignore[no-untyped-def]
    from vshell.command import normpath

    full = normpath(path if path.startswith("/") else sb.cwd.rstrip("/") + "/" + path)
    try:
        with sb.fs.open(full, "rb") as f:
            source = f.read().decode("utf-8", "surrogateescape")
    except IsADirectoryError:
        sys.stderr.write(f"vshell: {path}: Is a directory\n")
        return 126
    except OSError as e:
        sys.stderr.write(f"vshell: {path}: {e.strerror or e}\n")
        return 127
    sb._state.positional = list(args)
    sb._state.main_file = path  # BASH_SOURCE's bottom entry, FUNCNAME's "main"
    return run_script(sb, source, [], path)


class _SignalWhileReading(Exception):
    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _read_script_line(stream) -> bytes:  # type: ignore[no-untyped-def]
    """The next line of a piped script; SIGINT/SIGTERM while waiting for it end the shell."""
    def on_signal(signum: int, frame: object) -> None:
        raise _SignalWhileReading(signum)

    old = {}
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            old[sig] = signal.signal(sig, on_signal)
        except ValueError:
            pass
    try:
        return stream.readline()
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)


def _run_stdin_script(sb) -> int:  # type: ignore[no-untyped-def]
    """A script piped to vshell runs as bash runs one: each complete command runs before the
    next line is read, from the same stream its commands read (``read x`` takes the next
    line); a syntax error ends the shell with 2, line numbers counting on; the EXIT trap
    runs at the end.  Each command has its own --timeout, so a pipe may feed a session.
    SIGINT stops the running command and the script goes on; SIGTERM ends it (143)."""
    from vshell.result import Outcome
    from vshell.syntax import is_complete

    stream = sys.stdin.buffer
    out = _StdStream(sys.stdout.buffer)
    err = _StdStream(sys.stderr.buffer)
    sb._state.stdin_script = True  # the interpreter defers the EXIT trap, reports as -s
    status, line_base, buf = 0, 0, ""

    def run(script: str) -> tuple[int, bool]:
        res, stopped = _exec_once(sb, script, stream, out, err)
        if stopped is not None:
            return stopped, stopped == 143
        ended = res.outcome is Outcome.INVALID or bool(getattr(sb, "_exit_requested", False))
        return res.exit_code, ended

    try:
        while True:
            try:
                line = _read_script_line(stream)
            except _SignalWhileReading as e:
                return 128 + e.signum
            if line:
                buf += line.decode("utf-8", "surrogateescape")
                if not is_complete(buf):
                    continue
            if buf.strip():
                sb._state.script_first_line = line_base + 1  # LINENO and messages count on
                status, ended = run(buf)
                if ended:
                    return status
            line_base += buf.count("\n")
            buf = ""
            if not line:
                break
        sb._state.stdin_script = False
        sb._state.last_status = status
        return run("")[0]
    finally:
        sb._state.stdin_script = None
        sb._state.script_first_line = 1


class _StdStream:
    """Host stdout/stderr for streaming output; a closed reader is a broken pipe."""

    def __init__(self, raw) -> None:  # type: ignore[no-untyped-def]
        self.raw = raw

    def write(self, data: bytes) -> int:
        try:
            self.raw.write(data)
        except (BrokenPipeError, ValueError):
            raise BrokenPipeError(32, "Broken pipe") from None
        return len(data)

    def flush(self) -> None:
        try:
            self.raw.flush()
        except (BrokenPipeError, ValueError, OSError):
            raise BrokenPipeError(32, "Broken pipe") from None
