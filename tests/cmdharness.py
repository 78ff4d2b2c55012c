"""Run one vshell command directly (no shell) and the matching host tool, for command tests.

``run_cmd`` builds a sandbox filesystem with ``root`` (a host directory) mounted at
``/work`` and calls the command through the same dispatcher the interpreter uses.
``run_gnu`` runs the real tool in ``root`` so differential tests compare the two.
Tests may start host processes; vshell itself never does.
"""

from __future__ import annotations

import io
import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from tools import require

from vshell import commands as builtins
from vshell.command import CancelToken, Invocation
from vshell.interp.dispatch import call_command


@dataclass
class Ran:
    status: int
    stdout: bytes
    stderr: bytes


GNU_ENV = {"LC_ALL": "C.UTF-8", "TZ": "UTC", "PATH": "/usr/bin:/bin", "HOME": "/root"}


def make_fs(root: Path, deny: list[str] | None = None, readonly: bool = False):
    from vshell.vfs import VFS, HostBackend, Mount

    return VFS(mounts=[Mount("/work", HostBackend(str(root)), readonly=readonly)], deny=deny or [])


def run_cmd(
    root: Path,
    argv: list[str],
    stdin: bytes = b"",
    env: Mapping[str, str] | None = None,
    cwd: str = "/work",
    fs=None,
) -> Ran:
    cmd = builtins.lookup(argv[0])
    assert cmd is not None, f"no command {argv[0]}"
    out, err = io.BytesIO(), io.BytesIO()
    inp = io.BytesIO(stdin)
    fs = fs or make_fs(root)
    inv = Invocation(
        name=argv[0],
        args=list(argv[1:]),
        dir=cwd,
        stdin=inp,
        stdout=out,
        stderr=err,
        env=dict(GNU_ENV if env is None else env),
        fs=fs.bind({0: inp, 1: out, 2: err}),
        cancel=CancelToken(),
    )
    status = call_command(cmd, inv)
    return Ran(status, out.getvalue(), err.getvalue())


def run_gnu(
    root: Path, argv: list[str], stdin: bytes = b"", env: Mapping[str, str] | None = None
) -> Ran:
    """Run the host tool (the test is skipped when the tool is not installed)."""
    require(argv[0])
    p = subprocess.run(
        argv,
        input=stdin,
        capture_output=True,
        cwd=root,
        env=dict(GNU_ENV if env is None else env),
        timeout=60,
    )
    return Ran(p.returncode, p.stdout, p.stderr)


def write_files(root: Path, files: Mapping[str, bytes | str]) -> None:
    for name, data in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode() if isinstance(data, str) else data)


def same(root: Path, argv: list[str], stdin: bytes = b"", check_stderr: bool = True) -> None:
    """Assert vshell's command and the host tool agree on status, stdout (and stderr)."""
    want = run_gnu(root, argv, stdin)
    got = run_cmd(root, argv, stdin)
    assert got.stdout == want.stdout, (argv, got.stdout[:2000], want.stdout[:2000])
    assert got.status == want.status, (argv, got.status, want.status, got.stderr)
    if check_stderr:
        assert got.stderr == want.stderr.replace(os.fsencode(str(root)), b"/work"), (
            argv,
            got.stderr,
            want.stderr,
        )
