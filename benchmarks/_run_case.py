"""Run one vshell command once, in this process, and print its figures as JSON.

    PYTHONPATH=CHECKOUT python benchmarks/_run_case.py DIR ARGV...

The child side of ``--ref`` runs (see ``_sidebyside.py``): whichever checkout is first on
PYTHONPATH is the vshell measured, so the same case runs against the current tree and an
older one.  It must import nothing from this directory and must work with every layout
the comparison reaches back to (commands lived in ``vshell.builtins`` before the move to
``vshell.commands``).  Prints one JSON object: wall and CPU seconds, the output's sha256,
the exit status and the checkout that ran (to catch an editable install answering).
"""

from __future__ import annotations

import hashlib
import importlib
import json
import sys
import time
from pathlib import Path
from typing import Any

ENV = {"LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"}


class Sink:
    """A write-only stream that hashes what it gets (output is checked, never kept)."""

    def __init__(self) -> None:
        self.hash = hashlib.sha256()

    def write(self, data: bytes) -> int:
        self.hash.update(data)
        return len(data)

    def flush(self) -> None:
        pass


class Empty:
    """Standard input with nothing in it."""

    def read(self, n: int = -1) -> bytes:
        return b""

    def readline(self, n: int = -1) -> bytes:
        return b""


def _commands() -> Any:
    # Chosen by what the checkout holds, not by trying imports: an editable install of
    # another tree would answer for a package this checkout lacks.
    import vshell

    here = Path(vshell.__file__).parent
    for name in ("commands", "builtins"):
        if (here / name / "__init__.py").exists():
            return importlib.import_module(f"vshell.{name}")
    raise SystemExit(f"no vshell command table in {here}")


def run_once(root: str, args: list[str]) -> tuple[float, float, str, int]:
    """Run ``args`` once over a host mount of ``root`` at /work: wall and CPU seconds, the
    output's sha256 and the exit status."""
    from vshell.command import CancelToken, Invocation
    from vshell.interp.dispatch import call_command
    from vshell.vfs import VFS, HostBackend, Mount

    cmd = _commands().lookup(args[0])
    assert cmd is not None, args[0]
    fs = VFS(mounts=[Mount("/work", HostBackend(root), readonly=False)])
    out, err, inp = Sink(), Sink(), Empty()
    inv = Invocation(
        name=args[0], args=args[1:], dir="/work", stdin=inp, stdout=out,  # type: ignore[arg-type]
        stderr=err, env=dict(ENV), fs=fs.bind({0: inp, 1: out, 2: err}),  # type: ignore[dict-item]
        cancel=CancelToken(),
    )
    t0 = time.perf_counter()
    c0 = time.process_time()
    status = call_command(cmd, inv)
    cpu = time.process_time() - c0
    return time.perf_counter() - t0, cpu, out.hash.hexdigest(), status


def main(argv: list[str]) -> int:
    import vshell

    wall, cpu, digest, status = run_once(argv[0], argv[1:])
    tree = str(Path(vshell.__file__).resolve().parents[1])
    print(json.dumps({"wall": wall, "cpu": cpu, "hash": digest, "status": status,
                      "tree": tree}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
