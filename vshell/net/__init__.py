"""The only way out of the sandbox to the network: an allow list and a client that obeys it.

Importing this package is cheap; httpx and httpcore load only when a client is built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from vshell.net._scope import cancel_scope
from vshell.net.errors import AccessDenied, NetworkError, ResolveFailed
from vshell.net.policy import AllowList, is_blocked, parse_entry, parse_ip, validate_allow_list

if TYPE_CHECKING:
    from collections.abc import Iterable

    from vshell.net.client import PolicyClient

__all__ = [
    "AccessDenied",
    "AllowList",
    "NetworkError",
    "ResolveFailed",
    "build_client",
    "cancel_scope",
    "is_blocked",
    "parse_entry",
    "parse_ip",
    "validate_allow_list",
]


def build_client(entries: Iterable[str] | AllowList, **kwargs: Any) -> PolicyClient:
    """A policy-checked httpx client (see :func:`vshell.net.client.build_client`)."""
    from vshell.net.client import build_client as _build

    return _build(entries, **kwargs)
