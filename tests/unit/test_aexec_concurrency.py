"""``Sandbox.aexec``: concurrent runs of different sandboxes run side by side, the event
loop stays free meanwhile, and cancelling the awaiting task stops the run.

Before, aexec ran on asyncio's default executor (a handful of workers), so a hundred
concurrent ``sleep`` calls queued behind each other.
"""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from vshell import Outcome, Result, Sandbox

N = 100


def test_a_hundred_concurrent_sleeps_overlap() -> None:
    boxes = [Sandbox(timeout=30) for _ in range(N)]
    ticks: list[float] = []

    async def ticker(stop: asyncio.Event) -> None:
        while not stop.is_set():
            ticks.append(time.monotonic())
            await asyncio.sleep(0.05)

    async def main() -> tuple[list[Result], float]:
        stop = asyncio.Event()
        tick = asyncio.ensure_future(ticker(stop))
        t0 = time.monotonic()
        results = await asyncio.gather(*(sb.aexec(f"sleep 0.5; echo {i}")
                                         for i, sb in enumerate(boxes)))
        elapsed = time.monotonic() - t0
        stop.set()
        await tick
        return list(results), elapsed

    try:
        results, elapsed = asyncio.run(main())
    finally:
        for sb in boxes:
            sb.close()
    assert [r.stdout for r in results] == [f"{i}\n".encode() for i in range(N)]
    # queued behind a small executor this took ceil(100 / workers) * 0.5 s: 10 s and more
    assert elapsed < 3.0, f"{N} concurrent 0.5 s sleeps took {elapsed:.2f} s"
    # the loop ran its other task all along (no gap near the length of a run)
    gaps = [b - a for a, b in zip(ticks, ticks[1:], strict=False)]
    assert ticks and max(gaps, default=0.0) < 0.45, f"event loop stalled {max(gaps):.2f} s"


def test_cancelling_the_task_stops_the_run_and_the_sandbox_goes_on() -> None:
    async def main() -> None:
        with Sandbox(timeout=30) as sb:
            task = asyncio.ensure_future(sb.aexec("sleep 20; echo not reached"))
            await asyncio.sleep(0.2)
            t0 = time.monotonic()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            assert time.monotonic() - t0 < 1.5
            r = await sb.aexec("echo next")
            assert r.stdout == b"next\n" and r.outcome is Outcome.COMPLETED

    asyncio.run(main())


def test_concurrent_aexec_on_one_sandbox_run_in_turn() -> None:
    """One sandbox runs one script at a time: the second waits, it is not refused."""

    async def main() -> list[bytes]:
        with Sandbox(timeout=30) as sb:
            rs = await asyncio.gather(sb.aexec("sleep 0.2; x=${x:-0}; echo $((x += 1))"),
                                      sb.aexec("sleep 0.2; echo $((x += 1))"))
            return sorted(r.stdout for r in rs)

    assert asyncio.run(main()) == [b"1\n", b"2\n"]


def test_timeout_of_an_aexec_is_the_outcome() -> None:
    async def main() -> Outcome:
        with Sandbox(timeout=30) as sb:
            r = await sb.aexec("sleep 10", timeout=0.3)
            return r.outcome

    t0 = time.monotonic()
    assert asyncio.run(main()) is Outcome.TIMED_OUT
    assert time.monotonic() - t0 < 2.0


def test_nothing_is_left_running_after_concurrent_runs() -> None:
    before = {t.ident for t in threading.enumerate()}

    async def main() -> None:
        boxes = [Sandbox(timeout=30) for _ in range(10)]
        try:
            await asyncio.gather(*(sb.aexec("sleep 0.1 | cat") for sb in boxes))
        finally:
            for sb in boxes:
                sb.close()

    asyncio.run(main())
    time.sleep(0.4)
    left = [t.name for t in threading.enumerate() if t.ident not in before and t.is_alive()]
    assert not left, left
