"""The Protocol classes of the command contract: the host streams ``Sandbox.exec`` takes,
and what ``inv.http`` and ``inv.python`` provide.

Apart from :mod:`vshell.command` because a Protocol needs :mod:`typing`, which the
start-up path of ``vshell -c`` does not import; ``vshell.command`` still names them (it
imports this module when one is first asked for).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from vshell.vfs.memory import MemoryBudget

__all__ = ["HTTPClient", "InputStream", "OutputStream", "PythonOptions"]


class InputStream(Protocol):
    def read(self, n: int = -1, /) -> bytes: ...
    def readline(self, limit: int = -1, /) -> bytes: ...


class OutputStream(Protocol):
    def write(self, data: bytes, /) -> int: ...
    def flush(self) -> None: ...


class HTTPClient(Protocol):
    """``inv.http``: the sandbox's policy-checked httpx client (``vshell.net.PolicyClient``).

    Commands build a request, send it, and may take a copy trusting one more CA (curl's
    ``--cacert``), which they close; the requests and responses are httpx's own.
    """

    def build_request(self, method: str, url: Any, *, content: Any = ..., files: Any = ...,
                      headers: Any = ..., timeout: Any = ...) -> Any: ...
    def send(self, request: Any, *, stream: bool = ..., follow_redirects: bool = ...
             ) -> Any: ...
    def with_ca(self, cadata: str) -> HTTPClient: ...
    def close(self) -> None: ...


class PythonOptions(Protocol):
    """``inv.python``: what the ``python`` command reads, the per-guest memory cap (None:
    the runtime's default) and the sandbox's budget every guest's memory is charged to."""

    @property
    def memory_limit(self) -> int | None: ...
    @property
    def memory_budget(self) -> MemoryBudget | None: ...
