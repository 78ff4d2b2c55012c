"""``Sandbox``: one long-lived shell session over a virtual filesystem.

Working directory, variables, functions and options persist across :meth:`Sandbox.exec`
calls, which are serialized by a lock.  Every call returns a :class:`Result`; a Python
traceback never reaches the caller.
"""

from __future__ import annotations

import os
import posixpath
import threading
import time

from vshell.command import NAME_RE, Cancelled, CancelToken, Command, NestedRequest
from vshell.interp.worker import GRACE
from vshell.lazy import re
from vshell.limits import (
    DEFAULT_MAX_JOBS,
    DEFAULT_MEMORY_FS_LIMIT,
    DEFAULT_MEMORY_LIMIT,
    DEFAULT_OUTPUT_LIMIT,
    DEFAULT_TIMEOUT,
)
from vshell.records import cast, record
from vshell.result import Outcome, Result

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    import asyncio
    from collections.abc import Callable, Iterable, Mapping, Sequence
    from typing import Any

    from vshell.background import Job, JobTable
    from vshell.command import InputStream, OutputStream
    from vshell.interp.shell import RunContext, Shell
    from vshell.interp.worker import Pool
    from vshell.net.client import PolicyClient
    from vshell.overlay_review import SyncResult
    from vshell.vfs import VFS
    from vshell.vfs.backend import Backend
    from vshell.vfs.memory import MemoryBudget
    from vshell.vfs.overlay_store import OverlayStore

_PROCSUB_GRACE = 1.0  # seconds a finished script waits for its process substitutions
MAX_NESTING = 8


@record(frozen=True)
class HostMount:
    """A host directory exposed at ``vpath`` (read-write unless ``readonly``).

    ``cow`` makes it copy-on-write: the host is never written; changes stay in memory (or in
    the Sandbox's ``overlay_dir``, to resume later) for :meth:`Sandbox.changes` /
    :meth:`Sandbox.diff` until :meth:`Sandbox.sync` applies them.
    """

    host: str
    vpath: str
    readonly: bool = False
    cow: bool = False


@record(frozen=True)
class MemoryMount:
    """An in-memory directory at ``vpath``; ``files`` seeds it (path → bytes)."""

    vpath: str
    readonly: bool = False
    files: Mapping[str, bytes] | None = None


@record(frozen=True)
class BackendMount:
    """Any :class:`vshell.vfs.Backend` (the API's equivalent of sbsh's afero mounts)."""

    vpath: str
    backend: Any
    readonly: bool = False


MountSpec = HostMount | MemoryMount | BackendMount


def shell_option_names() -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """The names ``set -o`` knows, ``set``'s one-letter flags and the names ``shopt`` knows:
    what a front end checks bash's invocation options (``-euo pipefail``) against."""
    from vshell.interp.state import SET_OPTIONS, SHOPT_DEFAULTS

    letters = frozenset(letter for letter in SET_OPTIONS.values() if letter)
    return frozenset(SET_OPTIONS), letters, frozenset(SHOPT_DEFAULTS)


class SandboxConfigError(ValueError):
    """An option given to :class:`Sandbox` is invalid."""


def _check_vpath(vpath: str) -> str:
    if not vpath.startswith("/"):
        raise SandboxConfigError(f"mount point {vpath!r} must be an absolute virtual path")
    parts = [p for p in vpath.split("/") if p]
    if any(p in (".", "..") for p in parts):
        raise SandboxConfigError(f"mount point {vpath!r} must not contain '.' or '..'")
    return "/" + "/".join(parts)


def _check_cwd(cwd: str) -> str:
    if not cwd.startswith("/"):
        raise SandboxConfigError(f"cwd {cwd!r} must be an absolute path in the sandbox")
    return posixpath.normpath("/" + cwd.lstrip("/"))


