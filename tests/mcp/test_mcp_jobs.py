"""The job tools (job_start, job_output, job_send, job_signal, job_kill, jobs) through
tools.call on a Sandbox, and once end to end over stdio with the official SDK client."""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from vshell.mcp import tools
from vshell.sandbox import MemoryMount, Sandbox

CFG = tools.ServerConfig(command_timeout=30)


@pytest.fixture
def sb() -> Iterator[Sandbox]:
    with Sandbox(mounts=[MemoryMount("/work")], timeout=120) as s:
        yield s


def call(sb: Sandbox, name: str, **args: Any) -> dict[str, Any]:
    res = tools.call(sb, CFG, name, args)
    assert not res.is_error, res.text
    assert res.structured is not None
    return res.structured


def fail(sb: Sandbox, name: str, code: str, **args: Any) -> str:
    res = tools.call(sb, CFG, name, args)
    assert res.is_error and res.text.startswith(code + ": "), res.text
    return res.text


def read_until(sb: Sandbox, job: int, needle: str, seconds: float = 60,
               stream: str = "combined") -> str:
    """Poll job_output (each read continues where the last ended) until ``needle`` shows."""
    got = ""
    deadline = time.monotonic() + seconds
    while needle not in got and time.monotonic() < deadline:
        got += call(sb, "job_output", id=job, wait=1, stream=stream)["output"]
    assert needle in got, got
    return got


def test_python_repl_driven_by_send(sb: Sandbox) -> None:
    job = call(sb, "job_start", command="python3 -u -i -q")["id"]
    read_until(sb, job, ">>> ")
    call(sb, "job_send", id=job, input="x = 6 * 7\n")
    call(sb, "job_send", id=job, input="print(x, x + 1)\n")
    read_until(sb, job, "42 43\n")
    call(sb, "job_send", id=job, input="import sys; sys.exit(3)\n")
    done = call(sb, "job_output", id=job, wait=30, wait_for="exit")
    assert (done["state"], done["exit_code"]) == ("exited", 3)


def test_while_read_loop_driven_by_send(sb: Sandbox) -> None:
    script = "while read line; do echo got:$line; done; echo end"
    job = call(sb, "job_start", command=script)["id"]
    sent = call(sb, "job_send", id=job, input="a\nb c\n", wait=5)
    assert "got:a\n" in sent["output"]
    out = sent["output"]
    if "got:b c\n" not in out:
        out += read_until(sb, job, "got:b c\n")
    call(sb, "job_send", id=job, input="last\n", close=True)
    done = call(sb, "job_output", id=job, wait=10, wait_for="exit")
    assert done["state"] == "exited" and done["exit_code"] == 0
    full = call(sb, "job_output", id=job, cursor=0)["output"]
    expected = subprocess.run(["bash", "-c", script], input=b"a\nb c\nlast\n",
                              capture_output=True, check=True).stdout.decode()
    assert full == expected
    assert out.startswith("got:a\n")
    fail(sb, "job_send", "E_JOB_ENDED", id=job, input="more\n")


def test_stdout_and_stderr_apart_and_together(sb: Sandbox) -> None:
    job = call(sb, "job_start", command="echo out1; echo err1 >&2; echo out2")["id"]
    call(sb, "job_output", id=job, wait=10, wait_for="exit")
    assert call(sb, "job_output", id=job, stream="stdout", cursor=0)["output"] == "out1\nout2\n"
    assert call(sb, "job_output", id=job, stream="stderr", cursor=0)["output"] == "err1\n"
    both = call(sb, "job_output", id=job, cursor=0)["output"]
    assert sorted(both.splitlines()) == ["err1", "out1", "out2"]


def test_log_wrap_reports_dropped_bytes(sb: Sandbox) -> None:
    sb.background_jobs.log_bytes = 1000
    script = "for i in $(seq 1 400); do echo line$i; done"
    expected = subprocess.run(["bash", "-c", script], capture_output=True,
                              check=True).stdout
    job = call(sb, "job_start", command=script)["id"]
    call(sb, "job_output", id=job, wait=20, wait_for="exit")
    got = call(sb, "job_output", id=job, cursor=0)
    assert got["dropped_bytes"] == len(expected) - 1000
    assert got["cursor"] == len(expected) - 1000 and got["next_cursor"] == len(expected)
    assert got["output"].encode() == expected[-1000:]
    res = tools.call(sb, CFG, "job_output", {"id": job, "cursor": 0})
    assert "dropped" in res.text
    listed = call(sb, "jobs")["jobs"][0]
    assert listed["bytes"]["combined"] == len(expected)
    assert listed["dropped_bytes"] == len(expected) - 1000


