"""The policy-checked httpx client: resolution, pinning, redirects, TLS, environment."""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from netserver import make_ca, serve

from vshell.net import AccessDenied, ResolveFailed, build_client
from vshell.net import client as netclient

HAS_CRYPTO = importlib.util.find_spec("cryptography") is not None


def fake_dns(table: dict[str, list[str]]):
    def resolve(host: str, port: int) -> list[str]:
        if host not in table:
            raise ResolveFailed(host)
        return table[host]

    return resolve


def test_allowed_ip_entry_reaches_server() -> None:
    with serve() as srv, build_client(["127.0.0.1"]) as c:
        r = c.get(srv.url("/hello"))
        assert r.status_code == 200 and r.text == "hello\n"


def test_ipv6_loopback() -> None:
    with serve("::1") as srv, build_client(["::1"]) as c:
        assert c.get(srv.url("/hello")).text == "hello\n"
    with serve("::1") as srv, build_client(["127.0.0.1"]) as c:
        with pytest.raises(AccessDenied):
            c.get(srv.url("/hello"))


def test_refused_address_never_connects() -> None:
    with serve() as srv, build_client(["10.0.0.0/8"]) as c:
        with pytest.raises(AccessDenied) as info:
            c.get(srv.url("/hello"))
        assert "127.0.0.1" in str(info.value)
        assert "is not permitted by the allow list" in str(info.value)
        assert srv.hits == []


def test_odd_spellings_of_loopback_are_the_same_address() -> None:
    with serve() as srv:
        with build_client(["127.0.0.1"]) as c:
            # httpx treats these as names; the backend reads them as the resolver would.
            for host in ("2130706433", "0x7f.1", "127.1"):
                assert c.get(f"http://{host}:{srv.port}/hello").status_code == 200
        with build_client(["10.0.0.1"]) as c:
            for host in ("2130706433", "0x7f.1", "127.1", "[::ffff:127.0.0.1]"):
                with pytest.raises(AccessDenied):
                    c.get(f"http://{host}:{srv.port}/hello")
        assert srv.hits.count("/hello") == 3


def test_name_entry_and_wildcard_with_injected_resolver() -> None:
    dns = fake_dns({"api.example.test": ["127.0.0.1"], "example.test": ["127.0.0.1"],
                    "other.test": ["127.0.0.1"]})
    # loopback stands in for a public address here: the private block is tested below
    with serve() as srv, build_client(["*.example.test"], resolver=dns,
                                      block_private=False) as c:
        assert c.get(srv.url("/hello", "api.example.test")).status_code == 200
        with pytest.raises(AccessDenied):
            c.get(srv.url("/hello", "example.test"))  # the bare name is not covered
        with pytest.raises(AccessDenied):
            c.get(srv.url("/hello", "other.test"))


def test_unlisted_name_is_refused_without_dns() -> None:
    calls: list[str] = []

    def resolve(host: str, port: int) -> list[str]:
        calls.append(host)
        return ["127.0.0.1"]

    with build_client(["example.test"], resolver=resolve) as c:
        with pytest.raises(AccessDenied):
            c.get("http://elsewhere.test/")
    assert calls == []


def test_cidr_entry_allows_a_name_that_lands_inside() -> None:
    dns = fake_dns({"svc.test": ["127.0.0.1"]})
    with serve() as srv, build_client(["127.0.0.0/8"], resolver=dns) as c:
        assert c.get(srv.url("/hello", "svc.test")).text == "hello\n"


def test_name_resolving_to_allowed_and_refused_address_is_refused() -> None:
    dns = fake_dns({"mixed.test": ["127.0.0.1", "10.9.9.9"]})
    with serve() as srv, build_client(["127.0.0.1"], resolver=dns) as c:
        with pytest.raises(AccessDenied) as info:
            c.get(srv.url("/hello", "mixed.test"))
        assert "10.9.9.9" in str(info.value)
        assert srv.hits == []


def test_connects_to_exactly_the_checked_address(monkeypatch: pytest.MonkeyPatch) -> None:
    """A second lookup (DNS rebinding) cannot change where the socket goes."""
    answers = iter([["127.0.0.1"], ["10.0.0.1"]])
    seen: list[tuple[str, int]] = []
    real_connect = socket.socket.connect

    def spy(self: socket.socket, address: tuple[str, int]) -> None:
        seen.append(address)
        return real_connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", spy)
    with serve() as srv, build_client(
        ["rebind.test"], resolver=lambda h, p: next(answers), block_private=False
    ) as c:
        assert c.get(srv.url("/hello", "rebind.test")).status_code == 200
    assert seen == [("127.0.0.1", srv.port)]


