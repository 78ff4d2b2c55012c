"""``python`` inside the sandbox: CPython 3.12 compiled to WASI, run in wasmtime.

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

from collections.abc import Sequence
from typing import Any

from vshell.records import record

SITE_DIR = "/lib/python/site-packages"  # sbsh's convention: a mount here is a site directory
GUEST_SITE = "/lib/python3.12/site-packages"  # where /pyvenv.cfg points the guest's site
DEFAULT_MEMORY_LIMIT = 1 << 30


@record(frozen=True)
class PythonOptions:
    """Per-sandbox settings of the ``python`` command (``Invocation.python``)."""

    memory_limit: int = DEFAULT_MEMORY_LIMIT
    line_buffered: bool = True


def guest_files(cwd: str, argv0: str | None, line_buffered: bool = True) -> dict[str, bytes]:
    """The files vshell serves inside the guest for one run (see :mod:`pywasm`)."""
    import pywasm

    settings = {"cwd": cwd, "argv0": argv0, "site_dir": SITE_DIR,
                "line_buffered": line_buffered}
    template = pywasm.guest_file("sitecustomize.py")
    rendered = template.replace(b"_VSHELL = {}\n", f"_VSHELL = {settings!r}\n".encode(), 1)
    return {
        "/pyvenv.cfg": pywasm.guest_file("pyvenv.cfg"),
        GUEST_SITE + "/sitecustomize.py": rendered,
    }


def nosite_bootstrap(prog: str, cwd: str, kind: str, value: str | None, argv: list[str],
                     line_buffered: bool = True) -> str:
    """The ``-c`` code that starts the program when ``site`` is off (``python -S``)."""
    import pywasm

    settings = {"prog": prog, "cwd": cwd, "kind": kind, "value": value, "argv": argv,
                "line_buffered": line_buffered}
    template = pywasm.guest_file("nosite.py").decode()
    return template.replace("_VSHELL = {}\n", f"_VSHELL = {settings!r}\n", 1)


def memory_limit(options: Any) -> int:
    value = getattr(options, "memory_limit", None)
    return DEFAULT_MEMORY_LIMIT if value is None else int(value)


def line_buffered(options: Any) -> bool:
    return bool(getattr(options, "line_buffered", True))


def run(inv: Any, args: Sequence[str], argv0: str | None = None) -> int:
    """Run the guest as ``<inv.name> ARGS`` for ``inv``; returns its exit status.

    ``argv0`` is what ``sys.argv[0]`` should read when ARGS name the script by an absolute
    path that the user spelled differently."""
    from vshell.python import runtime

    argv = [inv.name, *args]
    files = guest_files(inv.dir, argv0, line_buffered(inv.python))
    return runtime.run(inv, argv, dict(inv.env), files, memory_limit(inv.python))


def prewarm() -> None:
    """Load the runtime now (import wasmtime, map or compile the module, link the WASI
    imports), e.g. in a background thread when a sandbox starts, so the first ``python``
    does not pay for it.  Compiling, on a machine's very first run, takes a few seconds."""
    from vshell.python import runtime

    runtime.runtime()
