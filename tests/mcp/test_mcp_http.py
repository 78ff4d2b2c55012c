"""`vshell mcp --http`: streamable HTTP on loopback with a bearer token, driven by the SDK
client; the session persists, cancellation works, and SIGTERM with a command running ends
the server promptly."""

from __future__ import annotations

import time

import pytest

pytest.importorskip("mcp.client.streamable_http")

from mcp_harness import SyncClient, check_schema, start_http_server, stop, text  # noqa: E402

TOKEN = "s3cret-token"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("mcphttp")
    (root / "ro").mkdir()
    (root / "ro" / "f.txt").write_text("fixed\n")
    proc, url = start_http_server(["--mount", f"{root}:/w", "--mount", f"{root / 'ro'}:/w/ro:ro",
                                   "--deny-path", "**/.env", "--token", TOKEN])
    yield proc, url, root
    if proc.poll() is None:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="module")
def client(server):
    _, url, _ = server
    c = SyncClient().open_http(url, TOKEN)
    yield c
    c.close()


def test_listens_on_loopback(server) -> None:
    _, url, _ = server
    assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp")


def test_requests_without_the_token_are_refused(server) -> None:
    import httpx

    _, url, _ = server
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"}}}
    headers = {"Accept": "application/json, text/event-stream"}
    assert httpx.post(url, json=body, headers=headers).status_code == 401
    bad = {**headers, "Authorization": "Bearer wrong"}
    assert httpx.post(url, json=body, headers=bad).status_code == 401


def test_bash_and_session_persistence(client: SyncClient) -> None:
    res = client.call("bash", {"command": "cd /w && mkdir -p d && cd d && V=7"})
    assert not res.is_error, text(res)
    res = client.call("bash", {"command": "pwd; echo $V"})
    check_schema(client, "bash", res)
    assert text(res) == "/w/d\n7\n"


def test_file_tools_and_policy(client: SyncClient, server) -> None:
    _, _, root = server
    res = client.call("write", {"path": "h.txt", "content": "over http\n"})  # relative: /w/d
    assert not res.is_error, text(res)
    assert (root / "d" / "h.txt").read_text() == "over http\n"
    res = client.call("read", {"path": "/w/d/h.txt"})
    check_schema(client, "read", res)
    assert text(res) == "over http\n"
    res = client.call("edit", {"path": "h.txt", "edits": [{"oldText": "http",
                                                           "newText": "HTTP"}]})
    assert not res.is_error and (root / "d" / "h.txt").read_text() == "over HTTP\n"
    assert text(client.call("write", {"path": "/w/ro/f.txt", "content": "x"})).startswith(
        "E_READ_ONLY: ")
    assert text(client.call("write", {"path": "/w/.env", "content": "x"})).startswith(
        "E_DENIED: ")
    res = client.call("glob", {"pattern": "/w/**/*.txt"})
    check_schema(client, "glob", res)
    assert "/w/d/h.txt" in res.structured_content["matches"]
    res = client.call("list", {"path": "/w/ro"})
    check_schema(client, "list", res)
    assert [e["name"] for e in res.structured_content["entries"]] == ["f.txt"]


def test_cancellation(client: SyncClient) -> None:
    from mcp.shared.exceptions import MCPError

    began = time.monotonic()
    with pytest.raises((MCPError, TimeoutError)):
        client.call("bash", {"command": "sleep 30"}, timeout=0.5)
    res = client.call("bash", {"command": "echo next"})
    assert text(res) == "next\n"
    assert time.monotonic() - began < 5


def test_sigterm_with_a_command_running(server, client: SyncClient) -> None:
    proc, _, _ = server
    pending = client.run_later(client.session.call_tool("bash", {"command": "sleep 30"}))
    time.sleep(0.5)
    assert proc.poll() is None
    assert stop(proc, timeout=5) < 5
    pending.cancel()
