"""Building ``os.stat_result`` values for synthetic and in-memory entries."""

from __future__ import annotations

import os

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    from typing import Any

__all__ = ["crc32", "make_stat", "to_stat_result", "with_counts"]

_CRC_TABLE: list[int] = []  # crc32's, filled at its first call


def crc32(data: bytes) -> int:
    """``zlib.crc32(data)``, the inode number of a synthetic entry (hashed from its path).

    Written out because those names are short and zlib, an extension module linking libz,
    costs ~0.3 ms to load: ``vshell -c true`` stats ``/``, a synthetic directory.
    """
    table = _CRC_TABLE or _crc_table()
    crc = 0xFFFFFFFF
    for byte in data:
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def _crc_table() -> list[int]:
    """CRC-32's table (reflected polynomial 0xEDB88320): each single-bit byte by eight
    shifts, the others by XOR, as the register's update is linear in the byte."""
    table = [0] * 256
    for bit in range(8):
        crc = 1 << bit
        for _ in range(8):
            crc = (crc >> 1) ^ 0xEDB88320 if crc & 1 else crc >> 1
        table[1 << bit] = crc
    for i in range(1, 256):
        low = i & -i
        table[i] = table[low] ^ table[i ^ low]
    _CRC_TABLE[:] = table
    return table


def make_stat(
    mode: int,
    ino: int,
    dev: int,
    nlink: int,
    uid: int,
    gid: int,
    size: int,
    atime_ns: int,
    mtime_ns: int,
    ctime_ns: int,
) -> os.stat_result:
    """An ``os.stat_result`` with the float and ``_ns`` time fields filled in."""
    return os.stat_result(
        (
            mode,
            ino,
            dev,
            nlink,
            uid,
            gid,
            size,
            atime_ns // 1_000_000_000,
            mtime_ns // 1_000_000_000,
            ctime_ns // 1_000_000_000,
            atime_ns / 1e9,
            mtime_ns / 1e9,
            ctime_ns / 1e9,
            atime_ns,
            mtime_ns,
            ctime_ns,
            4096,
            (size + 511) // 512,
            0,  # st_blksize, st_blocks, st_rdev
        )
    )


def to_stat_result(st: Any) -> os.stat_result:
    """Convert a stat-like object (pyfakefs's FakeStatResult) to ``os.stat_result``."""
    if isinstance(st, os.stat_result):
        return st

    def ns(field: str) -> int:
        value = getattr(st, field + "_ns", None)
        if value is None:
            value = int(getattr(st, field) * 1e9)
        return int(value)

    return make_stat(
        int(st.st_mode),
        int(st.st_ino or 0),
        int(st.st_dev or 0),
        int(st.st_nlink or 1),
        int(st.st_uid or 0),
        int(st.st_gid or 0),
        int(st.st_size or 0),
        ns("st_atime"),
        ns("st_mtime"),
        ns("st_ctime"),
    )



def with_counts(info: os.stat_result, nlink: int, size: int) -> os.stat_result:
    """A copy of ``info`` with another link count and size (every other field kept)."""
    fields = list(info[:10])
    fields[3] = nlink
    fields[6] = size
    extra = ("st_atime", "st_mtime", "st_ctime", "st_atime_ns", "st_mtime_ns", "st_ctime_ns",
             "st_blksize")
    blocks = (size + 511) // 512
    rdev = getattr(info, "st_rdev", 0)
    return os.stat_result((*fields, *(getattr(info, name, 0) for name in extra), blocks, rdev))
