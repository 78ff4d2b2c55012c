"""The client side of a scope: connect to its server (starting it on first use or when
it died), send one request, relay the frames to stdout/stderr, return the exit status."""

from __future__ import annotations

import errno
import fcntl
import os
import socket
import sys
from typing import Any, BinaryIO

from vshell.scope import protocol
from vshell.scope.spawn import SpawnError, start_server


class ScopeError(RuntimeError):
    """The session could not be reached or started."""


def _connect(path: str) -> socket.socket | None:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
        return sock
    except OSError as e:
        sock.close()
        if e.errno in (errno.ENOENT, errno.ECONNREFUSED, errno.ENOTSOCK):
            return None
        raise ScopeError(f"cannot reach the session at {path}: {e.strerror}") from None


def connect_or_start(path: str, spec: dict[str, Any]) -> socket.socket:
    """A connection to the server at ``path``, starting it (once, under a lock) if there
    is none or only a dead one's socket."""
    sock = _connect(path)
    if sock is not None:
        return sock
    with open(path + ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        sock = _connect(path)  # another client may have started it meanwhile
        if sock is not None:
            return sock
        if os.path.lexists(path):
            os.unlink(path)  # a dead server's socket
        try:
            start_server(path, spec)
        except SpawnError as e:
            raise ScopeError(str(e)) from None
    sock = _connect(path)
    if sock is None:
        raise ScopeError(f"the session server at {path} went away as it started")
    return sock


# A command stuck in a C loop that never lets go of the interpreter (a pathological
# regex, say) starves the server's timeout thread.  As ``vshell -c`` has SIGALRM for that,
# the client ends such a server once the timeout and this grace have passed in silence.
WATCHDOG_GRACE = 5.0


def request(sock: socket.socket, message: dict[str, Any], out: BinaryIO,
            err: BinaryIO) -> dict[str, Any]:
    """Send ``message``; write the output frames as they come; the final frame."""
    stream = sock.makefile("rwb")
    timeout = message.get("timeout")
    try:
        protocol.send(stream, message)
        if timeout:
            sock.settimeout(float(timeout) + WATCHDOG_GRACE)
        while True:
            try:
                frame = protocol.receive(stream)
            except TimeoutError:
                return {"exit": 137, "watchdog": True, "message": (
                    "the command did not stop at its timeout; its session was ended")}
            if frame is None:
                return {"exit": 125, "message": "the session server ended during the command"}
            if "out" in frame:
                out.write(protocol.unpack(frame["out"]))
                out.flush()
            elif "err" in frame:
                err.write(protocol.unpack(frame["err"]))
                err.flush()
            elif "exit" in frame:
                return frame
    finally:
        stream.close()
        sock.close()


def call(path: str, spec: dict[str, Any], message: dict[str, Any]) -> int:
    """One request in the scope; restarts the server once when its settings are stale."""
    out, err = sys.stdout.buffer, sys.stderr.buffer
    for attempt in range(2):
        sock = connect_or_start(path, spec)
        final = request(sock, {**message, "fingerprint": spec["fingerprint"]}, out, err)
        if final.get("watchdog"):
            _kill(path)
        if final.get("stale") and attempt == 0:
            err.write(b"vshell: the scope's settings changed; starting a new session\n")
            stop(path)
            continue
        if final.get("message"):
            err.write(f"vshell: {final['message']}\n".encode())
        return int(final.get("exit", 125))
    return 125


def stop(path: str) -> bool:
    """Ask the server at ``path`` to end; False when none was running."""
    import time

    sock = _connect(path)
    if sock is None:
        if os.path.lexists(path):
            os.unlink(path)
        return False
    stream = sock.makefile("rwb")
    try:
        protocol.send(stream, {"op": "stop"})
        protocol.receive(stream)
    except (OSError, ValueError):
        pass
    finally:
        stream.close()
        sock.close()
    deadline = time.monotonic() + 10
    while os.path.lexists(path) and time.monotonic() < deadline:
        time.sleep(0.02)  # until the sandbox is closed and its overlay saved
    return True


def _kill(path: str) -> None:
    """End the (stuck) server of ``path``: the pid it recorded, then its socket."""
    import signal

    from vshell.scope.server import pid_file

    try:
        with open(pid_file(path)) as f:
            os.kill(int(f.read().strip()), signal.SIGKILL)
    except (OSError, ValueError):
        pass
    for leftover in (path, pid_file(path)):
        try:
            os.unlink(leftover)
        except OSError:
            pass
