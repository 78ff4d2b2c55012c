"""The door back into the shell: ``host::call`` requests from the guest's process calls.

Inside the guest, vshell's door module (``pywasm/guest/door.py``) stands in for the process
functions of the standard library; each process the program starts becomes one request here,
answered by running the command in the *same* sandbox through ``inv.run_command`` (as xargs,
find -exec and awk's system() do): the same VFS with its mounts, read-only rules and deny
patterns, the same memory budget, deadline and cancel token.  An argv list runs as ``exec``
would run it (a vshell command or a script in the VFS); a ``shell=True`` string runs through
``sh -c``.  Nothing here starts a host process.

A request is one JSON object.  A process is started by::

    {"op": "spawn", "argv": [...], "cwd": str|null, "env": {...}|null, "shell": bool,
     "stdin": "pipe"|"inherit"|"null"|b64, "stdout": "pipe"|"inherit"|"null",
     "stderr": "pipe"|"inherit"|"null"|"stdout"}

answered ``{"id": N}`` (``"notfound": true`` for an argv whose program does not exist):
the command then runs on a thread of its own, beside the guest, its pipes
(:mod:`vshell.python.pipe`) worked by ``read`` / ``write`` / ``close`` requests naming it, so
``p.stdout.readline()`` returns a line as soon as the command wrote it.  ``wait``, ``poll``,
``communicate`` (input fed, both outputs collected, up to a timeout) and ``kill`` (its own
cancel token) do what their names say; see :class:`Child`.  Waiting requests check the run's
cancel token and a Ctrl-C at Python's prompt (which ends the children, as a terminal's
SIGINT would, and answers ``"interrupted": true``).  Every child still running when the
guest ends is waited for (its input closed, its output discarded), so none outlives the run.
"""

from __future__ import annotations

import io
import threading
import time
from collections.abc import Callable

from vshell.command import Cancelled
from vshell.python.pipe import SLICE, Pipe

TYPE_CHECKING = False  # not typing's: importing typing costs every python start
if TYPE_CHECKING:
    from typing import Any

# json and base64 (which imports re) are imported by the requests that use them: most runs
# make none, and together they cost ~6 ms of a python start.
GUEST_PATH = "/usr/local/lib/vshell/door.py"  # where the guest reads its half
WEB_PATH = "/usr/local/lib/vshell/web.py"  # urllib.request over curl, beside it
_sources: dict[str, bytes] = {}


def guest_files() -> dict[str, bytes]:
    """The guest's half of the door and its urllib handler (served read-only)."""
    if not _sources:
        import pywasm

        _sources[GUEST_PATH] = pywasm.guest_file("door.py")
        _sources[WEB_PATH] = pywasm.guest_file("web.py")
    return dict(_sources)


class _Null(io.RawIOBase):
    def writable(self) -> bool:
        return True

    def write(self, b: Any) -> int:
        return len(b)


def handler(inv: Any, boot_sink: Callable[[bytes], None] | None = None,
            interrupted: Callable[[], bool] = lambda: False) -> Door:
    """The door of one guest run of ``inv`` (see :class:`Door`)."""
    return Door(inv, boot_sink, interrupted)


class Child:
    """One command started by the guest, running on its own thread."""

    def __init__(self, inv: Any, token: Any, argv: list[str], streams: dict[str, Any],
                 env: Any, cwd: str | None) -> None:
        self.token = token  # a child of the run's: stopped with it, or by kill()
        self.pipes: dict[str, Pipe] = {k: v for k, v in streams.items() if isinstance(v, Pipe)}
        self.status: int | None = None
        self.killed = 0  # the signal kill() sent
        self.error: BaseException | None = None

        def end(spec: Any, reading: bool) -> Any:
            if isinstance(spec, Pipe):
                return spec.reader if reading else spec.writer
            return spec

        def work() -> None:
            try:
                self.status = int(inv.run_command(
                    argv, stdin=end(streams["stdin"], True), stdout=end(streams["stdout"], False),
                    stderr=end(streams["stderr"], False), env=env, cwd=cwd,
                    cancel=self.token) or 0)
            except BrokenPipeError:
                self.status = 141
            except BaseException as e:  # noqa: BLE001 - a stop or a host bug: it ended
                self.error = e
                self.status = 1
            finally:
                for name in ("stdout", "stderr"):
                    if name in self.pipes:
                        self.pipes[name].close_writer()
                if "stdin" in self.pipes:
                    self.pipes["stdin"].close_reader()

        self.thread = threading.Thread(target=work, name="vshell-python-child", daemon=True)
        self.thread.start()

    @property
    def returncode(self) -> int | None:
        if self.thread.is_alive():
            return None
        if self.killed:
            return -self.killed
        return self.status

    def kill(self, sig: int) -> None:
        if self.thread.is_alive() and not self.killed:
            self.killed = sig
            self.token.cancel("killed")
        if "stdin" in self.pipes:
            self.pipes["stdin"].close_writer()


