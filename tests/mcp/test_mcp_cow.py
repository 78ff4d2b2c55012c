"""The review tools (changes, diff, sync) of `vshell mcp` over a copy-on-write mount, driven
over stdio by the SDK client: work stays off the host until `sync`, and a host file edited
behind the overlay's back is a conflict that applies nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("mcp.client.stdio")

from mcp_harness import SyncClient, check_schema, text  # noqa: E402

from vshell.mcp import review, tools  # noqa: E402
from vshell.sandbox import HostMount, Sandbox  # noqa: E402


@pytest.fixture
def host(tmp_path: Path) -> Path:
    root = tmp_path / "host"
    root.mkdir()
    (root / "a.txt").write_text("one\n")
    return root


@pytest.fixture
def client(host: Path) -> Iterator[SyncClient]:
    c = SyncClient().open_stdio(["--mount", f"{host}:/w:cow", "--cwd", "/w",
                                 "--command-timeout", "20"])
    try:
        yield c
    finally:
        c.close()


def call_ok(client: SyncClient, name: str, args: dict) -> object:
    res = client.call(name, args)
    assert not res.is_error, text(res)
    check_schema(client, name, res)
    return res


def test_annotations(client: SyncClient) -> None:
    for name in ("changes", "diff"):
        ann = client.tools[name].annotations
        assert (ann.read_only_hint, ann.destructive_hint) == (True, False)
    ann = client.tools["sync"].annotations
    assert (ann.read_only_hint, ann.destructive_hint) == (False, True)
    assert client.tools["sync"].input_schema["properties"]["paths"]["type"] == "array"


def test_changes_diff_then_sync_applies(client: SyncClient, host: Path) -> None:
    res = call_ok(client, "changes", {})
    assert res.structured_content == {"changes": []}
    call_ok(client, "bash", {"command": "echo hi > new.txt && echo two >> a.txt"})
    assert not (host / "new.txt").exists()
    assert (host / "a.txt").read_text() == "one\n"

    res = call_ok(client, "changes", {})
    assert res.structured_content == {"changes": [{"path": "/w/a.txt", "kind": "modify"},
                                                  {"path": "/w/new.txt", "kind": "add"}]}
    assert text(res) == "M /w/a.txt\nA /w/new.txt\n"

    res = call_ok(client, "diff", {})
    sc = res.structured_content
    assert sc["truncated"] is False
    assert "--- a/w/a.txt\n+++ b/w/a.txt\n" in sc["diff"] and "+two\n" in sc["diff"]
    assert "+++ b/w/new.txt\n" in sc["diff"] and "+hi\n" in sc["diff"]
    assert text(res) == sc["diff"]

    res = call_ok(client, "sync", {})
    sc = res.structured_content
    assert sc["ok"] is True and sc["conflicts"] == [] and sc["failed"] is None
    assert sc["applied"] == [{"path": "/w/a.txt", "kind": "modify"},
                             {"path": "/w/new.txt", "kind": "add"}]
    assert "A /w/new.txt" in text(res)
    assert (host / "new.txt").read_text() == "hi\n"
    assert (host / "a.txt").read_text() == "one\ntwo\n"
    assert call_ok(client, "changes", {}).structured_content == {"changes": []}
    res = call_ok(client, "sync", {})
    assert res.structured_content["applied"] == [] and text(res) == "nothing to apply\n"


def test_sync_selected_paths(client: SyncClient, host: Path) -> None:
    call_ok(client, "bash", {"command": "mkdir d && echo x > d/x && echo y > y.txt"})
    res = call_ok(client, "sync", {"paths": ["d"]})
    assert [a["path"] for a in res.structured_content["applied"]] == ["/w/d", "/w/d/x"]
    assert (host / "d" / "x").read_text() == "x\n" and not (host / "y.txt").exists()
    res = call_ok(client, "changes", {})
    assert res.structured_content == {"changes": [{"path": "/w/y.txt", "kind": "add"}]}


def test_sync_conflict_applies_nothing(client: SyncClient, host: Path) -> None:
    call_ok(client, "bash", {"command": "echo mine >> a.txt && echo hi > new.txt"})
    (host / "a.txt").write_text("changed on the host meanwhile\n")
    res = client.call("sync", {})
    assert res.is_error
    assert text(res).startswith("E_CONFLICT: "), text(res)
    assert "/w/a.txt" in text(res)
    sc = res.structured_content
    assert sc["ok"] is False and sc["applied"] == [] and sc["conflicts"] == ["/w/a.txt"]
    assert (host / "a.txt").read_text() == "changed on the host meanwhile\n"
    assert not (host / "new.txt").exists()
    assert len(call_ok(client, "changes", {}).structured_content["changes"]) == 2


def test_bad_paths_argument(client: SyncClient) -> None:
    res = client.call("sync", {"paths": "a.txt"})
    assert res.is_error and text(res).startswith("E_INVALID_ARGUMENT: "), text(res)


def test_without_a_cow_mount(tmp_path: Path) -> None:
    cfg = tools.ServerConfig()
    with Sandbox(mounts=[HostMount(str(tmp_path), "/w")], timeout=None) as sb:
        res = tools.call(sb, cfg, "changes", {})
        assert (res.structured, res.is_error) == ({"changes": []}, False)
        res = tools.call(sb, cfg, "diff", {})
        assert (res.structured, res.is_error) == ({"diff": "", "truncated": False}, False)
        res = tools.call(sb, cfg, "sync", {})
        assert res.structured == {"ok": True, "applied": [], "conflicts": [], "failed": None,
                                  "error": None}
        assert not res.is_error


def test_diff_is_bounded_by_the_result_budget(tmp_path: Path) -> None:
    cfg = tools.ServerConfig(max_result_bytes=64 * 1024)
    with Sandbox(mounts=[HostMount(str(tmp_path), "/w", cow=True)], timeout=None) as sb:
        sb.exec("for i in $(seq 20000); do echo line $i; done > /w/big.txt")
        res = tools.call(sb, cfg, "diff", {})
        assert not res.is_error and res.structured is not None
        assert res.structured["truncated"] is True and res.structured["dropped_bytes"] > 0
        assert "+line 1\n" in res.structured["diff"] and "+line 20000\n" in res.structured["diff"]
        size = len(res.text.encode()) + len(res.structured["diff"].encode())
        assert size <= cfg.max_result_bytes
        assert review.show_diff(sb, 0)[1]["truncated"] is False
