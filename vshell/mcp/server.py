"""Protocol glue: the tools of :mod:`vshell.mcp.tools` served with the official MCP SDK.

Each MCP session (stdio: the one client; streamable HTTP: each ``Mcp-Session-Id``) gets a
sandbox session of its own, held by :class:`Sessions`.  With workers (the default) a session
lives in a worker process of a :class:`~vshell.pool.SandboxPool`, so a script that holds the
GIL freezes only its worker, never the event loop; with ``--workers 0`` it is an in-process
:class:`~vshell.sandbox.Sandbox` whose calls run on threads.  Either way the event loop keeps
reading the wire, which is what lets ``notifications/cancelled`` (and the client going
away) stop a running command at once: the SDK cancels the handler's scope, and the handler
cancels the command's token (in the worker, through a cancel message).
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
from vshell.mcp import tools
from vshell.mcp.sessions import STDIO, InProcessSession, SessionLimitError, Sessions
from vshell.pool import PoolError

log = logging.getLogger("vshell.mcp")

INSTRUCTIONS = (
    "vshell: a persistent bash-compatible shell session (one per MCP session) over a "
    "virtual filesystem. "
    "Use `bash` for commands (cwd, variables and functions persist between calls) and "
    "read/write/edit/list/glob for files; relative paths resolve against the session's "
    "working directory. No host programs can run; only the mounted directories exist. "
    "Writes to copy-on-write mounts stay in the sandbox: `changes` and `diff` review them "
    "and `sync` applies them to the host."
)


Session = InProcessSession  # the name the in-process session had before the pool


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


def session_key(ctx: Any) -> str:
    """The MCP session a request belongs to: its ``Mcp-Session-Id`` over HTTP, else the
    one stdio client."""
    request = getattr(ctx, "request", None)
    headers = getattr(request, "headers", None)
    if headers is not None:
        sid = headers.get("mcp-session-id")
        if sid:
            return str(sid)
    return STDIO


def _content(res: tools.ToolResult) -> list[Any]:
    """The result's content blocks: its text, then the images it carries (base64 data and
    a mime type: plain data, so they cross from a worker as is)."""
    blocks: list[Any] = [types.TextContent(text=res.text)]
    blocks += [types.ImageContent(data=p.data, mime_type=p.mime_type) for p in res.images]
    return blocks


def build_server(sessions: Sessions) -> Server[Any]:
    """A low-level SDK server whose two handlers delegate to the tool layer."""
    listing = _tool_list()

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listing)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name not in tools.TOOLS:
            raise MCPError(types.INVALID_PARAMS, f"unknown tool: {params.name}")
        try:
            session = sessions.get(session_key(ctx))
        except SessionLimitError as e:
            return types.CallToolResult(content=[types.TextContent(text=f"{e.code}: {e}")],
                                        is_error=True)
        except PoolError as e:
            return types.CallToolResult(content=[types.TextContent(text=str(e))],
                                        is_error=True)
        res = await session.call(params.name, dict(params.arguments or {}))
        return types.CallToolResult(
            content=_content(res),
            structured_content=res.structured,
            is_error=res.is_error,
        )

    return Server("vshell", version=__version__, instructions=INSTRUCTIONS,
                  on_list_tools=list_tools, on_call_tool=call_tool)


# --- stdio -------------------------------------------------------------------------------
def serve_stdio(sessions: Sessions) -> int:
    """Serve one client over stdin/stdout until it closes stdin or a signal arrives."""
    return _run(lambda: _stdio_main(sessions), sessions)


async def _stdio_main(sessions: Sessions) -> None:
    from mcp.server.stdio import stdio_server

    server = build_server(sessions)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def _run(main: Callable[[], Awaitable[None]], sessions: Sessions) -> int:
    """Run ``main`` with SIGTERM/SIGINT/SIGHUP ending it; running commands and the
    workers end first."""
    got: list[int] = []

    async def runner() -> None:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None

        def on_signal(sig: int) -> None:
            got.append(sig)
            sessions.close()
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
        sessions.close()
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


class SessionTracker:
    """ASGI middleware: follows the transport's sessions by their ``Mcp-Session-Id``.

    A request without one opens a session: refused with ``E_TOO_MANY_SESSIONS`` (HTTP
    503) when ``--max-sessions`` are open, else the id the response carries is counted.
    Every request with an id keeps its session alive (``--session-ttl``); ``DELETE``
    ends it, and its sandbox session with it.
    """

    def __init__(self, app: Any, sessions: Sessions) -> None:
        self.app = app
        self.sessions = sessions

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        sid = headers.get(b"mcp-session-id", b"").decode("latin-1")
        method = scope.get("method", "")
        if sid:
            self.sessions.touch(sid)
            await self.app(scope, receive, send)
            if method == "DELETE":
                self.sessions.end(sid)
            return
        if method == "POST" and self.sessions.full():
            await _refuse_session(send, self.sessions.max_sessions)
            return

        async def watch(message: Any) -> None:
            if message["type"] == "http.response.start" and message.get("status", 500) < 400:
                for k, v in message.get("headers") or []:
                    if k.lower() == b"mcp-session-id":
                        self.sessions.admit(v.decode("latin-1"))
            await send(message)

        await self.app(scope, receive, watch)


async def _refuse_session(send: Any, limit: int | None) -> None:
    import json

    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {
        "code": types.INTERNAL_ERROR,
        "message": f"{SessionLimitError.code}: {limit} sessions are open (--max-sessions); "
                   "close one or wait for one to expire",
        "data": {"code": SessionLimitError.code}}}).encode()
    await send({"type": "http.response.start", "status": 503,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def serve_http(sessions: Sessions, host: str, port: int, token: str | None) -> int:
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
        sessions.close()
        return 1
    sock.listen(256)
    bound = sock.getsockname()[1]
    server = build_server(sessions)
    # the transport keeps sessions as long as we do; --max-sessions is ours (SessionTracker)
    app: Any = server.streamable_http_app(host=host, session_idle_timeout=sessions.ttl,
                                          max_sessions=None)
    app = SessionTracker(app, sessions)
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
            sessions.stop_all("terminate")  # running commands end now, not at their timeout
            if sessions.pool is not None:
                threading.Thread(target=sessions.close, daemon=True).start()
            super().handle_exit(sig, frame)

    uv = _Server(config)

    async def main() -> None:
        sweeper = asyncio.ensure_future(sessions.sweeper())
        try:
            await uv.serve(sockets=[sock])
        finally:
            sweeper.cancel()

    try:
        anyio.run(main)
    finally:
        sessions.close()
        sock.close()
    return 128 + got[0] if got else 0
