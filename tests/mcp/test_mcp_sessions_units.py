"""The MCP server's session table on its own: limits, expiry, the end of a session."""

from __future__ import annotations

import time
from typing import Any

import pytest

from vshell.mcp.sessions import SessionLimitError, Sessions, watchdog_limit
from vshell.mcp.tools import ServerConfig, ToolResult
from vshell.pool import PoolError


class FakeBackend:
    def __init__(self) -> None:
        self.last_used = time.monotonic()
        self.busy = 0
        self.closed = False
        self.stopped: list[str] = []

    async def call(self, name: str, args: dict[str, Any]) -> ToolResult:
        return ToolResult("ok")

    def stop_all(self, reason: str = "closed") -> None:
        self.stopped.append(reason)

    def close(self) -> None:
        self.closed = True


def table(**kw: Any) -> tuple[Sessions, list[FakeBackend]]:
    made: list[FakeBackend] = []

    def make() -> FakeBackend:
        made.append(FakeBackend())
        return made[-1]

    return Sessions(make, **kw), made


def test_one_backend_per_key_made_on_first_use() -> None:
    s, made = table()
    assert s.get("a") is s.get("a")
    assert s.get("b") is not s.get("a")
    assert len(made) == 2


def test_the_limit_counts_admitted_and_live_sessions() -> None:
    s, _ = table(max_sessions=2)
    s.admit("a")  # the transport opened it; no call yet
    s.get("b")
    assert s.full()
    with pytest.raises(SessionLimitError) as info:
        s.get("c")
    assert info.value.code == "E_TOO_MANY_SESSIONS"
    s.get("a")  # an admitted session still gets its backend
    s.end("b")
    assert not s.full()
    s.get("c")


def test_zero_means_no_limit() -> None:
    s, _ = table(max_sessions=0)
    for i in range(50):
        s.get(str(i))
    assert not s.full()


def test_idle_sessions_expire_and_say_so() -> None:
    s, made = table(ttl=10)
    s.get("idle")
    s.get("busy").busy = 1
    s.admit("unused")
    now = time.monotonic() + 11
    assert sorted(s.sweep(now)) == ["idle", "unused"]
    assert made[0].closed and not made[1].closed
    with pytest.raises(PoolError) as info:
        s.get("idle")
    assert info.value.code == "E_SESSION_EXPIRED"


def test_touch_keeps_a_session_alive() -> None:
    s, _ = table(ttl=10)
    s.admit("a")
    s.known["a"] -= 100
    s.touch("a")
    assert s.sweep() == []


def test_close_stops_and_closes_everything_once() -> None:
    s, made = table()
    s.get("a")
    s.get("b")
    s.close()
    s.close()
    assert all(b.closed and b.stopped == ["closed"] for b in made)
    with pytest.raises(PoolError):
        s.get("a")


def test_watchdog_limit_follows_the_bash_tools_timeout() -> None:
    cfg = ServerConfig(command_timeout=60)
    assert watchdog_limit(cfg, None, "bash", {"command": "x"}) == 60
    assert watchdog_limit(cfg, None, "bash", {"command": "x", "timeout": 5}) == 5
    assert watchdog_limit(cfg, 3, "bash", {"command": "x", "timeout": 5}) == 3
    assert watchdog_limit(ServerConfig(command_timeout=None), None, "bash", {}) is None
    assert watchdog_limit(cfg, None, "read", {}) == 60
    assert watchdog_limit(ServerConfig(command_timeout=5), None, "read", {}) == 60


def test_images_of_a_result_become_image_blocks() -> None:
    pytest.importorskip("mcp")
    from vshell.mcp.image import Picture
    from vshell.mcp.server import _content

    res = ToolResult("a chart")
    res.images = [Picture("aGk=", "image/jpeg"), Picture("aGk=", "image/png")]
    blocks = _content(res)
    assert [b.type for b in blocks] == ["text", "image", "image"]
    assert [b.mime_type for b in blocks[1:]] == ["image/jpeg", "image/png"]
