"""awk's built-in string, arithmetic and time functions (the parts that are not syntax)."""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Iterator

from vshell.commands.awk.values import UNINIT, StrNum, compare, str2num, to_num

_WS = re.compile(r"[^ \t\n]+")


def substr(s: str, m: float, n: float | None) -> str:
    """substr as gawk computes it: start and length truncated, a start below 1 is 1."""
    if m != m:
        return ""
    if math.isinf(m):
        if m > 0:
            return ""
        start = 1
    else:
        start = max(1, math.trunc(m))
    if n is None:
        return s[start - 1 :]
    if n != n or n <= 0:
        return ""
    if math.isinf(n):
        return s[start - 1 :]
    length = math.trunc(n)
    if length <= 0:
        return ""
    return s[start - 1 : start - 1 + length]


def split_string(s: str, fs: str, splitter: Callable[[str], list[str]] | None,
                 seps: list[str] | None = None) -> list[str]:
    """Split ``s`` as FS ``fs`` would (``splitter`` is the regex split for long FS)."""
    if fs == " ":
        if seps is not None:
            parts = []
            last = 0
            for m in _WS.finditer(s):
                seps.append(s[last : m.start()])
                parts.append(m.group())
                last = m.end()
            seps.append(s[last:])
            return parts
        return _WS.findall(s)
    if s == "":
        return []
    if fs == "":
        return list(s)
    if splitter is None:
        if seps is not None:
            seps.extend([fs] * s.count(fs))
        return s.split(fs)
    if seps is not None:
        return _split_keep(s, splitter, seps)
    return splitter(s)


def _split_keep(s: str, splitter: Callable[[str], list[str]], seps: list[str]) -> list[str]:
    pat = getattr(splitter, "__self__", None)
    if not hasattr(pat, "finditer"):
        return splitter(s)
    parts: list[str] = []
    last = 0
    for m in pat.finditer(s):  # type: ignore[union-attr]  # has finditer: checked above
        if m.end() == m.start():
            continue
        parts.append(s[last : m.start()])
        seps.append(m.group())
        last = m.end()
    parts.append(s[last:])
    return parts


# sub/gsub backslash runs, longest first: (what starts here, the text it gives, chars used);
# a double backslash before & uses two characters only, so that & is then the match
_REPL_BACKSLASHES = (
    ("\\\\\\&", "\\&", 4),
    ("\\\\&", "\\", 2),
    ("\\&", "&", 2),
    ("\\\\", "\\\\", 2),
)


def repl_template(repl: str) -> list[str | None]:
    """sub/gsub replacement: ``&`` is the match (None); backslashes as onetrue awk/gawk.

    ``\\&`` is a literal ``&``, ``\\\\&`` a backslash then the match, ``\\\\\\&`` a
    literal ``\\&``; any other backslash is kept.
    """
    parts: list[str | None] = []
    buf: list[str] = []
    i, n = 0, len(repl)
    while i < n:
        c = repl[i]
        if c == "\\":
            for run, text, used in _REPL_BACKSLASHES:
                if repl.startswith(run, i):
                    buf.append(text)
                    i += used
                    break
            else:
                buf.append("\\")
                i += 1
            continue
        if c == "&":
            if buf:
                parts.append("".join(buf))
                buf = []
            parts.append(None)
            i += 1
            continue
        buf.append(c)
        i += 1
    if buf:
        parts.append("".join(buf))
    return parts


def awk_matches(pat: re.Pattern[str], target: str) -> Iterator[re.Match[str]]:
    """The matches sub/gsub/gensub replace: an empty match right after one is not one."""
    last_end = -1
    for m in pat.finditer(target):
        s, e = m.span()
        if s == e and s == last_end:
            continue
        last_end = e
        yield m


def substitute(pat: re.Pattern[str], repl: str, target: str, global_: bool) -> tuple[str, int]:
    """awk sub/gsub on ``target``; returns (new text, count)."""
    parts = repl_template(repl)
    out: list[str] = []
    pos = 0
    count = 0
    for m in awk_matches(pat, target):
        s, e = m.span()
        out.append(target[pos:s])
        for p in parts:
            out.append(m.group() if p is None else p)
        pos = e
        count += 1
        if not global_:
            break
    if not count:
        return target, 0
    out.append(target[pos:])
    return "".join(out), count