def _build_vfs(mounts: Sequence[MountSpec], deny: Sequence[str], budget: MemoryBudget,
               commands: Callable[[], Iterable[str]] | None = None) -> VFS:
    from vshell import vfs

    built = []
    seen: set[str] = set()
    for m in mounts:
        vpath = _check_vpath(m.vpath)
        if vpath in seen:
            raise SandboxConfigError(f"two mounts at {vpath}: each mount point must differ")
        seen.add(vpath)
        if isinstance(m, HostMount):
            host = os.path.abspath(m.host)
            if not os.path.exists(host):
                raise SandboxConfigError(f"mount {m.host}:{vpath}: no such directory: {m.host}")
            if not os.path.isdir(host):
                raise SandboxConfigError(f"mount {m.host}:{vpath}: not a directory: {m.host}")
            if m.cow and m.readonly:
                raise SandboxConfigError(f"mount {m.host}:{vpath}: cow and readonly exclude")
            if m.cow:
                from vshell.vfs.overlay import OverlayBackend

                built.append(vfs.Mount(vpath, OverlayBackend(host, budget=budget)))
            else:
                built.append(vfs.Mount(vpath, vfs.HostBackend(host), readonly=m.readonly))
        elif isinstance(m, MemoryMount):
            backend = vfs.MemoryBackend(budget=budget)
            if m.files:
                try:
                    _seed(backend, m.files)
                except OSError as e:
                    raise SandboxConfigError(f"memory mount {vpath}: {e.strerror}") from None
            built.append(vfs.Mount(vpath, backend, readonly=m.readonly))
        elif isinstance(m, BackendMount):
            built.append(vfs.Mount(vpath, m.backend, readonly=m.readonly))
        else:
            raise SandboxConfigError(f"not a mount: {m!r}")
    try:
        return vfs.VFS(mounts=built, deny=list(deny), memory_budget=budget, commands=commands)
    except ValueError as e:
        raise SandboxConfigError(str(e)) from None


def _open_overlay_store(fs: VFS, overlay_dir: str | os.PathLike[str] | None
                        ) -> OverlayStore | None:
    """Bind the cow mounts to a persistent overlay directory, reloading earlier work."""
    if overlay_dir is None:
        return None
    from vshell.overlay_review import overlays
    from vshell.vfs.overlay_store import OverlayStateError, OverlayStore

    cow = dict(overlays(fs))
    if not cow:
        raise SandboxConfigError("overlay_dir needs at least one copy-on-write mount")
    try:
        store = OverlayStore(overlay_dir)
        try:
            store.attach(cow)
            store.save()  # records the mounts now, so a later `vshell changes` can find them
        except BaseException:
            store.close()
            raise
    except OverlayStateError as e:
        raise SandboxConfigError(str(e)) from None
    except OSError as e:
        raise SandboxConfigError(f"overlay directory {overlay_dir}: {e}") from None
    fs.protect(overlay_dir)  # the store is vshell's: no mount, alias or link reaches it
    return store


def _seed(backend: Backend, files: Mapping[str, bytes]) -> None:
    from vshell import vfs

    tmp = vfs.VFS(mounts=[vfs.Mount("/seed", backend)], deny=[])
    for path, data in files.items():
        full = "/seed/" + path.lstrip("/")
        parent = full.rsplit("/", 1)[0]
        tmp.makedirs(parent, exist_ok=True)
        with tmp.open(full, "wb") as f:
            f.write(data)


def _shell_names() -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """(reserved words, shell builtins, shipped commands): the names the shell itself owns."""
    from vshell import commands as shipped
    from vshell.interp.builtins import registry as builtins_registry
    from vshell.syntax.reserved import KEYWORDS

    return frozenset(KEYWORDS), frozenset(builtins_registry.names()), frozenset(shipped.names())


def _validate_commands(commands: Iterable[Command]) -> dict[str, Command]:
    commands = list(commands)
    if not commands:  # the usual case: nothing to check, and no table to import
        return {}
    from vshell import commands as shipped
    from vshell.interp.builtins import registry as builtins_registry

    keywords = _shell_names()[0]
    out: dict[str, Command] = {}
    for c in commands:
        if c is None or not isinstance(c, Command):
            raise SandboxConfigError(f"not a command: {c!r}")
        if not NAME_RE.match(c.name):
            raise SandboxConfigError(f"invalid command name {c.name!r}")
        if not c.description or not c.description.strip():
            raise SandboxConfigError(f"command {c.name!r} has an empty description")
        if c.name in out:
            raise SandboxConfigError(f"command {c.name!r} registered twice")
        if c.name in keywords or builtins_registry.is_builtin(c.name) or c.name in ("time",):
            raise SandboxConfigError(f"command name {c.name!r} is taken by the shell")
        if shipped.lookup(c.name) is not None:
            raise SandboxConfigError(f"command name {c.name!r} is taken by a builtin command")
        out[c.name] = c
    return out


def base_env(cwd: str) -> dict[str, str]:
    """The environment a sandbox starts with: vshell's defaults, nothing of the host."""
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": "/",
        "PWD": cwd,
        "SHLVL": "1",
        "USER": "user",
        "LOGNAME": "user",
        "SHELL": "/bin/bash",
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "TMPDIR": "/tmp",
    }


