"""Key extraction and comparison for sort (and the ordering rules join/uniq share).

Each ``-k`` key becomes a function from a line to a comparable value reproducing GNU
sort's comparison for its flags, so Python's stable C-level sort does the work.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from decimal import Decimal
from functools import cmp_to_key
from typing import TYPE_CHECKING, Any, TypeAlias

from vshell.records import record

if TYPE_CHECKING:
    from _typeshed import SupportsRichComparison

# What a key function returns: comparable with the same key's value for another line (an int,
# Decimal, tuple or bytes, or a Rev of one).
KeyFunction: TypeAlias = "Callable[[bytes], SupportsRichComparison]"

BLANKS = b" \t\n"
_NUM_RE = re.compile(rb"[ \t\n]*(-?)(\d*)(?:\.(\d*))?")
_INT_RE = re.compile(rb"[ \t\n]*(-?\d+)(?![\d.])")
_FLOAT_RE = re.compile(
    rb"[ \t\n\v\f\r]*([+-]?(?:0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)"
    rb"(?:[pP][+-]?\d+)?|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan))",
    re.IGNORECASE,
)
_UNITS = {ord(c): i + 1 for i, c in enumerate("KMGTPEZYRQ")}
_UNITS[ord("k")] = 1
_MONTHS = {m.encode(): i + 1 for i, m in enumerate(
    "JAN FEB MAR APR MAY JUN JUL AUG SEP OCT NOV DEC".split())}
_UPPER = bytes.maketrans(b"abcdefghijklmnopqrstuvwxyz", b"ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_NONDICT = bytes(b for b in range(256) if not (chr(b).isascii() and (chr(b).isalnum()
                                                                     or b in b" \t")))
_NONPRINT = bytes(b for b in range(256) if not (32 <= b < 127))


@record
class Key:
    sword: int = 0           # 0-based start field
    schar: int = 0           # 0-based start char
    eword: int | None = None  # 0-based end field (None: end of line)
    echar: int = 0           # 1-based end char, 0 = end of field
    skipsblanks: bool = False
    skipeblanks: bool = False
    dictionary: bool = False
    nonprinting: bool = False
    fold: bool = False
    numeric: bool = False
    general: bool = False
    human: bool = False
    month: bool = False
    version: bool = False
    random: bool = False
    reverse: bool = False

    def has_ordering(self) -> bool:
        return any((self.skipsblanks, self.skipeblanks, self.dictionary, self.nonprinting,
                    self.fold, self.numeric, self.general, self.human, self.month,
                    self.version, self.random, self.reverse))

    def flags(self) -> str:
        s = ""
        if self.skipsblanks or self.skipeblanks:
            s += "b"
        s += "d" if self.dictionary else ""
        s += "f" if self.fold else ""
        s += "g" if self.general else ""
        s += "h" if self.human else ""
        s += "i" if self.nonprinting else ""
        s += "M" if self.month else ""
        s += "n" if self.numeric else ""
        s += "R" if self.random else ""
        s += "r" if self.reverse else ""
        s += "V" if self.version else ""
        return s

    def incompatible(self) -> bool:
        kinds = self.numeric + self.general + self.human + self.month + (
            self.version or self.random)
        if self.version and self.random:
            kinds += 1
        num = self.numeric or self.general or self.human or self.month
        return kinds > 1 or ((self.dictionary or self.nonprinting) and num)

    def set_flag(self, ch: str, where: str = "both") -> bool:
        if ch == "b":
            if where in ("both", "start"):
                self.skipsblanks = True
            if where in ("both", "end"):
                self.skipeblanks = True
        elif ch in _FLAG_FIELD:
            setattr(self, _FLAG_FIELD[ch], True)
        else:
            return False
        return True


# The ordering letters of -k and the global options, and the key field each turns on
# (``b`` is apart: it can apply to the start or the end of a key).
_FLAG_FIELD = {
    "d": "dictionary", "f": "fold", "g": "general", "h": "human", "i": "nonprinting",
    "M": "month", "n": "numeric", "R": "random", "r": "reverse", "V": "version",
}

_SKIP_CACHE: dict[int, re.Pattern[bytes]] = {}


def _skip_fields(n: int) -> re.Pattern[bytes]:
    """A regex matching ``n`` blank-separated fields (leading blanks belong to a field)."""
    rx = _SKIP_CACHE.get(n)
    if rx is None:
        rx = re.compile(rb"(?:[ \t\n]*[^ \t\n]*){%d}" % n)
        _SKIP_CACHE[n] = rx
    return rx


def extract(line: bytes, key: Key, tab: bytes | None) -> bytes:
    """The bytes of ``key`` in ``line`` (GNU begfield/limfield)."""
    lim = len(line)
    # start
    ptr = 0
    sword = key.sword
    if tab is not None:
        while ptr < lim and sword:
            sword -= 1
            j = line.find(tab, ptr)
            ptr = lim if j < 0 else j + 1
    elif sword >= lim:  # a field takes at least one byte: all of them are skipped
        ptr = lim
    elif sword:
        m = _skip_fields(sword).match(line)
        ptr = m.end() if m else lim
    if key.skipsblanks:
        ptr = lim - len(line[ptr:].lstrip(BLANKS)) if ptr < lim else ptr
    beg = min(lim, ptr + key.schar)
    # end
    if key.eword is None:
        end = lim
    else:
        eword = key.eword + (1 if key.echar == 0 else 0)
        ptr = 0
        if tab is not None:
            while ptr < lim and eword:
                eword -= 1
                j = line.find(tab, ptr)
                ptr = lim if j < 0 else j
                if ptr < lim and (eword or key.echar):
                    ptr += 1
        elif eword >= lim:
            ptr = lim
        elif eword:
            m = _skip_fields(eword).match(line)
            ptr = m.end() if m else lim
        if key.echar:
            if key.skipeblanks and ptr < lim:
                ptr = lim - len(line[ptr:].lstrip(BLANKS))
            ptr = min(lim, ptr + key.echar)
        end = ptr
    if end <= beg:
        return b""
    return line[beg:end]


def _numeric(text: bytes) -> int | Decimal:
    """GNU -n: leading blanks, optional '-', digits, optional fraction; else 0."""
    if text.isdigit() and len(text) < 4000:  # a plain count: int() reads it as GNU does
        return int(text)
    m = _INT_RE.match(text)  # blanks, an integer, no fraction: uniq -c's "      3 word"
    if m is not None and len(m.group(1)) < 4000:
        return int(m.group(1))
    m = _NUM_RE.match(text)
    if not m:
        return 0
    sign, ip, fp = m.group(1), m.group(2), m.group(3)
    if fp is None or not fp.strip(b"0"):
        if not ip:
            return 0
        if len(ip) >= 4000:  # past int()'s digit limit: Decimal has none
            return Decimal((sign + ip).decode())
        v = int(ip)
        return -v if sign else v
    return Decimal((sign + (ip or b"0") + b"." + fp).decode())


numeric_key = _numeric
"""The whole-line ``-n`` key: :func:`key_function` returns this very function for it."""


def integer_lines(lines: list[bytes]) -> bool | None:
    """Whether ``int`` orders ``lines`` as ``-n`` does: None unless every line is a plain
    decimal integer (``-?[0-9]+``, which ``int`` reads as GNU does: no ``+``, ``_`` or
    white space; one too long for ``int`` makes it raise ValueError); else whether lines
    that differ can have equal values (a leading zero: ``07``, ``-0``), so that ties need
    the last-resort order.

    Checked over the joined lines at C speed: no Python call per line.
    """
    if not lines:
        return None
    joined = b"\n".join(lines)
    if joined.count(b"\n") != len(lines) - 1:
        return None  # a record holds a newline (-z)
    if not joined.translate(None, b"-\n").isdigit():
        return None  # a byte other than a digit, '-' or the separators (or no digit at all)
    if b"\n\n" in joined or joined[:1] == b"\n" or joined[-1:] == b"\n":
        return None  # an empty line
    if b"-" in joined:
        starts = joined.count(b"\n-") + (joined[:1] == b"-")
        if joined.count(b"-") != starts or b"-\n" in joined or joined[-1:] == b"-":
            return None  # a '-' that is not a sign, or a sign without digits
    return joined[:1] == b"0" or b"\n0" in joined or b"-0" in joined


def _human(text: bytes) -> tuple[int, int | Decimal]:
    m = _NUM_RE.match(text)
    if not m:
        return (0, 0)
    val = _numeric(text)
    nxt = text[m.end():m.end() + 1]
    order = _UNITS.get(nxt[0], 0) if nxt else 0
    if m.group(1) and (m.group(2) or m.group(3)):
        order = -order
    return (order, val)


def _general(text: bytes) -> tuple[int, float]:
    m = _FLOAT_RE.match(text)
    if not m:
        return (0, 0.0)
    s = m.group(1).decode()
    try:
        v = float.fromhex(s) if "x" in s.lower() else float(s)
    except ValueError:
        return (0, 0.0)
    if v != v:
        return (1, 0.0)
    return (2, v)


def _month(text: bytes) -> int:
    t = text.lstrip(BLANKS)[:3].translate(_UPPER)
    return _MONTHS.get(t, 0)


class Rev:
    """Inverts the ordering of a key component (a per-key ``r``)."""

    __slots__ = ("v",)

    def __init__(self, v: SupportsRichComparison) -> None:
        self.v = v

    def __lt__(self, other: Rev) -> bool:
        return bool(other.v < self.v)  # type: ignore[operator]  # typeshed's union has no one-sided pair

    def __gt__(self, other: Rev) -> bool:
        return bool(other.v > self.v)  # type: ignore[operator]  # typeshed's union has no one-sided pair

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rev) and self.v == other.v


def key_function(key: Key, tab: bytes | None, whole: bool, salt: bytes) -> KeyFunction:
    """A function line -> comparable value for one key."""
    conv: KeyFunction
    if key.numeric:
        conv = _numeric
    elif key.general:
        conv = _general
    elif key.human:
        conv = _human
    elif key.month:
        conv = _month
    elif key.version:
        conv = _version_key
    elif key.random:
        def conv(t: bytes) -> tuple[bytes, bytes]:
            t = _text(t, key)
            return (hashlib.md5(salt + t).digest(), t)
    else:
        def conv(t: bytes) -> bytes:
            return _text(t, key)
    if whole and key.sword == 0 and key.schar == 0 and key.eword is None \
            and not key.skipsblanks:
        get = None
    else:
        def get(line: bytes) -> bytes:
            return extract(line, key, tab)
    fn: KeyFunction
    if get is None:
        fn = conv
    else:
        def fn(line: bytes) -> SupportsRichComparison:
            return conv(get(line))
    if key.reverse:
        def rfn(line: bytes) -> Rev:
            return Rev(fn(line))
        return rfn
    return fn


def _text(t: bytes, key: Key) -> bytes:
    if key.dictionary:
        t = t.translate(None, _NONDICT)
    elif key.nonprinting:
        t = t.translate(None, _NONPRINT)
    if key.fold:
        t = t.translate(_UPPER)
    return t


# ---- version sort (GNU filevercmp) ----

_SUFFIX = re.compile(rb"(?:\.[A-Za-z~][A-Za-z0-9~]*)*\Z")


def _order(c: int | None) -> int:
    if c is None:
        return 0
    if 48 <= c <= 57:
        return 0
    if (65 <= c <= 90) or (97 <= c <= 122):
        return c
    if c == 126:
        return -1
    return c + 256


def _verrevcmp(a: bytes, b: bytes) -> int:
    i = j = 0
    la, lb = len(a), len(b)
    while i < la or j < lb:
        first_diff = 0
        while (i < la and not (48 <= a[i] <= 57)) or (j < lb and not (48 <= b[j] <= 57)):
            ac = _order(a[i]) if i < la else 0
            bc = _order(b[j]) if j < lb else 0
            if ac != bc:
                return ac - bc
            i += 1
            j += 1
        while i < la and a[i] == 48:
            i += 1
        while j < lb and b[j] == 48:
            j += 1
        while i < la and j < lb and 48 <= a[i] <= 57 and 48 <= b[j] <= 57:
            if not first_diff:
                first_diff = a[i] - b[j]
            i += 1
            j += 1
        if i < la and 48 <= a[i] <= 57:
            return 1
        if j < lb and 48 <= b[j] <= 57:
            return -1
        if first_diff:
            return first_diff
    return 0


def _is_sfx_char(c: int) -> bool:
    return (48 <= c <= 57) or (65 <= c <= 90) or (97 <= c <= 122) or c == 0x7E


def _file_prefix_len(s: bytes) -> int:
    """Length of ``s`` before its trailing run of ``.suffix`` parts (file suffixes)."""
    n = len(s)
    i = 0
    while True:
        prefixlen = i
        while i + 1 < n and s[i] == 0x2E and (
            (65 <= s[i + 1] <= 90) or (97 <= s[i + 1] <= 122) or s[i + 1] == 0x7E
        ):
            i += 2
            while i < n and _is_sfx_char(s[i]):
                i += 1
        if i >= n:
            return prefixlen
        i += 1


def filevercmp(a: bytes, b: bytes) -> int:
    """GNU filevercmp: version-aware comparison of two strings."""
    if not a:
        return -1 if b else 0
    if not b:
        return 1
    if a[:1] == b".":
        if b[:1] != b".":
            return -1
        if a == b".":
            return -1 if b != b"." else 0
        if b == b".":
            return 1
        if a == b"..":
            return -1 if b != b".." else 0
        if b == b"..":
            return 1
    elif b[:1] == b".":
        return 1
    pa, pb = _file_prefix_len(a), _file_prefix_len(b)
    one_pass = pa == len(a) and pb == len(b)
    result = _verrevcmp(a[:pa], b[:pb])
    if result or one_pass:
        return result
    return _verrevcmp(a, b)


_ORDER = [0 if 48 <= c <= 57 else c if (65 <= c <= 90 or 97 <= c <= 122) else -1 if c == 126
          else c + 256 for c in range(256)]
_VER_TOKENS = re.compile(rb"\D+|\d+")


def _verkey(s: bytes) -> tuple:
    """A sort key ordering like verrevcmp: alternating non-digit runs (as order() tuples
    ended by the 0 that an end or a digit has) and digit runs by value (absent = 0)."""
    out: list[object] = []
    toks = _VER_TOKENS.findall(s)
    i = 0
    n = len(toks)
    while i < n:
        run = b""
        if not toks[i][:1].isdigit():
            run = toks[i]
            i += 1
        num = 0
        if i < n and toks[i][:1].isdigit():
            num = int(toks[i])
            i += 1
        out.append(tuple([_ORDER[c] for c in run] + [0]))
        out.append(num)
    out.append((0,))
    return tuple(out)


def _version_key(s: bytes) -> tuple[Any, ...]:
    """A key ordering like :func:`filevercmp` (special names, then suffix-aware versions)."""
    if not s:
        return (0,)
    if s == b".":
        return (1,)
    if s == b"..":
        return (2,)
    rank = 3 if s[:1] == b"." else 4
    p = _file_prefix_len(s)
    return (rank, _verkey(s[:p]), _verkey(s))


_version_cmp_key = cmp_to_key(filevercmp)
