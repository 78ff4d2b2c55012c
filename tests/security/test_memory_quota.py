"""In-memory file data is bounded: a script cannot fill the host's memory through /tmp."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from vshell import HostMount, MemoryMount, Sandbox
from vshell.sandbox import SandboxConfigError

MB = 1 << 20


def test_endless_writer_stops_at_the_limit() -> None:
    with Sandbox(memory_fs_limit=8 * MB, timeout=20) as sb:
        res = sb.exec("yes > /tmp/x; echo status=$?; stat -c %s /tmp/x")
    assert res.stdout == f"status=1\n{8 * MB}\n".encode()
    assert res.stderr == b"yes: write error: No space left on device\n"
    assert sb.memory_budget.used == 8 * MB


def test_space_comes_back_on_rm_truncate_and_overwrite() -> None:
    with Sandbox(memory_fs_limit=3 * MB) as sb:
        script = (
            "head -c 2M /dev/zero > /tmp/a; echo $?; head -c 2M /dev/zero > /tmp/b; echo $?;"
            "rm /tmp/a; head -c 2M /dev/zero > /tmp/b; echo $?;"  # b: 0 -> 2M after a is gone
            "truncate -s 0 /tmp/b; head -c 2M /dev/zero > /tmp/c; echo $?;"
            "head -c 1 /dev/zero > /tmp/d; echo $?; mv /tmp/d /tmp/c; echo $?;"
            "truncate -s 4M /tmp/c; echo $?"
        )
        res = sb.exec(script)
        assert res.stdout == b"0\n1\n0\n0\n0\n0\n1\n"
        assert b"truncate: failed to truncate '/tmp/c' at 4194304 bytes: No space left" \
            in res.stderr
        assert sb.memory_budget.used == 1  # c (1 byte, renamed over the 2M one) + empty b


def test_hard_links_and_open_files_are_counted_once() -> None:
    with Sandbox(memory_fs_limit=3 * MB) as sb:
        res = sb.exec("head -c 2M /dev/zero > /tmp/a; ln /tmp/a /tmp/b; rm /tmp/a; echo $?;"
                      "head -c 2M /dev/zero > /tmp/c; echo $?; rm /tmp/b;"
                      "head -c 2M /dev/zero > /tmp/c; echo $?")
        assert res.stdout == b"0\n1\n0\n"
        assert sb.memory_budget.used == 2 * MB


def test_limit_is_shared_by_memory_mounts_and_cow_overlays(tmp_path: Path) -> None:
    (tmp_path / "host.txt").write_bytes(b"x" * MB)
    mounts = [MemoryMount("/m"), HostMount(str(tmp_path), "/cow", cow=True)]
    with Sandbox(mounts=mounts, memory_fs_limit=3 * MB) as sb:
        res = sb.exec("head -c 1M /dev/zero > /m/a; echo hi >> /cow/host.txt; echo $?;"
                      "head -c 2M /dev/zero > /tmp/t; echo $?")
        assert res.stdout == b"0\n1\n"
        assert (tmp_path / "host.txt").stat().st_size == MB  # the host is never written
        sb.discard()  # the overlay's copy gives its bytes back
        assert sb.exec("head -c 1M /dev/zero > /tmp/t; echo $?").stdout == b"0\n"


def test_python_guest_is_bounded_too() -> None:
    pytest.importorskip("wasmtime")
    with Sandbox(memory_fs_limit=2 * MB, timeout=120) as sb:
        res = sb.exec("python3 -c \"open('/tmp/x','wb').write(b'x' * (3 << 20))\"; echo $?")
    assert res.stdout.endswith(b"1\n")
    assert b"No space left on device" in res.stderr


def test_no_limit_and_bad_limits() -> None:
    with Sandbox(memory_fs_limit=None) as sb:
        assert sb.exec("head -c 2M /dev/zero > /tmp/a; echo $?").stdout == b"0\n"
    with pytest.raises(SandboxConfigError):
        Sandbox(memory_fs_limit=-1)
    with pytest.raises(SandboxConfigError, match="/m"):
        Sandbox(mounts=[MemoryMount("/m", files={"big": b"x" * 10})], memory_fs_limit=5)


def test_cli_flag() -> None:
    p = subprocess.run(
        [sys.executable, "-m", "vshell", "--memory-fs-limit", "1M", "-c",
         "head -c 2M /dev/zero > /tmp/x; echo $?"],
        capture_output=True, timeout=60,
    )
    assert p.stdout == b"1\n"
    assert p.stderr == b"head: write error: No space left on device\n"
