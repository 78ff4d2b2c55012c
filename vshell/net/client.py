"""The httpx client the sandbox hands to commands, with the allow list built into its dialer.

The check lives in the httpcore network backend, not in a request hook: ``connect_tcp``
resolves the name itself, checks every address, and connects to exactly the address it
checked, so DNS cannot change the answer between check and connect.  Every redirect hop
opens its connection through the same backend and is re-checked.  TLS still verifies the
certificate against the host name from the URL.
"""

from __future__ import annotations

import socket
import ssl
import time
from collections.abc import Callable, Iterable
from typing import Any

import httpcore
import httpx

from vshell.net import _scope
from vshell.net.errors import AccessDenied, ResolveFailed
from vshell.net.policy import AllowList, IPAddress, normalize_ip, parse_ip

Resolver = Callable[[str, int], list[str]]
DEFAULT_TIMEOUT = httpx.Timeout(60.0, connect=30.0)
_POLL = 0.1  # how often a blocked read looks at the cancel token


def system_resolver(host: str, port: int) -> list[str]:
    """Addresses of ``host`` from the host's resolver, in its order, without duplicates."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as e:
        raise ResolveFailed(host) from e
    out: list[str] = []
    for _family, _type, _proto, _canon, sockaddr in infos:
        addr = str(sockaddr[0])
        if addr not in out:
            out.append(addr)
    return out


class PolicyStream(httpcore.NetworkStream):
    """A socket stream whose reads also stop when the thread's cancel token fires."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        token = _scope.current()
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            if token is not None:
                token.check()
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            if token is not None:
                wait = _POLL if wait is None else min(wait, _POLL)
            try:
                self._sock.settimeout(wait)
                return self._sock.recv(max_bytes)
            except TimeoutError:
                if deadline is not None and time.monotonic() >= deadline:
                    raise httpcore.ReadTimeout("timed out") from None
            except ssl.SSLWantReadError:
                continue
            except OSError as e:
                raise httpcore.ReadError(str(e)) from e

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        token = _scope.current()
        try:
            while buffer:
                if token is not None:
                    token.check()
                self._sock.settimeout(timeout)
                n = self._sock.send(buffer)
                buffer = buffer[n:]
        except TimeoutError:
            raise httpcore.WriteTimeout("timed out") from None
        except OSError as e:
            raise httpcore.WriteError(str(e)) from e

    def close(self) -> None:
        self._sock.close()

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> PolicyStream:
        try:
            self._sock.settimeout(timeout)
            sock = ssl_context.wrap_socket(self._sock, server_hostname=server_hostname)
        except TimeoutError:
            self.close()
            raise httpcore.ConnectTimeout("TLS handshake timed out") from None
        except OSError as e:
            self.close()
            raise httpcore.ConnectError(str(e)) from e
        return PolicyStream(sock)

    def get_extra_info(self, info: str) -> Any:
        if info == "ssl_object" and isinstance(self._sock, ssl.SSLSocket):
            return self._sock._sslobj  # type: ignore[attr-defined]  # the private SSLObject is what httpcore's ssl_object means
        if info == "client_addr":
            return self._sock.getsockname()
        if info == "server_addr":
            return self._sock.getpeername()
        if info == "socket":
            return self._sock
        if info == "is_readable":
            from httpcore._utils import is_socket_readable

            return is_socket_readable(self._sock)
        return None


