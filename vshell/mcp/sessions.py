"""The MCP server's sessions: one sandbox session per MCP session, bounded and expiring.

SDK-free, so it is tested on its own.  A :class:`Sessions` maps an MCP session's key (the
``Mcp-Session-Id``; ``"stdio"`` for the one stdio client) to a backend:
:class:`PooledSession` (a session in a worker of a :class:`~vshell.pool.SandboxPool`) or
:class:`InProcessSession` (``--workers 0``: a Sandbox in this process, calls on threads).
Both answer ``await call(name, args) -> ToolResult``.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from vshell.command import CancelToken
from vshell.mcp import tools
from vshell.pool import PoolError, SandboxPool

TOOLS_CALL = "vshell.mcp.tools:call"  # what a worker runs for a tool call
STDIO = "stdio"


class SessionLimitError(Exception):
    """One more session than ``--max-sessions`` allows."""

    code = "E_TOO_MANY_SESSIONS"


class Backend(Protocol):
    last_used: float

    @property
    def busy(self) -> int: ...

    async def call(self, name: str, args: dict[str, Any]) -> tools.ToolResult: ...

    def stop_all(self, reason: str = "closed") -> None: ...

    def close(self) -> None: ...


def watchdog_limit(cfg: tools.ServerConfig, sandbox_timeout: float | None, name: str,
                   args: dict[str, Any]) -> float | None:
    """How long a call may run before its worker counts as stuck: the bash tool's own
    timeout (as :func:`tools.run_bash` computes it); other tools get the server default,
    at least a minute."""
    default = cfg.command_timeout or None
    if name == "bash":
        asked = args.get("timeout")
        limit = float(asked) if isinstance(asked, int | float) and not isinstance(asked, bool) \
            and asked > 0 else default
        if sandbox_timeout is not None and (limit is None or sandbox_timeout < limit):
            limit = sandbox_timeout
        return limit
    return None if default is None else max(60.0, default)


class InProcessSession:
    """A Sandbox in this process; each call runs on a daemon thread and cancelling the
    await cancels the command (``--workers 0``)."""

    def __init__(self, sandbox: Any, cfg: tools.ServerConfig) -> None:
        self.sandbox = sandbox
        self.cfg = cfg
        self._tokens: set[CancelToken] = set()
        self._guard = threading.Lock()
        self.closed = False
        self.last_used = time.monotonic()

    @property
    def busy(self) -> int:
        return len(self._tokens)

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
        self.last_used = time.monotonic()
        try:
            threading.Thread(target=work, name=f"mcp-{name}", daemon=True).start()
            return await done
        finally:
            token.cancel("canceled")  # no-op once finished; stops it when the await was cancelled
            with self._guard:
                self._tokens.discard(token)
            self.last_used = time.monotonic()


class PooledSession:
    """A session in a worker process; a lost worker becomes an ``E_WORKER_LOST`` tool error."""

    def __init__(self, session: Any, cfg: tools.ServerConfig) -> None:
        self.session = session
        self.cfg = cfg
        self.sandbox_timeout: float | None = session.options.get("timeout") or None

    @property
    def last_used(self) -> float:
        value: float = self.session.last_used
        return value

    @last_used.setter
    def last_used(self, value: float) -> None:
        self.session.last_used = value

    @property
    def busy(self) -> int:
        value: int = self.session.busy
        return value

    async def call(self, name: str, args: dict[str, Any]) -> tools.ToolResult:
        limit = watchdog_limit(self.cfg, self.sandbox_timeout, name, args)
        # only the shell takes turns; file (and other) tools run beside a running command,
        # as they do in-process (the Sandbox's own lock guards what it must)
        serial = name == "bash"
        try:
            res: tools.ToolResult = await self.session.acall(TOOLS_CALL, self.cfg, name, args,
                                                             timeout=limit, serial=serial)
        except PoolError as e:
            return tools.ToolResult(f"{e.code}: {e.message}", None, True)
        return res

    def stop_all(self, reason: str = "closed") -> None:
        """Nothing to do here: closing the pool ends the workers and their commands."""

    def close(self) -> None:
        self.session.close(wait=False)


class Sessions:
    """Every MCP session's sandbox session: at most ``max_sessions``, idle ones expire."""

    def __init__(self, make: Callable[[], Backend], *, max_sessions: int | None = 32,
                 ttl: float | None = None, pool: SandboxPool | None = None) -> None:
        self.make = make
        self.max_sessions = max_sessions
        self.ttl = ttl or None
        self.pool = pool
        self.live: dict[str, Backend] = {}
        self.known: dict[str, float] = {}  # ids the transport issued, with their last use
        self.expired: set[str] = set()
        self.closed = False
        self._closing = threading.Lock()

    def full(self) -> bool:
        """Whether a new session would be refused."""
        if self.max_sessions is None or self.max_sessions <= 0:
            return False
        return len(set(self.live) | set(self.known)) >= self.max_sessions

    def admit(self, key: str) -> None:
        """Count a session the transport just opened (its id), before its first call."""
        self.known[key] = time.monotonic()

    def touch(self, key: str) -> None:
        if key in self.known:
            self.known[key] = time.monotonic()
        b = self.live.get(key)
        if b is not None:
            b.last_used = time.monotonic()

    def get(self, key: str) -> Backend:
        """The session for ``key``, made on its first call (SessionLimitError when full)."""
        if self.closed:
            raise PoolError("E_SERVER_CLOSING", "the server is shutting down")
        if key in self.expired:
            raise PoolError("E_SESSION_EXPIRED", "this session was idle longer than "
                            "--session-ttl and ended; start a new session")
        b = self.live.get(key)
        if b is None:
            if key not in self.known and self.full():
                raise SessionLimitError(f"{self.max_sessions} sessions are open "
                                        "(--max-sessions); close one or wait for one to expire")
            b = self.make()
            self.live[key] = b
            self.known.setdefault(key, time.monotonic())
        return b

    def end(self, key: str) -> None:
        """The client ended the session (DELETE) or went away."""
        self.known.pop(key, None)
        b = self.live.pop(key, None)
        if b is not None:
            b.stop_all("closed")
            b.close()

    def sweep(self, now: float | None = None) -> list[str]:
        """End the sessions idle for longer than the ttl; returns their keys."""
        if self.ttl is None:
            return []
        now = time.monotonic() if now is None else now
        gone = []
        for key in list(set(self.live) | set(self.known)):
            b = self.live.get(key)
            if b is not None and b.busy:
                continue
            last = max(self.known.get(key, 0.0), b.last_used if b is not None else 0.0)
            if now - last > self.ttl:
                gone.append(key)
        for key in gone:
            self.end(key)
            self.expired.add(key)
        return gone

    async def sweeper(self) -> None:
        """Run :meth:`sweep` every little while (a task of the server's loop)."""
        if self.ttl is None:
            return
        period = max(0.2, min(self.ttl / 4, 5.0))
        while not self.closed:
            await asyncio.sleep(period)
            self.sweep()

    def stop_all(self, reason: str = "closed") -> None:
        for b in list(self.live.values()):
            b.stop_all(reason)

    def close(self) -> None:
        """End every session, and the pool's workers with them (a second caller waits
        until the first is done)."""
        with self._closing:
            self._close()

    def _close(self) -> None:
        if self.closed and self.pool is None:
            return
        self.closed = True
        live, self.live = self.live, {}
        self.known.clear()
        for b in live.values():
            b.stop_all("closed")
            try:
                b.close()
            except Exception:  # noqa: BLE001, S110 - shutting down anyway
                pass
        pool, self.pool = self.pool, None
        if pool is not None:
            pool.close()
