"""curl and wget inside the real sandbox, against loopback servers the tests start."""

from __future__ import annotations

import importlib.util
import json
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest
from netserver import LoopServer, make_ca, serve

from vshell import MemoryMount, Sandbox
from vshell.net import ResolveFailed
from vshell.net import client as netclient
from vshell.sandbox import HostMount

HAS_CRYPTO = importlib.util.find_spec("cryptography") is not None


@pytest.fixture
def srv() -> Iterator[LoopServer]:
    with serve() as s:
        yield s


@pytest.fixture
def sb() -> Iterator[Sandbox]:
    with Sandbox(allow_net=["127.0.0.1"], mounts=[MemoryMount("/work")]) as s:
        yield s


def test_no_allow_list_means_no_client() -> None:
    with Sandbox() as s:
        r = s.exec("curl -s http://127.0.0.1:1/x; echo st=$?")
        assert r.stdout == b"st=1\n"
        assert r.stderr == b"curl: network access is not permitted\n"
        assert s.http_client() is None
        r = s.exec("wget -qO- http://127.0.0.1:1/x; echo st=$?")
        assert r.stdout == b"st=1\n"


def test_get_to_stdout_and_pipeline(srv: LoopServer, sb: Sandbox) -> None:
    r = sb.exec(f"curl -s {srv.url('/hello')}")
    assert (r.exit_code, r.stdout, r.stderr) == (0, b"hello\n", b"")
    r = sb.exec(f"curl -s {srv.url('/big?n=123456')} | wc -c")
    assert r.stdout.strip() == b"123456"


def test_refused_destination(srv: LoopServer) -> None:
    with Sandbox(allow_net=["10.0.0.0/8"]) as s:
        r = s.exec(f"curl {srv.url('/hello')}; echo st=$?")
        assert r.stdout == b"st=7\n"
        assert r.stderr == (b"curl: (7) network access to 127.0.0.1 is not permitted by the "
                            b"allow list\n")
        r = s.exec(f"curl -s {srv.url('/hello')}; echo st=$?")
        assert (r.stdout, r.stderr) == (b"st=7\n", b"")
    assert srv.hits == []


def test_unresolvable_host(monkeypatch: pytest.MonkeyPatch, sb: Sandbox) -> None:
    def nodns(host: str, port: int) -> list[str]:
        raise ResolveFailed(host)

    monkeypatch.setattr(netclient, "system_resolver", nodns)
    with Sandbox(allow_net=["10.0.0.0/8"]) as s:
        r = s.exec("curl http://nowhere.invalid/; echo st=$?")
        assert r.stdout == b"st=6\n"
        assert r.stderr == b"curl: (6) Could not resolve host: nowhere.invalid\n"


def test_fail_and_write_out(srv: LoopServer, sb: Sandbox) -> None:
    url = srv.url("/status/404")
    r = sb.exec(f"curl -s -o /dev/null -w '%{{http_code}}\\n' {url}; echo st=$?")
    assert r.stdout == b"404\nst=0\n"
    r = sb.exec(f"curl -sf {url}; echo st=$?")
    assert (r.stdout, r.stderr) == (b"st=22\n", b"")
    r = sb.exec(f"curl -sSf {url}; echo st=$?")
    assert r.stderr == b"curl: (22) The requested URL returned error: 404\n"
    r = sb.exec(f"curl -s --fail-with-body {url}; echo st=$?")
    assert r.stdout == b"status 404\nst=22\n"
    r = sb.exec(f"curl -s {url}")
    assert (r.exit_code, r.stdout) == (0, b"status 404\n")
    fmt = "%{http_code} %{size_download} %{content_type} %{num_redirects} %{url_effective}"
    r = sb.exec(f"curl -s -o /dev/null -w '{fmt}' {srv.url('/hello')}")
    assert r.stdout.decode() == f"200 6 text/plain 0 {srv.url('/hello')}"
    r = sb.exec(f"curl -s -o /dev/null -w '%{{time_total}}' {srv.url('/hello')}")
    assert float(r.stdout) >= 0


