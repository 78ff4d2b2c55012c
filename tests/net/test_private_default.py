"""Private destinations are refused by default, in the API, the CLI and the MCP server.

Only loopback traffic is ever sent: every other private address is refused before a socket
is opened (the spy on ``socket.connect`` proves it), so the tests never reach past this host.
"""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest
from netserver import LoopServer, serve

import vshell.net.client as netclient
from vshell import Sandbox
from vshell.cli.args import build_sandbox, parse_args
from vshell.mcp.main import split_args
from vshell.net import AllowList, build_client
from vshell.net.errors import AccessDenied, ResolveFailed

ROOT = Path(__file__).resolve().parents[2]

PRIVATE = {
    "lo.test": "127.0.0.1", "lo2.test": "127.9.9.9", "ten.test": "10.1.2.3",
    "rfc1918.test": "192.168.1.1", "b172.test": "172.16.5.5", "cgnat.test": "100.64.0.1",
    "linklocal.test": "169.254.1.1", "meta.test": "169.254.169.254",
    "meta6.test": "fd00:ec2::254", "ula.test": "fd12::1", "lo6.test": "::1",
    "mapped.test": "::ffff:127.0.0.1", "mappedmeta.test": "::ffff:169.254.169.254",
    "zero.test": "0.0.0.0", "ll6.test": "fe80::1",
}


@pytest.fixture
def fake_dns(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[str]]:
    table = {name: [addr] for name, addr in PRIVATE.items()}

    def resolve(host: str, port: int) -> list[str]:
        if host not in table:
            raise ResolveFailed(host)
        return table[host]

    monkeypatch.setattr(netclient, "system_resolver", resolve)
    return table


@pytest.fixture
def connects(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    seen: list[object] = []
    real = socket.socket.connect

    def spy(self: socket.socket, address: object) -> None:
        seen.append(address)
        host = address[0] if isinstance(address, tuple) else ""
        assert host in ("127.0.0.1", "::1"), f"test tried to reach {address}"
        return real(self, address)  # type: ignore[arg-type]

    monkeypatch.setattr(socket.socket, "connect", spy)
    return seen


@pytest.mark.parametrize("name", sorted(PRIVATE))
def test_name_entry_resolving_privately_is_refused_at_dial_time(
    name: str, fake_dns: dict[str, list[str]], connects: list[object]
) -> None:
    with Sandbox(allow_net=[name]) as sb:
        r = sb.exec(f"curl -sS http://{name}:9/x; echo st=$?")
    assert r.stdout == b"st=7\n"
    assert r.stderr.startswith(f"curl: (7) network access to {name} (".encode())
    assert b"is reachable only through an IP or CIDR entry" in r.stderr
    assert connects == []


@pytest.mark.parametrize("literal", ["127.0.0.1", "[::ffff:127.0.0.1]", "169.254.169.254",
                                     "[::ffff:a9fe:a9fe]", "[fd00:ec2::254]", "100.100.1.1",
                                     "2130706433", "0x7f.1"])
def test_catch_all_entries_do_not_cover_private_literals(literal: str,
                                                         connects: list[object]) -> None:
    with Sandbox(allow_net=["0.0.0.0/0", "::/0"]) as sb:
        r = sb.exec(f"curl -sS http://{literal}:9/; echo st=$?")
    assert r.stdout == b"st=7\n", literal
    assert b"not permitted by the allow list" in r.stderr
    assert connects == []


def test_ip_and_cidr_entries_name_private_destinations(
    srv: LoopServer, fake_dns: dict[str, list[str]]
) -> None:
    url = srv.url("/hello", "lo.test")
    for entries in (["lo.test", "127.0.0.1"], ["lo.test", "127.0.0.0/8"],
                    ["127.0.0.0/8"], ["::ffff:127.0.0.1"]):
        with Sandbox(allow_net=entries) as sb:
            r = sb.exec(f"curl -sS {url}")
        assert (r.exit_code, r.stdout) == (0, b"hello\n"), entries
    # the host option for the old behaviour
    with Sandbox(allow_net=["lo.test"], block_private_addresses=False) as sb:
        assert sb.exec(f"curl -sS {url}").stdout == b"hello\n"
    assert srv.hits == ["/hello"] * 5


def test_localhost_entry_reaches_loopback_only(fake_dns: dict[str, list[str]],
                                               connects: list[object]) -> None:
    al = AllowList(["localhost"])
    assert al.allows_resolved("localhost", "127.0.0.1")
    assert al.allows_resolved("LOCALHOST.", "::1")
    assert not al.allows_resolved("localhost", "10.0.0.1")
    assert not al.allows_resolved("localhost", "169.254.169.254")
    assert not AllowList(["*.localhost"]).allows_resolved("a.localhost", "127.0.0.1")
    fake_dns["localhost"] = ["169.254.169.254"]  # a hostile hosts file
    with build_client(["localhost"]) as c, pytest.raises(AccessDenied, match="169.254"):
        c.get("http://localhost:9/")
    assert connects == []


@pytest.fixture
def srv() -> object:
    with serve() as s:
        yield s


def _vshell(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "vshell", *args], capture_output=True,
                          text=True, cwd=str(ROOT), timeout=60)


def test_cli_default_is_safe_and_localhost_is_explicit(srv: LoopServer) -> None:
    port = srv.port
    p = _vshell("--allow-net", "localhost", "-c", f"curl -sS http://localhost:{port}/hello")
    assert (p.returncode, p.stdout, p.stderr) == (0, "hello\n", "")
    p = _vshell("--allow-net", "0.0.0.0/0", "-c", f"curl -sS http://127.0.0.1:{port}/hello")
    assert p.returncode == 7
    assert "127.0.0.1 is not permitted by the allow list: a private" in p.stderr
    host = socket.gethostname()
    if host != "localhost" and _resolves_to_loopback(host):
        p = _vshell("--allow-net", host, "-c", f"curl -sS http://{host}:{port}/hello")
        assert p.returncode == 7 and "is reachable only through" in p.stderr, p.stderr
    assert srv.hits == ["/hello"]


def _resolves_to_loopback(host: str) -> bool:
    try:
        infos = socket.getaddrinfo(host, 80, type=socket.SOCK_STREAM)
    except OSError:
        return False
    return all(str(i[4][0]).startswith("127.") or i[4][0] == "::1" for i in infos)


def test_mcp_server_sandbox_blocks_private_by_default(fake_dns: dict[str, list[str]],
                                                      connects: list[object]) -> None:
    _server_opts, rest = split_args(["--allow-net", "meta.test"])
    sb = build_sandbox(parse_args(rest))  # what `vshell mcp` does
    try:
        r = sb.exec("curl -sS http://meta.test/latest/meta-data/; echo st=$?")
    finally:
        sb.close()
    assert r.stdout == b"st=7\n" and b"169.254.169.254" in r.stderr
    assert connects == []
