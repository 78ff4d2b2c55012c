"""Timeouts, cancellation, the memory cap, broken pipes and concurrent guests."""

from __future__ import annotations

import io
import threading
import time
from pathlib import Path

import pytest
from pyharness import make_fs, py

from vshell.command import Cancelled
from vshell.python import PythonOptions


def test_busy_loop_stopped_at_deadline(fs) -> None:
    start = time.monotonic()
    with pytest.raises(Cancelled) as info:
        py(fs, ["-c", "while True: pass"], timeout=0.5)
    elapsed = time.monotonic() - start
    assert str(info.value) == "timeout"
    assert 0.45 < elapsed < 1.0, elapsed


def test_output_before_kill_is_kept(fs) -> None:
    out = io.BytesIO()
    with pytest.raises(Cancelled):
        py(fs, ["-c", ("import sys\nprint('before')\nprint('err', file=sys.stderr)\n"
                "while True: pass")], timeout=0.5, stdout=out)
    assert out.getvalue() == b"before\n"


def test_sleep_stopped_at_deadline(fs) -> None:
    start = time.monotonic()
    with pytest.raises(Cancelled):
        py(fs, ["-c", "import time; time.sleep(30)"], timeout=0.3)
    assert time.monotonic() - start < 0.8


def test_sleep_works(fs) -> None:
    ran = py(fs, ["-c", ("import time; t=time.monotonic(); time.sleep(0.2);"
                  " print(0.19 < time.monotonic()-t < 0.5)")])
    assert ran.stdout == b"True\n"


def test_cancel_from_another_thread(root: Path) -> None:
    from vshell import commands as builtins
    from vshell.command import CancelToken, Invocation
    from vshell.interp.dispatch import call_command

    fs = make_fs(root)
    token = CancelToken()
    out, err = io.BytesIO(), io.BytesIO()
    inv = Invocation(name="python3", args=["-c", "while True: pass"], dir="/work",
                     stdin=io.BytesIO(), stdout=out, stderr=err, env={}, fs=fs, cancel=token)
    threading.Timer(0.3, token.cancel).start()
    start = time.monotonic()
    with pytest.raises(Cancelled) as info:
        call_command(builtins.lookup("python3"), inv)
    assert str(info.value) == "canceled"
    assert time.monotonic() - start < 0.7


def test_stdin_read_checks_cancel(fs) -> None:
    class Slow(io.RawIOBase):
        def readable(self) -> bool:
            return True

        def read(self, n: int = -1) -> bytes:
            time.sleep(0.05)
            return b"x\n"

    start = time.monotonic()
    with pytest.raises(Cancelled):
        py(fs, ["-c", "import sys\nfor l in sys.stdin: pass"], stdin=Slow(), timeout=0.4)
    assert time.monotonic() - start < 0.9


def test_memory_cap_default(fs) -> None:
    ran = py(fs, ["-c", ("try:\n b = bytearray(3 * 2**29)\nexcept MemoryError:\n"
                  " print('MemoryError')\nb = bytearray(10**7); print(len(b))")])
    assert ran.stdout == b"MemoryError\n10000000\n", ran.stderr


def test_memory_cap_from_options(fs) -> None:
    opts = PythonOptions(memory_limit=64 << 20)
    ran = py(fs, ["-c", "b = bytearray(100 * 2**20)"], options=opts)
    assert ran.status == 1 and ran.stderr.endswith(b"MemoryError\n")
    ran = py(fs, ["-c", "b = bytearray(30 * 2**20); print('ok')"], options=opts)
    assert ran.stdout == b"ok\n"


def test_bytearray_2_31(fs) -> None:
    # 2**31 does not fit the 32-bit guest's ssize_t: CPython raises before allocating.
    ran = py(fs, ["-c", ("try:\n bytearray(2**31)\nexcept (MemoryError, OverflowError) as e:"
                  " print(type(e).__name__)")])
    assert ran.stdout in (b"MemoryError\n", b"OverflowError\n")


class ClosedAfter(io.RawIOBase):
    """A stdout whose reader goes away after ``limit`` bytes (like ``| head -c``)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.got = bytearray()

    def writable(self) -> bool:
        return True

    def write(self, b: bytes) -> int:  # type: ignore[override]
        if len(self.got) >= self.limit:
            raise BrokenPipeError(32, "Broken pipe")
        self.got += b
        return len(b)


def test_broken_pipe_ends_guest_promptly(fs) -> None:
    out = ClosedAfter(10)
    stdin = b"".join(b"%d\n" % i for i in range(1_000_000))
    start = time.monotonic()
    ran = py(fs, ["-c", "import sys; [print(l, end='') for l in sys.stdin]"], stdin=stdin,
             stdout=out)
    assert time.monotonic() - start < 3
    assert ran.status != 0
    assert bytes(out.got).startswith(b"0\n")


def test_two_guests_in_parallel(root: Path) -> None:
    fs = make_fs(root)
    results: dict[int, bytes] = {}

    def one(i: int) -> None:
        results[i] = py(fs, ["-c", f"import sys; print({i} * 2); sys.exit({i})"]).stdout

    threads = [threading.Thread(target=one, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {i: b"%d\n" % (i * 2) for i in range(4)}


def test_block_buffered_option(fs) -> None:
    out = io.BytesIO()
    with pytest.raises(Cancelled):
        py(fs, ["-c", "print('lost'); import time; time.sleep(5)"], timeout=0.3, stdout=out,
           options=PythonOptions(line_buffered=False))
    assert out.getvalue() == b""  # CPython's own block buffering: unflushed output is lost
    ran = py(fs, ["-c", "print('a'); print('b')"], options=PythonOptions(line_buffered=False))
    assert ran.stdout == b"a\nb\n"


def test_four_guests_in_one_pipeline_share_the_default_budget() -> None:
    """Each guest holds its cap from the sandbox's 2 GiB budget while it runs; a first guest
    that took all the room would refuse the later stages of a pipeline of guests."""
    from vshell import Sandbox

    step = "python3 -c 'import sys; print(int(sys.stdin.read()) + 1)'"
    with Sandbox(timeout=300) as sb:
        r = sb.exec("python3 -c 'print(1)' | " + " | ".join([step] * 3))
    assert (r.stdout, r.stderr.decode(), r.exit_code) == (b"4\n", "", 0)
