"""The order bash lists an associative array's keys in, so ``"${!m[@]}"`` matches bash.

bash keeps an associative array in a hash table (hashlib.c): FNV-1 string hash, 1024
buckets to start, a new key at the head of its bucket's chain, and, when an insertion
finds as many entries as twice the buckets, a rehash into four times as many buckets
that walks the old chains in order (so their order reverses).  Listing walks the buckets
in index order.  vshell keeps a plain dict in insertion order and replays those
insertions here; only deletions on tables past 2048 keys can shift when bash grows, so
there the order may differ slightly.
"""

from __future__ import annotations

from functools import lru_cache

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    from collections.abc import Iterable

_FNV_OFFSET = 2166136261
_FNV_PRIME = 16777619
_INITIAL_BUCKETS = 1024


# a cache of a pure function keyed by its input: no session state
@lru_cache(maxsize=65536)
def _fnv1(key: str) -> int:
    h = _FNV_OFFSET
    for byte in key.encode("utf-8", "surrogateescape"):
        h = (h * _FNV_PRIME) & 0xFFFFFFFF
        h ^= byte
    return h


def bash_order(keys: Iterable[str]) -> list[str]:
    """``keys`` (in insertion order, each once) in the order bash would list them."""
    nbuckets = _INITIAL_BUCKETS
    buckets: list[list[str]] = [[] for _ in range(nbuckets)]
    count = 0
    for key in keys:
        if count >= nbuckets * 2:
            old = buckets
            nbuckets *= 4
            buckets = [[] for _ in range(nbuckets)]
            for chain in old:
                for item in chain:
                    buckets[_fnv1(item) & (nbuckets - 1)].insert(0, item)
        buckets[_fnv1(key) & (nbuckets - 1)].insert(0, key)  # chains are newest-first
        count += 1
    return [key for chain in buckets for key in chain]
