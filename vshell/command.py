"""The one contract every command follows, builtin or registered by a host.

A command is a name, a description and ``run(inv) -> int | None``.  It may raise
:class:`Exit` to end with a status and an optional message (printed as ``name: message``).
An ``OSError`` escaping ``run`` is printed as GNU tools print it (``name: path: strerror``)
with status 1; :class:`ReaderGone` (a reader that went away, what ``inv.stdout`` raises
for a BrokenPipeError or a closed stream) ends it with status 141.
"""

from __future__ import annotations

import errno as _errno
import os
import threading
import time
from time import monotonic as _monotonic  # CancelToken.reason, asked at every command

from vshell.lazy import lazy_compile
from vshell.records import field, record

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import IO, Any, TypeAlias

    from vshell.protocols import HTTPClient as HTTPClient
    from vshell.protocols import InputStream as InputStream
    from vshell.protocols import OutputStream as OutputStream
    from vshell.protocols import PythonOptions as PythonOptions
    from vshell.result import Result
    from vshell.vfs import VFS

_INF = float("inf")  # math.inf (the math module is one more import at start-up)
NAME_RE = lazy_compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*\Z")


class Exit(Exception):
    """End a command with ``status``; ``message`` (if any) goes to stderr as ``name: message``."""

    def __init__(self, status: int = 0, message: str | None = None) -> None:
        super().__init__(message or "")
        self.status = status
        self.message = message


def exitf(status: int, fmt: str, *args: object) -> Exit:
    """Build an :class:`Exit` with a %-formatted message (sbsh's ``Exitf``)."""
    return Exit(status, fmt % args if args else fmt)


class Cancelled(BaseException):
    """Raised inside a run when its timeout passed or its caller cancelled it.

    A BaseException so that a command's ``except Exception`` cannot swallow it.
    """


class _Held:
    """What a run holds back until one of its threads would wait (see CancelToken.hold);
    one for a token and all its children."""

    __slots__ = ("starts", "due", "sleepers")

    def __init__(self) -> None:
        self.starts: list[Callable[[], object]] = []
        self.due = _INF  # from then on a check() starts it all too
        # the conditions threads of the run sleep on (CancelToken.sleep): cancel() wakes them
        self.sleepers: set[threading.Condition] = set()


def _wake(sleepers: list[threading.Condition]) -> None:
    for cond in sleepers:
        with cond:
            cond.notify_all()