class Sandbox:
    """One persistent shell session in a sandbox.

    >>> with Sandbox(mounts=[MemoryMount("/work", files={"a.txt": b"x\\ny\\n"})]) as sb:
    ...     sb.exec("cd /work && wc -l < a.txt").stdout
    b'2\\n'
    """

    def __init__(
        self,
        *,
        mounts: Sequence[MountSpec] = (),
        deny: Sequence[str] = (),
        allow_net: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        timeout: float | None = DEFAULT_TIMEOUT,
        output_limit: int = DEFAULT_OUTPUT_LIMIT,
        commands: Iterable[Command] = (),
        cwd: str | None = None,
        script_name: str = "vshell",
        python_memory_limit: int | None = None,
        ca_bundle: str | None = None,
        block_private_addresses: bool = True,
        overlay_dir: str | os.PathLike[str] | None = None,
        memory_fs_limit: int | None = DEFAULT_MEMORY_FS_LIMIT,
        memory_limit: int | None = DEFAULT_MEMORY_LIMIT,
        max_jobs: int | None = DEFAULT_MAX_JOBS,
    ) -> None:
        if timeout is not None and timeout < 0:
            raise SandboxConfigError("timeout must be >= 0 (0 or None: no deadline)")
        if output_limit < 0:
            raise SandboxConfigError("output_limit must be >= 0")
        self.timeout = timeout or None
        self.output_limit = output_limit
        if memory_fs_limit is not None and memory_fs_limit < 0:
            raise SandboxConfigError("memory_fs_limit must be >= 0 (None: no limit)")
        if memory_limit is not None and memory_limit < 0:
            raise SandboxConfigError("memory_limit must be >= 0 (None: no limit)")
        if max_jobs is not None and max_jobs < 0:
            raise SandboxConfigError("max_jobs must be >= 0 (None: no limit)")
        from vshell.interp.limits import JobSlots
        from vshell.vfs.memory import MemoryBudget

        # one budget for all the sandbox holds; file data is a sub-budget of it
        self.memory = MemoryBudget(memory_limit)
        self.memory_budget = MemoryBudget(memory_fs_limit, parent=self.memory)
        self._job_slots = JobSlots(max_jobs)
        self.fs = _build_vfs(mounts, deny, self.memory_budget, self._command_names)
        self._overlay_store = _open_overlay_store(self.fs, overlay_dir)
        self._commands = _validate_commands(commands)
        self._allow_net = list(allow_net)
        self._http: PolicyClient | None = None
        self._net_options = {"ca_bundle": ca_bundle, "block_private": block_private_addresses}
        if self._allow_net:
            from vshell.net import validate_allow_list

            try:
                validate_allow_list(self._allow_net)
            except ValueError as e:
                raise SandboxConfigError(str(e)) from None
        self._python = _PythonOptions(python_memory_limit, self.memory)
        if cwd is None:
            cwd = _check_vpath(mounts[0].vpath) if mounts else "/"
        else:
            cwd = _check_cwd(cwd)
        if not self.fs.isdir(cwd):
            raise SandboxConfigError(f"cwd {cwd}: no such directory in the sandbox")
        environment = base_env(cwd)
        for k, v in (env or {}).items():
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", k):
                raise SandboxConfigError(f"invalid environment variable name {k!r}")
            environment[k] = v
        from vshell.interp.nested import new_state

        self._state = new_state(environment, cwd, script_name)
        self._state.memory = self.memory
        self._lock = threading.Lock()
        self._closed = False
        # descriptors above 2 that `exec N>file` left open, handed to the next exec when
        # keep_descriptors is set (a piped script: bash runs its lines in one process)
        self.keep_descriptors = False
        self._kept_fds: dict[int, Any] = {}
        self._active: CancelToken | None = None
        self._background: JobTable | None = None  # made by the first start_job
        # the thread a run's script runs on, kept between runs: starting and joining a thread
        # for every exec cost more than a short script (a stuck run keeps its thread and the
        # next exec gets another; an idle one ends after worker.RUNNER_IDLE, close() at once)
        self._runners: Pool | None = None
        self._caller: int | None = None  # the thread a run is on when it runs on its caller's
        self.nesting = 0
        self.dash_c = False  # the CLI's -c: shows as "c" in $-

    def _command_names(self) -> list[str]:
        """What /usr/bin and /bin list: every command this session runs as a program."""
        from vshell import commands as shipped
        from vshell.interp.builtins.registry import COREUTILS_TWINS

        return [*shipped.names(), *self._commands, *COREUTILS_TWINS, "sh", "bash"]

    # --- public API ------------------------------------------------------------------
    def commands(self) -> list[Command]:
        """The registered (host) commands, sorted by name."""
        return [self._commands[k] for k in sorted(self._commands)]

    def command_names(self) -> set[str]:
        """Every name that can stand first on a line in this session: the alphabetic reserved
        words, the shell builtins, the shipped and registered commands, and the session's
        functions and aliases (what the REPL completes)."""
        keywords, builtins, shipped = _shell_names()
        names = {k for k in keywords if k.isalpha()} | builtins | shipped | set(self._commands)
        return names | set(self._state.functions) | set(self._state.aliases)

    def interrupt(self) -> bool:
        """Ctrl-C for an interactive ``python3`` running now (its prompt, or ``-i``): it
        raises KeyboardInterrupt inside the guest, which goes on.  False when none runs;
        the caller then cancels the run as for any command."""
        import sys

        runtime = sys.modules.get("vshell.python.runtime")  # no guest ever ran: none runs
        return bool(runtime is not None and runtime.interrupt())

    def variable_names(self) -> set[str]:
        """The names of the session's set variables (between runs no function is running, so
        these are the globals)."""
        return {k for k, v in self._state.globals.items()
                if k.isidentifier() and v.value is not None}

    @property
    def cwd(self) -> str:
        return self._state.cwd

    @property
    def exit_requested(self) -> bool:
        """Whether the last run ran ``exit`` (a REPL or a piped script then ends)."""
        return bool(getattr(self, "_exit_requested", False))

    def getenv(self, name: str) -> str | None:
        """The session's value of shell variable ``name`` (None when unset)."""
        value: str | None = self._state.get(name)
        return value

    def set_script(self, name: str | None = None, args: Sequence[str] | None = None,
                   main_file: str | None = None) -> None:
        """What ``$0``, the positional parameters and ``BASH_SOURCE``'s bottom entry (the
        script file, FUNCNAME's "main") are in the next runs; None leaves one as it is."""
        if name is not None:
            self._state.script_name = name
        if args is not None:
            self._state.positional = list(args)
        if main_file is not None:
            self._state.main_file = main_file

    def exec(
        self,
        script: str | bytes,
        *,
        stdin: bytes | InputStream | None = None,
        timeout: float | None = None,
        stdout: OutputStream | None = None,
        stderr: OutputStream | None = None,
        cancel: CancelToken | None = None,
        allow_net: Sequence[str] | None = None,
    ) -> Result:
        """Run ``script`` in the session and return its :class:`Result`.

        ``timeout`` (seconds) can only tighten the sandbox's own.  ``stdout``/``stderr``
        given here receive output as it is produced (still capped); the Result then
        holds empty bytes for them.  ``allow_net`` narrows this run's network: a request
        must pass it and the sandbox's allow list (so it never widens).
        """
        if self._closed:
            return Result(Outcome.INTERNAL, 125, b"", b"vshell: sandbox is closed\n",
                          error=RuntimeError("sandbox is closed"))
        if isinstance(script, (bytes, bytearray)):  # a script read from a file, say
            script = bytes(script).decode("utf-8", "surrogateescape")
        if not isinstance(script, str):
            message = f"script must be str or bytes, not {type(script).__name__}"
            return Result(Outcome.INVALID, 2, b"", f"vshell: {message}\n".encode(),
                          error=TypeError(message))
        try:
            http = self._run_http(allow_net)
        except ValueError as e:  # a bad allow_net entry
            return Result(Outcome.INVALID, 2, b"", f"vshell: allow_net: {e}\n".encode(), error=e)
        if not self._lock.acquire(blocking=False):
            if (threading.current_thread().name.startswith("vshell-")
                    or self._caller == threading.get_ident()):
                return Result(Outcome.UNSUPPORTED, 126, b"",
                              b"vshell: Sandbox.exec called from inside a running execution; "
                              b"use inv.run_nested instead\n")
            self._lock.acquire()
        try:
            result = self._exec_locked(script, stdin, timeout, stdout, stderr, cancel, http)
            try:
                self._persist_overlay()
            except OSError as e:  # the run happened; say its changes were not saved
                msg = f"vshell: overlay not saved: {e}\n".encode()
                if stderr is not None:
                    stderr.write(msg)
                else:
                    result.stderr += msg
                result.error = result.error or e
            return result
        finally:
            self._lock.release()
            if allow_net is not None and http is not None:
                http.close()

    def _run_http(self, allow_net: Sequence[str] | None) -> Any:
        """A run's network: the session's (lazily built) client, one narrowed by the run's
        ``allow_net`` (see vshell.net.narrow), or None when nothing is allowed."""
        if not self._allow_net or (allow_net is not None and not allow_net):
            return None
        if allow_net is None:
            return _LazyHTTP(self)
        from vshell.net.narrow import narrowed_client

        return narrowed_client(self._allow_net, allow_net, **self._net_options)

    async def aexec(self, script: str | bytes, *, stdin: bytes | None = None,
                    timeout: float | None = None) -> Result:
        """``exec`` for asyncio; cancelling the awaiting task cancels the run.

        The run waits on a thread of its own, not on the loop's default executor, whose few
        workers would queue concurrent runs of different sandboxes."""
        import asyncio

        loop = asyncio.get_running_loop()
        done: asyncio.Future[Result] = loop.create_future()
        token = CancelToken()

        def work() -> None:
            try:
                result = self.exec(script, stdin=stdin, timeout=timeout, cancel=token)
            except BaseException as e:  # noqa: BLE001 - handed to the awaiting task
                _settle_soon(loop, done, None, e)
            else:
                _settle_soon(loop, done, result, None)

        # not a "vshell-" name: that prefix marks a thread running a script (see exec)
        threading.Thread(target=work, name="aexec", daemon=True).start()
        try:
            return await asyncio.shield(done)
        except asyncio.CancelledError:
            token.cancel("canceled")
            await asyncio.wait([done])
            raise

    @property
    def background_jobs(self) -> JobTable:
        """The session's background jobs (see :mod:`vshell.background`)."""
        if self._background is None:
            from vshell.background import JobTable

            self._background = JobTable(self)
        return self._background

    def start_job(self, script: str, *, timeout: float | None = None,
                  cancel: CancelToken | None = None) -> Job:
        """Start ``script`` like bash's ``( script ) &``: a copy of the session's state over
        the same VFS, not holding the exec lock; ``timeout`` only tightens the sandbox's."""
        return self.background_jobs.start(script, timeout, cancel)

    def close(self) -> None:
        """End the session; a running exec and the background jobs are cancelled."""
        self._closed = True
        if self._active is not None:
            self._active.cancel("closed")
        if self._background is not None:
            self._background.close()
        if self._runners is not None:
            self._runners.shutdown()
        kept, self._kept_fds = self._kept_fds, {}
        for stream in kept.values():
            if isinstance(stream, int):  # a run's own standard stream, already closed
                continue
            try:
                stream.close()
            except Exception:  # noqa: BLE001, S110 - a failing close must not fail close()
                pass
        if self._overlay_store is not None:
            try:
                self._persist_overlay()
            finally:
                self._overlay_store.close()
                self._overlay_store = None
        if self._http is not None:
            try:
                self._http.close()
            except Exception:  # noqa: BLE001
                pass

    # --- copy-on-write review (see vshell.overlay_review) ---------------------------
    def changes(self) -> list[tuple[str, str]]:
        """Sorted (vpath, "add"|"modify"|"delete"|"type-change") held by the cow mounts."""
        from vshell import overlay_review

        return overlay_review.changes(self.fs)

    def diff(self) -> str:
        """Unified diff (``--- a/PATH`` / ``+++ b/PATH``) of the cow mounts' text changes."""
        from vshell import overlay_review

        return overlay_review.diff(self.fs)

    def sync(self, paths: Iterable[str] | None = None) -> SyncResult:
        """Apply cow changes to the host (all, or those under ``paths``): a SyncResult.

        On conflict nothing is applied; on a failure part-way the result says exactly
        what was applied and the rest stays in the overlay for a retry.
        """
        from vshell import overlay_review

        with self._lock:
            try:
                return overlay_review.sync(self.fs, paths)
            finally:
                self._persist_overlay()

    def discard(self) -> None:
        """Drop every change held by the cow mounts."""
        from vshell import overlay_review

        with self._lock:
            overlay_review.discard(self.fs)
            self._persist_overlay()

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- internals -------------------------------------------------------------------
    def _persist_overlay(self) -> None:
        """Snapshot the cow overlays to ``overlay_dir`` (if any) so work survives the run."""
        if self._overlay_store is not None:
            self._overlay_store.save()

    def _effective_timeout(self, timeout: float | None) -> float | None:
        if timeout is None or timeout <= 0:
            return self.timeout
        if self.timeout is None:
            return timeout
        return min(timeout, self.timeout)

    def http_client(self) -> PolicyClient | None:
        if not self._allow_net:
            return None
        if self._http is None:
            from vshell.net import build_client

            self._http = build_client(self._allow_net, **self._net_options)
        return self._http

    def _exec_locked(self, script: str, stdin: Any, timeout: float | None, stdout: Any,
                     stderr: Any, cancel: CancelToken | None, http: Any = None) -> Result:
        from vshell.interp import io as sio
        from vshell.interp.shell import RunContext, Shell
        from vshell.interp.worker import Pool

        limit = self._effective_timeout(timeout)
        token = cancel or CancelToken()
        token.deadline = time.monotonic() + limit if limit else None
        self._active = token
        out = sio.CappedSink(self.output_limit, forward=stdout)
        err = sio.CappedSink(self.output_limit, forward=stderr)
        if stdin is None:
            inp: Any = sio.NullInput()
        elif isinstance(stdin, (bytes, bytearray)):
            import io as _io

            inp = _io.BytesIO(bytes(stdin))
        else:
            inp = sio.HostInput(stdin)
        ctx = RunContext(
            fs=self.fs,
            cancel=token,
            commands=self._commands,
            http=http,
            python=self._python,
            nested=lambda req: self._run_nested(req, ctx, sh),
        )
        ctx.nesting = self.nesting
        ctx.job_slots = self._job_slots
        pool = ctx.pool = Pool()  # this run's threads: none outlives the run but a stuck one
        kept = self._kept_fds if self.keep_descriptors else {}
        self._kept_fds = {}
        fresh: dict[int, Any] = {0: inp, 1: out, 2: err}
        # a kept standard descriptor names the run's own stream ("in", "out", "err") or a file
        start = {fd: fresh[f] if isinstance(f, int) else f for fd, f in kept.items()}
        sh = Shell(ctx, self._state, {**fresh, **start})
        sh.become_main()
        sh.source_name = self._state.script_name
        sh.interactive_c = self.dash_c
        box: dict[str, Any] = {}
        # nothing of the run can block outside vshell's reach (a host stream): it runs on
        # this thread, and what may not stop when told on one of its own (interp.offload)
        on_caller = ctx.on_caller = (
            (stdin is None or isinstance(stdin, (bytes, bytearray)))
            and stdout is None and stderr is None)

        def work() -> None:
            try:
                # a piped script's next command counts its lines on (the CLI sets this)
                first_line = getattr(self._state, "script_first_line", 1)
                box["status"] = sh.run_toplevel(script, first_line)
            except Cancelled:
                box["cancelled"] = True
            except KeyboardInterrupt as e:  # on the caller's thread, its Ctrl-C: raised there
                box["interrupt" if on_caller else "error"] = e  # after the cleanup below
            except BaseException as e:  # noqa: BLE001 - reported as INTERNAL
                box["error"] = e

        if on_caller:
            self._caller = threading.get_ident()
            try:
                work()
            finally:
                self._caller = None
        else:
            self._run_on_thread(work, token)
        self._stop_jobs(ctx)
        pool.shutdown()
        standard: dict[int, Any] = {0: inp, 1: out, 2: err}
        if self.keep_descriptors and not self._closed:
            self._kept_fds = _descriptors_to_keep(sh.fds, standard)
        _close_extra_fds(sh, [*standard.values(), *self._kept_fds.values()])
        self._active = None
        if "interrupt" in box:
            raise box["interrupt"]
        self._state = sh.state  # exec may have replaced nothing, but keep the session's state
        self._exit_requested = getattr(sh, "exited", False)  # `exit` ran: the REPL stops
        reason = token.reason
        if reason is not None:  # stopped is why it ended, even if a command chose a status
            outcome = Outcome.TIMED_OUT if reason == "timeout" else Outcome.CANCELED
            code = 137 if outcome is Outcome.TIMED_OUT else 130
            msg = b"vshell: timed out\n" if outcome is Outcome.TIMED_OUT else b""
            if msg:
                err.write(msg)
            return Result(outcome, code, out.getvalue(), err.getvalue(),
                          out.truncated or err.truncated)
        if "error" in box:
            e = box["error"]
            err.write(f"vshell: internal error: {type(e).__name__}: {e}\n".encode())
            if os.environ.get("VSHELL_DEBUG"):
                import traceback

                traceback.print_exception(e)
            return Result(Outcome.INTERNAL, 125, out.getvalue(), err.getvalue(),
                          out.truncated or err.truncated, error=e)
        status = box.get("status", 1)
        if getattr(sh, "parse_failed", False) or getattr(ctx, "parse_failed", False):
            outcome = Outcome.INVALID
        elif status == 127 and getattr(ctx, "last_not_found", False):
            outcome = Outcome.NOT_FOUND
        else:
            outcome = Outcome.COMPLETED
        from vshell.syntax import ParseError

        error = ParseError(getattr(ctx, "parse_error_message", "syntax error")) \
            if outcome is Outcome.INVALID else None
        return Result(outcome, status, out.getvalue(), err.getvalue(),
                      out.truncated or err.truncated, error=error)

    def _run_on_thread(self, work: Callable[[], None], token: CancelToken) -> None:
        """``work()`` on the session's runner thread: a stopped run that has not ended
        ``GRACE`` later is left to its thread."""
        from vshell.interp.worker import RUNNER_IDLE, Pool

        runners = self._runners
        if runners is None:
            runners = self._runners = Pool(RUNNER_IDLE)
        worker = runners.spawn(work, "vshell-run")
        while worker.is_alive():
            worker.join(0.05)
            if token.reason is not None:
                worker.join(GRACE)
                break

    def _stop_jobs(self, ctx: RunContext) -> None:
        jobs = list(ctx.jobs.values())
        if not jobs:
            return
        # process substitutions whose input has been closed finish in a moment: let them
        # print what they hold (bash's would, after the script) before stopping the rest
        deadline = time.monotonic() + _PROCSUB_GRACE
        for j in jobs:
            if j.thread.name == "vshell-procsub" and ctx.cancel.reason is None:
                j.thread.join(max(0.0, deadline - time.monotonic()))
        if any(j.thread.is_alive() for j in jobs):
            ctx.cancel.cancel(ctx.cancel.reason or "exit")
            # a finished script does not wait for its background jobs: stop them
            for j in jobs:
                j.thread.join(GRACE)
            ctx.cancel._reason = None if ctx.cancel._reason == "exit" else ctx.cancel._reason

    def _run_nested(self, req: NestedRequest, ctx: RunContext, parent: Shell) -> Result:
        from vshell.interp import io as sio
        from vshell.interp.nested import new_state
        from vshell.interp.shell import RunContext, Shell
        from vshell.interp.worker import pool_of

        if ctx.nesting + 1 > MAX_NESTING:
            return Result(Outcome.DENIED, 126, b"",
                          f"vshell: nested execution deeper than {MAX_NESTING} levels\n".encode())
        if not isinstance(req.script, str) or not req.script.strip():
            return Result(Outcome.INVALID, 2, b"", b"vshell: empty script\n",
                          error=ValueError("empty script"))
        base = parent.state.cwd
        d = req.dir or base
        if not d.startswith("/"):
            d = base.rstrip("/") + "/" + d
        from vshell.command import normpath

        d = normpath(d)
        if not self.fs.isdir(d):
            return Result(Outcome.INVALID, 2, b"", f"vshell: {d}: no such directory\n".encode(),
                          error=FileNotFoundError(d))
        env = {"HOME": parent.state.get("HOME") or "/"}
        for entry in req.env:
            k, eq, v = entry.partition("=") if isinstance(entry, str) else ("", "", "")
            if not eq or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", k):
                msg = f"env entry {entry!r} is not NAME=value"
                return Result(Outcome.INVALID, 2, b"", f"vshell: {msg}\n".encode(),
                              error=ValueError(msg))
            if k not in ("PWD", "OLDPWD"):  # the sandbox's to set
                env[k] = v
        env["PWD"] = d
        limit = self.output_limit if req.output_limit is None else max(0, min(
            req.output_limit, self.output_limit))
        token = CancelToken(ctx.cancel.deadline)
        if req.timeout and req.timeout > 0:
            dl = time.monotonic() + req.timeout
            token.deadline = dl if token.deadline is None else min(dl, token.deadline)
        out = sio.CappedSink(limit)
        err = sio.CappedSink(limit)
        child_ctx = RunContext(fs=self.fs, cancel=token, commands=self._commands, http=ctx.http,
                               python=ctx.python)
        child_ctx.nesting = ctx.nesting + 1
        child_ctx.job_slots = ctx.job_slots
        child_ctx.pool = pool_of(ctx)  # the top-level run's, shut down when it returns
        state = new_state(env, d, "vshell")
        state.memory = self.memory
        sh = Shell(child_ctx, state, {0: sio.NullInput(), 1: out, 2: err})
        child_ctx.nested = lambda r: self._run_nested(r, child_ctx, sh)
        box: dict[str, Any] = {}

        def work() -> None:
            try:
                box["status"] = sh.run_toplevel(req.script)
            except Cancelled:
                box["cancelled"] = True
            except BaseException as e:  # noqa: BLE001
                box["error"] = e

        t = child_ctx.pool.spawn(work, "vshell-nested")
        while t.is_alive():
            t.join(0.05)
            if token.reason is not None or ctx.cancel.reason is not None:
                token.cancel(token.reason or ctx.cancel.reason or "canceled")
                t.join(GRACE)
                break
        self._stop_jobs(child_ctx)  # background jobs end with the child, as at top level
        _close_extra_fds(sh, [sh.fds.get(0), out, err])
        reason = token.reason
        if reason is not None:  # as at top level: being stopped is the outcome
            oc = Outcome.TIMED_OUT if reason == "timeout" else Outcome.CANCELED
            return Result(oc, 137 if oc is Outcome.TIMED_OUT else 130, out.getvalue(),
                          err.getvalue(), out.truncated or err.truncated)
        if "error" in box:
            return Result(Outcome.INTERNAL, 125, out.getvalue(), err.getvalue(),
                          out.truncated or err.truncated, error=box["error"])
        status = box.get("status", 1)
        oc = Outcome.COMPLETED
        error = None
        if getattr(child_ctx, "parse_failed", False):
            from vshell.syntax import ParseError

            oc = Outcome.INVALID
            error = ParseError(child_ctx.parse_error_message or "syntax error")
        elif status == 127 and getattr(child_ctx, "last_not_found", False):
            oc = Outcome.NOT_FOUND
        return Result(oc, status, out.getvalue(), err.getvalue(), out.truncated or err.truncated,
                      error=error)


