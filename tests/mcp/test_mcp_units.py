"""The SDK-free layer of `vshell mcp`: result budgets, the file operations over the VFS and
the bash tool's shaping, tested directly on a Sandbox (fast, no server process)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from vshell.mcp import budget, fileops, tools
from vshell.mcp.fileops import ToolError
from vshell.sandbox import HostMount, Sandbox


@pytest.fixture
def sb(tmp_path: Path):
    (tmp_path / "w").mkdir()
    with Sandbox(mounts=[HostMount(str(tmp_path / "w"), "/w")], timeout=None) as s:
        yield s


def test_fit_respects_the_encoded_size() -> None:
    s = "\x00" * 100_000  # 6 bytes each as JSON
    out, dropped = budget.fit(s, 60_000)
    assert budget.encoded_len(out) <= 60_000 and dropped > 80_000
    assert "truncated" in out
    assert budget.fit("small", 100) == ("small", 0)


def test_share_keeps_small_payloads_whole() -> None:
    assert budget.share({"stdout": 1000, "stderr": 10}, 500) == {"stdout": 490, "stderr": 10}
    assert budget.share({"a": 400, "b": 400}, 500) == {"a": 250, "b": 250}


def test_cut_text_keeps_head_and_tail() -> None:
    s = "H" * 40_000 + "M" * 40_000 + "T" * 40_000
    out = budget.cut_text(s)
    assert out.startswith("H" * 1000) and out.endswith("T" * 1000) and "omitted" in out
    assert len(out) < 60_000


def test_small_budget_bounds_the_whole_result(sb: Sandbox) -> None:
    cfg = tools.ServerConfig(command_timeout=None, max_result_bytes=64 * 1024)
    script = "yes abc | head -c 500000; yes e | head -c 9 >&2"
    res = tools.call(sb, cfg, "bash", {"command": script})
    size = len(json.dumps({"text": res.text, "sc": res.structured}, ensure_ascii=False).encode())
    assert size <= 64 * 1024
    assert res.structured["stderr"] == "e\ne\ne\ne\ne"  # small payloads are kept whole
    assert res.structured["result_truncated"] is True


def test_server_default_timeout(sb: Sandbox) -> None:
    cfg = tools.ServerConfig(command_timeout=0.3)
    res = tools.call(sb, cfg, "bash", {"command": "sleep 5"})
    assert res.is_error and res.text.startswith("E_TIMEOUT: stopped after 0.3s (the server")
    assert res.structured["timeout_source"] == "server_default"
    # an explicit timeout wins over the default: it is a fallback, not a ceiling
    res = tools.call(sb, cfg, "bash", {"command": "sleep 0.5; echo done", "timeout": 5})
    assert not res.is_error and res.text == "done\n"


def test_read_a_very_long_line(sb: Sandbox, tmp_path: Path) -> None:
    (tmp_path / "w" / "long.txt").write_bytes(b"x" * 3_000_000 + b"\nshort\n")
    text, meta = fileops.read_file(sb.fs, "/w", "long.txt")
    assert "line 1 cut: 3000000 bytes" in text and meta["next_offset"] == 2
    text, meta = fileops.read_file(sb.fs, "/w", "long.txt", 2)
    assert text == "short\n" and meta["total_lines"] == 2


def test_read_without_trailing_newline(sb: Sandbox, tmp_path: Path) -> None:
    (tmp_path / "w" / "n.txt").write_text("a\nb")
    text, meta = fileops.read_file(sb.fs, "/w", "/w/n.txt")
    assert text == "a\nb\n" and meta["total_lines"] == 2
    (tmp_path / "w" / "e.txt").write_text("")
    assert fileops.read_file(sb.fs, "/w", "e.txt")[1]["empty_reason"] == "empty_file"


def test_write_through_a_symlink_keeps_the_link_and_mode(sb: Sandbox, tmp_path: Path) -> None:
    w = tmp_path / "w"
    (w / "real.sh").write_text("old\n")
    os.chmod(w / "real.sh", 0o755)
    os.symlink("real.sh", w / "link.sh")
    fileops.write_file(sb.fs, "/w", "link.sh", "new\n")
    assert os.path.islink(w / "link.sh") and (w / "real.sh").read_text() == "new\n"
    assert stat.S_IMODE(os.stat(w / "real.sh").st_mode) == 0o755
    fileops.edit_file(sb.fs, "/w", "real.sh", [{"oldText": "new", "newText": "newer"}])
    assert stat.S_IMODE(os.stat(w / "real.sh").st_mode) == 0o755


def test_write_under_a_file_is_refused(sb: Sandbox, tmp_path: Path) -> None:
    (tmp_path / "w" / "f").write_text("x")
    with pytest.raises(ToolError) as e:
        fileops.write_file(sb.fs, "/w", "f/child.txt", "y")
    assert e.value.code == "E_INVALID_ARGUMENT"


def test_edit_too_large(sb: Sandbox, tmp_path: Path) -> None:
    (tmp_path / "w" / "big.txt").write_bytes(b"a" * (fileops.EDIT_MAX_BYTES + 1))
    with pytest.raises(ToolError) as e:
        fileops.edit_file(sb.fs, "/w", "big.txt", [{"oldText": "a", "newText": "b"}])
    assert e.value.code == "E_TOO_LARGE"


def test_argument_validation() -> None:
    with pytest.raises(ToolError) as e:
        tools.check_arguments(tools.TOOLS["edit"], {"path": "x", "edits": [{"oldText": "a"}]})
    assert e.value.code == "E_INVALID_ARGUMENT" and "newText" in e.value.message
