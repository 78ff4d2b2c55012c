"""Display width of text as glibc's wcwidth sees it in a UTF-8 locale (for wc -L, fold …)."""

from __future__ import annotations

import unicodedata


def char_width(ch: str) -> int:
    """Columns taken by one character: 0 for combining/format/control, 2 for wide, else 1."""
    o = ord(ch)
    if 0x20 <= o < 0x7F:
        return 1
    if o < 0x20 or 0x7F <= o < 0xA0 or 0xDC80 <= o <= 0xDCFF:
        return -1
    if o == 0xAD:
        return 1
    cat = unicodedata.category(ch)
    if cat in ("Mn", "Me", "Cf") or 0x1160 <= o <= 0x11FF or o == 0x200B:
        return 0
    if cat in ("Cn", "Cs", "Co"):
        return -1 if cat != "Co" else 1
    if unicodedata.east_asian_width(ch) in ("W", "F"):
        return 2
    return 1
