"""SandboxPool: sessions in worker processes, in parallel, isolated, and supervised.

Each test that breaks a worker (kill -9, SIGSTOP, the memory cap) gets a pool of its own;
the rest share one pool of two workers.
"""

from __future__ import annotations

import asyncio
import os
import pickle
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from vshell import (
    HostMount,
    MemoryMount,
    Outcome,
    Sandbox,
    SandboxConfigError,
    SandboxPool,
    command,
)
from vshell.pool import PoolSession, WorkerLost
from vshell.pool.protocol import decode, encode


def _gone(pid: int) -> bool:
    """No process ``pid`` at all (a zombie would still count as left behind)."""
    return not os.path.exists(f"/proc/{pid}")


@pytest.fixture(scope="module")
def pool() -> Iterator[SandboxPool]:
    with SandboxPool(workers=2, mounts=[MemoryMount("/work")], timeout=20) as p:
        assert p.wait_ready(30)
        yield p


def test_exec_returns_a_result(pool: SandboxPool) -> None:
    with pool.session() as s:
        res = s.exec("cd /work && printf 'a\\nb\\n' > f && wc -l < f && echo err >&2; exit 3")
        assert res.outcome is Outcome.COMPLETED
        assert (res.exit_code, res.stdout, res.stderr) == (3, b"2\n", b"err\n")
        assert s.exec("cat", stdin=b"piped").stdout == b"piped"


def test_the_same_script_gives_what_an_in_process_sandbox_gives(pool: SandboxPool) -> None:
    script = "x=1; f() { echo $((x+41)); }; f; ls /nonexistent; echo $?; seq 3 | tac"
    with pool.session() as s, Sandbox(mounts=[MemoryMount("/work")]) as sb:
        assert s.exec(script) == sb.exec(script)


def test_sessions_are_isolated_and_persistent(pool: SandboxPool) -> None:
    a, b = pool.session(), pool.session()
    try:
        a.exec("cd /tmp && export X=from-a && echo data > /tmp/mine")
        assert a.exec("echo $X $PWD; cat /tmp/mine").stdout == b"from-a /tmp\ndata\n"
        assert b.exec("echo ${X-unset} $PWD; cat /tmp/mine").stdout == b"unset /work\n"
        assert {a.worker_pid, b.worker_pid} <= set(pool.worker_pids)
        assert a.worker_pid != b.worker_pid  # placed on the least loaded worker
    finally:
        a.close()
        b.close()


def test_responses_come_in_completion_order(pool: SandboxPool) -> None:
    a, b = pool.session(), pool.session()

    async def main() -> list[str]:
        began = time.monotonic()
        order: list[str] = []

        async def one(s: PoolSession, script: str, name: str) -> None:
            res = await s.aexec(script)
            assert res.ok(), res
            order.append(f"{name}:{time.monotonic() - began:.1f}")

        await asyncio.gather(one(a, "sleep 2; echo slow", "slow"), one(b, "echo fast", "fast"))
        return order

    try:
        order = asyncio.run(main())
    finally:
        a.close()
        b.close()
    assert [o.split(":")[0] for o in order] == ["fast", "slow"], order
    assert float(order[0].split(":")[1]) < 1.0, order


def test_one_sessions_requests_take_turns(pool: SandboxPool) -> None:
    with pool.session() as s:
        async def main() -> list[bytes]:
            first = asyncio.ensure_future(s.aexec("sleep 1; x=first"))
            await asyncio.sleep(0.1)
            second = await s.aexec("echo ${x-unset}")
            await first
            return [second.stdout]

        assert asyncio.run(main()) == [b"first\n"]  # the second waited for the first


