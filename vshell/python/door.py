"""The door back into the shell: ``host::call`` requests from the guest's process calls.

Inside the guest, vshell's door module (``pywasm/guest/door.py``) stands in for the process
functions of the standard library; each process the program starts becomes one request here,
answered by running the command in the *same* sandbox through ``inv.run_command`` (as xargs,
find -exec and awk's system() do): the same VFS with its mounts, read-only rules and deny
patterns, the same memory budget, deadline and cancel token.  An argv list runs as ``exec``
would run it (a vshell command or a script in the VFS); a ``shell=True`` string runs through
``sh -c``.  Nothing here starts a host process.

A request is one JSON object::

    {"argv": [...], "cwd": str|null, "env": {...}|null, "stdin": b64|null|"inherit",
     "stdout": "capture"|"inherit"|"null", "stderr": "capture"|"inherit"|"null"|"stdout",
     "timeout": seconds|null}

and the answer ``{"status": N, "stdout": b64, "stderr": b64}`` (``"timeout": true`` when
the request's own timeout stopped it, ``"notfound": true`` for an argv whose program does
not exist, ``"error": "..."`` for a request that makes no sense).
"""

from __future__ import annotations

import base64
import io
import json
from collections.abc import Callable
from typing import Any

GUEST_PATH = "/usr/local/lib/vshell/door.py"  # where the guest reads its half
TIMEOUT_STATUS = 124  # what inv.run_command answers when its own timeout stopped the command
_source: bytes | None = None


def guest_source() -> bytes:
    """The guest's half of the door (served read-only at :data:`GUEST_PATH`)."""
    global _source
    if _source is None:
        import pywasm

        _source = pywasm.guest_file("door.py")
    return _source


class _Null(io.RawIOBase):
    def writable(self) -> bool:
        return True

    def write(self, b: Any) -> int:
        return len(b)


def handler(inv: Any, boot_sink: Callable[[bytes], None] | None = None
            ) -> Callable[[bytes], bytes]:
    """The door of one guest run of ``inv``: request bytes -> answer bytes.

    ``boot_sink`` takes the compiled boot code the run's boot offers (``{"op": "boot"}``),
    accepted only as the run's very first request: the boot sends it before any of the
    user's code has run, so nothing a program sends is ever taken for it."""
    calls = [0]

    def answer(request: bytes) -> bytes:
        calls[0] += 1
        try:
            req = json.loads(request)
            if req.get("op") == "boot":
                if calls[0] == 1 and boot_sink is not None:
                    boot_sink(base64.b64decode(req["code"], validate=True))
                    return b"{}"
                return json.dumps({"error": "not asked for"}).encode()
            argv = [str(a) for a in req["argv"]]
            if not argv:
                raise ValueError("empty argv")
        except (ValueError, KeyError, TypeError, AttributeError) as e:
            return json.dumps({"error": f"bad request: {e}"}).encode()
        return json.dumps(_run(inv, req, argv)).encode()

    return answer


def _run(inv: Any, req: dict[str, Any], argv: list[str]) -> dict[str, Any]:
    if inv.run_command is None:
        return {"error": "running commands is not available here"}
    stdin_spec = req.get("stdin")
    if stdin_spec == "inherit":
        stdin: Any = inv.stdin
    elif stdin_spec is None:
        stdin = b""
    else:
        stdin = base64.b64decode(stdin_spec)
    out = io.BytesIO()
    err = io.BytesIO()
    sinks = {"capture": out, "inherit": inv.stdout, "null": _Null()}
    stdout = sinks.get(req.get("stdout") or "inherit", inv.stdout)
    err_sinks = {"capture": err, "inherit": inv.stderr, "null": _Null(), "stdout": stdout}
    stderr = err_sinks.get(req.get("stderr") or "inherit", inv.stderr)
    if req.get("shell") is not True and not _exists(inv, argv[0]):
        return {"notfound": True, "status": 127}
    env = req.get("env")
    if env is not None:
        env = {str(k): str(v) for k, v in env.items()}
    timeout = req.get("timeout")
    timeout = float(timeout) if isinstance(timeout, (int, float)) and timeout > 0 else None
    cwd = req.get("cwd")
    cwd = inv.abs(str(cwd)) if cwd else None
    status = inv.run_command(argv, stdin=stdin, stdout=stdout, stderr=stderr, env=env, cwd=cwd,
                             timeout=timeout)
    status = int(status or 0)
    result: dict[str, Any] = {"status": status, "stdout": base64.b64encode(out.getvalue()).decode(),
                              "stderr": base64.b64encode(err.getvalue()).decode()}
    if timeout is not None and status == TIMEOUT_STATUS:
        result["timeout"] = True
    return result


def _exists(inv: Any, name: str) -> bool:
    """Whether ``name`` names a command ``exec`` would run (``command -v``, as the shell
    resolves it); an argv whose program does not exist is FileNotFoundError in the guest."""
    null = _Null()
    return inv.run_command(["command", "-v", name], stdin=b"", stdout=null, stderr=null) == 0