def test_output_files(srv: LoopServer, sb: Sandbox) -> None:
    r = sb.exec(f"cd /work && curl -s -o out.txt {srv.url('/hello')} && cat out.txt")
    assert r.stdout == b"hello\n"
    r = sb.exec(f"cd /work && curl -s -O {srv.url('/files/data.bin')} && od -c data.bin | head -1")
    assert r.exit_code == 0 and b"d   a   t   a" in r.stdout
    r = sb.exec(f"curl -s --create-dirs -o /work/a/b/c.txt {srv.url('/hello')};"
                " cat /work/a/b/c.txt")
    assert r.stdout == b"hello\n"
    r = sb.exec(f"curl -sS -o /nope/x {srv.url('/hello')}; echo st=$?")
    assert r.stdout == b"st=23\n"
    r = sb.exec(f"curl -sf -o /work/missing.txt {srv.url('/status/500')}; ls /work")
    assert b"missing.txt" not in r.stdout
    r = sb.exec(f"curl -sS -O {srv.url('/')}; echo st=$?")
    assert r.stdout == b"st=23\n"


def test_redirects(srv: LoopServer, sb: Sandbox) -> None:
    hop = srv.url("/redirect?to=/hello")
    r = sb.exec(f"curl -s {hop}")
    assert r.stdout == b"moved\n"
    r = sb.exec(f"curl -sL -w '%{{num_redirects}} %{{http_code}}' {hop}")
    assert r.stdout == b"hello\n1 200"
    r = sb.exec(f"curl -sS -L --max-redirs 3 {srv.url('/loop')}; echo st=$?")
    assert r.stdout == b"st=47\n"
    assert r.stderr == b"curl: (47) Maximum (3) redirects followed\n"
    r = sb.exec(f"curl -sL -X POST -d a=1 '{srv.url('/redirect?code=303&to=/echo')}'")
    assert json.loads(r.stdout)["method"] == "GET"
    r = sb.exec(f"curl -sL -d a=1 '{srv.url('/redirect?code=307&to=/echo')}'")
    got = json.loads(r.stdout)
    assert (got["method"], got["body"]) == ("POST", "a=1")


def test_redirect_to_refused_host(srv: LoopServer, sb: Sandbox) -> None:
    with serve("::1") as other:
        hop = srv.url(f"/redirect?to={other.url('/hello')}")
        r = sb.exec(f"curl -sSL {hop}; echo st=$?")
        assert r.stdout == b"st=7\n"
        assert b"network access to ::1 is not permitted by the allow list" in r.stderr
        r = sb.exec(f"wget -q -O - {hop}; echo st=$?")
        assert r.stdout == b"st=4\n"
        assert other.hits == []


def test_request_shaping(srv: LoopServer, sb: Sandbox) -> None:
    echo = srv.url("/echo")
    got = json.loads(sb.exec(f"curl -s {echo}").stdout)
    assert got["method"] == "GET"
    assert got["headers"]["user-agent"].startswith("curl/")
    assert got["headers"]["accept"] == "*/*"
    assert "accept-encoding" not in got["headers"]
    got = json.loads(sb.exec(
        f"curl -s -H 'X-One: 1' -H 'Accept:' -A agent/1 -e http://ref/ -u me:pw {echo}").stdout)
    h = got["headers"]
    assert (h["x-one"], h["user-agent"], h["referer"]) == ("1", "agent/1", "http://ref/")
    assert "accept" not in h and h["authorization"] == "Basic bWU6cHc="
    got = json.loads(sb.exec(f"curl -s -d a=1 -d b=2 {echo}").stdout)
    assert (got["method"], got["body"]) == ("POST", "a=1&b=2")
    assert got["headers"]["content-type"] == "application/x-www-form-urlencoded"
    got = json.loads(sb.exec(f"curl -s -G -d q=x -d r=y {echo}").stdout)
    assert (got["method"], got["path"]) == ("GET", "/echo?q=x&r=y")
    got = json.loads(sb.exec(f"curl -s --data-urlencode 'q=a b&c' {echo}").stdout)
    assert got["body"] == "q=a+b%26c"
    sb.exec("printf 'line1\\nline2\\n' > /work/body.txt")
    got = json.loads(sb.exec(f"curl -s -d @/work/body.txt {echo}").stdout)
    assert got["body"] == "line1line2"
    got = json.loads(sb.exec(f"cd /work && curl -s --data-binary @body.txt {echo}").stdout)
    assert got["body"] == "line1\nline2\n"
    got = json.loads(sb.exec(f"echo -n piped | curl -s --data-binary @- {echo}").stdout)
    assert got["body"] == "piped"
    got = json.loads(sb.exec(f"curl -s --data-raw @lit {echo}").stdout)
    assert got["body"] == "@lit"
    got = json.loads(sb.exec(f"curl -s -X DELETE {echo}").stdout)
    assert got["method"] == "DELETE"
    got = json.loads(sb.exec(f"curl -s --json '{{\"a\":1}}' {echo}").stdout)
    assert got["headers"]["content-type"] == "application/json" and got["body"] == '{"a":1}'
    got = json.loads(sb.exec(f"cd /work && curl -s -F name=v -F f=@body.txt {echo}").stdout)
    assert got["headers"]["content-type"].startswith("multipart/form-data")
    assert 'name="f"; filename="body.txt"' in got["body"] and "line1\nline2" in got["body"]
    got = json.loads(sb.exec(f"cd /work && curl -s -T body.txt {echo}").stdout)
    assert (got["method"], got["body"]) == ("PUT", "line1\nline2\n")
    r = sb.exec(f"curl -s -d @/work/none.txt {echo}; echo st=$?")
    assert r.stdout == b"st=26\n"


