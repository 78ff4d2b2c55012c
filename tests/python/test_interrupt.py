"""Ctrl-C in the interactive guest raises KeyboardInterrupt inside it; Ctrl-D leaves.

No PTY: the terminal is a stand-in stream saying ``interactive`` (as the REPL's does) that
is fed line by line, and Ctrl-C is what the REPL's SIGINT handler calls
(``Sandbox.interrupt`` / ``runtime.interrupt``), or a real SIGINT on the guest's thread.
"""

from __future__ import annotations

import io
import os
import queue
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

from pyharness import py

from vshell.python import runtime

ROOT = Path(__file__).resolve().parents[2]
WAIT = 60.0  # seconds a step may take on a loaded machine


class Terminal(io.RawIOBase):
    """Lines typed by a person: ``interactive`` and ``wait_readable`` as the REPL's input;
    ``None`` put in is Ctrl-D (end of input)."""

    interactive = True

    def __init__(self) -> None:
        super().__init__()
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.buf = b""
        self.eof = False

    def wait_readable(self, timeout: float) -> bool:
        if self.buf or self.eof:
            return True
        try:
            item = self.lines.get(timeout=timeout)
        except queue.Empty:
            return False
        if item is None:
            self.eof = True
        else:
            self.buf += item
        return True

    def read1(self, n: int = -1) -> bytes:
        while not self.wait_readable(0.05):
            pass
        n = len(self.buf) if n is None or n < 0 else n
        data, self.buf = self.buf[:n], self.buf[n:]
        return data

    read = read1

    def readable(self) -> bool:
        return True


class Screen(io.RawIOBase):
    """A stream another thread can watch."""

    def __init__(self) -> None:
        super().__init__()
        self.data = b""
        self.cond = threading.Condition()

    def writable(self) -> bool:
        return True

    def write(self, b: Any) -> int:
        with self.cond:
            self.data += bytes(b)
            self.cond.notify_all()
        return len(b)

    def wait_for(self, text: bytes, count: int = 1) -> None:
        deadline = time.monotonic() + WAIT
        with self.cond:
            while self.data.count(text) < count:
                left = deadline - time.monotonic()
                assert left > 0, f"never saw {text!r} x{count}: {self.data!r}"
                self.cond.wait(left)


def _session(fs: Any, args: list[str], steps: Any) -> tuple[Any, Screen]:
    """Run ``python3 ARGS`` at a Terminal while ``steps(terminal, screen)`` drives it."""
    term, screen = Terminal(), Screen()
    failures: list[BaseException] = []

    def drive() -> None:
        try:
            steps(term, screen)
        except BaseException as e:  # noqa: BLE001 - reported by the test
            failures.append(e)
        finally:
            term.lines.put(None)

    t = threading.Thread(target=drive, daemon=True)
    t.start()
    ran = py(fs, args, stdin=term, stdout=screen, timeout=4 * WAIT)
    t.join(WAIT)
    assert not failures, failures
    return ran, screen


def _interrupt() -> None:
    deadline = time.monotonic() + WAIT
    while not runtime.interrupt():  # the guest learns how during its boot
        assert time.monotonic() < deadline, "the guest never took interrupts"
        time.sleep(0.02)


def test_ctrl_c_at_the_prompt_in_a_loop_and_in_sleep_raises_keyboardinterrupt(fs) -> None:
    def steps(term: Terminal, screen: Screen) -> None:
        screen.wait_for(b">>> ")
        _interrupt()  # at the prompt: a fresh prompt
        screen.wait_for(b">>> ", 2)
        term.lines.put(b"print('spin'); exec('while True: pass')\n")
        screen.wait_for(b"spin\n")
        _interrupt()  # in a busy loop
        screen.wait_for(b">>> ", 3)
        term.lines.put(b"import time; print('nap'); time.sleep(600)\n")
        screen.wait_for(b"nap\n")
        _interrupt()  # in time.sleep
        screen.wait_for(b">>> ", 4)
        term.lines.put(b"try:\n    exec('while True: pass')\nexcept KeyboardInterrupt:\n"
                       b"    print('caught')\n\n")
        time.sleep(0.5)
        _interrupt()  # caught by the program itself
        screen.wait_for(b"caught\n")
        term.lines.put(b"import subprocess; print('child'); subprocess.run(['sleep', '600'])\n")
        screen.wait_for(b"child\n")
        time.sleep(0.3)
        _interrupt()  # while a command it started runs: both end
        screen.wait_for(b">>> ", 7)
        term.lines.put(b"print('still here', 6 * 7)\n")
        screen.wait_for(b"still here 42\n")
        # then Ctrl-D (end of input) leaves

    ran, screen = _session(fs, ["-q"], steps)
    assert ran.status == 0, ran.stderr
    assert ran.stderr.count(b"KeyboardInterrupt") == 4, ran.stderr
    assert b'File "<console>", line 1' in ran.stderr  # a traceback for the loop, as CPython
    assert ran.seconds < 3 * WAIT


