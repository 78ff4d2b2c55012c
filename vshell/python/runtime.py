"""Running the CPython-WASI guest: one engine per process, a fresh store per run.

* The module is compiled once per machine and cached on disk (:mod:`vshell.python.cache`);
  later processes map the artifact in well under a millisecond.
* One ``Engine`` with epoch interruption and one ticker thread advancing the epoch every
  :data:`TICK` seconds while any guest runs.  Each store has a deadline callback that looks at
  the run's cancel token on every tick: a timeout or cancel stops the guest within a tick,
  even in a ``while True: pass``.
* The WASI imports are defined once on a shared ``Linker`` through the unchecked C API, and an
  ``InstancePre`` makes instantiation cheap.  Host functions find their run through a
  thread-local: a guest executes, and calls back, on the thread that started it.
* Each run gets a new ``Store`` with a memory limit, its own :class:`~vshell.python.wasi.Wasi`
  state, and is closed at the end, so nothing survives from one run to the next.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import os
import struct
import threading
import time
from collections.abc import Callable, Mapping, Sequence

from vshell.command import Cancelled, Exit, OutputError
from vshell.python import abi, cache
from vshell.python.guestfs import GuestFS
from vshell.python.wasi import Fault, Stop, Wasi, WasiError
from vshell.vfs.memory import Hold

TYPE_CHECKING = False  # not typing's: importing typing costs every python start
if TYPE_CHECKING:
    from typing import Any

TICK = 0.01
ARTIFACT_FORMAT = "vshell-python-2"
COMPILE_NOTICE = "vshell: compiling the Python runtime once; this takes a minute\n"
DEFAULT_MEMORY_LIMIT = 1 << 30
MIN_MEMORY_LIMIT = 48 << 20  # the snapshot's memory starts at 40 MiB
SMALL_SHARE = 256 << 20  # a guest's share when the budget runs low (see _share)
_RESERVING = threading.Lock()  # one guest at a time takes its share (see _reserve)
# The engine's settings, applied from this one table and part of the compiled artifact's
# cache key (a module compiled under other settings is never loaded under these).  The
# runtime is built with WebAssembly exception handling (C++ exceptions in its packages);
# epoch interruption is what stops a runaway guest.  It costs: a check at every loop
# header and function entry, i.e. at each bytecode CPython's eval loop dispatches, but
# nothing else can stop a guest spinning in compiled code, so it stays.
#
# What else was measured (wasmtime 49, the 3 M-iteration loop of benchmarks/bench_python.py,
# CPU time; each variant compiled into its own cache and all run in turn, in shuffled
# order, in one process, 9-15 rounds; medians.  The same artifact loaded twice differs by
# up to 2%, the noise floor):
# * epoch_interruption off: 0.91 s against 1.17 s (-22%; -17% in another series).
#   Nothing would then stop `while True: pass`, `sum(range(10**12))` or a regex in time.
# * consume_fuel instead: 1.28 s (+9%); and fuel cannot be made to run out at a deadline
#   from another thread in a synchronous store.
# * Cranelift's enable_table_access_spectre_mitigation=false: 1.09 s (-6%; -7% and -10%
#   in two other series, +7% in a third).  It gives up the clamp that keeps a guest-chosen
#   call_indirect index from reading past the function table under speculation (a
#   Spectre-v1 read of host memory: the guest picks the index and has a nanosecond
#   clock).  The boundary is the product, so it stays on.
# * enable_heap_access_spectre_mitigation: nothing to gain.  Memory is a 4 GiB reservation
#   plus guard pages (wasmtime's default on 64-bit hosts, signals-based traps on), so heap
#   accesses carry no bounds check and hence no clamp (seen in the compiled code).
# * cranelift_opt_level="speed_and_size" (default "speed"), 64-byte function alignment
#   (log2_min_function_alignment=6): each within 2% of the default.  wasmtime 50.0.1 (in
#   its own processes, alternating with 49's): 1-7% faster, within that method's noise.
# * Not compiled: native_unwind_info (unwind tables for host debuggers, no instruction
#   changes) and the other wasm_* features (they decide what validates, not how the code
#   compiles).
# None of these is set: each would cost every machine a new compile for no gain, or a
# weaker boundary.  Of the loop's time, 90% of perf's samples are the guest's compiled
# CPython; vshell's epoch callback costs ~25 us per TICK (0.3%).
ENGINE_SETTINGS: dict[str, bool] = {"epoch_interruption": True, "wasm_exceptions": True}


def engine_flags() -> str:
    """The settings as they enter the cache key (unchanged since they were a fixed string)."""
    return ",".join(f"{k}={int(v)}" for k, v in sorted(ENGINE_SETTINGS.items()))

_tls = threading.local()
_lock = threading.Lock()
_runtime: Runtime | None = None


class Ticker:
    """Advances the engine's epoch every TICK while at least one guest runs."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine
        self.active = 0
        self.cond = threading.Condition()
        self.thread: threading.Thread | None = None

    def add(self) -> None:
        with self.cond:
            self.active += 1
            if self.thread is None:
                self.thread = threading.Thread(
                    target=self._loop, name="vshell-python-epoch", daemon=True
                )
                self.thread.start()
            self.cond.notify()

    def remove(self) -> None:
        with self.cond:
            self.active -= 1

    def _loop(self) -> None:
        while True:
            with self.cond:
                while self.active == 0:
                    self.cond.wait()
                if self.engine is None:
                    return
            time.sleep(TICK)
            with self.cond:
                if self.engine is None:
                    return
                self.engine.increment_epoch()

    def stop(self) -> bool:
        """Stop ticking for good; False (and nothing done) while a guest still runs."""
        with self.cond:
            if self.active:
                return False
            self.engine = None
            self.active = 1  # wake the loop so it sees the engine is gone
            self.cond.notify()
            return True