def _settle_soon(loop: asyncio.AbstractEventLoop, fut: asyncio.Future[Result],
                 result: Result | None, error: BaseException | None) -> None:
    """From a worker thread: complete ``fut`` on its loop (a closed loop wants nothing)."""

    def settle() -> None:
        if fut.done():
            return
        if error is not None:
            fut.set_exception(error)
        else:
            fut.set_result(cast(Result, result))

    try:
        loop.call_soon_threadsafe(settle)
    except RuntimeError:  # the loop is closed: no one is waiting any more
        pass


def _descriptors_to_keep(fds: Mapping[int, Any], standard: Mapping[int, Any]) -> dict[int, Any]:
    """What ``exec`` left open for the next run: files as they are, and a descriptor that
    points at one of this run's standard streams (``exec >&2``) as that stream's number, so
    the next run gives it its own stream of that number."""
    by_id = {id(f): n for n, f in standard.items()}
    out: dict[int, Any] = {}
    for fd, f in fds.items():
        if f is None:
            continue
        n = by_id.get(id(f))
        if n is None:
            out[fd] = f
        elif n != fd:
            out[fd] = n
    return out


def _close_extra_fds(sh: Shell, spared: Iterable[Any]) -> None:
    """Close what ``exec N<file`` left open when a run ends, but ``spared`` (the run's own
    streams, and what ``keep_descriptors`` hands to the next run): no later run can reach those
    descriptors, and an open file holds its memory (an unlinked one too) until closed."""
    keep = {id(s) for s in spared}
    logged = [s for _, s, _ in sh.__dict__.get("exec_fd_log", ()) if s is not None]
    for stream in [*sh.fds.values(), *logged]:
        if id(stream) in keep:
            continue
        try:
            stream.close()
        except Exception:  # noqa: BLE001, S110 - a failing close must not fail the run
            pass


class _PythonOptions:
    """What the ``python`` command reads from ``inv.python``: the per-guest cap, and the
    sandbox's memory budget every guest's linear memory is charged to."""

    def __init__(self, memory_limit: int | None, memory_budget: MemoryBudget | None = None
                 ) -> None:
        self.memory_limit = memory_limit
        self.memory_budget = memory_budget


class _LazyHTTP:
    """Builds the policy-checked client on first use (keeps httpx out of start-up)."""

    def __init__(self, sandbox: Sandbox) -> None:
        self._sandbox = sandbox

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sandbox.http_client(), name)


def prepare_python(args: list[str] | None = None) -> int:
    """``vshell prepare``: compile (or load) the Python runtime now; print where it is cached."""
    from vshell.python import prepare

    return prepare(args or [])
