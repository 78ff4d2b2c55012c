"""The pieces of a pipeline that runs its stages in order: the pipe whose reader is held
back, the token that starts held work before a wait, and the stage runner."""

from __future__ import annotations

import threading
import time

import pytest

from vshell.command import Cancelled, CancelToken
from vshell.interp import io as sio
from vshell.interp.stages import Stages
from vshell.interp.worker import Pool


def test_a_held_pipe_is_written_whole_then_read_without_a_thread() -> None:
    pipe = sio.Pipe(CancelToken(), capacity=64)
    started: list[int] = []
    pipe.hold_reader(lambda: started.append(1))
    pipe.writer.write(b"one\n")
    pipe.writer.write(bytearray(b"two\n"))
    pipe.writer.close()
    assert started == []  # it fit, and came at once
    assert pipe.reader.readline() == b"one\n"
    assert pipe.reader.read() == b"two\n"
    assert pipe.reader.read() == b""


def test_a_full_pipe_starts_its_held_reader_once() -> None:
    pipe = sio.Pipe(CancelToken(), capacity=8)
    got: list[bytes] = []

    def reader() -> None:
        while data := pipe.reader.read(3):
            got.append(data)

    threads: list[threading.Thread] = []

    def start() -> None:
        t = threading.Thread(target=reader)
        threads.append(t)
        t.start()

    pipe.hold_reader(start)
    pipe.writer.write(b"x" * 20)  # waits for room: the reader must be running
    pipe.writer.close()
    for t in threads:
        t.join(5)
    assert len(threads) == 1
    assert b"".join(got) == b"x" * 20


def test_a_writer_that_has_run_a_while_starts_its_reader_when_it_writes() -> None:
    pipe = sio.Pipe(CancelToken())
    started: list[int] = []
    pipe.hold_reader(lambda: started.append(1))
    pipe.writer.write(b"early\n")
    assert started == []
    time.sleep(sio.HELD_FOR * 1.5)
    pipe.writer.write(b"late\n")
    pipe.writer.write(b"later\n")
    assert started == [1]


def test_a_held_reader_that_quit_means_a_broken_pipe_at_once() -> None:
    # a reader started at once that quits without reading lets one small write through
    # (as a real writer's first write usually lands first); a held one started only after
    # the writer's early writes had landed, so a later write meets the closed pipe
    eager = sio.Pipe(CancelToken())
    eager.reader.close()
    assert eager.writer.write(b"hi\n") == 3
    held = sio.Pipe(CancelToken())
    held.hold_reader(lambda: None)
    held.reader.close()
    with pytest.raises(BrokenPipeError):
        held.writer.write(b"hi\n")


def test_a_wait_on_a_pipe_starts_what_the_run_holds_back() -> None:
    token = CancelToken()
    pipe = sio.Pipe(token)

    def start() -> None:
        token.unhold(start)
        threading.Thread(target=lambda: (pipe.writer.write(b"data"), pipe.writer.close())
                         ).start()

    token.hold(start)
    assert token.holding
    assert pipe.reader.read() == b"data"  # waits: the writer is started first
    assert not token.holding


def test_waiting_raises_when_cancelled_and_children_share_the_held_list() -> None:
    token = CancelToken()
    calls: list[str] = []
    child = token.child(10)

    def start() -> None:
        calls.append("start")
        token.unhold(start)

    child.hold(start)
    assert token.holding
    token.waiting()
    assert calls == ["start"] and not child.holding
    token.cancel()
    with pytest.raises(Cancelled):
        child.waiting()


def test_a_cancelled_wait_on_a_pipe_ends() -> None:
    token = CancelToken(time.monotonic() + 0.2)
    pipe = sio.Pipe(token)
    start = time.monotonic()
    with pytest.raises(Cancelled):
        pipe.reader.read()
    assert time.monotonic() - start < 1.0


_POOL = Pool()


@pytest.fixture(autouse=True, scope="module")
def _pool_ends() -> object:
    yield
    _POOL.shutdown()


def _runner(count: int, body: dict[int, object]) -> tuple[Stages, list[tuple[int, str]]]:
    seen: list[tuple[int, str]] = []

    def run(i: int) -> None:
        seen.append((i, threading.current_thread().name))
        fn = body.get(i)
        if callable(fn):
            fn()

    return Stages(count, run, _POOL, CancelToken()), seen


def test_stages_run_in_order_on_the_calling_thread() -> None:
    stages, seen = _runner(4, {})
    stages.run(lambda: None)
    me = threading.current_thread().name
    assert seen == [(0, me), (1, me), (2, me), (3, me)]


def test_a_stage_started_early_runs_on_a_thread_and_the_rest_keep_order() -> None:
    box: dict[str, Stages] = {}
    stages, seen = _runner(4, {0: lambda: box["s"].start(1)})
    box["s"] = stages
    stages.run(lambda: None)
    me = threading.current_thread().name
    assert [i for i, _ in seen].count(1) == 1
    assert dict(seen)[1] == "vshell-stage"
    assert dict(seen)[0] == dict(seen)[2] == dict(seen)[3] == me


def test_start_rest_starts_every_stage_left_and_lets_go_of_the_token() -> None:
    token = CancelToken()
    seen: list[int] = []
    holder: dict[str, Stages] = {}

    def run(i: int) -> None:
        seen.append(i)
        if i == 0:
            assert token.holding
            token.waiting()  # stage 0 is about to wait: 1 and 2 start now
            assert holder["s"].started(2)

    stages = holder["s"] = Stages(3, run, _POOL, token)
    stages.run(lambda: None)
    assert sorted(seen) == [0, 1, 2]
    assert not token.holding


def test_the_token_learns_of_the_stages_only_when_they_run() -> None:
    # Another thread of the run may start what the token holds at any moment; a Stages
    # held from its constructor was started (stage 0 on a thread) before the pipeline had
    # assigned it, and that stage's look at it failed: its pipe never closed, and the
    # deep recursion through `f | cat` hung one run in thirty when machines were busy.
    token = CancelToken()
    seen: list[int] = []
    stages = Stages(2, seen.append, _POOL, token)
    assert not token.holding
    token.start_held()
    assert seen == [] and not stages.started(0)
    stages.run(lambda: None)
    assert seen == [0, 1] and not token.holding


@pytest.mark.parametrize("parent", [True, False])
def test_a_cancel_wakes_a_wait_that_has_no_deadline_at_once(parent: bool) -> None:
    # Waits on a pipe sleep until woken (no polling tick): cancel() must wake them, and a
    # parent's cancel those on a child token (a job's, a nested run's).
    token = CancelToken()
    child = token.child()
    pipe = sio.Pipe(child)
    ended: list[BaseException] = []

    def read() -> None:
        try:
            pipe.reader.read()
        except Cancelled as e:
            ended.append(e)

    t = threading.Thread(target=read, daemon=True)
    t.start()
    time.sleep(0.1)
    assert t.is_alive()
    start = time.monotonic()
    (token if parent else child).cancel("killed")
    t.join(2)
    assert not t.is_alive() and len(ended) == 1
    assert time.monotonic() - start < 0.5


def test_a_wait_on_a_full_pipe_ends_at_the_deadline() -> None:
    token = CancelToken(time.monotonic() + 0.2)
    pipe = sio.Pipe(token, capacity=4)
    start = time.monotonic()
    with pytest.raises(Cancelled):
        pipe.writer.write(b"more than four")
    assert 0.15 < time.monotonic() - start < 1.0