def test_reads_by_cursor_lose_nothing(sb: Sandbox) -> None:
    script = "for i in $(seq 1 300); do echo row$i; done"
    job = call(sb, "job_start", command=script)["id"]
    pieces, cursor = [], 0
    while True:
        got = call(sb, "job_output", id=job, cursor=cursor, max_bytes=100, wait=2)
        pieces.append(got["output"])
        cursor = got["next_cursor"]
        if not got["running"] and not got["more"]:
            break
    expected = subprocess.run(["bash", "-c", script], capture_output=True,
                              check=True).stdout.decode()
    assert "".join(pieces) == expected


@pytest.mark.parametrize(("sig", "state", "code"), [("INT", "interrupted", 130),
                                                    ("TERM", "terminated", 143),
                                                    ("KILL", "killed", 137)])
def test_signals(sb: Sandbox, sig: str, state: str, code: int) -> None:
    job = call(sb, "job_start", command="echo started; while true; do :; done")["id"]
    read_until(sb, job, "started")
    got = call(sb, "job_signal", id=job, signal=sig)
    assert got["delivered"] is True
    assert (got["state"], got["exit_code"], got["running"]) == (state, code, False)
    again = call(sb, "job_signal", id=job, signal=sig)
    assert again["delivered"] is False
    assert call(sb, "jobs")["jobs"][0]["state"] == state  # still listed, output readable


def test_signal_stops_a_blocked_read(sb: Sandbox) -> None:
    job = call(sb, "job_start", command="read x; echo never")["id"]
    time.sleep(0.2)
    got = call(sb, "job_signal", id=job, signal="INT")
    assert got["state"] == "interrupted"
    assert "never" not in call(sb, "job_output", id=job, cursor=0)["output"]


def test_kill_removes_the_job_and_returns_unread_output(sb: Sandbox) -> None:
    job = call(sb, "job_start", command="echo hello; sleep 100")["id"]
    read_until(sb, job, "hello")
    call(sb, "job_output", id=job, cursor=0)  # explicit cursors do not move the position
    got = call(sb, "job_kill", id=job)
    assert got["killed"] is True and got["state"] == "killed" and got["output"] == ""
    assert call(sb, "jobs")["jobs"] == []
    fail(sb, "job_output", "E_NO_SUCH_JOB", id=job)
    job = call(sb, "job_start", command="echo bye")["id"]
    time.sleep(0.5)
    got = call(sb, "job_kill", id=job)
    assert got["killed"] is False and got["output"] == "bye\n"


def test_jobs_are_bounded(sb: Sandbox) -> None:
    sb.background_jobs.max_jobs = 3
    ids = [call(sb, "job_start", command="sleep 100")["id"] for _ in range(3)]
    fail(sb, "job_start", "E_TOO_MANY_JOBS", command="sleep 100")
    call(sb, "job_signal", id=ids[0], signal="KILL")
    new = call(sb, "job_start", command="echo ok")["id"]  # the ended job made room
    listed = [j["id"] for j in call(sb, "jobs")["jobs"]]
    assert listed == [ids[1], ids[2], new]


def test_the_sandbox_job_limit_holds(sb: Sandbox) -> None:
    with Sandbox(max_jobs=1) as s:
        first = tools.call(s, CFG, "job_start", {"command": "sleep 100"})
        assert not first.is_error
        res = tools.call(s, CFG, "job_start", {"command": "sleep 100"})
        assert res.is_error and res.text.startswith("E_TOO_MANY_JOBS: ")


