"""cksum: GNU coreutils 9.1's CRC (the POSIX one), sum's BSD and SysV checksums, and the
digests of md5sum and friends (``-a``), tagged by default, with ``-c`` for the digests."""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Callable, Iterable

from vshell.command import Exit, Invocation
from vshell.commands import checksum
from vshell.commands._lib import textio as tio

_ALGORITHMS = ("bsd", "sysv", "crc", "md5", "sha1", "sha224", "sha256", "sha384", "sha512",
               "blake2b", "sm3")
_LEGACY = ("bsd", "sysv", "crc")
_TAGS = {"md5": "MD5", "sha1": "SHA1", "sha224": "SHA224", "sha256": "SHA256",
         "sha384": "SHA384", "sha512": "SHA512", "blake2b": "BLAKE2b", "sm3": "SM3"}
_BIT_REVERSED = bytes(int(f"{b:08b}"[::-1], 2) for b in range(256))


def posix_crc(chunks: Iterable[bytes]) -> tuple[int, int]:
    """The POSIX ``cksum`` CRC (polynomial 0x04C11DB7, MSB first, length appended,
    complemented) and the byte count.  zlib's CRC-32 is the same polynomial bit-reflected,
    so it runs on bit-reversed bytes and its register is reversed back at the end."""
    reg = 0  # the reflected register, initial value 0, no final xor
    size = 0
    for data in chunks:
        size += len(data)
        reg = zlib.crc32(data.translate(_BIT_REVERSED), reg ^ 0xFFFFFFFF) ^ 0xFFFFFFFF
    n = size
    tail = bytearray()
    while n:
        tail.append(n & 0xFF)
        n >>= 8
    reg = zlib.crc32(bytes(tail).translate(_BIT_REVERSED), reg ^ 0xFFFFFFFF) ^ 0xFFFFFFFF
    crc = int(f"{reg:032b}"[::-1], 2)
    return crc ^ 0xFFFFFFFF, size


def sysv_sum(chunks: Iterable[bytes]) -> tuple[int, int]:
    """``sum -s``: the byte sum folded to 16 bits, and 512-byte blocks."""
    total = size = 0
    for data in chunks:
        total += sum(data)
        size += len(data)
    r = (total & 0xFFFF) + ((total & 0xFFFFFFFF) >> 16)
    return (r & 0xFFFF) + (r >> 16), -(-size // 512)


def bsd_sum(chunks: Iterable[bytes]) -> tuple[int, int]:
    """``sum -r``: the 16-bit rotate-and-add checksum, and 1024-byte blocks."""
    ck = size = 0
    for data in chunks:
        size += len(data)
        for byte in data:
            ck = (((ck >> 1) | ((ck & 1) << 15)) + byte) & 0xFFFF
    return ck, -(-size // 1024)


def _legacy_line(algo: str, chunks: Iterable[bytes]) -> str:
    if algo == "crc":
        crc, size = posix_crc(chunks)
        return f"{crc} {size}"
    if algo == "sysv":
        ck, blocks = sysv_sum(chunks)
        return f"{ck} {blocks}"
    ck, blocks = bsd_sum(chunks)
    return f"{ck:05d} {blocks:5d}"


def _hasher(algo: str, bits: int) -> Callable[[], object]:
    if algo == "blake2b" and bits:
        return lambda: hashlib.blake2b(digest_size=bits // 8)
    return lambda: hashlib.new(algo)


def _parse_length(inv: Invocation, text: str, algo: str) -> int:
    """``-l BITS`` for blake2b (0: its full 512 bits); GNU's messages otherwise."""
    if not text.isdigit():
        inv.error(f"invalid length: {tio.quote(text)}")
        raise Exit(1)
    bits = int(text)
    if bits > 512:
        inv.error(f"invalid length: {tio.quote(text)}")
        inv.error("maximum digest length for \u2018BLAKE2b\u2019 is 512 bits")
        raise Exit(1)
    if bits % 8:
        inv.error(f"invalid length: {tio.quote(text)}")
        inv.error("length is not a multiple of 8")
        raise Exit(1)
    if algo != "blake2b":
        inv.error("--length is only supported with --algorithm=blake2b")
        raise Exit(1)
    return 0 if bits in (0, 512) else bits


def _bad_algorithm(inv: Invocation, text: str) -> Exception:
    valid = "".join(f"  - \u2018{a}\u2019\n" for a in _ALGORITHMS)
    inv.stderr.write(
        f"cksum: invalid argument {tio.quote(text)} for \u2018--algorithm\u2019\n"
        f"Valid arguments are:\n{valid}Try 'cksum --help' for more information.\n".encode())
    return Exit(1)


def run(inv: Invocation) -> int:
    opts = tio.options(inv, "a:cl:wz", [
        "algorithm=", "check", "length=", "tag", "untagged", "zero", "ignore-missing",
        "quiet", "status", "strict", "warn", "debug", "base64", "raw"])
    algo = "crc"
    given = opts.last("-a", "--algorithm")
    if given is not None:
        if given not in _ALGORITHMS:  # GNU 9.1 takes no abbreviation here
            raise _bad_algorithm(inv, given)
        algo = given
    bits = 0
    length = opts.last("-l", "--length")
    if length is not None:
        bits = _parse_length(inv, length, algo)
    files = opts.operands or ["-"]
    if opts.has("-c", "--check"):
        if algo in _LEGACY:
            if given is not None:
                inv.error("--check is not supported with --algorithm={bsd,sysv,crc}")
                return 1
            for name in files:
                shown = "standard input" if name == "-" else name
                inv.error(f"{tio.squote(shown)}: no properly formatted checksum lines found")
            return 1
        return checksum._check_all(inv, algo, _TAGS[algo], files, opts)
    untagged = _untagged(inv)
    zero = opts.has("-z", "--zero")
    end = b"\0" if zero else b"\n"
    status = 0
    for name in files:
        inv.cancel.check()
        try:
            line = _one(inv, algo, bits, name, untagged, zero)
        except OSError as e:
            inv.error(f"{tio.squote(name)}: {tio.strerror(e)}")
            status = 1
            continue
        inv.stdout.write(line.encode("utf-8", "surrogateescape") + end)
    return status


def _untagged(inv: Invocation) -> bool:
    """The last of --tag / --untagged wins (GNU's default is --tag)."""
    untagged = False
    for arg in inv.args:
        if arg == "--":
            break
        if arg == "--untagged":
            untagged = True
        elif arg == "--tag":
            untagged = False
    return untagged


def _one(inv: Invocation, algo: str, bits: int, name: str, untagged: bool, zero: bool) -> str:
    f = tio.open_input(inv, name)
    try:
        chunks = tio.chunks(inv, f, 1 << 18)
        if algo in _LEGACY:
            line = _legacy_line(algo, chunks)
            return line if name == "-" else f"{line} {name}"
        h = _hasher(algo, bits)()
        for data in chunks:
            h.update(data)  # type: ignore[attr-defined]  # every hasher has update/hexdigest
        digest = h.hexdigest()  # type: ignore[attr-defined]  # every hasher has update/hexdigest
    finally:
        tio.close_input(inv, f)
    shown, escaped = (name, False) if zero else checksum._escape(name)
    prefix = "\\" if escaped else ""
    if untagged:
        return f"{prefix}{digest}  {shown}"
    tag = _TAGS[algo] + (f"-{bits}" if bits else "")
    return f"{prefix}{tag} ({shown}) = {digest}"
