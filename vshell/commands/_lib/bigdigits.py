"""Decimal text of big integers without Python's 4300-digit guard and without long C calls.

``str(int)`` refuses more than 4300 digits (``sys.set_int_max_str_digits`` is process-wide,
so a command must not change it) and is quadratic in one C call that holds the GIL. These
helpers convert in 4000-digit chunks: each C call is short, so other threads keep running,
and ``check`` (the invocation's cancel check) runs between chunks.
"""

from __future__ import annotations

from collections.abc import Callable

_CHUNK = 4000
_CHUNK_POW = 10**_CHUNK
_LOG10_2 = 0.30102999566398120


def approx_digits(v: int) -> int:
    """Decimal digits of ``|v|``, never less than the truth and at most one more."""
    return int(abs(v).bit_length() * _LOG10_2) + 1


def to_str(v: int, check: Callable[[], None] | None = None) -> str:
    """``str(v)`` for any size, chunk by chunk from the low end."""
    if abs(v) < _CHUNK_POW:
        return str(v)
    sign, v = ("-", -v) if v < 0 else ("", v)
    parts: list[str] = []
    while v >= _CHUNK_POW:
        if check is not None:
            check()
        v, low = divmod(v, _CHUNK_POW)
        parts.append(str(low).rjust(_CHUNK, "0"))
    parts.append(str(v))
    return sign + "".join(reversed(parts))


def to_int(text: str, check: Callable[[], None] | None = None) -> int:
    """``int(text)`` for a string of decimal digits of any length."""
    if len(text) <= _CHUNK:
        return int(text or "0")
    head = len(text) % _CHUNK or _CHUNK
    value = int(text[:head])
    for i in range(head, len(text), _CHUNK):
        if check is not None:
            check()
        value = value * _CHUNK_POW + int(text[i:i + _CHUNK])
    return value
