"""Running a script from the command line: ``-c SCRIPT``, a script FILE, or one piped in.

Each run goes through one ``exec`` helper under the CLI's signal handlers (SIGINT and
SIGTERM cancel the run; the status says which) and, for the one-shot CLI, a SIGALRM
watchdog past the timeout.
"""

from __future__ import annotations

import sys

from vshell.cli.streams import StdStream
from vshell.command import CancelToken, normpath
from vshell.result import Outcome, Result

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    import signal
    from typing import Any, BinaryIO

    from vshell.cli.args import Options
    from vshell.sandbox import Sandbox
else:  # signal's functions and numbers, without the enums signal.py builds (~0.5 ms)
    import _signal as signal


class _Signals:
    """SIGINT / SIGTERM cancel the running script; the status says which."""

    def __init__(self) -> None:
        self.token: CancelToken | None = None
        self.received: int | None = None
        self._old: dict[signal.Signals, Any] = {}

    def __enter__(self) -> _Signals:
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


def run_session(sb: Sandbox, opts: Options, *, piped_script: bool) -> int:
    """Run what the command line chose on ``sb``: ``-c SCRIPT``, a FILE, else (with
    ``piped_script``) a script piped to stdin, else the REPL; the exit status."""
    if opts.shell_prelude is not None:  # bash's invocation options, in force before the run
        res = sb.exec(opts.shell_prelude, stdout=StdStream(sys.stdout.buffer),
                      stderr=StdStream(sys.stderr.buffer))
        if res.exit_code != 0:
            return 2
    if opts.stdin_script:
        sb.set_script(None, opts.args)
        return run_stdin_script(sb)
    if opts.command is not None:
        sb.dash_c = True
        return run_script(sb, opts.command, opts.args, None)
    if opts.file is not None:
        return run_file(sb, opts.file, opts.args)
    if piped_script and sys.stdin is not None and not sys.stdin.isatty():
        return run_stdin_script(sb)
    from vshell.cli.repl import run_repl  # only a session without -c or FILE needs it

    return run_repl(sb, history_file=opts.history_file)


def run_script(sb: Sandbox, script: str, args: list[str], name: str | None) -> int:
    """Run ``script`` (``-c`` or a file's text) with ``args`` as $0 and the positionals."""
    if args:
        sb.set_script(args[0], args[1:])
    elif name is not None:
        sb.set_script(name)
    stdin = sys.stdin.buffer if sys.stdin is not None else None
    out = StdStream(sys.stdout.buffer)
    err = StdStream(sys.stderr.buffer)
    res, stopped = _exec_once(sb, script, stdin, out, err)
    return stopped if stopped is not None else res.exit_code


def _exec_once(sb: Sandbox, script: str, stdin: BinaryIO | None, out: StdStream,
               err: StdStream) -> tuple[Result, int | None]:
    """One ``exec`` under the CLI's signal handlers and watchdog: its Result, and the status
    a signal, a cancel or the timeout stopped it with (None when it ran to its end)."""
    with _Signals() as sigs:
        token = CancelToken()
        sigs.token = token
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


def run_file(sb: Sandbox, path: str, args: list[str]) -> int:
    """Run the script FILE (a path in the sandbox, relative to its cwd) with ``args``."""
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
    sb.set_script(args=args, main_file=path)
    return run_script(sb, source, [], path)


class _SignalWhileReading(Exception):
    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _read_script_line(stream: BinaryIO) -> bytes:
    """The next line of a piped script; SIGINT/SIGTERM while waiting for it end the shell."""
    def on_signal(signum: int, frame: object) -> None:
        raise _SignalWhileReading(signum)

    old: dict[signal.Signals, Any] = {}
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            old[sig] = signal.signal(sig, on_signal)
        except ValueError:
            pass
    try:
        return stream.readline()
    finally:
        for restored, handler in old.items():
            signal.signal(restored, handler)


def run_stdin_script(sb: Sandbox) -> int:
    """A script piped to vshell runs as bash runs one: each complete command runs before the
    next line is read, from the same stream its commands read (``read x`` takes the next
    line); a syntax error ends the shell with 2, line numbers counting on; the EXIT trap
    runs at the end.  Each command has its own --timeout, so a pipe may feed a session.
    SIGINT stops the running command and the script goes on; SIGTERM ends it (143)."""
    from vshell.syntax import is_complete

    stream = sys.stdin.buffer
    out = StdStream(sys.stdout.buffer)
    err = StdStream(sys.stderr.buffer)
    # the piped-script fields are set on the session here and read (getattr) by the shell
    state: Any = sb._state
    state.stdin_script = True  # the interpreter defers the EXIT trap, reports as -s
    sb.keep_descriptors = True  # `exec 3>f` on one line serves the next, as in bash
    status, line_base, buf = 0, 0, ""

    def run(script: str) -> tuple[int, bool]:
        res, stopped = _exec_once(sb, script, stream, out, err)
        if stopped is not None:
            return stopped, stopped == 143
        ended = res.outcome is Outcome.INVALID or sb.exit_requested
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
                state.script_first_line = line_base + 1  # LINENO and messages count on
                status, ended = run(buf)
                if ended:
                    return status
            line_base += buf.count("\n")
            buf = ""
            if not line:
                break
        state.stdin_script = False
        state.last_status = status
        return run("")[0]
    finally:
        state.stdin_script = None
        state.script_first_line = 1
