"""Drive a `vshell mcp` server with the official SDK client from synchronous tests.

Starting a server costs a second or two (the SDK is a large import), so one server is shared
by many tests: a background thread owns an event loop and the client session, and each test
submits calls to it and waits for the result.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import threading
import time
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

REPO = str(Path(__file__).resolve().parents[2])


def server_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = REPO + os.pathsep + env.get("PYTHONPATH", "")
    return env


class SyncClient:
    """An SDK ClientSession living on its own loop thread, with blocking helpers."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.session: Any = None
        self._stack: AsyncExitStack | None = None
        self.tools: dict[str, Any] = {}

    def run(self, coro: Any, timeout: float = 30) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def run_later(self, coro: Any) -> Any:
        """Start ``coro`` on the client's loop without waiting (a concurrent future)."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    async def _open(self, make_streams: Any) -> None:
        from mcp import ClientSession

        self._stack = AsyncExitStack()
        read, write = await self._stack.enter_async_context(make_streams())
        self.session = await self._stack.enter_async_context(ClientSession(read, write))
        await self.session.initialize()
        self.tools = {t.name: t for t in (await self.session.list_tools()).tools}

    def open_stdio(self, args: list[str]) -> SyncClient:
        from mcp.client.stdio import StdioServerParameters, stdio_client

        params = StdioServerParameters(command=sys.executable, args=["-m", "vshell", "mcp", *args],
                                       env=server_env(), cwd=REPO)
        self.run(self._open(lambda: stdio_client(params, errlog=sys.stderr)))
        return self

    def open_http(self, url: str, token: str | None = None) -> SyncClient:
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        headers = {"Authorization": f"Bearer {token}"} if token else {}

        def streams() -> Any:
            client = httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=60))
            return streamable_http_client(url, http_client=client)

        self.run(self._open(streams))
        return self

    def call(self, name: str, args: dict[str, Any], timeout: float | None = None) -> Any:
        return self.run(self.session.call_tool(name, args, read_timeout_seconds=timeout),
                        timeout=60)

    def close(self) -> None:
        if self._stack is not None:
            try:
                self.run(self._stack.aclose(), timeout=15)
            except Exception:  # noqa: BLE001 - teardown best effort
                pass
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


def text(res: Any) -> str:
    return "".join(getattr(c, "text", "") for c in res.content)


def check_schema(client: SyncClient, name: str, res: Any) -> None:
    """structuredContent must conform to the tool's declared outputSchema."""
    import jsonschema

    schema = client.tools[name].output_schema
    assert schema is not None
    assert res.structured_content is not None
    jsonschema.validate(res.structured_content, schema)


def start_http_server(args: list[str]) -> tuple[subprocess.Popen[bytes], str]:
    """Start `vshell mcp --http 127.0.0.1:0 ...` and return it with its URL (from stderr)."""
    proc = subprocess.Popen([sys.executable, "-m", "vshell", "mcp", "--http", "127.0.0.1:0",
                             *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=server_env(), cwd=REPO)
    assert proc.stderr is not None
    deadline = time.monotonic() + 30
    line = b""
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        m = re.search(rb"listening on (http://\S+)", line)
        if m:
            threading.Thread(target=proc.stderr.read, daemon=True).start()  # keep draining
            return proc, m.group(1).decode()
        if not line and proc.poll() is not None:
            break
    proc.kill()
    raise AssertionError(f"server did not start: {line!r}")


def stop(proc: subprocess.Popen[bytes], timeout: float = 5) -> float:
    """SIGTERM ``proc`` and return how long it took to exit (kill and fail if too long)."""
    began = time.monotonic()
    proc.terminate()
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise AssertionError("server did not exit after SIGTERM") from None
    return time.monotonic() - began
