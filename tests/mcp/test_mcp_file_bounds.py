"""The MCP file tools are bounded like the bash tool: timeout, cancel, scan length, budget."""

from __future__ import annotations

import io
import json
import os
import stat
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from vshell.command import CancelToken
from vshell.mcp import fileops, tools
from vshell.sandbox import HostMount, Sandbox


@pytest.fixture
def sb(tmp_path: Path):
    (tmp_path / "w").mkdir()
    with Sandbox(mounts=[HostMount(str(tmp_path / "w"), "/w")], cwd="/w", timeout=None) as s:
        yield s


def test_read_of_a_huge_file_whose_first_line_never_ends(sb: Sandbox, tmp_path: Path) -> None:
    big = tmp_path / "w" / "huge.txt"
    with big.open("wb") as f:
        f.write(b"x" * 8192)
        f.truncate(64 << 30)  # 64 GiB, sparse: one line with no newline in it
    cfg = tools.ServerConfig(command_timeout=None)
    t0 = time.monotonic()
    res = tools.call(sb, cfg, "read", {"path": "huge.txt"})
    took = time.monotonic() - t0
    assert took < 5, took
    assert not res.is_error
    assert "line 1 cut: more than" in res.text and "use bash" in res.text
    assert res.structured["scan_stopped"] is True and res.structured["truncated"] is True
    assert "next_offset" not in res.structured
    res = tools.call(sb, cfg, "read", {"path": "huge.txt", "offset": 2})
    assert "cannot be reached by this tool" in res.text
    assert time.monotonic() - t0 < 10


def test_a_long_line_that_ends_is_still_measured(sb: Sandbox, tmp_path: Path) -> None:
    (tmp_path / "w" / "l.txt").write_bytes(b"y" * (fileops.LINE_SCAN_CAP * 3) + b"\nend\n")
    text, meta = fileops.read_file(sb.fs, "/w", "l.txt")
    assert f"{fileops.LINE_SCAN_CAP * 3} bytes long" in text and meta["next_offset"] == 2
    assert fileops.read_file(sb.fs, "/w", "l.txt", 2)[0] == "end\n"


class _EndlessFile(io.RawIOBase):
    """A regular file that reports size 0 and never ends (think /proc or a FUSE mount)."""

    def readable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        time.sleep(0.001)
        return b"line\n" * 4096

    def seek(self, *a: Any) -> int:
        return 0


class _EndlessFS:
    def __init__(self, real: Any) -> None:
        self.real = real

    def stat(self, path: str) -> os.stat_result:
        if path.endswith("endless"):
            return os.stat_result((stat.S_IFREG | 0o644, 0, 0, 1, 0, 0, 0, 0, 0, 0))
        return self.real.stat(path)

    def open(self, path: str, mode: str = "r") -> Any:
        if path.endswith("endless"):
            return _EndlessFile()
        return self.real.open(path, mode)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


class _Session:
    def __init__(self, sb: Sandbox, timeout: float | None = None) -> None:
        self.fs = _EndlessFS(sb.fs)
        self.cwd = "/w"
        self.timeout = timeout


def test_file_tools_stop_at_the_server_timeout(sb: Sandbox) -> None:
    cfg = tools.ServerConfig(command_timeout=0.3)
    t0 = time.monotonic()
    res = tools.call(_Session(sb), cfg, "read", {"path": "endless", "offset": 10**12})
    took = time.monotonic() - t0
    assert res.is_error and res.text.startswith("E_TIMEOUT: stopped after 0.3s"), res.text
    assert took < 1.5, took
    # the sandbox's own timeout applies when it is tighter
    res = tools.call(_Session(sb, timeout=0.2), tools.ServerConfig(command_timeout=None),
                     "read", {"path": "endless", "offset": 10**12})
    assert res.text.startswith("E_TIMEOUT: stopped after 0.2s"), res.text


def test_file_tools_stop_when_the_client_cancels(sb: Sandbox) -> None:
    token = CancelToken()
    threading.Timer(0.2, token.cancel).start()
    t0 = time.monotonic()
    res = tools.call(_Session(sb), tools.ServerConfig(command_timeout=None), "read",
                     {"path": "endless", "offset": 10**12}, token)
    assert res.is_error and res.text.startswith("E_CANCELED"), res.text
    assert time.monotonic() - t0 < 1.5


def test_edit_and_list_answer_to_the_token(sb: Sandbox, tmp_path: Path) -> None:
    (tmp_path / "w" / "e.txt").write_text("a\n")
    done = CancelToken()
    done.cancel()
    res = tools.call(sb, tools.ServerConfig(), "edit",
                     {"path": "e.txt", "edits": [{"oldText": "a", "newText": "b"}]}, done)
    assert res.text.startswith("E_CANCELED") and (tmp_path / "w" / "e.txt").read_text() == "a\n"
    assert tools.call(sb, tools.ServerConfig(), "list", {}, done).text.startswith("E_CANCELED")


def test_file_results_fit_the_result_budget(sb: Sandbox, tmp_path: Path) -> None:
    (tmp_path / "w" / "esc.txt").write_text("\x01" * 40_000 + "\n")  # 6 bytes each in JSON
    for n in range(1000):
        (tmp_path / "w" / f"f{n:04d}-{'n' * 60}").write_text("")
    cfg = tools.ServerConfig(max_result_bytes=32 * 1024)
    for name, args in (("read", {"path": "esc.txt"}), ("list", {})):
        res = tools.call(sb, cfg, name, args)
        size = len(json.dumps({"t": res.text, "s": res.structured}, ensure_ascii=False).encode())
        assert size <= 32 * 1024 * 2, (name, size)
        assert len(json.dumps(res.text, ensure_ascii=False).encode()) <= 32 * 1024