def _wasmtime_id() -> str:
    """The identity of the loaded libwasmtime (a reinstall or upgrade changes it).

    Cheaper than importlib.metadata (tens of ms); an artifact also records the wasmtime
    version itself and ``deserialize_file`` refuses a mismatch, which rebuilds the cache."""
    from vshell.python.wasmtime_c import filename

    try:
        lib = os.stat(filename)
    except OSError:
        return f"{filename}:?"
    return f"{filename}:{lib.st_size}:{lib.st_mtime_ns}:{lib.st_ino}"


def artifact_path() -> Any:
    """Where the compiled module is cached, as a Path (None: no private cache directory)."""
    where = _artifact_file()
    if where is None:
        return None
    from pathlib import Path

    return Path(where)


def _artifact_file() -> str | None:
    """:func:`artifact_path` as a string (pathlib costs ~8 ms of a python start)."""
    import pywasm
    from vshell.python import wasmtime_c

    name = pywasm.binary_name()
    digest = cache.key(ARTIFACT_FORMAT, _wasmtime_id(), pywasm.PINS[name][1], engine_flags(),
                       wasmtime_c.machine())
    folder = cache.cache_folder()
    stem = "python-" + pywasm.PYTHON_VERSION + ("" if name == pywasm.SNAPSHOT else "-plain")
    return os.path.join(folder, f"{stem}-{digest}.cwasm") if folder else None


def _load_cached(engine: Any, path: Any) -> Any:
    """The module from a cache file vshell itself wrote (its seal checks out), else None.

    Native code is loaded only from such a file, and through the fd, so the file checked
    is the file mapped; one that fails to load is removed (and rebuilt by the caller)."""
    from vshell.python import wasmtime_c

    fd = cache.open_sealed(path)
    if fd is None:
        return None
    try:
        where = f"/proc/self/fd/{fd}" if os.path.exists("/proc/self/fd") else str(path)
        return wasmtime_c.Module.deserialize_file(engine, where)
    except Exception:  # noqa: BLE001 - a stale or damaged artifact: rebuild it
        cache.remove(path)
        return None
    finally:
        os.close(fd)


