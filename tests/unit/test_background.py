"""vshell.background on its own: the ring log, UTF-8 safe reads, the job table's bounds and
the state a job starts from (Sandbox.start_job, no MCP)."""

from __future__ import annotations

import subprocess
import threading
import time

import pytest

from vshell.background import JobError, RingLog, _whole_utf8
from vshell.sandbox import MemoryMount, Sandbox


def test_ring_log_keeps_the_newest_bytes_by_absolute_position() -> None:
    log = RingLog(10)
    log.append(b"0123456789")
    assert log.read(0, 100) == (b"0123456789", 0, 0)
    log.append(b"abcde")
    assert (log.start, log.end) == (5, 15)
    assert log.read(0, 100) == (b"56789abcde", 5, 5)  # 5 bytes dropped before the cursor
    assert log.read(7, 3) == (b"789", 7, 0)
    assert log.read(15, 10) == (b"", 15, 0)
    log.append(b"x" * 25)
    assert log.read(12, 100) == (b"x" * 10, 30, 18)


def test_whole_utf8_holds_back_a_split_character() -> None:
    text = "añ€😀".encode()
    for cut in range(1, len(text) + 1):
        part = _whole_utf8(text[:cut])
        part.decode("utf-8")  # never ends inside a character
        assert text[:cut].startswith(part)
        assert len(text[:cut]) - len(part) < 4
    assert _whole_utf8("€".encode()[:2]) == b""
    assert _whole_utf8(b"\xff\xfe") == b"\xff\xfe"  # not UTF-8: kept as it is


def test_reads_never_split_a_character() -> None:
    with Sandbox() as sb:
        job = sb.start_job("printf 'a€b€c€'")
        job.wait(10)
        pieces, cursor = [], 0
        while True:
            got = job.read(cursor=cursor, max_bytes=2)
            if got["next_cursor"] == cursor:
                break
            pieces.append(got["output"])
            cursor = got["next_cursor"]
        assert "".join(pieces) == "a€b€c€"
        assert "€" in pieces  # a character longer than max_bytes comes whole
        assert all("\ufffd" not in p for p in pieces)


def test_job_starts_from_the_state_between_runs() -> None:
    with Sandbox(mounts=[MemoryMount("/work")]) as sb:
        sb.exec("cd /work; X=before")
        t = threading.Thread(target=sb.exec, args=("sleep 0.5; X=after",))
        t.start()
        time.sleep(0.1)
        job = sb.start_job("echo $X $PWD; X=job; cd /")  # waits for the run going on
        t.join()
        assert job.wait(10)
        assert job.read(cursor=0)["output"] == "after /work\n"
        assert sb.exec("echo $X; pwd").stdout == b"after\n/work\n"  # a subshell: no leak


def test_output_matches_bash_for_a_pipeline() -> None:
    script = "printf '%s\\n' c a b | sort; echo done >&2"
    with Sandbox() as sb:
        job = sb.start_job(script)
        job.wait(10)
        got = job.read("stdout", cursor=0)["output"], job.read("stderr", cursor=0)["output"]
    real = subprocess.run(["bash", "-c", script], capture_output=True, check=True)
    assert got == (real.stdout.decode(), real.stderr.decode())


def test_exit_status_and_job_slot_return() -> None:
    with Sandbox(max_jobs=1) as sb:
        job = sb.start_job("exit 7")
        assert job.wait(10) and (job.state, job.exit_code) == ("exited", 7)
        again = sb.start_job("sleep 0.1")  # the ended job gave its slot back
        assert again.wait(10)


def test_table_evicts_the_oldest_ended_job() -> None:
    with Sandbox() as sb:
        table = sb.background_jobs
        table.max_jobs = 2
        a = sb.start_job("true")
        a.wait(10)
        b = sb.start_job("sleep 100")
        c = sb.start_job("sleep 100")
        assert [j.id for j in table.list()] == [b.id, c.id]
        with pytest.raises(JobError) as e:
            sb.start_job("sleep 100")
        assert e.value.code == "E_TOO_MANY_JOBS"


def test_wait_returns_early_on_output_and_on_cancel() -> None:
    from vshell.command import CancelToken

    with Sandbox() as sb:
        job = sb.start_job("sleep 0.3; echo late; sleep 100")
        began = time.monotonic()
        got = job.read(wait=20)
        assert got["output"] == "late\n" and time.monotonic() - began < 10
        token = CancelToken()
        threading.Timer(0.2, token.cancel).start()
        began = time.monotonic()
        assert job.read(wait=20, cancel=token)["output"] == ""
        assert time.monotonic() - began < 5


def test_send_refuses_more_than_stdin_holds() -> None:
    from vshell import background

    with Sandbox() as sb:
        job = sb.start_job("sleep 100")  # never reads
        job.send("x" * (background.STDIN_CAPACITY - 10))
        with pytest.raises(JobError) as e:
            job.send("y" * 100)
        assert e.value.code == "E_TOO_LARGE"
