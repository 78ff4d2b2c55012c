"""Helpers for the ``python`` command tests: direct command calls through the dispatcher."""

from __future__ import annotations

import io
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vshell import commands as builtins
from vshell.command import CancelToken, Invocation
from vshell.interp.dispatch import call_command

ENV = {"LC_ALL": "C.UTF-8", "HOME": "/work", "PATH": "/usr/bin:/bin"}


@dataclass
class Ran:
    status: int
    stdout: bytes
    stderr: bytes
    seconds: float


def make_fs(root: Path, *, deny: list[str] | None = None, extra: list[Any] | None = None):
    from vshell.vfs import VFS, HostBackend, Mount

    return VFS(mounts=[Mount("/work", HostBackend(str(root))), *(extra or [])], deny=deny or [])


def py(
    fs: Any,
    args: list[str],
    *,
    stdin: bytes | Any = b"",
    env: Mapping[str, str] | None = None,
    cwd: str = "/work",
    timeout: float | None = None,
    options: Any = None,
    stdout: Any = None,
    name: str = "python3",
) -> Ran:
    """Run ``python3 ARGS`` through the command dispatcher, as the interpreter would."""
    cmd = builtins.lookup(name)
    assert cmd is not None
    out = stdout if stdout is not None else io.BytesIO()
    err = io.BytesIO()
    inp = io.BytesIO(stdin) if isinstance(stdin, bytes) else stdin
    token = CancelToken(None if timeout is None else time.monotonic() + timeout)
    inv = Invocation(
        name=name,
        args=list(args),
        dir=cwd,
        stdin=inp,
        stdout=out,
        stderr=err,
        env=dict(ENV if env is None else env),
        fs=fs.bind({0: inp, 1: out, 2: err}),
        cancel=token,
        python=options,
    )
    start = time.monotonic()
    status = call_command(cmd, inv)
    data = out.getvalue() if isinstance(out, io.BytesIO) else b""
    return Ran(status, data, err.getvalue(), time.monotonic() - start)
