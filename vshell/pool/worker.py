"""A pool worker: ``python -m vshell.pool.worker [--memory BYTES]``, started by the supervisor.

It hosts sessions (one :class:`~vshell.sandbox.Sandbox` each) and answers the supervisor's
requests over its stdin/stdout pipes (see :mod:`vshell.pool.protocol`).  Each request runs
on a thread of its own; one session's requests take turns on the session's lock, so
requests of different sessions run side by side and are answered as they finish.

The worker's only way out is the pipe: nothing it runs can print on the protocol stream
(descriptor 1 is pointed at stderr once the pipe is taken), and it ends when the
supervisor closes stdin, even while a command is running.  A ``MemoryError`` (the
``--memory`` rlimit was reached) ends the worker too: its sessions' state can no longer be
trusted, and the supervisor replaces it.
"""

from __future__ import annotations

import importlib
import os
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any

from vshell.command import CancelToken
from vshell.pool.protocol import read_frame, write_frame

EXIT_MEMORY = 70  # the status a worker ends with when its memory cap was reached


class _Session:
    def __init__(self, sandbox: Any) -> None:
        self.sandbox = sandbox
        self.turn = threading.Lock()


class Worker:
    """The request loop of one worker process."""

    def __init__(self, out_fd: int) -> None:
        self.out_fd = out_fd
        self.write_lock = threading.Lock()
        self.sessions: dict[int, _Session] = {}
        self.tokens: dict[int, CancelToken] = {}
        self.guard = threading.Lock()
        self.memory_hit = threading.Event()  # a run ended on MemoryError: the cap was reached

    def send(self, message: dict[str, Any]) -> None:
        with self.write_lock:
            write_frame(self.out_fd, message)

    def reply(self, rid: int, value: Any) -> None:
        try:
            self.send({"rid": rid, "ok": True, "value": value})
        except Exception as e:  # noqa: BLE001 - an unpicklable value becomes an error reply
            self.fail(rid, "E_INTERNAL", f"the result could not be sent: {type(e).__name__}: {e}")

    def fail(self, rid: int, code: str, message: str) -> None:
        self.send({"rid": rid, "ok": False, "code": code, "message": message})

    # --- dispatch --------------------------------------------------------------------
    def serve(self, stream: Any) -> None:
        self.send({"op": "ready", "pid": os.getpid()})
        while True:
            msg = read_frame(stream)
            if msg is None:
                return
            op = msg.get("op")
            if op == "cancel":
                with self.guard:
                    token = self.tokens.get(msg["rid"])
                if token is not None:
                    token.cancel(msg.get("reason", "canceled"))
                continue
            if op == "shutdown":
                return
            if op == "open":  # in order: a request that follows its open finds the session
                self.handle(msg)
                continue
            if op in ("exec", "call"):  # its token exists before a cancel can name it
                with self.guard:
                    self.tokens[msg["rid"]] = CancelToken()
            threading.Thread(target=self.handle, args=(msg,), name=f"pool-{op}",
                             daemon=True).start()

    def handle(self, msg: dict[str, Any]) -> None:
        rid = msg["rid"]
        try:
            op = msg["op"]
            if op == "open":
                self.open(rid, msg["sid"], msg["options"])
            elif op == "close":
                self.close(rid, msg["sid"])
            elif op in ("exec", "call"):
                self.run(rid, msg)
            else:
                self.fail(rid, "E_PROTOCOL", f"unknown request {op!r}")
        except MemoryError:
            self.out_of_memory(rid)
        except Exception as e:  # noqa: BLE001 - every request gets an answer
            self.fail(rid, "E_INTERNAL", f"{type(e).__name__}: {e}")

    def open(self, rid: int, sid: int, options: dict[str, Any]) -> None:
        from vshell.sandbox import Sandbox, SandboxConfigError

        try:
            sb = Sandbox(**options)
        except SandboxConfigError as e:
            self.fail(rid, "E_CONFIG", str(e))
            return
        except TypeError as e:  # an option Sandbox does not take
            self.fail(rid, "E_CONFIG", str(e))
            return
        _watch_memory(sb, self.memory_hit)
        with self.guard:
            self.sessions[sid] = _Session(sb)
        self.reply(rid, sid)

    def close(self, rid: int, sid: int) -> None:
        with self.guard:
            session = self.sessions.pop(sid, None)
        if session is not None:
            session.sandbox.close()
        self.reply(rid, None)

    def run(self, rid: int, msg: dict[str, Any]) -> None:
        with self.guard:
            session = self.sessions.get(msg["sid"])
            token = self.tokens.setdefault(rid, CancelToken())
        if session is None:
            with self.guard:
                self.tokens.pop(rid, None)
            self.fail(rid, "E_NO_SESSION", f"no session {msg['sid']} in this worker")
            return
        serial = msg.get("serial", True)  # the shell takes turns; file tools need not
        try:
            while serial and not session.turn.acquire(timeout=0.05):
                if token.reason is not None:  # cancelled while another request ran
                    self.fail(rid, "E_CANCELED", "cancelled before it started")
                    return
            try:
                self.send({"op": "started", "rid": rid})
                if msg["op"] == "exec":
                    value: Any = self._exec(session.sandbox, msg, token)
                else:
                    value = _target(msg["target"])(session.sandbox, *msg["args"], token)
            finally:
                if serial:
                    session.turn.release()
        finally:
            with self.guard:
                self.tokens.pop(rid, None)
        if self.memory_hit.is_set() or _holds_memory_error(value):
            self.out_of_memory(rid)
        self.reply(rid, value)

    def _exec(self, sb: Any, msg: dict[str, Any], token: CancelToken) -> Any:
        res = sb.exec(msg["script"], stdin=msg.get("stdin"), timeout=msg.get("timeout"),
                      cancel=token)
        if res.error is not None:
            res.error = portable_error(res.error)
        return res

    def out_of_memory(self, rid: int) -> None:
        """The cap was reached: say so to the request and end; the supervisor replaces us."""
        try:
            self.fail(rid, "E_WORKER_LOST", "the worker reached its memory cap "
                      "(--worker-memory); the session's state was lost")
        finally:
            os._exit(EXIT_MEMORY)


