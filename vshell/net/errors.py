"""Exceptions the policy-checked client raises before any byte leaves the machine.

They are plain exceptions (not httpcore's), so httpx passes them through unchanged and a
caller such as ``curl`` can tell a refusal from a network failure.
"""

from __future__ import annotations


class NetworkError(Exception):
    """Base class for vshell's own network failures."""


class AccessDenied(NetworkError, PermissionError):
    """The allow list does not permit this destination."""

    def __init__(self, host: str, address: str | None = None, *, private: bool = False) -> None:
        self.host = host
        self.address = address
        self.private = private
        super().__init__(f"vshell: {self.detail}")

    @property
    def detail(self) -> str:
        """The message without the ``vshell:`` prefix, for commands that add their own."""
        where = f"{self.host} ({self.address})" if self.address and self.address != self.host \
            else self.host
        text = f"network access to {where} is not permitted by the allow list"
        if self.private:
            text += (": a private, loopback or metadata address is reachable only through an"
                     " IP or CIDR entry that covers it")
        return text

    def __str__(self) -> str:
        return str(self.args[0])


class ResolveFailed(NetworkError):
    """The host name did not resolve (curl's exit 6)."""

    def __init__(self, host: str, reason: str = "") -> None:
        self.host = host
        super().__init__(f"Could not resolve host: {host}" + (f" ({reason})" if reason else ""))


class InvalidAddress(NetworkError, ValueError):
    """The URL cannot be requested as written (httpx's InvalidURL)."""


class TooManyRedirects(NetworkError):
    """A transfer that follows redirects was sent more of them than it allows."""


class DecodeFailed(NetworkError):
    """A compressed body did not decompress (curl's exit 61)."""


class TransferFailed(NetworkError):
    """The transport failed once the request was underway (httpx's TransportError).

    The httpx exception is the ``__cause__``, so a caller can still look further down the
    chain, for instance for the ``ssl`` error behind a failed handshake.
    """


class TimedOut(TransferFailed):
    """A connect, read, write or pool timeout."""


class ConnectTimedOut(TimedOut):
    """The connection was not established in time."""


class ConnectFailed(TransferFailed):
    """The connection (TCP or TLS) could not be established."""


class ProtocolBroken(TransferFailed):
    """The server broke HTTP: an empty reply, a body cut short."""


class SchemeUnsupported(TransferFailed):
    """The URL's scheme is not HTTP or HTTPS."""
