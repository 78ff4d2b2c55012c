"""`vshell mcp` with workers: a session per MCP client, parallel, supervised, cleaned up.

Driven by the official SDK client over streamable HTTP (each client its own
``Mcp-Session-Id``) and stdio.  The server's workers are found as its child processes in
/proc, so a test can kill one and check that none is left after shutdown.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import Future
from typing import Any

import pytest

pytest.importorskip("mcp")

from mcp_harness import REPO, SyncClient, server_env, start_http_server, stop, text  # noqa: E402


def children(pid: int) -> list[int]:
    """The live processes whose parent is ``pid`` (zombies excluded)."""
    kids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            kids.append(int(entry))
    return sorted(kids)


def gone(pids: list[int]) -> bool:
    return all(not os.path.exists(f"/proc/{p}") for p in pids)


def wait_for(cond: Any, timeout: float = 10) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.05)
    return False


def bash(client: SyncClient, command: str, timeout: float | None = None) -> Any:
    args: dict[str, Any] = {"command": command}
    if timeout is not None:
        args["timeout"] = timeout
    return client.call("bash", args)


def later(client: SyncClient, command: str) -> Future[Any]:
    return client.run_later(client.session.call_tool("bash", {"command": command}))


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    proc, url = start_http_server(["--workers", "2", "--max-sessions", "3"])
    yield proc, url
    if proc.poll() is None:
        stop(proc)


@pytest.fixture
def two(server: tuple[subprocess.Popen[bytes], str]) -> Iterator[tuple[SyncClient, SyncClient]]:
    _, url = server
    a, b = SyncClient().open_http(url), SyncClient().open_http(url)
    yield a, b
    a.close()
    b.close()


def test_each_http_client_has_its_own_shell(two: tuple[SyncClient, SyncClient]) -> None:
    a, b = two
    assert not bash(a, "cd /tmp && export WHO=a && echo kept > /tmp/a.txt").is_error
    assert text(bash(a, "echo $WHO $PWD; cat /tmp/a.txt")) == "a /tmp\nkept\n"
    res = bash(b, "echo ${WHO-unset} $PWD; cat /tmp/a.txt")
    assert text(res).startswith("unset /\n"), text(res)
    assert "No such file" in text(res)


def test_parallel_requests_are_answered_in_completion_order(
        two: tuple[SyncClient, SyncClient]) -> None:
    a, b = two
    done: list[str] = []
    slow = later(a, "sleep 2; echo slow")
    slow.add_done_callback(lambda f: done.append("slow"))
    time.sleep(0.2)
    began = time.monotonic()
    fast = later(b, "echo fast")
    fast.add_done_callback(lambda f: done.append("fast"))
    assert text(fast.result(30)) == "fast\n"
    assert time.monotonic() - began < 1.5
    assert text(slow.result(30)) == "slow\n"
    assert done == ["fast", "slow"]


def test_ping_answers_while_a_worker_is_busy(two: tuple[SyncClient, SyncClient]) -> None:
    a, b = two
    busy = later(a, "i=0; while [ $i -lt 100000000 ]; do i=$((i+1)); done")
    time.sleep(0.5)
    times = []
    for _ in range(5):
        began = time.monotonic()
        b.run(b.session.send_ping())
        times.append(time.monotonic() - began)
    assert max(times) < 0.5, times
    a.run(a.session.send_ping())  # even the busy client's own connection answers
    busy.cancel()


def test_too_many_sessions_are_refused(server: tuple[subprocess.Popen[bytes], str]) -> None:
    _, url = server
    clients = [SyncClient().open_http(url) for _ in range(3)]
    try:
        extra = SyncClient()
        with pytest.raises(Exception) as info:
            extra.open_http(url)
        extra.close()
        assert "E_TOO_MANY_SESSIONS" in _chain(info.value)
        # DELETE (closing a client) frees a place
        clients.pop().close()
        again = SyncClient().open_http(url)
        assert text(bash(again, "echo in")) == "in\n"
        clients.append(again)
    finally:
        for c in clients:
            c.close()


def _chain(e: BaseException) -> str:
    parts = []
    seen: BaseException | None = e
    while seen is not None:
        parts.append(f"{type(seen).__name__}: {seen}")
        for sub in getattr(seen, "exceptions", ()):
            parts.append(_chain(sub))
        seen = seen.__cause__ or seen.__context__
    return "\n".join(parts)


def test_a_killed_worker_loses_only_its_session() -> None:
    proc, url = start_http_server(["--workers", "1"])
    try:
        a, b = SyncClient().open_http(url), SyncClient().open_http(url)
        bash(a, "export X=1")
        bash(b, "export Y=2")
        workers = children(proc.pid)
        assert len(workers) == 1
        running = later(a, "sleep 30")
        time.sleep(0.5)
        os.kill(workers[0], signal.SIGKILL)
        res = running.result(10)
        assert res.is_error and text(res).startswith("E_WORKER_LOST"), text(res)
        assert wait_for(lambda: len(children(proc.pid)) == 1 and
                        children(proc.pid) != workers)
        b.run(b.session.send_ping())  # the server kept answering
        assert text(bash(a, "echo ${X-fresh}")) == "fresh\n"
        told = bash(b, "echo ran")  # the idle session hears of it once
        assert told.is_error and "E_WORKER_LOST" in text(told)
        assert text(bash(b, "echo ${Y-fresh}")) == "fresh\n"
        # SIGKILL gives the server no chance to clean up: the workers end on their own, at
        # the end of their pipe, even in the middle of a command
        workers = children(proc.pid)
        running = later(a, "while :; do :; done")
        time.sleep(0.3)
        proc.kill()
        proc.wait(5)
        assert len(workers) == 1 and wait_for(lambda: gone(workers), 3)
        running.cancel()
        a.close()
        b.close()
    finally:
        if proc.poll() is None:
            stop(proc)


def test_idle_sessions_expire() -> None:
    proc, url = start_http_server(["--workers", "1", "--session-ttl", "1s",
                                   "--max-sessions", "1"])
    try:
        a = SyncClient().open_http(url)
        bash(a, "export X=1")
        time.sleep(2.5)
        try:  # our sweep ends it (E_SESSION_EXPIRED) unless the transport's own did first
            res = bash(a, "echo $X")
            assert res.is_error, text(res)
            said = text(res)
            assert said.startswith("E_SESSION_EXPIRED"), said
        except Exception as e:  # noqa: BLE001 - the transport's 404 for an ended session
            said = _chain(e)
            assert "Session not found" in said or "404" in said, said
        a.close()
        b = SyncClient().open_http(url)  # the expired session no longer counts
        assert text(bash(b, "echo ${X-new}")) == "new\n"
        b.close()
    finally:
        stop(proc)


def test_sigterm_ends_every_worker_and_command() -> None:
    proc, url = start_http_server(["--workers", "2"])
    a = SyncClient().open_http(url)
    workers = children(proc.pid)
    assert len(workers) == 2
    running = later(a, "while :; do :; done")
    time.sleep(0.5)
    assert stop(proc) < 4
    assert wait_for(lambda: gone(workers), 3), [p for p in workers if not gone([p])]
    running.cancel()
    a.close()


def test_stdio_client_going_away_leaves_nothing() -> None:
    client = SyncClient().open_stdio(["--workers", "2"])
    try:
        res = client.call("bash", {"command": "echo $PPID; echo hi"})
        assert text(res).endswith("hi\n")
        server_pids = [int(p) for p in os.listdir("/proc") if p.isdigit()
                       and _cmdline(int(p)).endswith("-m\0vshell\0mcp\0--workers\0002\0")]
        assert len(server_pids) == 1, server_pids
        workers = children(server_pids[0])
        assert len(workers) == 2
        later(client, "while :; do :; done")
        time.sleep(0.3)
    finally:
        client.close()
    assert wait_for(lambda: gone(workers + server_pids), 5)


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline") as f:
            return f.read()
    except OSError:
        return ""


@pytest.fixture(scope="module")
def stdio() -> Iterator[SyncClient]:
    client = SyncClient().open_stdio(["--workers", "1", "--worker-memory", "300M",
                                      "--memory-limit", "0", "--memory-fs-limit", "0"])
    yield client
    client.close()


def test_stdio_file_tools_answer_beside_a_running_command(stdio: SyncClient) -> None:
    """One stdio client is one session: its bash calls take turns, its file tools do not."""
    bash(stdio, "echo content > /tmp/f")
    slow = later(stdio, "sleep 2; echo slow")
    time.sleep(0.3)
    began = time.monotonic()
    res = stdio.call("read", {"path": "/tmp/f"})
    assert "content" in text(res)
    assert time.monotonic() - began < 1.5
    assert not slow.done()
    assert text(slow.result(30)) == "slow\n"


def test_a_worker_over_its_memory_cap_is_replaced(stdio: SyncClient) -> None:
    bash(stdio, "export X=1")
    res = bash(stdio, "x=$(head -c 500000000 /dev/zero | tr '\\0' a); echo ${#x}", 30)
    assert res.is_error and text(res).startswith("E_WORKER_LOST"), text(res)
    assert "memory cap" in text(res)
    assert text(bash(stdio, "echo ${X-fresh}")) == "fresh\n"


def test_workers_zero_keeps_the_in_process_server() -> None:
    proc, url = start_http_server(["--workers", "0"])
    try:
        assert children(proc.pid) == []
        a, b = SyncClient().open_http(url), SyncClient().open_http(url)
        bash(a, "export X=1")
        assert text(bash(a, "echo $X")) == "1\n"
        assert text(bash(b, "echo ${X-unset}")) == "unset\n"  # a session per client here too
        a.close()
        b.close()
    finally:
        stop(proc)


def test_bad_pool_flags_are_usage_errors() -> None:
    for flags in (["--workers", "many"], ["--max-sessions", "-1"], ["--worker-memory", "lots"]):
        res = subprocess.run([sys.executable, "-m", "vshell", "mcp", *flags],
                             capture_output=True, env=server_env(), cwd=REPO, timeout=30,
                             stdin=subprocess.DEVNULL)
        assert res.returncode == 2, (flags, res)
        assert b"vshell mcp:" in res.stderr and b"Traceback" not in res.stderr