def test_getaddrinfo_is_the_default_resolver(monkeypatch: pytest.MonkeyPatch) -> None:
    def fake(host: str, port: int, *a: object, **kw: object) -> list:
        assert host == "pinned.test"
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port)),
                (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.1.1.1", port))]

    monkeypatch.setattr(netclient.socket, "getaddrinfo", fake)
    with serve() as srv:
        with build_client(["10.0.0.0/8"]) as c, pytest.raises(AccessDenied, match="127.0.0.1"):
            c.get(srv.url("/hello", "pinned.test"))
        with build_client(["127.0.0.0/8", "10.0.0.0/8"]) as c:
            assert c.get(srv.url("/hello", "pinned.test")).status_code == 200


def test_block_private_refuses_name_entries_that_resolve_privately() -> None:
    dns = fake_dns({"meta.test": ["169.254.169.254"], "lo.test": ["127.0.0.1"]})
    with serve() as srv:
        with build_client(["lo.test", "meta.test"], block_private=True, resolver=dns) as c:
            with pytest.raises(AccessDenied, match="127.0.0.1"):
                c.get(srv.url("/hello", "lo.test"))
            with pytest.raises(AccessDenied, match="169.254.169.254"):
                c.get("http://meta.test/latest/meta-data/")
        with build_client(["lo.test"], block_private=False, resolver=dns) as c:
            assert c.get(srv.url("/hello", "lo.test")).status_code == 200
        # an explicit address entry names the private destination on purpose
        with build_client(["lo.test", "127.0.0.1"], block_private=True, resolver=dns) as c:
            assert c.get(srv.url("/hello", "lo.test")).status_code == 200
        assert srv.hits.count("/hello") == 2


def test_redirect_hops_each_checked() -> None:
    with serve() as allowed, serve("::1") as refused:
        target = refused.url("/hello")
        with build_client(["127.0.0.1"]) as c:
            with pytest.raises(AccessDenied, match="::1"):
                c.get(allowed.url(f"/redirect?to={target}"), follow_redirects=True)
            r = c.get(allowed.url("/redirect?to=/hello"), follow_redirects=True)
            assert r.text == "hello\n" and len(r.history) == 1
        assert refused.hits == []


def test_no_proxy_or_netrc_from_environment(monkeypatch: pytest.MonkeyPatch,
                                            tmp_path: Path) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://10.255.255.1:9")
    monkeypatch.setenv("http_proxy", "http://10.255.255.1:9")
    monkeypatch.setenv("ALL_PROXY", "http://10.255.255.1:9")
    (tmp_path / "netrc").write_text("machine 127.0.0.1 login u password p\n")
    monkeypatch.setenv("NETRC", str(tmp_path / "netrc"))
    with serve() as srv, build_client(["127.0.0.1"]) as c:
        assert c.trust_env is False
        r = c.get(srv.url("/echo"))
        assert "authorization" not in r.json()["headers"]


def test_unix_sockets_refused() -> None:
    backend = netclient.PolicyBackend(netclient.AllowList(["127.0.0.1"]))
    with pytest.raises(AccessDenied):
        backend.connect_unix_socket("/var/run/docker.sock")


@pytest.mark.skipif(not HAS_CRYPTO, reason="the cryptography package is not installed")
def test_tls_with_private_ca(tmp_path: Path) -> None:
    ca_pem, server_ctx = make_ca(tmp_path, ["tls.test"])
    dns = fake_dns({"tls.test": ["127.0.0.1"], "wrong.test": ["127.0.0.1"]})
    with serve(tls=server_ctx) as srv:
        with build_client(["*.test", "tls.test", "127.0.0.1"], ca_bundle=str(ca_pem),
                          resolver=dns) as c:
            assert c.get(srv.url("/hello", "tls.test")).text == "hello\n"
            with pytest.raises(httpx.ConnectError, match="(?i)hostname|match"):
                c.get(srv.url("/hello", "wrong.test"))  # certificate is for tls.test only
        # default roots: not trusted
        with build_client(["tls.test", "127.0.0.1"], resolver=dns) as c:
            with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
                c.get(srv.url("/hello", "tls.test"))
            with c.with_ca(ca_pem.read_text()) as c2:
                assert c2.get(srv.url("/hello", "tls.test")).status_code == 200


def test_importing_vshell_net_does_not_import_httpx() -> None:
    code = "import sys, vshell.net; print('httpx' in sys.modules, 'httpcore' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=str(Path(__file__).resolve().parents[2]), timeout=30)
    assert out.stdout.strip() == "False False", out.stderr