def test_a_job_and_bash_calls_at_once(sb: Sandbox) -> None:
    call(sb, "bash", command="cd /work && GREETING=hi && f() { echo fn:$1; }")
    job = call(sb, "job_start",
               command="echo $GREETING $PWD; f x; cd /; while read n; do cat /work/$n; done")
    jid = job["id"]
    read_until(sb, jid, "fn:x\n")
    began = time.monotonic()
    for i in range(3):  # the job holds no lock: bash calls run while it waits on stdin
        r = call(sb, "bash", command=f"echo content{i} > f{i}; cat f{i}")
        assert r["stdout"] == f"content{i}\n"
    assert time.monotonic() - began < 10
    assert call(sb, "bash", command="pwd")["stdout"] == "/work\n"  # the job's cd stays there
    call(sb, "job_send", id=jid, input="f1\n")
    read_until(sb, jid, "content1\n")  # the same files


def test_bash_call_and_job_output_concurrently(sb: Sandbox) -> None:
    job = call(sb, "job_start", command="for i in $(seq 1 20); do echo t$i; sleep 0.05; done")
    box: dict[str, Any] = {}

    def long_bash() -> None:
        box["r"] = tools.call(sb, CFG, "bash", {"command": "sleep 1; echo slept"})

    t = threading.Thread(target=long_bash)
    t.start()
    out = read_until(sb, job["id"], "t20\n", 20)  # read while bash runs
    t.join(20)
    assert box["r"].structured["stdout"] == "slept\n"
    assert out.splitlines()[:2] == ["t1", "t2"]


def test_job_timeout_is_capped_by_the_sandbox() -> None:
    with Sandbox(timeout=1) as s:
        got = tools.call(s, CFG, "job_start", {"command": "sleep 50", "timeout": 100})
        assert got.structured is not None and got.structured["timeout_sec"] == 1
        done = tools.call(s, CFG, "job_output", {"id": got.structured["id"], "wait": 10,
                                                 "wait_for": "exit"})
        assert done.structured is not None
        assert (done.structured["state"], done.structured["exit_code"]) == ("timed_out", 137)
        short = tools.call(s, CFG, "job_start", {"command": "sleep 50", "timeout": 0.3})
        assert short.structured is not None and short.structured["timeout_sec"] == 0.3


def test_closing_the_sandbox_ends_its_jobs() -> None:
    s = Sandbox()
    job = s.start_job("while true; do :; done")
    s.close()
    assert not job.running and job.state == "killed"
    assert job.thread is not None
    job.thread.join(2)
    assert not job.thread.is_alive()
    res = tools.call(s, CFG, "job_start", {"command": "echo x"})
    assert res.is_error and res.text.startswith("E_CLOSED: ")


def test_bad_arguments(sb: Sandbox) -> None:
    fail(sb, "job_output", "E_NO_SUCH_JOB", id=99)
    fail(sb, "job_start", "E_INVALID_ARGUMENT", command="   ")
    job = call(sb, "job_start", command="cat")["id"]
    fail(sb, "job_signal", "E_INVALID_ARGUMENT", id=job, signal="HUP")
    fail(sb, "job_output", "E_INVALID_ARGUMENT", id=job, cursor=10**9)
    call(sb, "job_send", id=job, input="", close=True)
    fail(sb, "job_send", "E_STDIN_CLOSED", id=job, input="late\n")


def test_jobs_over_stdio() -> None:
    pytest.importorskip("mcp.client.stdio")
    from mcp_harness import SyncClient, check_schema

    c = SyncClient().open_stdio(["--command-timeout", "30"])
    try:
        res = c.call("job_start", {"command": "while read l; do echo got:$l; done"})
        check_schema(c, "job_start", res)
        job = res.structured_content["id"]
        res = c.call("job_send", {"id": job, "input": "one\n", "wait": 5})
        check_schema(c, "job_send", res)
        seen = res.structured_content.get("output", "")
        deadline = time.monotonic() + 20
        while "got:one" not in seen and time.monotonic() < deadline:
            res = c.call("job_output", {"id": job, "wait": 1})
            check_schema(c, "job_output", res)
            seen += res.structured_content["output"]
        assert "got:one\n" in seen
        assert c.call("bash", {"command": "echo alongside"}).structured_content[
            "stdout"] == "alongside\n"
        res = c.call("jobs", {})
        check_schema(c, "jobs", res)
        assert res.structured_content["jobs"][0]["state"] == "running"
        res = c.call("job_signal", {"id": job, "signal": "TERM"})
        check_schema(c, "job_signal", res)
        assert res.structured_content["exit_code"] == 143
        res = c.call("job_kill", {"id": job})
        check_schema(c, "job_kill", res)
    finally:
        c.close()
