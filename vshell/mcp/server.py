"""Protocol glue: the tools of :mod:`vshell.mcp.tools` served with the official MCP SDK.

Tool calls run on worker threads so the event loop keeps reading the wire; that is what
lets ``notifications/cancelled`` (and the client going away) stop a running command at
once: the SDK cancels the handler's scope, and the handler cancels the command's token.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import os
import signal
import socket
import sys
import threading
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from vshell import __version__
from vshell.command import CancelToken
from vshell.mcp import tools

log = logging.getLogger("vshell.mcp")

INSTRUCTIONS = (
    "vshell: one persistent bash-compatible shell session over a virtual filesystem. "
    "Use `bash` for commands (cwd, variables and functions persist between calls) and "
    "read/write/edit/list/glob for files; relative paths resolve against the session's "
    "working directory. No host programs can run; only the mounted directories exist. "
    "Writes to copy-on-write mounts stay in the sandbox: `changes` and `diff` review them "
    "and `sync` applies them to the host."
)


class Session:
    """The one sandbox every call uses, and the commands currently running in it."""

    def __init__(self, sandbox: Any, cfg: tools.ServerConfig) -> None:
        self.sandbox = sandbox
        self.cfg = cfg
        self._tokens: set[CancelToken] = set()
        self._guard = threading.Lock()
        self.closed = False

    def stop_all(self, reason: str = "closed") -> None:
        """Stop every running command (shutdown, or the client went away)."""
        with self._guard:
            running = list(self._tokens)
        for t in running:
            t.cancel(reason)

    def close(self) -> None:
        self.closed = True
        self.stop_all()
        self.sandbox.close()

    async def call(self, name: str, args: dict[str, Any]) -> tools.ToolResult:
        """Run one tool call on a daemon thread; cancelling the await cancels the command."""
        token = CancelToken()
        loop = asyncio.get_running_loop()
        done: asyncio.Future[tools.ToolResult] = loop.create_future()

        def finish(fut: asyncio.Future[tools.ToolResult], value: Any, failed: bool) -> None:
            if fut.done():
                return
            if failed:
                fut.set_exception(value)
            else:
                fut.set_result(value)

        def work() -> None:
            try:
                value: Any = tools.call(self.sandbox, self.cfg, name, args, token)
                failed = False
            except BaseException as e:  # noqa: BLE001 - reported to the awaiting task
                value, failed = e, True
            try:
                loop.call_soon_threadsafe(finish, done, value, failed)
            except RuntimeError:  # the loop is gone: nobody is waiting any more
                pass

        with self._guard:
            self._tokens.add(token)
        try:
            threading.Thread(target=work, name=f"mcp-{name}", daemon=True).start()
            return await done
        finally:
            token.cancel("canceled")  # no-op once finished; stops it when the await was cancelled
            with self._guard:
                self._tokens.discard(token)


def _tool_list() -> list[types.Tool]:
    return [
        types.Tool(
            name=t.name, title=t.title, description=t.description,
            input_schema=t.input_schema, output_schema=t.output_schema,
            annotations=types.ToolAnnotations(
                title=t.title, read_only_hint=t.read_only, destructive_hint=t.destructive,
                idempotent_hint=t.idempotent, open_world_hint=False),
        )
        for t in tools.TOOLS.values()
    ]


def build_server(session: Session) -> Server[Any]:
    """A low-level SDK server whose two handlers delegate to the tool layer."""
    listing = _tool_list()

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listing)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name not in tools.TOOLS:
            raise MCPError(types.INVALID_PARAMS, f"unknown tool: {params.name}")
        if session.closed:
            raise MCPError(types.INTERNAL_ERROR, "the vshell session is closed")
        res = await session.call(params.name, dict(params.arguments or {}))
        content: list[Any] = [types.TextContent(text=res.text)]
        content += [types.ImageContent(data=p.data, mime_type=p.mime_type) for p in res.images]
        return types.CallToolResult(
            content=content,
            structured_content=res.structured,
            is_error=res.is_error,
        )

    return Server("vshell", version=__version__, instructions=INSTRUCTIONS,
                  on_list_tools=list_tools, on_call_tool=call_tool)


# --- stdio -------------------------------------------------------------------------------
def serve_stdio(session: Session) -> int:
    """Serve one client over stdin/stdout until it closes stdin or a signal arrives."""
    return _run(lambda: _stdio_main(session), session)


async def _stdio_main(session: Session) -> None:
    from mcp.server.stdio import stdio_server

    server = build_server(session)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def _run(main: Callable[[], Awaitable[None]], session: Session) -> int:
    """Run ``main`` with SIGTERM/SIGINT/SIGHUP ending it; running commands stop first."""
    got: list[int] = []

    async def runner() -> None:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None

        def on_signal(sig: int) -> None:
            got.append(sig)
            session.close()
            task.cancel()
            # the SDK reads stdin on a thread that a cancel cannot interrupt: leave anyway
            timer = threading.Timer(1.0, _hard_exit, (128 + sig,))
            timer.daemon = True
            timer.start()

        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            try:
                loop.add_signal_handler(sig, on_signal, sig)
            except (ValueError, RuntimeError, NotImplementedError):
                pass
        try:
            await main()
        except asyncio.CancelledError:
            if not got:
                raise

    try:
        asyncio.run(runner())
    finally:
        session.close()
    if got:
        _hard_exit(128 + got[0])
    return 0


def _hard_exit(status: int) -> None:
    """End the process now: a worker thread blocked reading stdin would keep it alive."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(status)


# --- streamable HTTP -----------------------------------------------------------------------
class BearerAuth:
    """ASGI middleware: every HTTP request must carry ``Authorization: Bearer <token>``."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            got = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(got, self.expected):
                await send({"type": "http.response.start", "status": 401,
                            "headers": [(b"content-type", b"application/json"),
                                        (b"www-authenticate", b'Bearer realm="vshell"')]})
                await send({"type": "http.response.body",
                            "body": b'{"error":"unauthorized: missing or wrong bearer token"}'})
                return
        await self.app(scope, receive, send)


def serve_http(session: Session, host: str, port: int, token: str | None) -> int:
    """Serve streamable HTTP at ``http://HOST:PORT/mcp`` until a signal arrives."""
    import uvicorn

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as e:
        sys.stderr.write(f"vshell mcp: cannot listen on {host}:{port}: {e.strerror or e}\n")
        sock.close()
        return 1
    sock.listen(64)
    bound = sock.getsockname()[1]
    server = build_server(session)
    app: Any = server.streamable_http_app(host=host)
    if token:
        app = BearerAuth(app, token)
    shown = f"[{host}]" if ":" in host else host
    sys.stderr.write(f"vshell mcp: listening on http://{shown}:{bound}/mcp\n")
    sys.stderr.flush()
    config = uvicorn.Config(app, log_level="warning", lifespan="on",
                            timeout_graceful_shutdown=2)

    got: list[int] = []

    class _Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:
            got.append(sig)
            session.stop_all("terminate")  # running commands end now, not at their timeout
            super().handle_exit(sig, frame)

    uv = _Server(config)

    async def main() -> None:
        await uv.serve(sockets=[sock])

    try:
        anyio.run(main)
    finally:
        session.close()
        sock.close()
    return 128 + got[0] if got else 0
