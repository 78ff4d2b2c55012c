"""Size limits for what one tool result may carry.

A client's stdio read buffer is a hard wall (the official SDK keeps 10 MiB and drops the
connection when one message overflows it), and JSON escaping can make an encoded message
several times larger than the raw output.  So results are bounded by their *encoded* size,
cut head + tail with an explicit marker so the model still sees how output started and ended.
"""

from __future__ import annotations

import json

TEXT_CUT_BYTES = 50 * 1024  # model-facing text beyond this is cut head + tail
TEXT_KEEP_BYTES = 24 * 1024  # how much of each end such a cut keeps
DEFAULT_MAX_RESULT_BYTES = 8 * 1024 * 1024
ENVELOPE_RESERVE = 4096  # JSON-RPC envelope, field names and small metadata


def encoded_len(s: str) -> int:
    """Bytes ``s`` takes as a JSON string on the wire (UTF-8, escapes, no quotes)."""
    return len(json.dumps(s, ensure_ascii=False).encode("utf-8", "surrogatepass")) - 2


def utf8_len(s: str) -> int:
    return len(s.encode("utf-8", "surrogatepass"))


def _head(s: str, nbytes: int) -> str:
    return s.encode("utf-8", "surrogatepass")[:nbytes].decode("utf-8", "ignore")


def _tail(s: str, nbytes: int) -> str:
    if nbytes <= 0:
        return ""
    return s.encode("utf-8", "surrogatepass")[-nbytes:].decode("utf-8", "ignore")


def cut_text(s: str, limit: int = TEXT_CUT_BYTES, keep: int = TEXT_KEEP_BYTES) -> str:
    """The model-facing cut: past ``limit`` UTF-8 bytes keep ``keep`` bytes of each end."""
    total = utf8_len(s)
    if total <= limit:
        return s
    keep = min(keep, limit // 2)
    head, tail = _head(s, keep), _tail(s, keep)
    dropped = total - utf8_len(head) - utf8_len(tail)
    return (f"{head}\n… [output truncated: {dropped} of {total} bytes omitted; "
            f"the full streams are in structuredContent] …\n{tail}")


def fit(s: str, max_encoded: int) -> tuple[str, int]:
    """Cut ``s`` head + tail so its JSON encoding fits ``max_encoded`` bytes.

    Returns the (possibly) cut string and how many raw UTF-8 bytes were dropped.  The ratio
    of encoded to raw size guides the first guess; shrinking by 10% per step converges fast.
    """
    if encoded_len(s) <= max_encoded:
        return s, 0
    total = utf8_len(s)
    ratio = max(1.0, encoded_len(s) / max(1, total))
    keep = int(max(0, max_encoded - 200) / ratio)
    while True:
        head, tail = _head(s, keep // 2), _tail(s, keep - keep // 2)
        dropped = total - utf8_len(head) - utf8_len(tail)
        out = (f"{head}\n… [truncated: {dropped} of {total} bytes omitted to fit the result "
               f"budget] …\n{tail}")
        if encoded_len(out) <= max_encoded or keep == 0:
            return out, dropped
        keep = int(keep * 0.9)


def share(sizes: dict[str, int], budget: int) -> dict[str, int]:
    """Split ``budget`` between payloads: small ones stay whole, large ones share the rest.

    Payloads are served smallest first; each may take an equal share of what is left, and
    whatever a small one does not use goes to the larger ones.
    """
    out: dict[str, int] = {}
    left = max(0, budget)
    names = sorted(sizes, key=lambda k: sizes[k])
    for i, name in enumerate(names):
        fair = left // (len(names) - i)
        out[name] = min(sizes[name], fair)
        left -= out[name]
    return out