class PolicyBackend(httpcore.NetworkBackend):
    """Resolve, check every address, connect to the checked address: no gap in between."""

    def __init__(self, policy: AllowList, resolver: Resolver | None = None) -> None:
        self.policy = policy
        self.resolver = resolver

    def check(self, host: str, port: int) -> list[IPAddress]:
        """The addresses ``host`` may be reached at, or AccessDenied / ResolveFailed."""
        literal = parse_ip(host)
        if literal is not None:
            if self.policy.allows_address(literal):
                return [literal]
            raise AccessDenied(host, str(literal),
                               private=self.policy.refused_as_private(literal))
        by_name = self.policy.allows_name(host)
        if not by_name and not any(e.kind == "network" for e in self.policy.entries):
            raise AccessDenied(host)  # nothing could allow it: do not even ask DNS
        addrs: list[IPAddress] = []
        resolve = self.resolver or system_resolver  # looked up per call: tests may patch it
        for text in resolve(host, port):
            addr = parse_ip(text)
            if addr is not None and addr not in addrs:
                addrs.append(normalize_ip(addr))
        if not addrs:
            raise ResolveFailed(host)
        if by_name:
            ok = [a for a in addrs if self.policy.allows_resolved(host, a)]
            if not ok:
                raise AccessDenied(host, str(addrs[0]),
                                   private=self.policy.address_blocked(addrs[0]))
            return ok
        for a in addrs:
            if not self.policy.allows_address(a):
                raise AccessDenied(host, str(a), private=self.policy.refused_as_private(a))
        return addrs

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> PolicyStream:
        addrs = self.check(host, port)
        token = _scope.current()
        if token is not None:
            token.check()
            left = token.remaining() if hasattr(token, "remaining") else None
            if left is not None:
                timeout = left if timeout is None else min(timeout, left)
        error: Exception | None = None
        for addr in addrs:
            family = socket.AF_INET6 if addr.version == 6 else socket.AF_INET
            sock = socket.socket(family, socket.SOCK_STREAM)
            try:
                for option in socket_options or ():
                    sock.setsockopt(*option)
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                sock.settimeout(timeout)
                sock.connect((str(addr), port))
            except TimeoutError:
                sock.close()
                error = httpcore.ConnectTimeout(f"connection to {host} ({addr}) timed out")
            except OSError as e:
                sock.close()
                error = httpcore.ConnectError(
                    f"Failed to connect to {host} port {port}: {e.strerror or e}"
                )
            else:
                return PolicyStream(sock)
        assert error is not None
        raise error

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Any = None
    ) -> PolicyStream:
        raise AccessDenied(path)

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


def ssl_context(ca_bundle: str | ssl.SSLContext | None = None, *, cadata: str | None = None
                ) -> ssl.SSLContext:
    """A verifying context: the given bundle (a host path or PEM text) or certifi's roots."""
    if isinstance(ca_bundle, ssl.SSLContext):
        return ca_bundle
    if cadata is not None:
        ctx = ssl.create_default_context(cadata=cadata)
    elif ca_bundle is not None:
        ctx = ssl.create_default_context(cafile=ca_bundle)
    else:
        ctx = httpx.create_ssl_context(verify=True, trust_env=False)
    ctx.check_hostname = True
    ctx.verify_mode = ssl.CERT_REQUIRED
    return ctx


class PolicyClient(httpx.Client):
    """An httpx.Client that remembers its policy, so a command can derive a sibling client."""

    policy: AllowList
    resolver: Resolver | None

    def with_ca(self, cadata: str) -> PolicyClient:
        """The same policy with ``cadata`` (PEM) as the only trusted CAs (curl --cacert)."""
        return _make(self.policy, ssl_context(cadata=cadata), self.timeout, self.resolver)


def _make(policy: AllowList, ctx: ssl.SSLContext, timeout: Any,
          resolver: Resolver | None) -> PolicyClient:
    transport = httpx.HTTPTransport(verify=ctx, trust_env=False)
    # httpx has no parameter for a network backend; swap the pool it built for one that
    # dials through the policy (same settings otherwise).
    transport._pool = httpcore.ConnectionPool(
        ssl_context=ctx,
        max_connections=100,
        max_keepalive_connections=20,
        keepalive_expiry=5.0,
        network_backend=PolicyBackend(policy, resolver),
    )
    client = PolicyClient(transport=transport, trust_env=False, timeout=timeout)
    client.policy = policy
    client.resolver = resolver
    return client


def build_client(
    entries: Iterable[str] | AllowList,
    *,
    ca_bundle: str | ssl.SSLContext | None = None,
    block_private: bool = True,
    timeout: float | httpx.Timeout | None = DEFAULT_TIMEOUT,
    resolver: Resolver | None = None,
) -> PolicyClient:
    """An httpx client that can reach only what ``entries`` allow.

    ``ca_bundle`` replaces the default roots (certifi) with a host PEM file or an
    SSLContext; ``block_private`` (the default; False restores the old, open behaviour)
    refuses private, loopback, link-local and metadata addresses unless an IP/CIDR entry
    inside such a range names them, or the entry ``localhost`` (loopback only);
    ``resolver`` replaces ``socket.getaddrinfo`` (for tests).  No proxy or netrc from the
    environment is used.
    """
    if isinstance(entries, AllowList):
        policy = entries
    else:
        policy = AllowList(entries, block_private=block_private)
    return _make(policy, ssl_context(ca_bundle), timeout, resolver)
