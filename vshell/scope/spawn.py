"""Starting a scope's server: the one place vshell starts a host process.

Scripts never start host processes (tests/security/test_no_host_process.py proves it);
``vshell run`` starts exactly one kind: another vshell, ``python -m vshell.scope.server``,
in a session of its own so it outlives the call, its stderr kept in a log file beside
the socket.  The static check in that test allows ``subprocess`` in this file alone.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any


class SpawnError(RuntimeError):
    """The server did not come up; the message says why."""


def start_server(socket_path: str, spec: dict[str, Any], wait: float = 30.0) -> None:
    """Start the server for ``socket_path`` and return once it listens."""
    import select

    log = open(socket_path[: -len(".sock")] + ".log", "ab")  # noqa: SIM115 - the child owns it
    env = dict(os.environ)
    package_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (package_root, env.get("PYTHONPATH", "")) if p)
    try:
        proc = subprocess.Popen(  # the server: vshell itself, never a script's command
            [sys.executable, "-m", "vshell.scope.server", socket_path],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
            start_new_session=True, close_fds=True, env=env, cwd="/",
        )
    finally:
        log.close()
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps(spec).encode())
    proc.stdin.close()
    ready, _, _ = select.select([proc.stdout], [], [], wait)
    line = proc.stdout.readline().decode(errors="replace").strip() if ready else ""
    proc.stdout.close()
    if line != "ready":
        if not line:
            proc.kill()
        proc.wait(timeout=5)
        raise SpawnError(line[len("error: "):] if line.startswith("error: ") else
                         f"the session server did not start (see {log.name})")