def test_headers_include_and_head(srv: LoopServer, sb: Sandbox) -> None:
    r = sb.exec(f"curl -si {srv.url('/hello')}")
    assert r.stdout.startswith(b"HTTP/1.1 200 OK\r\n")
    assert r.stdout.endswith(b"\r\n\r\nhello\n")
    r = sb.exec(f"curl -sI {srv.url('/hello')}")
    assert r.stdout.startswith(b"HTTP/1.1 200 OK\r\n") and r.stdout.endswith(b"\r\n\r\n")
    assert b"hello" not in r.stdout
    r = sb.exec(f"curl -s -D /work/h.txt -o /dev/null {srv.url('/hello')}; head -1 /work/h.txt")
    assert r.stdout == b"HTTP/1.1 200 OK\r\n"
    r = sb.exec(f"curl -sv -o /dev/null {srv.url('/hello')}")
    assert b"> GET /hello HTTP/1.1" in r.stderr and b"< HTTP/1.1 200 OK" in r.stderr


def test_compressed(srv: LoopServer, sb: Sandbox) -> None:
    r = sb.exec(f"curl -s --compressed {srv.url('/gzip')}")
    assert r.stdout == b"squeezed\n"
    r = sb.exec(f"curl -s {srv.url('/gzip')} | gunzip")
    assert r.stdout == b"squeezed\n"


def test_timeouts(srv: LoopServer, sb: Sandbox) -> None:
    start = time.monotonic()
    r = sb.exec(f"curl -sS -m 0.5 {srv.url('/slow?s=5')}; echo st=$?")
    assert time.monotonic() - start < 3
    assert r.stdout == b"st=28\n"
    assert r.stderr.startswith(b"curl: (28) Operation timed out after ")
    assert r.stderr.endswith(b" milliseconds with 0 bytes received\n")


def test_sandbox_timeout_interrupts_a_blocked_read(srv: LoopServer) -> None:
    with Sandbox(allow_net=["127.0.0.1"], timeout=0.5) as s:
        start = time.monotonic()
        r = s.exec(f"curl -s {srv.url('/slow?s=10')}")
        assert time.monotonic() - start < 3
        assert r.outcome.name == "TIMED_OUT"


def test_retry(srv: LoopServer, sb: Sandbox) -> None:
    r = sb.exec(f"curl -sS --retry 2 --retry-delay 0.05 {srv.url('/flaky?fail=1')}")
    assert r.stdout == b"recovered\n"
    assert srv.hits.count("/flaky") == 2
    r = sb.exec(f"curl --retry 1 --retry-delay 0.01 -f {srv.url('/status/503')}; echo st=$?")
    assert r.stdout == b"st=22\n"
    assert b"Will retry in" in r.stderr


def test_options_refused_and_usage(sb: Sandbox) -> None:
    r = sb.exec("curl -k https://127.0.0.1/; echo st=$?")
    assert r.stdout == b"st=2\n"
    assert b"TLS certificate verification cannot be turned off" in r.stderr
    r = sb.exec("curl --bogus x; echo st=$?")
    assert r.stdout == b"st=2\n"
    assert r.stderr.startswith(b"curl: option --bogus: is unknown\n")
    r = sb.exec("curl; echo st=$?")
    assert r.stdout == b"st=2\n" and r.stderr.startswith(b"curl: no URL specified\n")
    r = sb.exec("curl ftp://127.0.0.1/x; echo st=$?")
    assert r.stdout == b"st=1\n"
    assert r.stderr == b'curl: (1) Protocol "ftp" not supported\n'
    assert sb.exec("curl --help").stdout.startswith(b"Usage: curl")