def _watch_memory(sb: Any, hit: threading.Event) -> None:
    """Note every run of ``sb`` that ended on a MemoryError, whoever called ``exec`` (the
    MCP tools turn the Result into text, so the worker could not see it afterwards)."""
    run = sb.exec

    def exec_watched(*args: Any, **kwargs: Any) -> Any:
        res = run(*args, **kwargs)
        if _holds_memory_error(res):
            hit.set()
        return res

    sb.exec = exec_watched  # an instance attribute: this session's calls only


def _holds_memory_error(value: Any) -> bool:
    error = getattr(value, "error", None)
    return isinstance(error, MemoryError) or (
        isinstance(error, RuntimeError) and str(error).startswith("MemoryError"))


def portable_error(e: BaseException) -> Exception:
    """An exception that unpickles anywhere: builtin types keep their type, others are named."""
    if type(e).__module__ == "builtins" and isinstance(e, Exception):
        try:
            return type(e)(str(e))
        except Exception:  # noqa: BLE001, S110 - fall through to the generic form
            pass
    return RuntimeError(f"{type(e).__name__}: {e}")


def _target(spec: str) -> Callable[..., Any]:
    """``module:function`` of vshell itself (the MCP tools' ``call``, say), never a user's."""
    module, _, name = spec.partition(":")
    if not (module == "vshell" or module.startswith("vshell.")) or not name:
        raise ValueError(f"not a vshell function: {spec!r}")
    fn = getattr(importlib.import_module(module), name)
    if not callable(fn):
        raise ValueError(f"not callable: {spec!r}")
    return fn


def _limit_memory(limit: int) -> None:
    """Cap the worker's data segment (RLIMIT_DATA, not RLIMIT_AS: wasmtime reserves large
    address ranges it never commits, and those must stay possible)."""
    import resource

    resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))


def main(argv: list[str]) -> int:
    limit = 0
    warm: list[str] = []
    i = 0
    while i < len(argv):
        if argv[i] == "--memory" and i + 1 < len(argv):
            limit = int(argv[i + 1])
            i += 2
        elif argv[i] == "--warm" and i + 1 < len(argv):
            warm.append(argv[i + 1])
            i += 2
        else:
            sys.stderr.write(f"vshell.pool.worker: unknown argument {argv[i]!r}\n")
            return 2
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the supervisor decides when we end
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    # the protocol owns the pipes: keep private copies, then point 0 and 1 elsewhere
    in_fd, out_fd = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(2, 1)
    os.close(devnull)
    import vshell.sandbox  # noqa: F401 - paid now, ahead of the first session

    for module in warm:  # what the supervisor's calls will use (the MCP tools, say)
        if module.startswith("vshell."):
            importlib.import_module(module)
    if limit > 0:
        _limit_memory(limit)
    worker = Worker(out_fd)
    with os.fdopen(in_fd, "rb", buffering=0) as stream:
        try:
            worker.serve(stream)
        except (BrokenPipeError, OSError):
            pass
    # stdin closed: the supervisor is gone or wants us gone; running commands die with us
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