class Door:
    """The door of one guest run: request bytes -> answer bytes, and the children it made.

    ``boot_sink`` takes the compiled boot code the run's boot offers (``{"op": "boot"}``),
    accepted only as the run's very first request: the boot sends it before any of the
    user's code has run, so nothing a program sends is ever taken for it.  ``interrupted``
    says (and takes) a Ctrl-C meant for the guest while it waits here."""

    def __init__(self, inv: Any, boot_sink: Callable[[bytes], None] | None,
                 interrupted: Callable[[], bool]) -> None:
        self.inv = inv
        self.boot_sink = boot_sink
        self.interrupted = interrupted
        self.calls = 0
        self.children: dict[int, Child] = {}
        self.next_id = 1

    def __call__(self, request: bytes) -> bytes:
        import base64
        import json

        self.calls += 1
        try:
            req = json.loads(request)
            if not isinstance(req, dict):
                raise TypeError("not an object")
            op = req.get("op")
            if op == "boot":
                if self.calls == 1 and self.boot_sink is not None:
                    self.boot_sink(base64.b64decode(req["code"], validate=True))
                    return b"{}"
                return json.dumps({"error": "not asked for"}).encode()
            if op == "spawn":
                answer = self._spawn(req)
            else:
                method = _OPS.get(op) if isinstance(op, str) else None
                if method is None:
                    raise ValueError(f"unknown op {op!r}")
                child = self.children.get(int(req["id"]))
                if child is None:
                    raise ValueError("no such process")
                answer = method(self, child, req)
        except (ValueError, KeyError, TypeError, AttributeError) as e:
            return json.dumps({"error": f"bad request: {e}"}).encode()
        return json.dumps(answer).encode()

    def close(self) -> None:
        """The guest ended: close every child's input, drop its output, wait for its end."""
        for child in self.children.values():
            for name, p in child.pipes.items():
                if name == "stdin":
                    p.close_writer()
                else:
                    p.close_reader()
        for child in self.children.values():
            while child.thread.is_alive():
                child.thread.join(SLICE)
                if self.inv.cancel.reason is not None:
                    child.kill(9)
        self.children.clear()

    # --- the requests -------------------------------------------------------------------
    def _spawn(self, req: dict[str, Any]) -> dict[str, Any]:
        import base64

        inv = self.inv
        if inv.run_command is None:
            return {"error": "running commands is not available here"}
        argv = [str(a) for a in req["argv"]]
        if not argv:
            raise ValueError("empty argv")
        if req.get("shell") is not True and not _exists(inv, argv[0]):
            return {"notfound": True}
        token = inv.cancel.child()
        check = token.check  # a pipe end waiting on a killed command gives up too
        streams: dict[str, Any] = {}
        spec = req.get("stdin")
        if spec == "pipe":
            streams["stdin"] = Pipe(check)
        elif spec == "inherit":
            streams["stdin"] = inv.stdin
        elif spec == "null" or spec is None:
            streams["stdin"] = b""
        else:
            streams["stdin"] = base64.b64decode(spec)
        sinks = {"inherit": inv.stdout, "null": _Null()}
        spec = req.get("stdout") or "inherit"
        streams["stdout"] = Pipe(check) if spec == "pipe" else sinks.get(spec, inv.stdout)
        spec = req.get("stderr") or "inherit"
        if spec == "stdout":
            streams["stderr"] = streams["stdout"]
        elif spec == "pipe":
            streams["stderr"] = Pipe(check)
        else:
            streams["stderr"] = {"inherit": inv.stderr, "null": _Null()}.get(spec, inv.stderr)
        env = req.get("env")
        if env is not None:
            env = {str(k): str(v) for k, v in env.items()}
        cwd = req.get("cwd")
        child = Child(inv, token, argv, streams, env, inv.abs(str(cwd)) if cwd else None)
        if streams["stderr"] is streams["stdout"] and "stdout" in child.pipes:
            child.pipes.pop("stderr", None)  # one pipe, closed once
        num = self.next_id
        self.next_id += 1
        self.children[num] = child
        return {"id": num}

    def _wait_while(self, child: Child, busy: Callable[[], bool],
                    timeout: float | None) -> str | None:
        """Wait while ``busy()``: None when it no longer is, else "timeout" or
        "interrupted" (Ctrl-C at the prompt: the guest's children end, as on a terminal)."""
        deadline = None if timeout is None else time.monotonic() + max(0.0, timeout)
        while busy():
            self.inv.cancel.waiting()
            if self.interrupted():
                for c in self.children.values():
                    c.kill(2)
                return "interrupted"
            if deadline is not None and time.monotonic() >= deadline:
                return "timeout"
            child.thread.join(SLICE / 5 if deadline is None else
                              max(0.0, min(SLICE / 5, deadline - time.monotonic())))
        return None

    def _read(self, child: Child, req: dict[str, Any]) -> dict[str, Any]:
        import base64

        pipe = child.pipes.get(str(req["fd"]))
        if pipe is None:
            raise ValueError("not a pipe")
        n = int(req.get("n", 65536))
        while True:
            data = pipe.read(n, timeout=SLICE, check=self.inv.cancel.waiting)
            if data is not None:
                return {"data": base64.b64encode(data).decode()}
            if self.interrupted():
                for c in self.children.values():
                    c.kill(2)
                return {"interrupted": True}

    def _write(self, child: Child, req: dict[str, Any]) -> dict[str, Any]:
        import base64

        pipe = child.pipes.get("stdin")
        if pipe is None:
            raise ValueError("not a pipe")
        data = base64.b64decode(req["data"])
        try:
            pipe.write(data, check=self.inv.cancel.waiting)
        except BrokenPipeError:
            return {"epipe": True}
        return {"n": len(data)}

    def _close(self, child: Child, req: dict[str, Any]) -> dict[str, Any]:
        fd = str(req["fd"])
        pipe = child.pipes.get(fd)
        if pipe is not None:
            if fd == "stdin":
                pipe.close_writer()
            else:
                pipe.close_reader()
        return {}

    def _status(self, child: Child) -> dict[str, Any]:
        if child.error is not None and not isinstance(child.error, Cancelled):
            return {"status": child.returncode, "failed": str(child.error)}
        return {"status": child.returncode}

    def _wait_op(self, child: Child, req: dict[str, Any]) -> dict[str, Any]:
        for name, p in child.pipes.items():
            if name != "stdin":
                p.unbound()  # nobody reads while it waits: keep the output, never deadlock
        why = self._wait_while(child, child.thread.is_alive, _seconds(req.get("timeout")))
        return {why: True} if why else self._status(child)

    def _poll(self, child: Child, req: dict[str, Any]) -> dict[str, Any]:
        return self._status(child)

    def _kill(self, child: Child, req: dict[str, Any]) -> dict[str, Any]:
        child.kill(int(req.get("signal", 9)) or 9)
        return {}

    def _communicate(self, child: Child, req: dict[str, Any]) -> dict[str, Any]:
        """Feed the input (on a thread: the child may read it slowly), then collect both
        outputs to their end and wait, up to the timeout (what was collected comes back
        either way; the guest keeps it for the next call)."""
        import base64

        stdin = child.pipes.get("stdin")
        if stdin is not None and not stdin.writer_closed:
            data = base64.b64decode(req.get("input") or "")

            def feed() -> None:
                try:
                    if data:
                        stdin.write(data, check=self.inv.cancel.waiting)
                except (BrokenPipeError, Cancelled):
                    pass
                finally:
                    stdin.close_writer()

            threading.Thread(target=feed, name="vshell-python-feed", daemon=True).start()
        outs = {name: p for name, p in child.pipes.items() if name != "stdin"
                and not p.reader_closed}
        got: dict[str, list[bytes]] = {name: [] for name in outs}
        for p in outs.values():
            p.unbound()

        def drain() -> bool:
            """Take what is there; True while more may come."""
            more = False
            for name, p in outs.items():
                chunk = p.read(-1, timeout=0, check=self.inv.cancel.check)
                while chunk:
                    got[name].append(chunk)
                    chunk = p.read(-1, timeout=0, check=self.inv.cancel.check)
                if chunk is None:
                    more = True
            return more or child.thread.is_alive()

        why = self._wait_while(child, drain, _seconds(req.get("timeout")))
        answer: dict[str, Any] = {name: base64.b64encode(b"".join(parts)).decode()
                                  for name, parts in got.items()}
        if why:
            answer[why] = True
            return answer
        answer.update(self._status(child))
        return answer


_OPS: dict[str, Callable[[Door, Child, dict[str, Any]], dict[str, Any]]] = {
    "read": Door._read, "write": Door._write, "close": Door._close, "wait": Door._wait_op,
    "poll": Door._poll, "kill": Door._kill, "communicate": Door._communicate,
}


def _seconds(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and value >= 0 else None


def _exists(inv: Any, name: str) -> bool:
    """Whether ``name`` names a command ``exec`` would run (``command -v``, as the shell
    resolves it); an argv whose program does not exist is FileNotFoundError in the guest."""
    null = _Null()
    return inv.run_command(["command", "-v", name], stdin=b"", stdout=null, stderr=null) == 0