def test_big_body_streams_to_a_file_with_bounded_memory(srv: LoopServer, tmp_path: Path) -> None:
    size = 50 * 1024 * 1024
    with Sandbox(allow_net=["127.0.0.1"], mounts=[HostMount(str(tmp_path), "/data")]) as s:
        s.exec("true")
        tracemalloc.start()
        try:
            big = srv.url(f"/big?n={size}")
            r = s.exec(f"curl -s -o /data/big.bin -w '%{{size_download}}' {big}")
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert r.exit_code == 0, r.stderr
    assert r.stdout == str(size).encode()
    assert (tmp_path / "big.bin").stat().st_size == size
    assert peak < 8 * 1024 * 1024, f"peak {peak}"


@pytest.mark.skipif(not HAS_CRYPTO, reason="the cryptography package is not installed")
def test_tls_with_cacert_and_ca_bundle(tmp_path: Path) -> None:
    ca_pem, server_ctx = make_ca(tmp_path, ["localhost", "127.0.0.1"])
    with serve(tls=server_ctx) as tls_srv:
        url = tls_srv.url("/hello")
        files = {"ca.pem": ca_pem.read_bytes()}
        with Sandbox(allow_net=["127.0.0.1"], mounts=[MemoryMount("/work", files=files)]) as s:
            r = s.exec(f"curl -sS {url}; echo st=$?")
            assert r.stdout == b"st=60\n"
            assert r.stderr.startswith(b"curl: (60) SSL certificate problem: ")
            r = s.exec(f"curl -sS --cacert /work/ca.pem {url}")
            assert (r.exit_code, r.stdout) == (0, b"hello\n")
            r = s.exec(f"curl -sS --cacert /work/nope.pem {url}; echo st=$?")
            assert r.stdout == b"st=77\n"
        with Sandbox(allow_net=["127.0.0.1"], ca_bundle=str(ca_pem)) as s:
            r = s.exec(f"curl -sS {url}")
            assert (r.exit_code, r.stdout) == (0, b"hello\n")
            r = s.exec(f"wget -qO- {url}")
            assert (r.exit_code, r.stdout) == (0, b"hello\n")


def test_wget(srv: LoopServer, sb: Sandbox) -> None:
    r = sb.exec(f"wget -q -O - {srv.url('/hello')}")
    assert (r.exit_code, r.stdout) == (0, b"hello\n")
    r = sb.exec(f"cd /work && wget -q {srv.url('/files/data.bin')} && wget -q "
                f"{srv.url('/files/data.bin')} && ls")
    assert r.stdout.split() == [b"data.bin", b"data.bin.1"]
    r = sb.exec(f"wget -q -O /work/o.txt {srv.url('/redirect?to=/hello')}; cat /work/o.txt")
    assert r.stdout == b"hello\n"
    r = sb.exec(f"wget -q {srv.url('/status/404')}; echo st=$?")
    assert r.stdout == b"st=8\n"
    r = sb.exec(f"wget -O - {srv.url('/hello')}")
    assert r.stdout == b"hello\n" and b"saved [6]" in r.stderr


def test_names_wildcards_and_block_private_through_curl(
    srv: LoopServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = {"api.example.test": ["127.0.0.1"], "example.test": ["127.0.0.1"]}

    def dns(host: str, port: int) -> list[str]:
        if host not in table:
            raise ResolveFailed(host)
        return table[host]

    monkeypatch.setattr(netclient, "system_resolver", dns)
    with Sandbox(allow_net=["*.example.test"], block_private_addresses=False) as s:
        r = s.exec(f"curl -sS {srv.url('/hello', 'api.example.test')}")
        assert (r.exit_code, r.stdout) == (0, b"hello\n")
        r = s.exec(f"curl -sS {srv.url('/hello', 'example.test')}; echo st=$?")
        assert r.stdout == b"st=7\n"
        assert r.stderr == (b"curl: (7) network access to example.test is not permitted by "
                            b"the allow list\n")
    with Sandbox(allow_net=["*.example.test"]) as s:  # the private block is the default
        r = s.exec(f"curl -sS {srv.url('/hello', 'api.example.test')}; echo st=$?")
        assert r.stdout == b"st=7\n"
        assert b"api.example.test (127.0.0.1) is not permitted" in r.stderr
    assert srv.hits == ["/hello"]


def test_reader_going_away_stops_a_huge_download(srv: LoopServer, sb: Sandbox) -> None:
    start = time.monotonic()
    r = sb.exec(f"curl -s '{srv.url('/big?n=20000000000')}' | head -c 5")
    assert r.stdout == b"xxxxx"
    assert time.monotonic() - start < 5