class CancelToken:
    """One per run: checked at every command, loop iteration and pipe read/write.

    It also carries what the run holds back until one of its threads would wait: a
    pipeline runs its stages one after the other on one thread, and a stage that is
    about to wait (a sleep, a pipe, a FIFO, another thread) calls :meth:`waiting` first,
    which starts the stages not started yet, since it may be waiting for one of them.
    """

    __slots__ = ("_reason", "deadline", "_held")

    def __init__(self, deadline: float | None = None) -> None:
        self.deadline = deadline  # time.monotonic() value, or None
        self._reason: str | None = None
        self._held = _Held()  # a child token shares its parent's

    def cancel(self, reason: str = "canceled") -> None:
        self._reason = reason
        sleepers = self._held.sleepers
        if sleepers:
            # from a thread of its own: cancel() may run in a signal handler, on a thread
            # that holds one of these conditions' locks
            threading.Thread(target=_wake, args=(list(sleepers),), name="vshell-wake",
                             daemon=True).start()

    def sleep(self, cond: threading.Condition) -> None:
        """Wait on ``cond`` (its lock held) until it is notified, the deadline passes or the
        run is cancelled, then raise :class:`Cancelled` if the run must stop.

        Why not a short timeout and a look at :attr:`reason`: hundreds of threads that
        wake every few milliseconds (the stages of a deep recursion through pipelines)
        take the GIL from the one thread doing the work, and the run slows a hundredfold.
        """
        sleepers = self._held.sleepers
        sleepers.add(cond)
        try:
            # after the add: a cancel() before it is seen here, one after it notifies us
            if self.reason is None:
                deadline = self.deadline
                cond.wait(None if deadline is None else max(deadline - _monotonic(), 0.0))
        finally:
            sleepers.discard(cond)
        reason = self.reason
        if reason is not None:
            raise Cancelled(reason)

    @property
    def reason(self) -> str | None:
        reason = self._reason
        if reason is None:
            deadline = self.deadline
            if deadline is not None and _monotonic() >= deadline:
                reason = self._reason = "timeout"
        return reason

    def check(self) -> None:
        """Raise :class:`Cancelled` when the run must stop.  (Past the time given to
        :meth:`hold`, it also starts the work held back.)"""
        if self.reason is not None:
            raise Cancelled(self._reason)
        held = self._held
        if held.starts and time.monotonic() >= held.due:
            self.start_held()

    def hold(self, start: Callable[[], object], after: float = _INF) -> None:
        """Note work held back until a thread of the run would wait: :meth:`waiting` calls
        ``start`` (which starts it and calls :meth:`unhold`), and so does a :meth:`check`
        ``after`` seconds from now (output a later stage shows keeps flowing while an
        earlier one runs long)."""
        held = self._held
        held.starts.append(start)
        held.due = min(held.due, time.monotonic() + after)

    def unhold(self, start: Callable[[], object]) -> None:
        """Forget ``start`` (its work has started, or ended)."""
        held = self._held
        try:
            held.starts.remove(start)
        except ValueError:
            pass
        if not held.starts:
            held.due = _INF

    @property
    def holding(self) -> bool:
        """Whether some work is held back (:meth:`hold`) and not started yet."""
        return bool(self._held.starts)

    def start_held(self) -> None:
        """Start all the work held back (see :meth:`hold`)."""
        starts = self._held.starts
        if starts:
            for start in starts[:]:
                start()

    def waiting(self) -> None:
        """Call before a wait that may last (a sleep, a full or empty pipe, a FIFO, another
        thread): raises :class:`Cancelled` when the run must stop, else starts the work
        the run held back, which the caller may be about to wait for.  One list test when
        nothing is held."""
        if self.reason is not None:
            raise Cancelled(self._reason)
        if self._held.starts:
            self.start_held()

    def child(self, timeout: float | None = None) -> CancelToken:
        """A token that stops when this one does, or ``timeout`` seconds from now."""
        import time

        deadline = self.deadline
        if timeout is not None and timeout > 0:
            own = time.monotonic() + timeout
            deadline = own if deadline is None else min(deadline, own)
        return _ChildToken(self, deadline)

    def postpone(self, seconds: float) -> None:
        """Move the deadline (and every parent's) ``seconds`` later: time the run spent on
        something it is not charged for (compiling the Python runtime once)."""
        if self.deadline is not None:
            self.deadline += seconds

    def remaining(self) -> float | None:
        """Seconds left before the deadline (None: no deadline)."""
        if self.deadline is None:
            return None
        import time

        return max(0.0, self.deadline - time.monotonic())


class _ChildToken(CancelToken):
    """Cancelled with its parent, or on its own (tighter) deadline."""

    __slots__ = ("_parent",)

    def __init__(self, parent: CancelToken, deadline: float | None) -> None:
        super().__init__(deadline)
        self._parent = parent
        self._held = parent._held  # one for the run: a wait anywhere starts it all

    @property
    def reason(self) -> str | None:
        parent = self._parent.reason
        if parent is not None:
            return parent
        return super().reason

    def postpone(self, seconds: float) -> None:
        CancelToken.postpone(self, seconds)
        self._parent.postpone(seconds)

    def own_timeout(self) -> bool:
        """True when this token's own deadline, not the parent, stopped the run."""
        return self._parent.reason is None and super().reason is not None


@record
class NestedRequest:
    """What ``inv.run_nested`` runs: a script in a fresh session of the same sandbox."""

    script: str
    env: list[str] = field(default_factory=list)
    dir: str | None = None
    timeout: float | None = None
    output_limit: int | None = None