def test_ctrl_c_during_a_dash_i_program_then_the_prompt(fs) -> None:
    def steps(term: Terminal, screen: Screen) -> None:
        screen.wait_for(b"started\n")
        _interrupt()
        screen.wait_for(b">>> ")
        term.lines.put(b"print(x)\n")
        screen.wait_for(b"1\n")

    ran, _ = _session(fs, ["-q", "-i", "-c", "x = 1; print('started', flush=True)\n"
                           "while True: pass"], steps)
    assert b"KeyboardInterrupt" in ran.stderr


def test_without_a_prompt_ctrl_c_is_not_taken(fs) -> None:
    """A program not at Python's prompt is stopped by Ctrl-C as any command is: the
    interrupt is refused, so the REPL cancels the run."""
    seen: list[bool] = []

    def probe() -> None:
        time.sleep(1.0)
        seen.append(runtime.interrupt())

    t = threading.Thread(target=probe, daemon=True)
    t.start()
    ran = py(fs, ["-c", "import time; time.sleep(2)"])
    t.join()
    assert ran.status == 0 and seen == [False]


def test_sandbox_interrupt_reaches_the_prompt(root: Path) -> None:
    from vshell import Sandbox
    from vshell.sandbox import HostMount

    sb = Sandbox(mounts=[HostMount(str(root), "/work")], timeout=4 * WAIT)
    assert sb.interrupt() is False  # nothing runs
    term, screen = Terminal(), Screen()
    out: dict[str, Any] = {}

    def run() -> None:
        out["res"] = sb.exec("python3 -q; echo after $?", stdin=term, stdout=screen)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    term.lines.put(b"print('spin', flush=True); exec('while True: pass')\n")
    try:
        screen.wait_for(b"spin\n")
    finally:
        if not t.is_alive():
            print(out["res"])
    assert sb.interrupt() is True
    screen.wait_for(b">>> ", 2)
    term.lines.put(b"print('back')\n")
    term.lines.put(None)
    t.join(2 * WAIT)
    res = out["res"]
    assert b"back\n" in screen.data and screen.data.endswith(b"after 0\n"), screen.data
    assert b"KeyboardInterrupt" in res.stderr


DRIVER = """
import os, signal, sys, threading, time
sys.path[:0] = [{root!r}, {tests!r}]
from pyharness import make_fs, py
from test_interrupt import Terminal, Screen
from vshell.python import runtime
import tempfile, pathlib

term, screen = Terminal(), Screen()

def steps():
    screen.wait_for(b"spin\\n")
    while not any(r.interrupter is not None and r.interrupter.ready
                  for r in list(runtime._interactive)):
        time.sleep(0.02)
    os.kill(os.getpid(), signal.SIGINT)  # a real Ctrl-C, on the guest's (main) thread
    screen.wait_for(b">>> ", 2)
    term.lines.put(b"print('back')\\n")
    screen.wait_for(b"back\\n")
    term.lines.put(None)

threading.Thread(target=steps, daemon=True).start()
term.lines.put(b"print('spin', flush=True); exec('while True: pass')\\n")
ran = py(make_fs(pathlib.Path(tempfile.mkdtemp())), ["-q"], stdin=term, stdout=screen)
sys.stdout.write(f"status={{ran.status}}\\n")
sys.stdout.write(ran.stderr.decode())
"""


def test_a_real_sigint_on_the_guest_thread(warm: None) -> None:
    code = textwrap.dedent(DRIVER).format(root=str(ROOT), tests=str(Path(__file__).parent))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=4 * WAIT, env=env)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("status=0\n") and "KeyboardInterrupt" in p.stdout, p.stdout
