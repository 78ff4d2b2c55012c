"""`vshell mcp` over stdio, driven by the official SDK client: every tool's success and
error paths, schema conformance, the session's persistence, cancellation, timeouts, the
result budget, and the sandbox policy (deny, read-only) holding for the file tools."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

pytest.importorskip("mcp.client.stdio")

from mcp_harness import SyncClient, check_schema, text  # noqa: E402

BUDGET = 8 * 1024 * 1024


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("mcp")
    w = root / "w"
    (w / "src" / "pkg").mkdir(parents=True)
    (w / "src" / "a.txt").write_text("alpha\n")
    (w / "src" / "pkg" / "b.txt").write_text("beta\n")
    (w / "lines.txt").write_text("".join(f"line {i}\n" for i in range(1, 101)))
    (w / "blob.bin").write_bytes(b"\x00\x01\x02binary\xff" * 100)
    (w / ".env").write_text("SECRET=1\n")
    (w / "secret").mkdir()
    (w / "secret" / "key").write_text("k\n")
    ro = root / "ro"
    ro.mkdir()
    (ro / "keep.txt").write_text("read only\n")
    return root


@pytest.fixture(scope="module")
def client(tree: Path):
    c = SyncClient().open_stdio([
        "--mount", f"{tree / 'w'}:/w", "--mount", f"{tree / 'ro'}:/ro:ro",
        "--deny-path", "**/.env", "--deny-path", "/w/secret",
        "--output-limit", "32M", "--command-timeout", "20",
    ])
    yield c
    c.close()


def ok(client: SyncClient, name: str, args: dict) -> object:
    res = client.call(name, args)
    assert not res.is_error, text(res)
    check_schema(client, name, res)
    return res


def err(client: SyncClient, name: str, args: dict, code: str) -> str:
    res = client.call(name, args)
    assert res.is_error, text(res)
    assert text(res).startswith(code + ": "), text(res)
    return text(res)


def test_tools_are_listed_with_schemas_and_annotations(client: SyncClient) -> None:
    assert set(client.tools) == {"bash", "read", "write", "edit", "list", "glob", "changes",
                                 "diff", "sync", "view_image", "job_start", "job_output",
                                 "job_send", "job_signal", "job_kill", "jobs"}
    for t in client.tools.values():
        assert t.input_schema["type"] == "object"
        assert t.output_schema["type"] == "object"
        assert t.annotations is not None
    for name in ("read", "list", "glob", "changes", "diff"):
        assert client.tools[name].annotations.read_only_hint is True
        assert client.tools[name].annotations.destructive_hint is False
    for name in ("bash", "write", "edit", "sync"):
        assert client.tools[name].annotations.read_only_hint is False
        assert client.tools[name].annotations.destructive_hint is True


def test_bash_success(client: SyncClient) -> None:
    res = ok(client, "bash", {"command": "echo hello"})
    assert text(res) == "hello\n"
    sc = res.structured_content
    assert (sc["exit_code"], sc["stdout"], sc["stderr"], sc["outcome"]) == (0, "hello\n", "",
                                                                          "completed")
    assert sc["truncated"] is False and isinstance(sc["duration_ms"], int)


def test_bash_failure_shows_stderr_and_status(client: SyncClient) -> None:
    res = client.call("bash", {"command": "echo out; echo oops >&2; exit 3"})
    assert res.is_error
    check_schema(client, "bash", res)
    assert text(res) == "out\n[stderr]\noops\n[exit code: 3]\n"
    assert res.structured_content["exit_code"] == 3
    assert res.structured_content["stderr"] == "oops\n"


def test_bash_bad_arguments(client: SyncClient) -> None:
    err(client, "bash", {}, "E_INVALID_ARGUMENT")
    err(client, "bash", {"command": "true", "timeout": -1}, "E_INVALID_ARGUMENT")


def test_session_persists_across_calls(client: SyncClient) -> None:
    ok(client, "bash", {"command": "mkdir -p /w/made && cd /w/made && X=42 && f() { echo f$1; }"})
    res = ok(client, "bash", {"command": "pwd; echo $X; f 1"})
    assert text(res) == "/w/made\n42\nf1\n"
    assert res.structured_content["cwd"] == "/w/made"
    # file tools resolve relative paths against the same cwd
    ok(client, "write", {"path": "rel.txt", "content": "here\n"})
    assert text(ok(client, "read", {"path": "/w/made/rel.txt"})) == "here\n"
    ok(client, "bash", {"command": "cd /w"})


def test_timeout_from_the_call(client: SyncClient) -> None:
    began = time.monotonic()
    res = client.call("bash", {"command": "echo started; sleep 10", "timeout": 0.5})
    assert time.monotonic() - began < 5
    assert res.is_error
    check_schema(client, "bash", res)
    assert text(res).startswith("E_TIMEOUT: ")
    assert "started" in text(res)
    sc = res.structured_content
    assert sc["outcome"] == "timed_out" and sc["timed_out"] is True
    assert sc["timeout_source"] == "request"


def test_cancellation_stops_the_command_at_once(client: SyncClient) -> None:
    from mcp.shared.exceptions import MCPError

    began = time.monotonic()
    with pytest.raises((MCPError, TimeoutError)):
        client.call("bash", {"command": "sleep 30; echo never > /w/cancelled.txt"}, timeout=0.5)
    res = ok(client, "bash", {"command": "echo next"})  # waits for the session's lock
    assert text(res) == "next\n"
    assert time.monotonic() - began < 5
    time.sleep(0.2)
    assert "E_NOT_FOUND" in text(client.call("read", {"path": "/w/cancelled.txt"}))


def test_result_budget_on_a_20mb_output(client: SyncClient) -> None:
    res = client.call("bash", {"command": "yes 0123456789abcdef | head -c 20000000"})
    assert not res.is_error
    check_schema(client, "bash", res)
    wire = len(res.model_dump_json(by_alias=True, exclude_none=True).encode())
    assert wire <= BUDGET
    sc = res.structured_content
    assert sc["result_truncated"] is True and sc["truncated"] is True
    assert sc["result_budget_bytes"] == BUDGET
    assert sc["stdout_dropped_bytes"] > 10_000_000
    assert sc["stdout"].startswith("0123456789abcdef\n")
    assert len(sc["stdout"]) > 4_000_000  # the structured stream keeps most of the budget
    t = text(res)
    assert len(t.encode()) < 60 * 1024 and "truncated" in t
    assert t.startswith("0123456789abcdef\n") and t.endswith("\n0123456789")  # head and tail


def test_result_budget_counts_json_escapes(client: SyncClient) -> None:
    res = client.call("bash", {"command": "head -c 3000000 /dev/zero"})
    wire = len(res.model_dump_json(by_alias=True, exclude_none=True).encode())
    assert wire <= BUDGET  # 3 MB of NULs is 18 MB as JSON escapes
    assert res.structured_content["result_truncated"] is True


def test_read_pages_through_a_file(client: SyncClient) -> None:
    res = ok(client, "read", {"path": "/w/lines.txt", "offset": 10, "limit": 5})
    assert text(res).startswith("line 10\nline 11\nline 12\nline 13\nline 14\n")
    assert "offset=15" in text(res)
    sc = res.structured_content
    assert sc["next_offset"] == 15 and sc["line_count"] == 5 and sc["total_lines"] == 100
    last = ok(client, "read", {"path": "/w/lines.txt", "offset": 100})
    assert text(last) == "line 100\n" and "next_offset" not in last.structured_content
    past = ok(client, "read", {"path": "/w/lines.txt", "offset": 500})
    assert past.structured_content["empty_reason"] == "offset_beyond_eof"


def test_read_errors(client: SyncClient) -> None:
    err(client, "read", {"path": "/w/missing.txt"}, "E_NOT_FOUND")
    err(client, "read", {"path": "/w/src"}, "E_IS_DIRECTORY")
    err(client, "read", {"path": "/w/blob.bin"}, "E_BINARY")
    err(client, "read", {"path": "/w/.env"}, "E_DENIED")
    err(client, "read", {"path": "/w/secret/key"}, "E_DENIED")
    err(client, "read", {"path": "/w/lines.txt", "offset": 0}, "E_INVALID_ARGUMENT")
    err(client, "read", {}, "E_INVALID_ARGUMENT")


def test_write_creates_parents_and_overwrites(client: SyncClient, tree: Path) -> None:
    res = ok(client, "write", {"path": "/w/new/deep/f.txt", "content": "one\n"})
    assert res.structured_content["created"] is True
    assert (tree / "w/new/deep/f.txt").read_text() == "one\n"
    res = ok(client, "write", {"path": "/w/new/deep/f.txt", "content": "two\n"})
    assert res.structured_content["created"] is False
    assert "overwrote" in text(res)
    assert (tree / "w/new/deep/f.txt").read_text() == "two\n"
    assert sorted(p.name for p in (tree / "w/new/deep").iterdir()) == ["f.txt"]  # no temp left


def test_write_respects_the_policy(client: SyncClient, tree: Path) -> None:
    err(client, "write", {"path": "/ro/keep.txt", "content": "x"}, "E_READ_ONLY")
    err(client, "write", {"path": "/ro/sub/new.txt", "content": "x"}, "E_READ_ONLY")
    assert not (tree / "ro/sub").exists()
    assert (tree / "ro/keep.txt").read_text() == "read only\n"
    err(client, "write", {"path": "/w/.env", "content": "x"}, "E_DENIED")
    err(client, "write", {"path": "/w/sub/.env", "content": "x"}, "E_DENIED")
    assert not (tree / "w/sub").exists()  # directories made for a failed write are removed
    err(client, "write", {"path": "/w/secret/key", "content": "x"}, "E_DENIED")
    assert (tree / "w/.env").read_text() == "SECRET=1\n"
    assert (tree / "w/secret/key").read_text() == "k\n"
    err(client, "write", {"path": "/w/src", "content": "x"}, "E_IS_DIRECTORY")
    err(client, "write", {"path": "/w/dir/", "content": "x"}, "E_INVALID_ARGUMENT")


def test_edit_applies_all_or_nothing(client: SyncClient, tree: Path) -> None:
    (tree / "w/cfg.ini").write_text("debug = false\nlevel = 1\nname = x\n")
    res = ok(client, "edit", {"path": "/w/cfg.ini", "edits": [
        {"oldText": "debug = false", "newText": "debug = true"},
        {"oldText": "level = 1", "newText": "level = 2"}]})
    assert res.structured_content["changed"] is True
    assert (tree / "w/cfg.ini").read_text() == "debug = true\nlevel = 2\nname = x\n"
    before = (tree / "w/cfg.ini").read_text()
    err(client, "edit", {"path": "/w/cfg.ini", "edits": [
        {"oldText": "name = x", "newText": "name = y"},
        {"oldText": "absent", "newText": "z"}]}, "E_NO_MATCH")
    err(client, "edit", {"path": "/w/cfg.ini", "edits": [
        {"oldText": " = ", "newText": "="}]}, "E_AMBIGUOUS")
    err(client, "edit", {"path": "/w/cfg.ini", "edits": [
        {"oldText": "debug = true\nlevel", "newText": "a"},
        {"oldText": "level = 2", "newText": "b"}]}, "E_INVALID_ARGUMENT")
    err(client, "edit", {"path": "/w/cfg.ini", "edits": []}, "E_INVALID_ARGUMENT")
    assert (tree / "w/cfg.ini").read_text() == before
    same = ok(client, "edit", {"path": "/w/cfg.ini", "edits": [
        {"oldText": "name = x", "newText": "name = x"}]})
    assert same.structured_content["changed"] is False


def test_edit_errors_and_policy(client: SyncClient) -> None:
    err(client, "edit", {"path": "/w/nope.txt", "edits": [{"oldText": "a", "newText": "b"}]},
        "E_NOT_FOUND")
    err(client, "edit", {"path": "/ro/keep.txt", "edits": [
        {"oldText": "read", "newText": "write"}]}, "E_READ_ONLY")
    err(client, "edit", {"path": "/w/.env", "edits": [{"oldText": "1", "newText": "2"}]},
        "E_DENIED")
    err(client, "edit", {"path": "/w/blob.bin", "edits": [{"oldText": "b", "newText": "c"}]},
        "E_BINARY")
    err(client, "edit", {"path": "/w/src", "edits": [{"oldText": "b", "newText": "c"}]},
        "E_IS_DIRECTORY")


def test_list(client: SyncClient) -> None:
    res = ok(client, "list", {"path": "/w/src"})
    entries = {e["name"]: e for e in res.structured_content["entries"]}
    assert entries["a.txt"]["type"] == "file" and entries["a.txt"]["size"] == 6
    assert entries["pkg"]["type"] == "directory"
    assert "pkg/" in text(res)
    top = ok(client, "list", {"path": "/w"})
    names = {e["name"] for e in top.structured_content["entries"]}
    assert ".env" not in names and "secret" not in names  # denied entries are hidden
    err(client, "list", {"path": "/w/missing"}, "E_NOT_FOUND")
    err(client, "list", {"path": "/w/lines.txt"}, "E_INVALID_ARGUMENT")


def test_glob(client: SyncClient) -> None:
    ok(client, "bash", {"command": "cd /w"})
    res = ok(client, "glob", {"pattern": "src/**/*.txt"})
    assert res.structured_content["matches"] == ["src/a.txt", "src/pkg/b.txt"]
    res = ok(client, "glob", {"pattern": "*.txt", "path": "/w/src/pkg"})
    assert res.structured_content["matches"] == ["b.txt"]
    none = ok(client, "glob", {"pattern": "**/*.nothing"})
    assert none.structured_content["matches"] == [] and "no paths match" in text(none)
    hidden = ok(client, "glob", {"pattern": "**/key"})
    assert hidden.structured_content["matches"] == []  # under a denied directory
    err(client, "glob", {"pattern": "*", "path": "/w/missing"}, "E_NOT_FOUND")
    err(client, "glob", {"pattern": ""}, "E_INVALID_ARGUMENT")


def test_unknown_tool_is_a_protocol_error(client: SyncClient) -> None:
    from mcp.shared.exceptions import MCPError

    with pytest.raises(MCPError) as e:
        client.call("no_such_tool", {})
    assert e.value.code == -32602