def _load_module(engine: Any, notify: Callable[[], None]) -> Any:
    """The compiled guest: from the private cache, or compiled (and cached) now.

    Compiling takes about a minute, so processes starting at once compile it once: the
    first takes the cache's lock file and the others wait on it, then load its artifact."""
    import pywasm
    from vshell.python import wasmtime_c

    path = _artifact_file()
    if path is not None:
        module = _load_cached(engine, path)
        if module is not None:
            return module
    with cache.locked(path):
        if path is not None:
            module = _load_cached(engine, path)  # another process compiled it meanwhile
            if module is not None:
                return module
        data = pywasm.read_verified()
        notify()
        module = wasmtime_c.Module.compile(engine, data)
        del data
        if path is not None:
            with contextlib.suppress(Exception):  # no cache this time; the run still works
                cache.write_atomic(path, module.serialize())
                cache.seal(path)
                cache.prune(os.path.dirname(path), "python-*.cwasm", path)
                cache.prune(os.path.dirname(path), "python-*.cwasm.seal", path + ".seal")
    return module


def _host_function(method: Callable[..., Any], fmt: str, nparams: int, has_result: bool) -> Any:
    """A raw wasmtime callback running ``method(run, caller, *args)`` for the current run."""
    from vshell.python import wasmtime_c

    unpack = struct.Struct(fmt).unpack
    size = 16 * nparams
    args_at = (ctypes.c_char * max(size, 1)).from_address  # a view, cheaper than string_at
    i32_at = ctypes.c_int32.from_address
    trap_new = wasmtime_c.trap_new
    wasi_errno = abi.wasi_errno

    def callback(env: int, caller: int, vals: int, nvals: int) -> int:
        run = _tls.run
        try:
            result = method(run, caller, *unpack(args_at(vals)) if size else ())
        except Stop:
            return trap_new(b"vshell: guest stopped", 21) or 0
        except OSError as e:
            result = wasi_errno(e)
        except OutputError as e:  # the guest's stdout failed: give it the errno
            result = wasi_errno(e.oserror)
        except WasiError as e:
            result = e.code
        except (Fault, struct.error, IndexError):
            result = abi.EFAULT
        except Cancelled as e:  # a pipe or stream noticed the cancel before we did
            run.stop_reason = run.cancel.reason or str(e) or "canceled"
            return trap_new(b"vshell: guest stopped", 21) or 0
        except KeyboardInterrupt:  # Ctrl-C on this (the main) thread during a host call
            if _interrupt_guest(run):
                result = abi.EINTR  # the guest raises KeyboardInterrupt itself
            else:
                run.interrupted = True
                return trap_new(b"vshell: interrupted", 19) or 0
        except BaseException as e:  # noqa: BLE001 - a host bug must not kill the process
            run.host_errors.append(e)
            result = abi.EIO
        if has_result:
            i32_at(vals).value = result
        return 0

    return wasmtime_c.HOSTFN(callback)


def _on_epoch(ctx: int, env: int, delta: Any, kind: Any) -> int:
    """Each tick: stop the guest if its run was cancelled, else wait for the next tick."""
    from vshell.python import wasmtime_c

    run = getattr(_tls, "run", None)
    try:
        if run is not None and run.interrupt_pending:
            run.deliver_interrupt()
        if run is not None and not run.should_stop():
            delta[0] = 1
            kind[0] = 0  # WASMTIME_UPDATE_DEADLINE_CONTINUE
            return 0
    except KeyboardInterrupt:  # Ctrl-C reaches Python code here while a guest spins
        if run is not None and _interrupt_guest(run):
            delta[0] = 1
            kind[0] = 0
            return 0
        if run is not None:
            run.interrupted = True
    except BaseException:  # noqa: BLE001, S110 - whatever went wrong, stop the guest
        pass
    return wasmtime_c.error_new(b"vshell: python stopped") or 0