def test_a_busy_session_does_not_slow_another(pool: SandboxPool) -> None:
    """Past the GIL: a CPU-bound loop in one worker, an echo answered at once in the other."""
    a, b = pool.session(), pool.session()
    try:
        async def main() -> float:
            busy = asyncio.ensure_future(a.aexec("i=0; while [ $i -lt 10000000 ]; do i=$((i+1)); "
                                                 "done", timeout=3))
            await asyncio.sleep(0.3)
            began = time.monotonic()
            res = await b.aexec("echo quick")
            took = time.monotonic() - began
            assert res.stdout == b"quick\n"
            await busy
            return took

        assert asyncio.run(main()) < 0.5
    finally:
        a.close()
        b.close()


def test_a_runaway_script_is_stopped_at_its_timeout(pool: SandboxPool) -> None:
    with pool.session() as s:
        pid = s.worker_pid
        began = time.monotonic()
        res = s.exec("while :; do :; done", timeout=1)
        assert res.outcome is Outcome.TIMED_OUT and res.exit_code == 137
        assert time.monotonic() - began < 3
        assert s.exec("echo alive").stdout == b"alive\n"
        assert s.worker_pid == pid  # the worker survived: the shell stopped the loop itself


def test_cancelling_aexec_stops_the_run_in_the_worker(pool: SandboxPool) -> None:
    with pool.session() as s:
        async def main() -> float:
            task = asyncio.ensure_future(s.aexec("sleep 30"))
            await asyncio.sleep(0.5)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            began = time.monotonic()
            res = await s.aexec("echo next")  # waits its turn: the sleep must have ended
            assert res.stdout == b"next\n"
            return time.monotonic() - began

        assert asyncio.run(main()) < 2


def test_options_must_be_plain_data() -> None:
    @command("hello", description="greets")
    def hello(inv: object) -> int:
        return 0

    with pytest.raises(SandboxConfigError, match="commands="):
        SandboxPool(workers=1, commands=[hello])
    with pytest.raises(SandboxConfigError, match="plain data"):
        SandboxPool(workers=1, env={"A": lambda: 1})
    with pytest.raises(SandboxConfigError, match="plain data"):  # picklable, but not data
        SandboxPool(workers=1, env={"A": Path("/x")})


def test_bad_options_fail_at_session(pool: SandboxPool) -> None:
    with pytest.raises(SandboxConfigError, match="no such directory"):
        pool.session(cwd="/nowhere")
    with pytest.raises(SandboxConfigError):
        pool.session(no_such_option=1)


def test_a_killed_worker_is_replaced_and_its_sessions_told() -> None:
    with SandboxPool(workers=1, mounts=[MemoryMount("/work")]) as pool:
        busy, idle = pool.session(), pool.session()
        busy.exec("export X=1")
        idle.exec("export Y=2")
        pid = busy.worker_pid
        assert pid is not None and idle.worker_pid == pid

        async def main() -> None:
            task = asyncio.ensure_future(busy.aexec("sleep 20"))
            await asyncio.sleep(0.5)
            began = time.monotonic()
            os.kill(pid, signal.SIGKILL)
            res = await task
            assert time.monotonic() - began < 2
            assert res.outcome is Outcome.INTERNAL and isinstance(res.error, WorkerLost)
            assert b"E_WORKER_LOST" in res.stderr and b"signal 9" in res.stderr

        asyncio.run(main())
        # the running request was told; the next one runs in a fresh session
        assert busy.exec("echo ${X-fresh}").stdout == b"fresh\n"
        # the idle session is told once, on its next request (which does not run)
        lost = idle.exec("echo ran")
        assert b"E_WORKER_LOST" in lost.stderr and lost.stdout == b""
        assert idle.exec("echo ${Y-fresh}").stdout == b"fresh\n"
        assert pool.worker_pids != [pid] and len(pool.worker_pids) == 1
        assert _gone(pid)