@record
class Invocation:
    """Everything one command call gets, and nothing that mentions the shell.

    The streams belong to the shell and are not valid after ``run`` returns.  ``fs`` is
    the sandbox filesystem with mounts and deny rules in force (bound to this call's
    descriptors so ``/dev/stdin`` and ``/dev/fd/N`` mean this call's streams).
    ``http`` is the policy-checked httpx client, None when no network was allowed.
    """

    name: str
    args: list[str]
    dir: str
    stdin: IO[bytes]
    stdout: IO[bytes]
    stderr: IO[bytes]
    env: Mapping[str, str]
    fs: VFS
    cancel: CancelToken
    http: HTTPClient | None = None
    python: PythonOptions | None = None
    # Runs argv as a command of this sandbox (functions excluded), for xargs, find -exec,
    # timeout, env, awk system(); returns the exit status.
    run_command: Callable[..., int] | None = None
    nested: Callable[[NestedRequest], Result] | None = None

    def abs(self, path: str) -> str:
        """Resolve ``path`` against the working directory (a virtual path), ``..``
        physically as the kernel does.

        A trailing ``/`` (or ``/.``) is kept: it makes the path name a directory, so a
        symlink there is followed (``stat link/`` is the directory's status)."""
        return absolute(self.dir, path, self.fs)

    def getenv(self, name: str, default: str = "") -> str:
        return self.env.get(name, default)

    def run_nested(self, request: NestedRequest | None = None, **kw: Any) -> Result:
        """Run a script back inside this sandbox in a fresh session (see README).

        The child starts in this call's directory (a relative ``dir`` resolves against it)
        and keeps this call's ``HOME``: the invocation, not the session, is the caller.
        """
        if request is None:
            request = NestedRequest(**kw)
        if self.nested is None:
            from vshell.result import Outcome, Result

            return Result(Outcome.UNSUPPORTED, 126, b"", b"nested execution is not available\n")
        from vshell.records import replace

        home = self.env.get("HOME")
        request = replace(
            request,
            dir=self.abs(request.dir) if request.dir else self.dir,
            env=([f"HOME={home}"] if home is not None else []) + list(request.env),
        )
        self.cancel.waiting()  # the caller waits for the nested run
        return self.nested(request)

    def error(self, message: str) -> None:
        """Write ``name: message`` to stderr (a diagnostic while the command keeps going)."""
        self.stderr.write(f"{self.name}: {message}\n".encode("utf-8", "surrogateescape"))


def normpath(path: str) -> str:
    """Lexical normalisation of an absolute virtual path; ``..`` stops at ``/``."""
    if path[:1] == "/" and "//" not in path and "/." not in path and \
            (path[-1] != "/" or len(path) == 1):
        return path  # already normal (the usual case): no split and join
    parts: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts:
                parts.pop()
            continue
        parts.append(part)
    return "/" + "/".join(parts)


def absolute(cwd: str, path: str, fs: VFS | None = None) -> str:
    """``path`` made absolute against ``cwd`` and normalised, keeping a final ``/`` when
    ``path`` ends with ``/`` or ``/.`` (POSIX: such a path must resolve to a directory,
    following a symlink) — the VFS reads it as "follow, and be a directory".

    With ``fs``, a ``..`` is physical, as the kernel resolves it for every command but
    ``cd -L``: the parent of where the path so far really leads (``link/..`` is the
    link target's parent; ``..`` from a directory entered through a link too)."""
    raw = path if path.startswith("/") else cwd.rstrip("/") + "/" + path
    if fs is not None and "/.." in raw and ".." in raw.split("/"):
        raw = _physical_parents(fs, raw)
    full = normpath(raw)
    if full != "/" and (path.endswith("/") or path.endswith("/.")):
        return full + "/"
    return full