def _interrupt_guest(run: Any) -> bool:
    """Ctrl-C came as KeyboardInterrupt on the guest's own thread: raise it inside an
    interactive guest (True), or False to stop the guest as for any other run."""
    if run.interrupter is None:
        return False
    run.interrupt_pending = True
    return bool(run.deliver_interrupt())


def _note_sigint(wasi: Any) -> Callable[[], None] | None:
    """While an interactive guest runs on the main thread under Python's default SIGINT
    handler, a Ctrl-C is noted for the guest instead of raised: a KeyboardInterrupt raised
    in the host would surface at the first line of whatever callback runs next, outside any
    ``try``, and be lost.  The way back to the default handler, or None (nothing changed)."""
    import signal

    if threading.current_thread() is not threading.main_thread():
        return None

    def note(signum: int, frame: Any) -> None:
        ready = wasi.interrupter is not None and wasi.interrupter.ready
        if ready:
            wasi.interrupt_pending = True  # raised inside the guest at its next tick
        else:
            wasi.interrupted = True  # the guest stops; run() raises KeyboardInterrupt

    try:
        if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
            return None
        signal.signal(signal.SIGINT, note)
    except (ValueError, OSError):
        return None

    def restore() -> None:
        signal.signal(signal.SIGINT, signal.default_int_handler)

    return restore


_interactive: set[Any] = set()  # the interactive guests running now (their Wasi)
_interactive_lock = threading.Lock()


def interrupt() -> bool:
    """Ctrl-C for the interactive guests running now, from any thread (the REPL's signal
    handler): each raises KeyboardInterrupt inside itself at its next epoch tick or while
    it waits for input.  False when none runs, or none learned how (then the caller
    cancels the run as for any command)."""
    with _interactive_lock:
        runs = [r for r in _interactive if r.interrupter is not None and r.interrupter.ready]
    for r in runs:
        r.interrupt_pending = True
    return bool(runs)


class Runtime:
    """The process-wide engine, compiled module, linker and ticker."""

    def __init__(self, notify: Callable[[], None]) -> None:
        from vshell.python import wasmtime_c

        self.engine = wasmtime_c.Engine(ENGINE_SETTINGS)
        self.module = _load_module(self.engine, notify)
        self.linker = wasmtime_c.Linker(self.engine)
        self._keep: list[Any] = []
        self.imports = self.module.imports()  # (owns the function types defined below)
        for imp in self.imports.items:
            if imp.functype is None:
                raise wasmtime_c.WasmtimeError(f"import {imp.module}::{imp.name} is not a "
                                               "function")
            fmt = "<" + "".join("I12x" if p == "i32" else "Q8x" for p in imp.params)
            if imp.module == "host" and imp.name == "call":
                method: Any = Wasi.host_call
            else:
                method = getattr(Wasi, imp.name or "", None) or Wasi.unsupported
            cb = _host_function(method, fmt, len(imp.params), bool(imp.results))
            self._keep.append(cb)
            self.linker.define_unchecked(imp.module, imp.name, imp.functype, cb)
        self.pre = self.linker.instantiate_pre(self.module)
        self.epoch_callback = wasmtime_c.EPOCHFN(_on_epoch)
        self.ticker = Ticker(self.engine)

    def close(self) -> None:
        """Free the native objects in a safe order (at exit, before wasmtime's globals go)."""
        if not self.ticker.stop():
            return
        for obj in (self.pre, self.linker, self.imports, self.module, self.engine):
            with contextlib.suppress(Exception):  # best effort at exit
                obj.close()
        self._keep.clear()


def runtime(notify: Callable[[], None] = lambda: None) -> Runtime:
    """The process-wide runtime, built (and the module loaded or compiled) on first use."""
    global _runtime
    if _runtime is None:
        with _lock:
            if _runtime is None:
                _runtime = Runtime(notify)
                atexit.register(_shutdown)
    return _runtime


_FAR = 10.0 * 365 * 86400  # seconds: a deadline nothing reaches while the runtime loads