def test_a_worker_that_does_not_stop_after_its_timeout_is_killed() -> None:
    """SIGSTOP the worker: its request cannot end, so 1 s after the timeout it is killed."""
    with SandboxPool(workers=1, mounts=[MemoryMount("/work")]) as pool:
        s = pool.session()
        pid = s.worker_pid
        assert pid is not None

        async def main() -> float:
            task = asyncio.ensure_future(s.aexec("sleep 10", timeout=1))
            await asyncio.sleep(0.3)
            os.kill(pid, signal.SIGSTOP)
            began = time.monotonic()
            res = await task
            assert b"E_WORKER_LOST" in res.stderr and b"1s timeout" in res.stderr, res
            return time.monotonic() - began

        took = asyncio.run(main())
        assert 1.0 < took < 4.0, took
        assert s.exec("echo fresh").stdout == b"fresh\n"
        assert pid not in pool.worker_pids


def test_the_memory_cap_ends_the_worker_not_the_host() -> None:
    with SandboxPool(workers=1, worker_memory=400 << 20, memory_limit=None,
                     memory_fs_limit=None, mounts=[MemoryMount("/work")]) as pool:
        s = pool.session()
        pid = s.worker_pid
        assert s.exec("python3 -c 'print(6*7)'").stdout == b"42\n"  # wasmtime fits the cap
        res = s.exec("x=$(head -c 900000000 /dev/zero | tr '\\0' a); echo ${#x}", timeout=30)
        assert res.outcome is Outcome.INTERNAL, res
        assert b"E_WORKER_LOST" in res.stderr and b"memory cap" in res.stderr
        assert s.exec("echo after").stdout == b"after\n"
        assert s.worker_pid != pid


def test_close_leaves_no_process_behind() -> None:
    pool = SandboxPool(workers=2, mounts=[MemoryMount("/work")])
    s = pool.session()
    pids = pool.worker_pids

    async def main() -> None:
        task = asyncio.ensure_future(s.aexec("while :; do :; done", timeout=60))
        await asyncio.sleep(0.5)
        began = time.monotonic()
        await asyncio.to_thread(pool.close)
        assert time.monotonic() - began < 3
        res = await task
        assert not res.ok()

    asyncio.run(main())
    assert len(pids) == 2 and all(_gone(p) for p in pids), pids
    assert b"closed" in s.exec("echo x").stderr


def test_the_supervisor_unpickles_only_plain_data_and_vshell_classes() -> None:
    ok = {"rid": 1, "value": [b"x", {1, 2}, ValueError("v")]}
    assert decode(encode(ok)[4:])["value"][:2] == [b"x", {1, 2}]
    evil = pickle.dumps(os.system)
    with pytest.raises(pickle.UnpicklingError, match="refused"):
        decode(evil)


def test_a_relative_host_mount_means_the_callers_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "hello.txt").write_text("from the host\n")
    monkeypatch.chdir(tmp_path)
    with SandboxPool(workers=1, mounts=[HostMount("proj", "/work", readonly=True)]) as pool:
        assert pool.session().exec("cat /work/hello.txt").stdout == b"from the host\n"


def test_a_worker_runs_only_vshells_own_functions(pool: SandboxPool) -> None:
    from vshell.mcp.tools import ServerConfig
    from vshell.pool import PoolError

    with pool.session() as s:
        with pytest.raises(PoolError, match="not a vshell function"):
            s.call("os:system", "echo hi")
        res = s.call("vshell.mcp.tools:call", ServerConfig(), "bash", {"command": "echo ok"})
        assert res.text == "ok\n"


def test_a_worker_that_cannot_start_is_not_restarted_for_ever(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from vshell.pool import supervisor

    monkeypatch.setattr(supervisor, "WORKER_MODULE", "vshell.pool.no_such_module")
    with SandboxPool(workers=1, mounts=[MemoryMount("/work")]) as pool:
        res = pool.session(eager=False).exec("echo hi")
        assert res.outcome is Outcome.INTERNAL and b"E_NO_WORKER" in res.stderr, res
        assert pool.supervisor.replaced == supervisor.MAX_FAILED_STARTS - 1
        assert pool.worker_pids == []
