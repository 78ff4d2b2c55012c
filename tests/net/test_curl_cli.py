"""The --allow-net flag of the vshell CLI: validated at start-up, handed to curl."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from netserver import serve

ROOT = Path(__file__).resolve().parents[2]


def vshell(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "vshell", *args], capture_output=True,
                          text=True, cwd=str(ROOT), timeout=60)


def test_cli_allow_net_reaches_loopback() -> None:
    with serve() as srv:
        p = vshell("--allow-net", "127.0.0.1", "-c", f"curl -s {srv.url('/hello')} | wc -c")
        assert (p.returncode, p.stdout.strip(), p.stderr) == (0, "6", "")
        p = vshell("--allow-net", "10.0.0.0/8", "-c", f"curl -s {srv.url('/hello')}")
        assert p.returncode == 7
    assert srv.hits == ["/hello"]


def test_cli_without_allow_net_has_no_network() -> None:
    p = vshell("-c", "curl http://127.0.0.1:9/")
    assert (p.returncode, p.stderr) == (1, "curl: network access is not permitted\n")


def test_cli_rejects_bad_entries_at_start_up() -> None:
    for entry, needle in [("http://x", "URL"), ("x.com:80", "ports"), ("a.*.com", "wildcard"),
                          ("", "empty")]:
        p = vshell("--allow-net", entry, "-c", "true")
        assert p.returncode == 2, entry
        assert p.stderr.startswith("vshell: invalid allow-list entry"), p.stderr
        assert needle in p.stderr