def gensub(pat: re.Pattern[str], repl: str, how: object, target: str) -> str:
    """gawk gensub: ``\\0``/``&`` the match, ``\\N`` group N, how "g" or the Nth match."""
    if isinstance(how, str) and how[:1] in ("g", "G"):
        which = 0
    else:
        which = int(to_num(how)) if how is not None else 1
        if which <= 0:
            which = 1

    def expand(m: re.Match[str]) -> str:
        out: list[str] = []
        i, n = 0, len(repl)
        while i < n:
            c = repl[i]
            if c == "\\" and i + 1 < n:
                d = repl[i + 1]
                if d.isdigit():
                    g = int(d)
                    if g <= (pat.groups or 0):
                        out.append(m.group(g) or "")
                    i += 2
                    continue
                if d == "&":
                    out.append("&")
                    i += 2
                    continue
                out.append(d)
                i += 2
                continue
            if c == "&":
                out.append(m.group())
            else:
                out.append(c)
            i += 1
        return "".join(out)

    out: list[str] = []
    pos = 0
    for k, m in enumerate(awk_matches(pat, target), 1):
        s, e = m.span()
        if which == 0 or k == which:
            out.append(target[pos:s])
            out.append(expand(m))
            pos = e
            if which:
                break
    out.append(target[pos:])
    return "".join(out)


def sort_values(values: list[object], convfmt: str) -> list[object]:
    """asort order: numbers first (numerically), then strings."""
    import functools

    def key_cmp(a: object, b: object) -> int:
        an = type(a) is float
        bn = type(b) is float
        if an != bn:
            return -1 if an else 1
        return compare(a, b, convfmt)

    return sorted(values, key=functools.cmp_to_key(key_cmp))


def index_sort_key(k: str) -> tuple[int, float, str]:
    return (1, 0.0, k)


def strftime(fmt: str, ts: float, utc: bool, tz: str | None) -> str:
    import datetime

    zone: datetime.tzinfo = datetime.UTC
    if not utc and tz:
        try:
            from zoneinfo import ZoneInfo

            zone = ZoneInfo(tz)
        except Exception:  # noqa: BLE001 - unknown zone names fall back to UTC
            zone = datetime.UTC
    try:
        dt = datetime.datetime.fromtimestamp(int(ts), zone)
    except (OverflowError, OSError, ValueError):
        return ""
    if "%Z" in fmt and zone is datetime.UTC:
        fmt = fmt.replace("%Z", "UTC")
    return dt.strftime(fmt)


def mktime(spec: str, tz: str | None) -> float:
    import datetime

    parts = spec.split()
    if len(parts) < 6:
        return -1.0
    try:
        y, mo, d, h, mi, s = (int(float(p)) for p in parts[:6])
    except ValueError:
        return -1.0
    zone: datetime.tzinfo = datetime.UTC
    if tz:
        try:
            from zoneinfo import ZoneInfo

            zone = ZoneInfo(tz)
        except Exception:  # noqa: BLE001
            zone = datetime.UTC
    try:
        base = datetime.datetime(y, 1, 1, tzinfo=zone)
        dt = base + datetime.timedelta(
            days=0, hours=h, minutes=mi, seconds=s
        )
        # month/day may be out of range: normalise like mktime(3)
        mo_total = mo - 1
        y2 = y + mo_total // 12
        mo2 = mo_total % 12 + 1
        dt = datetime.datetime(y2, mo2, 1, tzinfo=zone) + datetime.timedelta(
            days=d - 1, hours=h, minutes=mi, seconds=s
        )
        del base
        return float(int(dt.timestamp()))
    except (ValueError, OverflowError):
        return -1.0


def systime() -> float:
    return float(int(time.time()))


def onetrue_order(keys: list[str]) -> list[str]:
    """for-in order of onetrue awk's hash table (50 buckets, x4 growth past 2 per bucket)."""
    n = len(keys)
    if n <= 1:
        return list(keys)
    hashes: dict[str, int] = {}
    for k in keys:
        h = 0
        for b in k.encode("utf-8", "surrogateescape"):
            if b >= 128:
                b -= 256
            h = (b + 31 * h) & 0xFFFFFFFF
        hashes[k] = h
    size = 50
    tab: list[list[str]] = [[] for _ in range(size)]
    count = 0
    for k in keys:
        count += 1
        if count > 2 * size:
            nsz = size * 4
            ntab: list[list[str]] = [[] for _ in range(nsz)]
            for chain in tab:
                for cp in reversed(chain):
                    ntab[hashes[cp] % nsz].append(cp)
            tab, size = ntab, nsz
        tab[hashes[k] % size].append(k)
    out: list[str] = []
    for chain in tab:
        out.extend(reversed(chain))
    return out


def strnum(s: str) -> StrNum:
    return StrNum(s)


__all__ = [
    "UNINIT", "gensub", "mktime", "onetrue_order", "sort_values", "split_string", "str2num",
    "strftime", "substitute", "substr", "systime",
]
