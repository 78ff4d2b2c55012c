"""Driving a terminal program through tmux, shared by the REPL tests.

A detached tmux session on a private server socket is a real terminal: tests type with
``send-keys`` and read the screen with ``capture-pane``.  Every wait polls with short sleeps
and is bounded, so a hung program fails its test instead of the run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None,
                                reason="tmux is not installed (apt-get install -y tmux)")


class Tmux:
    """One detached tmux session on its own server socket."""

    def __init__(self, name: str) -> None:
        self.socket = f"vshell-test-{os.getpid()}-{name}"
        self.name = name

    def tmux(self, *args: str) -> str:
        out = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True,
                             text=True, timeout=10)
        return out.stdout

    def start(self, command: str) -> float:
        """Start ``command`` in the session; the time it was started."""
        t0 = time.monotonic()
        subprocess.run(["tmux", "-L", self.socket, "-f", "/dev/null", "new-session", "-d",
                        "-s", self.name, "-x", "120", "-y", "30", command], check=True,
                       timeout=10, env={**os.environ, "TERM": "xterm-256color"})
        return t0

    def send(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", self.name, *keys)

    def type(self, text: str) -> None:
        self.tmux("send-keys", "-t", self.name, "-l", text)

    def screen(self, join: bool = False) -> str:
        """The visible pane; ``join`` undoes the wrapping of lines wider than the pane."""
        return self.tmux("capture-pane", "-p", *(["-J"] if join else []), "-t", self.name)

    def alive(self) -> bool:
        return subprocess.run(["tmux", "-L", self.socket, "has-session", "-t", self.name],
                              capture_output=True, timeout=10).returncode == 0

    def wait(self, pred: Callable[[str], bool], timeout: float = 8.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            text = self.screen()
            if pred(text):
                return text
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting; screen was:\n{text}")
            time.sleep(0.05)

    def wait_prompts(self, n: int, timeout: float = 8.0) -> str:
        """Wait until ``n`` prompts are on screen and the last line is an empty prompt."""
        def ready(text: str) -> bool:
            lines = [ln for ln in text.splitlines() if ln.strip()]
            prompts = [ln for ln in lines if ln.startswith("$ ") or ln == "$"]
            return len(prompts) >= n and lines[-1].rstrip() == "$"
        return self.wait(ready, timeout)

    def kill(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True,
                       timeout=10)
        base = os.environ.get("TMUX_TMPDIR", "/tmp")
        Path(base, f"tmux-{os.getuid()}", self.socket).unlink(missing_ok=True)


@contextmanager
def tmux_for(request: pytest.FixtureRequest) -> Iterator[Tmux]:
    """A session named after the running test, its server killed afterwards."""
    t = Tmux(request.node.name.replace("[", "_").replace("]", "")[:40])
    try:
        yield t
    finally:
        t.kill()


def wait_file(path: Path, timeout: float = 8.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return path.read_text().strip()
        time.sleep(0.05)
    raise AssertionError(f"{path} never written")


def last_output_lines(screen: str) -> list[str]:
    return [ln.rstrip() for ln in screen.splitlines() if ln.strip()]
