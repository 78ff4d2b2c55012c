"""A scope's server: one Sandbox, kept between ``vshell run`` calls, behind a Unix socket.

Started as ``python -m vshell.scope.server SOCKET`` with its spec (the JSON from
:func:`vshell.scope.spec.build_spec`) on stdin; answers ``ready`` (or ``error: ...``) on
stdout once it listens.  Connections are served one at a time, so two calls in one scope
are serialised; cwd, variables, functions and options persist between them.  After the
idle timeout with no connection, or a ``stop`` request, the sandbox is closed (copy-on-
write changes saved to the overlay directory) and the socket removed.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import threading
from typing import IO, Any, BinaryIO, cast

from vshell.scope import protocol


class _FrameWriter:
    """A file-like stdout/stderr for Sandbox.exec that forwards each write as a frame."""

    def __init__(self, stream: protocol.Stream, key: str, lock: threading.Lock) -> None:
        self.stream, self.key, self.lock = stream, key, lock

    def write(self, data: bytes) -> int:
        if data:
            with self.lock:
                try:
                    protocol.send(self.stream, {self.key: protocol.pack(bytes(data))})
                except OSError:
                    raise BrokenPipeError(32, "Broken pipe") from None
        return len(data)

    def flush(self) -> None:
        pass


class ScopeServer:
    def __init__(self, spec: dict[str, Any]) -> None:
        from vshell.sandbox import HostMount, Sandbox

        self.spec = spec
        self.sandbox = Sandbox(
            mounts=[HostMount(h, v, readonly=m == "ro", cow=m == "cow")
                    for h, v, m in spec["mounts"]],
            deny=spec.get("deny", []),
            allow_net=spec.get("allow_net", []),
            env=spec.get("env") or None,
            timeout=None,  # each call brings its own
            output_limit=spec.get("output_limit", 4 << 20),
            memory_fs_limit=spec.get("memory_fs_limit"),
            memory_limit=spec.get("memory_limit"),
            cwd=spec.get("cwd"),
            overlay_dir=spec.get("overlay_dir"),
        )
        self.sandbox.dash_c = True
        self.stopping = False

    def handle(self, conn: socket.socket) -> None:
        stream = conn.makefile("rwb")
        try:
            request = protocol.receive(stream)
        except ValueError:
            request = None
        if request is None:
            return
        op = request.get("op")
        try:
            if op == "ping":
                protocol.send(stream, {"exit": 0, "pid": os.getpid(),
                                       "fingerprint": self.spec.get("fingerprint")})
            elif op == "stop":
                self.stopping = True
                protocol.send(stream, {"exit": 0})
            elif op == "run":
                self._run(conn, stream, request)
            elif op == "review":
                self._review(stream, request)
            else:
                protocol.send(stream, {"exit": 2, "message": f"unknown request {op!r}"})
        except OSError:
            pass  # the client went away; the session goes on
        except Exception as e:  # noqa: BLE001 - the session outlives a failed request
            try:
                protocol.send(stream, {"exit": 125, "message": f"internal error: "
                                                               f"{type(e).__name__}: {e}"})
            except OSError:
                pass

    def _run(self, conn: socket.socket, stream: protocol.Stream, request: dict[str, Any]) -> None:
        from vshell.command import CancelToken
        from vshell.result import Outcome

        if request.get("fingerprint") != self.spec.get("fingerprint"):
            protocol.send(stream, {"exit": 125, "stale": True,
                                   "message": "the scope's settings changed"})
            return
        token = CancelToken()
        threading.Thread(target=_cancel_on_hangup, args=(conn, token), daemon=True).start()
        lock = threading.Lock()
        state = self.sandbox._state
        args = list(request.get("args") or [])
        state.script_name = args[0] if args else "vshell"
        state.positional = args[1:]
        stdin = protocol.unpack(request.get("stdin") or "")
        script = request.get("script", "")
        if request.get("file"):
            script = self._read_script(stream, request["file"])
            if script is None:
                return
        res = self.sandbox.exec(
            script, stdin=stdin, timeout=request.get("timeout"),
            stdout=cast(IO[bytes], _FrameWriter(stream, "out", lock)),
            stderr=cast(IO[bytes], _FrameWriter(stream, "err", lock)),
            cancel=token,
        )
        status = res.exit_code
        if res.outcome is Outcome.TIMED_OUT:
            status = 137
        elif res.outcome is Outcome.CANCELED:
            status = 130
        if res.truncated:
            message = f"vshell: output truncated at {self.sandbox.output_limit} bytes\n"
            protocol.send(stream, {"err": protocol.pack(message.encode())})
        protocol.send(stream, {"exit": status})

    def _read_script(self, stream: protocol.Stream, path: str) -> str | None:
        """A script file read through the sandbox (its deny rules apply), as ``vshell FILE``."""
        full = path if path.startswith("/") else self.sandbox.cwd.rstrip("/") + "/" + path
        try:
            with self.sandbox.fs.open(os.path.normpath(full), "rb") as f:
                return f.read().decode("utf-8", "surrogateescape")
        except IsADirectoryError:
            problem, status = "Is a directory", 126
        except OSError as e:
            problem, status = e.strerror or str(e), 127
        protocol.send(stream, {"err": protocol.pack(f"vshell: {path}: {problem}\n".encode())})
        protocol.send(stream, {"exit": status})
        return None

    def _review(self, stream: protocol.Stream, request: dict[str, Any]) -> None:
        """``vshell changes|diff|sync|discard`` in this scope, over the live overlay."""
        action = request.get("action")
        letters = {"add": "A", "modify": "M", "delete": "D", "type-change": "T"}

        def listing(changes: list[tuple[str, str]]) -> str:
            return "".join(f"{letters.get(kind, '?')} {path}\n" for path, kind in changes)

        out, err, status = "", "", 0
        if action == "changes":
            out = listing(self.sandbox.changes())
        elif action == "diff":
            out = self.sandbox.diff()
        elif action == "discard":
            self.sandbox.discard()
        elif action == "sync":
            paths = request.get("paths") or None
            result = self.sandbox.sync(paths)
            out = listing(sorted(result.applied))
            err = "".join(f"vshell sync: conflict: {p} changed on the host\n"
                          for p in result.conflicts)
            if result.conflicts:
                err += "vshell sync: nothing applied\n"
                status = 1
            elif result.failed is not None:
                err += (f"vshell sync: stopped at {result.failed}: {result.error}; "
                        "the rest is still in the overlay\n")
                status = 1
        else:
            out, status = "", 2
            err = f"vshell: unknown review action {action!r}\n"
        if out:
            protocol.send(stream, {"out": protocol.pack(out.encode())})
        if err:
            protocol.send(stream, {"err": protocol.pack(err.encode())})
        protocol.send(stream, {"exit": status})

    def close(self) -> None:
        self.sandbox.close()


def _cancel_on_hangup(conn: socket.socket, token: Any) -> None:
    """The client closing its end (Ctrl-C, a killed harness) cancels the running command."""
    try:
        while conn.recv(1024):
            pass
    except OSError:
        pass
    token.cancel("interrupt")


def serve(path: str, spec: dict[str, Any], announce: BinaryIO) -> int:
    """Listen on ``path`` and serve until idle or stopped; 0 when another server already
    holds the socket."""
    if os.path.exists(path):
        if _alive(path):
            announce.write(b"ready\n")
            announce.flush()
            return 0
        os.unlink(path)
    try:
        server = ScopeServer(spec)
    except Exception as e:  # noqa: BLE001 - said to the client, which prints it
        announce.write(f"error: {e}\n".encode())
        announce.flush()
        return 2
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_mask = os.umask(0o077)
    try:
        listener.bind(path)
    finally:
        os.umask(old_mask)
    listener.listen(16)
    with open(pid_file(path), "w") as f:  # for the client's watchdog
        f.write(f"{os.getpid()}\n")
    idle = spec.get("idle_timeout")
    listener.settimeout(idle if idle else None)
    announce.write(b"ready\n")
    announce.flush()
    try:
        while not server.stopping:
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                break
            conn.settimeout(None)
            with conn:
                server.handle(conn)
    finally:
        try:
            server.close()  # the overlay is saved before the socket goes
        finally:
            for leftover in (path, pid_file(path)):
                try:
                    os.unlink(leftover)
                except OSError:
                    pass
            listener.close()
    return 0


def pid_file(socket_path: str) -> str:
    return socket_path[: -len(".sock")] + ".pid" if socket_path.endswith(".sock") else \
        socket_path + ".pid"


def _alive(path: str) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(path)
        return True
    except OSError:
        return False
    finally:
        probe.close()


def main() -> int:
    path = sys.argv[1]
    spec = json.loads(sys.stdin.buffer.read())
    announce = os.fdopen(os.dup(1), "wb")
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 1)  # nothing else may write on the pipe the client reads
    try:
        return serve(path, spec, announce)
    finally:
        announce.close()


if __name__ == "__main__":
    sys.exit(main())
