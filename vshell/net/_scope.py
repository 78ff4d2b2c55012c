"""Which cancel token the network I/O of this thread answers to.

httpx runs a request in the calling thread, and the socket layer has no other way to learn
about the command's cancel token; a thread-local lets a blocked read notice a cancelled run
within a fraction of a second instead of waiting for its own timeout.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_local = threading.local()


def current() -> Any:
    """The token set by the innermost :func:`cancel_scope` of this thread, or None."""
    return getattr(_local, "token", None)


@contextmanager
def cancel_scope(token: Any) -> Iterator[None]:
    """Make socket reads in this thread check ``token`` (an object with ``check()``)."""
    previous = current()
    _local.token = token
    try:
        yield
    finally:
        _local.token = previous