def _physical_parents(fs: VFS, raw: str) -> str:
    """``raw`` with each ``..`` taken from the real location of the path before it (a
    virtual path: the VFS resolves it, so no boundary is crossed); lexical where that
    cannot be resolved (a denied or missing prefix)."""
    out = "/"
    for name in raw.split("/"):
        if name in ("", "."):
            continue
        if name == "..":
            try:
                out = fs.realpath(out)
            except (OSError, ValueError):
                pass
            out = out.rsplit("/", 1)[0] or "/"
        else:
            out = out.rstrip("/") + "/" + name
    return out + ("/" if raw.endswith("/") else "")


class OutputError(Exception):
    """Writing a command's standard output failed (a full disk, a closed descriptor).

    GNU ends the tool and reports it without a file name ("cat: write error: No space left
    on device"); the dispatcher does the same.  Not an OSError on purpose: a command's
    per-file ``except OSError`` (which reports a *read* error and goes on to the next
    operand) must not catch it.
    """

    def __init__(self, err: OSError) -> None:
        super().__init__(err.strerror or str(err))
        self.errno = err.errno
        self.strerror = err.strerror or str(err)
        self.oserror = err


class ReaderGone(OutputError):
    """The reader of a command's standard output has gone: the command ends as SIGPIPE ends
    it (status 141, no message).  An OutputError, so no per-file ``except OSError`` in a
    command mistakes it for a read error of its operand (``cut: big: Broken pipe``)."""

    def __init__(self) -> None:
        super().__init__(BrokenPipeError(_errno.EPIPE, "Broken pipe"))


class GuardedOutput:
    """``inv.stdout`` as a command sees it: the stream, with write failures as OutputError
    and a reader that went away (a broken pipe, a closed stream) as :class:`ReaderGone`."""

    __slots__ = ("_stream", "_write")

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self._write: Any = None  # the stream's bound write, looked up on the first write

    def _failed(self, e: Exception) -> Exception:
        """What a failed call of the stream raises: the exception to raise instead."""
        if isinstance(e, OutputError):
            return e
        if isinstance(e, BrokenPipeError):
            return ReaderGone()
        if isinstance(e, OSError):
            return OutputError(e)
        if isinstance(e, ValueError) and getattr(self._stream, "closed", False):
            return ReaderGone()  # "write to a closed file"
        return e

    def write(self, data: Any) -> int:
        # the hot path of every command: one bound call, no getattr per write
        write = self._write
        if write is None:
            write = self._write = self._stream.write
        try:
            written: int = write(data)
        except (OSError, ValueError, OutputError) as e:
            raise self._failed(e) from None
        return written

    def flush(self) -> None:
        try:
            self._stream.flush()
        except (OSError, ValueError, OutputError) as e:
            raise self._failed(e) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def describe_oserror(exc: OSError) -> str:
    """The GNU wording of an OSError: ``path: strerror`` (or just strerror)."""
    text = exc.strerror or (os.strerror(exc.errno) if exc.errno else str(exc))
    if exc.errno == _errno.EROFS:
        text = "Read-only file system"
    if exc.filename is not None:
        return f"{exc.filename}: {text}"
    return text


RunFunc: TypeAlias = "Callable[[Invocation], int | None]"


@record(frozen=True)
class Command:
    """A named command: ``run(inv)`` returns its status (None means 0) or raises Exit."""

    name: str
    description: str
    run: RunFunc


def command(name: str, description: str) -> Callable[[RunFunc], Command]:
    """Decorator building a :class:`Command` from a function."""

    def wrap(fn: RunFunc) -> Command:
        return Command(name, description, fn)

    return wrap


if not TYPE_CHECKING:  # (to mypy the names are the imports above)

    def __getattr__(name: str) -> object:
        """The contract's Protocol classes (InputStream, OutputStream, HTTPClient,
        PythonOptions), from :mod:`vshell.protocols` on first use: they need typing, which
        the start-up path never imports."""
        if name in ("InputStream", "OutputStream", "HTTPClient", "PythonOptions"):
            from vshell import protocols

            return getattr(protocols, name)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
