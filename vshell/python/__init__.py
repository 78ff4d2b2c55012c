"""``python`` inside the sandbox: CPython 3.15 compiled to WASI, run in wasmtime.

The guest sees exactly the sandbox: the VFS (mounts, read-only rules, deny patterns), the
invocation's streams and exported environment, and nothing of the host.  This package is
light to import; wasmtime is imported only when a guest first runs (:mod:`.runtime`).

Settings come from ``inv.python``: any object with these attributes (missing ones take the
default), e.g. :class:`PythonOptions`:

* ``memory_limit`` — bytes of guest linear memory (default 1 GiB); past it the guest gets
  ``MemoryError``.
* ``line_buffered`` — stdout flushed at every newline (default True), so what a program
  printed before a timeout killed it is kept; False gives CPython's block buffering for a
  pipe, several times faster for print-heavy programs, and loses unflushed output on a kill.
  ``-u`` makes stdout unbuffered either way.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from vshell.records import record

TYPE_CHECKING = False  # not typing's: importing typing costs every python start
if TYPE_CHECKING:
    from typing import Any

SITE_DIR = "/lib/python/site-packages"  # sbsh's convention: a mount here is a site directory
DEFAULT_MEMORY_LIMIT = 1 << 30
# Options the reactor itself handles (-u) or accepts and ignores; the rest are the boot code's.
REACTOR_OPTIONS = frozenset("u")


@record(frozen=True)
class PythonOptions:
    """Per-sandbox settings of the ``python`` command (``Invocation.python``)."""

    memory_limit: int = DEFAULT_MEMORY_LIMIT
    line_buffered: bool = True


_boot_source: str | None = None
_boot_code: bytes | None = None  # boot.py compiled by the guest (marshal), once asked for
BOOT_CODE_GUEST = "/usr/local/lib/vshell/boot.bin"


def _boot_key() -> str:
    import pywasm
    from vshell.cachedir import sha256_hex

    src = boot_source().encode()
    return sha256_hex(src + pywasm.PINS[pywasm.binary_name()][1].encode())[:24]


def boot_source() -> str:
    global _boot_source
    if _boot_source is None:
        import pywasm

        _boot_source = pywasm.guest_file("boot.py").decode()
    return _boot_source


def boot_code() -> bytes | None:
    """boot.py as the guest compiled it (a sealed file in the private cache), or None.

    Compiling boot.py costs a guest tens of milliseconds; the code is asked of a run's
    boot itself (before any of the user's code runs, see ``accept_boot_code``), so it is
    only ever what the pinned runtime made of vshell's own source."""
    global _boot_code
    if _boot_code is None:
        from vshell import cachedir
        from vshell.python import cache

        folder = cache.cache_folder()
        if folder is not None:
            name = f"python-boot-{_boot_key()}.bin"
            try:
                with open(os.path.join(folder, name), "rb") as f:
                    sealed: bytes | None = f.read()
            except OSError:
                sealed = None
            if sealed is not None:
                _boot_code = cachedir.unseal_bytes(folder, name, sealed)
    return _boot_code


def accept_boot_code(code: bytes) -> None:
    """Keep the compiled boot code a run's boot offered (and seal it into the cache)."""
    global _boot_code
    if _boot_code is not None or not code:
        return
    _boot_code = code
    import contextlib

    from vshell import cachedir
    from vshell.python import cache

    folder = cache.cache_folder()
    if folder is not None:
        with contextlib.suppress(Exception):  # only a cache
            name = f"python-boot-{_boot_key()}.bin"
            sealed = cachedir.seal_bytes(folder, name, code)
            if sealed is not None:
                cache.write_atomic(os.path.join(folder, name), sealed)


def boot_stub(settings: dict[str, Any], cached: bool) -> str:
    """The ``-c`` code vshell hands the reactor: run ``guest/boot.py`` (its cached code, or
    its source compiled now) as the module ``_vshell_boot`` and call its ``main`` with
    ``settings`` (one expression, so no name is bound in ``__main__``)."""
    if cached:
        code = (f"__import__('marshal').loads(open({BOOT_CODE_GUEST!r}, 'rb').read())")
    else:
        code = f"compile({boot_source()!r}, '<vshell>', 'exec')"
    return ("(lambda m, c: (exec(c, m.__dict__), m.main(" + repr(settings) + ", c)))"
            "(__import__('types').ModuleType('_vshell_boot'), " + code + ")")


def guest_argv(prog: str, cwd: str, options: list[str], kind: str | None, value: str | None,
               argv: list[str], line_buffered: bool = True, door: str | None = None,
               interrupt: bool = False) -> list[str]:
    """The reactor's argv for ``prog OPTIONS <program> ARGS``: the options it knows, then
    vshell's boot code, which handles the rest (see ``pywasm/guest/boot.py``)."""
    import pywasm

    own = [o for o in options if o.startswith("-") and not o.startswith("--")
           and len(o) > 1 and set(o[1:]) <= REACTOR_OPTIONS]
    settings = {"prog": prog, "cwd": cwd, "options": [o for o in options if o not in own],
                "kind": kind or "stdin", "value": value, "argv": argv, "site_dir": SITE_DIR,
                "line_buffered": line_buffered, "version": pywasm.PYTHON_VERSION,
                "door": door, "interrupt": interrupt}
    cached = boot_code() is not None
    settings["offer_boot"] = not cached
    return [pywasm.ARGV0, *own, "-c", boot_stub(settings, cached), *argv[1:]]


def memory_limit(options: Any) -> int:
    value = getattr(options, "memory_limit", None)
    return DEFAULT_MEMORY_LIMIT if value is None else int(value)


def line_buffered(options: Any) -> bool:
    return bool(getattr(options, "line_buffered", True))


def run(inv: Any, options: list[str], kind: str | None, value: str | None,
        argv: list[str]) -> int:
    """Run the guest as ``<inv.name> OPTIONS <program> ARGS`` for ``inv``; its exit status.

    ``kind`` is "c", "m", "file" (``value`` an absolute virtual path), "stdin" or None (no
    program: read it from stdin); ``argv`` is what ``sys.argv`` should read (its first item
    the user's spelling of the script)."""
    from vshell.python import door, runtime

    has_door = inv.run_command is not None
    at_terminal = _interactive(inv.stdin)
    if kind is None and at_terminal:
        kind = "interactive"
    # Python's prompt (no program, or -i) for a person: Ctrl-C raises KeyboardInterrupt there
    prompt = at_terminal and (kind == "interactive" or _has_flag(options, "i"))
    args = guest_argv(inv.name, inv.dir, options, kind, value, argv, line_buffered(inv.python),
                      door.GUEST_PATH if has_door else None, prompt)
    files = door.guest_files() if has_door else {}
    code = boot_code()
    if code is not None:
        files[BOOT_CODE_GUEST] = code
    return runtime.run(inv, args, dict(inv.env), files, memory_limit(inv.python),
                       boot_sink=accept_boot_code if code is None else None, interactive=prompt)


def _has_flag(options: list[str], letter: str) -> bool:
    """Whether a short-option group of ``options`` holds ``letter`` (before any -W/-X)."""
    for opt in options:
        if opt.startswith("-") and not opt.startswith("--"):
            for ch in opt[1:]:
                if ch == letter:
                    return True
                if ch in "WX":
                    break
    return False


def prewarm() -> None:
    """Load the runtime now (import wasmtime, map or compile the module, link the WASI
    imports), e.g. in a background thread when a sandbox starts, so the first ``python``
    does not pay for it.  Compiling, on a machine's very first run, takes about a minute."""
    from vshell.python import runtime

    runtime.runtime()


def _interactive(stream: Any) -> bool:
    """Whether ``stream`` is a terminal a person types at (the REPL's, marked
    ``interactive``), looking through the sandbox's stdin wrapper."""
    for _ in range(3):
        if stream is None:
            return False
        if getattr(stream, "interactive", False) is True:
            return True
        stream = getattr(stream, "_raw", None)
    return False


def prepare(args: Sequence[str] = ()) -> int:
    """``vshell prepare``: load the runtime now (compiling it when no cache has it yet, about
    a minute) and print where the compiled module is cached; its exit status."""
    import sys
    import time

    if args:
        sys.stderr.write("usage: vshell prepare\n")
        return 2
    from vshell.python import runtime, stdlib

    def notify() -> None:
        sys.stderr.write(runtime.COMPILE_NOTICE)
        sys.stderr.flush()

    start = time.monotonic()
    try:
        stdlib.source()
        runtime.runtime(notify)
    except Exception as e:  # noqa: BLE001 - a missing or altered runtime: say so
        sys.stderr.write(f"vshell: prepare: {e}\n")
        return 1
    path = runtime.artifact_path()
    took = time.monotonic() - start
    if path is None:
        sys.stdout.write(f"no private cache directory: the runtime compiles in every process "
                         f"(took {took:.1f}s)\n")
    else:
        sys.stdout.write(f"{path}\n")
    return 0
