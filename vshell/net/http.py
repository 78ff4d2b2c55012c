"""HTTP for the commands (curl, wget) without their importing httpx.

The client itself is ``Invocation.http`` (built by :func:`vshell.net.build_client`); this
module adds what a command needs around it: a timeout value, and :func:`failures`, which
turns httpx's exceptions into :mod:`vshell.net.errors`' own so the commands catch those.
httpx is imported only when a timeout is built or an httpx exception is being translated.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, TypeAlias

from vshell.net.errors import (
    ConnectFailed,
    ConnectTimedOut,
    DecodeFailed,
    InvalidAddress,
    NetworkError,
    ProtocolBroken,
    SchemeUnsupported,
    TimedOut,
    TooManyRedirects,
    TransferFailed,
)

if TYPE_CHECKING:
    import httpx

__all__ = ["Client", "Request", "Response", "Timeout", "failures", "timeout"]

Client: TypeAlias = "httpx.Client"
Request: TypeAlias = "httpx.Request"
Response: TypeAlias = "httpx.Response"
Timeout: TypeAlias = "httpx.Timeout"


def timeout(total: float, *, connect: float | None = None) -> Timeout:
    """A timeout for every phase of a request, the connect phase possibly shorter."""
    import httpx

    return httpx.Timeout(total) if connect is None else httpx.Timeout(total, connect=connect)


def _translate(e: Exception) -> NetworkError | None:
    """vshell.net's exception for httpx's ``e``, most specific class first (None: not httpx's)."""
    import httpx

    kinds: tuple[tuple[type[Exception], type[NetworkError]], ...] = (
        (httpx.ConnectTimeout, ConnectTimedOut),
        (httpx.TimeoutException, TimedOut),
        (httpx.ConnectError, ConnectFailed),
        (httpx.RemoteProtocolError, ProtocolBroken),
        (httpx.UnsupportedProtocol, SchemeUnsupported),
        (httpx.TransportError, TransferFailed),
        (httpx.DecodingError, DecodeFailed),
        (httpx.TooManyRedirects, TooManyRedirects),
        (httpx.InvalidURL, InvalidAddress),
    )
    for theirs, ours in kinds:
        if isinstance(e, theirs):
            return ours(*e.args)
    return None


@contextmanager
def failures() -> Iterator[None]:
    """Run a block of client calls; httpx's exceptions leave it as vshell.net's, same text."""
    try:
        yield
    except NetworkError:
        raise
    except Exception as e:
        ours = _translate(e)
        if ours is None:
            raise
        raise ours from e