def _runtime_outside_deadline(token: Any, notify: Callable[[], None]) -> Runtime:
    """Build the runtime without charging the run for it: loading takes milliseconds, but the
    first compile on a machine takes about a minute, which no script's timeout should pay.

    While it loads, the run's deadline (and the CLI's SIGALRM watchdog, if one is armed) is
    pushed out of reach, so nothing reading the token meanwhile sees a timeout; afterwards
    both are put back, later by the time the load took.  A cancel still stops the run as
    soon as the runtime is there."""
    import signal

    start = time.monotonic()
    alarm = getattr(signal, "alarm", None)
    left = 0
    if alarm is not None:
        with contextlib.suppress(ValueError, OSError):
            left = alarm(0)
    postpone = getattr(token, "postpone", None)
    if postpone is not None:
        postpone(_FAR)
    try:
        return runtime(notify)
    finally:
        spent = time.monotonic() - start
        if postpone is not None:
            postpone(spent - _FAR)
        if left and alarm is not None:
            with contextlib.suppress(ValueError, OSError):
                alarm(left + int(spent + 0.999))


def _shutdown() -> None:
    global _runtime
    rt, _runtime = _runtime, None
    if rt is not None:
        rt.close()


def _share(budget: Any, memory_limit: int) -> int:
    """The guest's own cap: its limit, but no more than half of what the sandbox's budget
    has left now (at least ``SMALL_SHARE``, or all that is left if less).

    A guest gets ``MemoryError`` from a refused ``memory.grow`` past it; the cap is held
    from the budget while the guest runs (see ``run``), so guests side by side share it.
    Half, not all: the stages of ``python3 … | python3 … | python3 …`` start together, and
    a first guest that took the whole room would leave none for the next (with the 2 GiB
    default: 1 GiB, 512 MiB, 256 MiB, 256 MiB for four guests at once)."""
    room = budget.available() if budget is not None else None
    if room is None:
        return memory_limit
    if room < MIN_MEMORY_LIMIT:
        raise Exit(1, f"cannot allocate memory: the sandbox's memory limit "
                      f"({budget.limit()} bytes) leaves {room} bytes")
    return min(memory_limit, max(room // 2, min(room, SMALL_SHARE)))


def _reserve(budget: Any, memory_limit: int) -> tuple[int, Hold | None]:
    """The guest's cap (see ``_share``) and the hold that takes it from the budget.

    The guest holds its whole cap while it runs: a guest can touch hundreds of MiB in one
    instruction (memory.fill after memory.grow), before any epoch tick could charge it, so
    guests side by side must not overcommit.  Share and hold are taken under one lock, or
    the stages of a pipeline of guests, starting together, would all see the same room."""
    if budget is None:
        return memory_limit, None
    with _RESERVING:
        cap = _share(budget, memory_limit)
        hold = Hold(budget)
        if not hold.resize(cap):
            raise Exit(1, f"cannot allocate memory: the sandbox's memory limit "
                          f"({budget.limit()} bytes) leaves {budget.available()} bytes")
    return cap, hold


def run(inv: Any, argv: Sequence[str], env: Mapping[str, str], files: Mapping[str, bytes],
        memory_limit: int = DEFAULT_MEMORY_LIMIT,
        boot_sink: Callable[[bytes], None] | None = None, interactive: bool = False) -> int:
    """Run the guest with ``argv`` for invocation ``inv``; its exit status (0-255).

    ``interactive``: a person at a terminal uses Python's prompt: Ctrl-C (:func:`interrupt`)
    raises KeyboardInterrupt inside the guest instead of stopping it.

    Raises :class:`~vshell.command.Cancelled` once the guest has stopped if the run's
    token was cancelled or its deadline passed."""
    from vshell.python import wasmtime_c

    def notify() -> None:
        with contextlib.suppress(Exception):  # a notice is not worth failing for
            inv.stderr.write(COMPILE_NOTICE.encode())
            inv.stderr.flush()

    rt = _runtime if _runtime is not None else _runtime_outside_deadline(inv.cancel, notify)
    inv.cancel.check()
    if memory_limit < MIN_MEMORY_LIMIT:
        raise Exit(1, f"memory limit too small: {memory_limit} bytes (minimum {MIN_MEMORY_LIMIT})")
    budget = getattr(inv.python, "memory_budget", None)
    memory_limit, hold = _reserve(budget, memory_limit)
    from vshell.python import stdlib

    wasi = Wasi(inv, argv, env, GuestFS(inv.fs, files, stdlib.layers()))
    wasi.memory_hold = hold
    from vshell.python import door

    wasi.door = door.handler(inv, boot_sink, wasi.take_interrupt)
    if interactive:
        from vshell.python.interrupt import Interrupter

        wasi.interrupter = Interrupter()
    store = wasmtime_c.Store(rt.engine)
    failure: BaseException | None = None
    prev = getattr(_tls, "run", None)
    try:
        store.set_memory_limit(memory_limit)
        store.on_epoch(rt.epoch_callback)
        store.set_epoch_deadline(1)
        _tls.run = wasi
        rt.ticker.add()
        restore = None
        if interactive:
            with _interactive_lock:
                _interactive.add(wasi)
            restore = _note_sigint(wasi)
        try:
            instance = rt.pre.instantiate(store)
            memory = instance.memory("memory")
            run_export = instance.func("run", (), ("i32",))
            if memory is None or run_export is None:
                raise wasmtime_c.WasmtimeError("the runtime exports no memory or no run")
            wasi.bind_memory(memory, store.context)
            wasi.bind_exports(instance.func("host_alloc", ("i32",), ("i32",)))
            try:
                # the reactor protocol: _initialize when exported (the snapshot has run it
                # already), then run, which reads argv and the environment and returns the
                # exit status (sys.exit and os._exit still end it through proc_exit)
                start = instance.func("_initialize", (), ())
                if start is not None:
                    start()
                status = run_export()
                if wasi.exit_code is None and isinstance(status, int):
                    wasi.exit_code = status
            except wasmtime_c.WasmtimeError as e:
                failure = e
        finally:
            if interactive:
                with _interactive_lock:
                    _interactive.discard(wasi)
                if restore is not None:
                    restore()
            rt.ticker.remove()
            _tls.run = prev
    finally:
        try:
            wasi.door.close()  # the children it started end with the guest
        except BaseException as e:  # noqa: BLE001 - a stop while waiting: the run stops anyway
            failure = failure or e
        wasi.close()
        store.close()
        if wasi.memory_hold is not None:
            wasi.memory_hold.release()
    if wasi.host_errors and os.environ.get("VSHELL_DEBUG"):
        import traceback

        for exc in wasi.host_errors:  # each was answered EIO to the guest
            traceback.print_exception(exc)
    if wasi.interrupted:
        raise KeyboardInterrupt
    if wasi.stop_reason is not None:
        raise Cancelled(wasi.stop_reason)
    if wasi.memory_refused:
        inv.error(f"cannot allocate memory: {wasi.memory_refused} bytes of guest memory pass "
                  f"the sandbox's memory limit ({budget.limit() if budget else 0} bytes)")
        return 1
    if wasi.exit_code is not None:
        return wasi.exit_code & 0xFF
    if failure is None:
        return 0
    reason = inv.cancel.reason
    if reason is not None:
        raise Cancelled(reason)
    if os.environ.get("VSHELL_DEBUG"):
        inv.error(f"fatal error: {failure}")
    inv.error(f"fatal error: {_cause(failure)}")
    return 134


def _cause(failure: BaseException) -> str:
    """The line of wasmtime's message that says why the guest died (the last 'Caused by:'
    part, e.g. ``wasm trap: call stack exhausted``), not the backtrace's header."""
    text = str(failure)
    for part in (text.rpartition("Caused by:")[2], text):
        lines = [line.strip() for line in part.splitlines() if line.strip()]
        if lines:
            return lines[0]
    return type(failure).__name__
