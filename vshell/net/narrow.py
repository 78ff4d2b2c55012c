"""A run's own, narrower network: a request must pass the session's allow list and the run's.

Used for a call that asks for less network than its session has (the MCP ``bash`` tool's
``allow_net``): an entry of the run's list that the session's does not cover allows
nothing, so a run can narrow its network but never widen it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from vshell.net.policy import AllowList, IPAddress

if TYPE_CHECKING:
    from vshell.net.client import PolicyClient


class BothLists(AllowList):
    """Every check of :class:`AllowList` answered by two lists together (an intersection)."""

    def __init__(self, first: AllowList, second: AllowList) -> None:
        # no AllowList.__init__: every method that reads its tables is answered below
        self.entries = [*first.entries, *second.entries]
        self.block_private = first.block_private or second.block_private
        self._lists = (first, second)

    def allows_name(self, host: str) -> bool:
        return all(a.allows_name(host) for a in self._lists)

    def allows_address(self, ip: str | IPAddress) -> bool:
        return all(a.allows_address(ip) for a in self._lists)

    def address_blocked(self, ip: str | IPAddress) -> bool:
        return any(a.address_blocked(ip) for a in self._lists)

    def refused_as_private(self, ip: str | IPAddress) -> bool:
        return any(a.refused_as_private(ip) for a in self._lists)

    def allows_resolved(self, host: str, ip: str | IPAddress) -> bool:
        return all(a.allows_resolved(host, ip) for a in self._lists)


def narrowed_client(session: Sequence[str], run: Sequence[str], **options: Any) -> PolicyClient:
    """A client that reaches only what both ``session`` and ``run`` allow (``options`` as
    for :func:`vshell.net.build_client`)."""
    from vshell.net.client import build_client

    block_private = bool(options.pop("block_private", True))
    both = BothLists(AllowList(session, block_private=block_private),
                     AllowList(run, block_private=block_private))
    return build_client(both, **options)
