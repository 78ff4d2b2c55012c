"""Per-call limits of the bash tool: timeout, output_limit and allow_net may narrow the
session's and never widen them (a larger value gets the session's, named in `capped`)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

import pytest
from netserver import LoopServer, serve

from vshell.mcp import tools
from vshell.sandbox import Sandbox

CFG = tools.ServerConfig(command_timeout=30)
SCRIPT = "for i in $(seq 1 2000); do echo line$i; echo err$i >&2; done"


def bash(sb: Sandbox, **args: object) -> tools.ToolResult:
    return tools.call(sb, CFG, "bash", dict(args))


@pytest.fixture(scope="module")
def srv() -> Iterator[LoopServer]:
    with serve() as s:
        yield s


def test_output_limit_narrows_each_stream() -> None:
    real = subprocess.run(["bash", "-c", SCRIPT], capture_output=True, check=True)
    with Sandbox(output_limit=10_000) as sb:
        res = bash(sb, command=SCRIPT, output_limit=300)
        data = res.structured
        assert data is not None
        assert data["stdout"].encode() == real.stdout[:300]
        assert data["stderr"].encode() == real.stderr[:300]
        assert data["truncated"] is True and data["output_limited"] is True
        assert data["limits"]["output_limit"] == 300 and data["limits"]["capped"] == []
        assert "this call's output limit of 300" in res.text
        whole = bash(sb, command="echo small", output_limit=300).structured
        assert whole is not None and whole["stdout"] == "small\n" and not whole["truncated"]


def test_output_limit_cannot_widen() -> None:
    real = subprocess.run(["bash", "-c", SCRIPT], capture_output=True, check=True)
    with Sandbox(output_limit=1000) as sb:
        res = bash(sb, command=SCRIPT, output_limit=10**9)
        data = res.structured
        assert data is not None
        assert data["stdout"].encode() == real.stdout[:1000]  # the session's limit held
        assert data["limits"]["output_limit"] == 1000
        assert data["limits"]["capped"] == ["output_limit"]
        assert "not widen" in res.text
        assert sb.output_limit == 1000


def test_timeout_narrows_and_cannot_widen() -> None:
    with Sandbox(timeout=2) as sb:
        res = bash(sb, command="sleep 10", timeout=0.3)
        data = res.structured
        assert data is not None and data["timed_out"] is True and data["timeout_sec"] == 0.3
        assert data["duration_ms"] < 1800
        res = bash(sb, command="sleep 10", timeout=100)
        data = res.structured
        assert data is not None and data["timed_out"] is True
        assert data["timeout_sec"] == 2 and data["timeout_source"] == "sandbox"
        assert data["limits"]["capped"] == ["timeout"]


def curl_status(sb: Sandbox, url: str, **args: object) -> tuple[str, dict[str, object]]:
    res = bash(sb, command=f"curl -sS {url}; echo st=$?", **args)
    assert res.structured is not None
    return res.structured["stdout"], res.structured


def test_allow_net_narrows_to_the_intersection(srv: LoopServer) -> None:
    with Sandbox(allow_net=["127.0.0.1", "localhost"]) as sb:
        by_ip, by_name = srv.url("/hello"), srv.url("/hello", host="localhost")
        assert curl_status(sb, by_ip)[0] == "hello\nst=0\n"  # the session reaches both
        assert curl_status(sb, by_name)[0] == "hello\nst=0\n"
        out, data = curl_status(sb, by_ip, allow_net=["localhost"])
        assert "st=0" not in out and "not permitted" in str(data["stderr"]) + out, data
        assert data["limits"]["network"] == "narrowed"  # type: ignore[index]
        out, _ = curl_status(sb, by_name, allow_net=["localhost"])
        assert out == "hello\nst=0\n"
        out, data = curl_status(sb, by_ip, allow_net=[])
        assert "st=0" not in out and data["limits"]["network"] == "off"  # type: ignore[index]
        assert curl_status(sb, by_ip)[0] == "hello\nst=0\n"  # the next call has it back


def test_allow_net_cannot_widen(srv: LoopServer) -> None:
    with Sandbox(allow_net=["localhost"]) as sb:
        out, _ = curl_status(sb, srv.url("/hello"), allow_net=["127.0.0.0/8", "localhost"])
        assert "st=0" not in out  # 127.0.0.1 by address is not the session's to give
        out, _ = curl_status(sb, srv.url("/hello", host="localhost"), allow_net=["127.0.0.0/8"])
        assert "st=0" not in out  # the call's list does not name localhost
    with Sandbox() as sb:  # no network at all: a call cannot get one
        out, data = curl_status(sb, srv.url("/hello"), allow_net=["127.0.0.1"])
        assert "st=0" not in out
        assert data["limits"]["capped"] == ["allow_net"]  # type: ignore[index]
        assert data["limits"]["network"] == "off"  # type: ignore[index]


def test_bad_limits_are_argument_errors() -> None:
    with Sandbox(allow_net=["127.0.0.1"]) as sb:
        for args in ({"output_limit": -1}, {"output_limit": "10"}, {"allow_net": "x"},
                     {"allow_net": [1]}, {"allow_net": ["http://bad entry/"]},
                     {"timeout": -2}):
            res = bash(sb, command="echo hi", **args)
            assert res.is_error and res.text.startswith("E_INVALID_ARGUMENT: "), (args, res.text)


def test_sandbox_exec_allow_net_directly(srv: LoopServer) -> None:
    with Sandbox(allow_net=["127.0.0.1"]) as sb:
        assert sb.exec(f"curl -s {srv.url('/hello')}", allow_net=["127.0.0.1"]).stdout == \
            b"hello\n"
        assert sb.exec(f"curl -s {srv.url('/hello')}", allow_net=["10.0.0.1"]).exit_code != 0
        bad = sb.exec("true", allow_net=["not a host!"])
        assert bad.exit_code == 2 and bad.stderr.startswith(b"vshell: allow_net: ")


def test_per_call_limits_over_stdio() -> None:
    pytest.importorskip("mcp.client.stdio")
    from mcp_harness import SyncClient, check_schema

    c = SyncClient().open_stdio(["--output-limit", "5000", "--timeout", "20"])
    try:
        res = c.call("bash", {"command": "seq 1 1000", "output_limit": 20})
        check_schema(c, "bash", res)
        real = subprocess.run(["seq", "1", "1000"], capture_output=True, check=True).stdout
        assert res.structured_content["stdout"].encode() == real[:20]
        assert res.structured_content["limits"]["output_limit"] == 20
        res = c.call("bash", {"command": "seq 1 1000", "output_limit": 10**8})
        assert res.structured_content["limits"]["capped"] == ["output_limit"]
        assert res.structured_content["stdout"].encode() == real[:5000]
    finally:
        c.close()
