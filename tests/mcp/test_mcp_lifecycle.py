"""`vshell mcp` start-up and shutdown: SIGTERM or the client going away with a command
running ends the server promptly; the subcommand's arguments; `vshell -c` stays free of
the SDK."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mcp_harness import REPO, server_env

pytest.importorskip("mcp.server.lowlevel")


def _send(proc: subprocess.Popen[bytes], msg: dict) -> None:
    assert proc.stdin is not None
    proc.stdin.write((json.dumps(msg) + "\n").encode())
    proc.stdin.flush()


def _recv(proc: subprocess.Popen[bytes]) -> dict:
    assert proc.stdout is not None
    return json.loads(proc.stdout.readline())


def _server_running_sleep(tmp_path: Path) -> subprocess.Popen[bytes]:
    """A stdio server, initialized by hand, with `sleep 30` running in its session."""
    proc = subprocess.Popen([sys.executable, "-m", "vshell", "mcp", "--mount", f"{tmp_path}:/w"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=server_env(), cwd=REPO)
    _send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"}}})
    assert _recv(proc)["id"] == 1
    _send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    _send(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "bash", "arguments": {"command": "echo started > /w/s; sleep 30; echo x > /w/x"}}})
    deadline = time.monotonic() + 10
    while not (tmp_path / "s").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert (tmp_path / "s").exists()
    return proc


def _wait_exit(proc: subprocess.Popen[bytes], limit: float) -> float:
    began = time.monotonic()
    try:
        proc.wait(limit)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise AssertionError("the server kept running") from None
    return time.monotonic() - began


def test_sigterm_with_a_command_running(tmp_path: Path) -> None:
    proc = _server_running_sleep(tmp_path)
    proc.send_signal(signal.SIGTERM)
    assert _wait_exit(proc, 5) < 5
    assert proc.returncode == 128 + signal.SIGTERM
    assert not (tmp_path / "x").exists()


def test_client_going_away_with_a_command_running(tmp_path: Path) -> None:
    proc = _server_running_sleep(tmp_path)
    assert proc.stdin is not None
    proc.stdin.close()  # the client is gone
    assert _wait_exit(proc, 5) < 5
    assert not (tmp_path / "x").exists()


def _vshell(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "vshell", *args], input=stdin,
                          capture_output=True, env=server_env(), cwd=REPO, timeout=30)


def test_usage() -> None:
    r = _vshell("mcp", "--help")
    assert r.returncode == 0 and b"--command-timeout" in r.stdout and b"--http" in r.stdout
    for bad in (["-c", "echo"], ["script.sh"], ["--http", "nope:x"], ["--token", "t"],
                ["--command-timeout"], ["--bogus"]):
        r = _vshell("mcp", *bad)
        assert r.returncode == 2, (bad, r.stderr)
        assert r.stderr.startswith(b"vshell mcp: ")
    r = _vshell("mcp", "--mount", "/definitely/not/here:/w")
    assert r.returncode == 2 and b"no such directory: /definitely/not/here" in r.stderr


def test_a_script_named_mcp_still_runs(tmp_path: Path) -> None:
    (tmp_path / "mcp").write_text("echo script ran\n")
    r = _vshell("--mount", f"{tmp_path}:/w", "./mcp")
    assert r.returncode == 0 and r.stdout == b"script ran\n"


def test_dash_c_does_not_import_the_sdk() -> None:
    code = ("import sys\nfrom vshell.cli.main import main\nrc = main(['-c', 'true'])\n"
            "assert rc == 0\nassert not any(m == 'mcp' or m.startswith('mcp.') "
            "or m.startswith('vshell.mcp') for m in sys.modules), 'mcp imported'\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, env=server_env(),
                       cwd=REPO, timeout=30)
    assert r.returncode == 0, r.stderr
