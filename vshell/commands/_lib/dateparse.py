"""The common part of GNU's date-string grammar, for ``date -d`` and ``touch -d``.

Understood: ``@EPOCH[.frac]``, ``now``/``today``/``yesterday``/``tomorrow``, ISO 8601 dates
and date-times (``2024-03-01``, ``2024-03-01T12:30:00Z``, ``2024-03-01 12:30:45.5 +02:00``),
``MM/DD/YYYY``, ``YYYYMMDD``, month-name dates (``Mar 1 2024``, ``1 March 2024``), RFC 2822
(``Fri, 01 Mar 2024 12:00:00 +0000``), times of day (``14:05``, ``2:05pm``), and relative
items (``3 days ago``, ``+2 hours``, ``next week``, ``last month``), combined freely.
Anything else is a ValueError (the caller prints GNU's "invalid date").
"""

from __future__ import annotations

import calendar
import datetime as _dt
import re

_MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
_WDAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
_UNITS = {
    "year": ("months", 12), "month": ("months", 1), "fortnight": ("seconds", 14 * 86400),
    "week": ("seconds", 7 * 86400), "day": ("days", 1), "hour": ("seconds", 3600),
    "minute": ("seconds", 60), "min": ("seconds", 60), "second": ("seconds", 1),
    "sec": ("seconds", 1),
}


def _zone_re(group: str) -> str:
    return (
        rf"(?:\s*(?P<{group}>z|utc|gmt|ut|[+-]\d{{2}}(?::?\d{{2}})?)(?![a-z0-9])"
        r"(?!\s*(?:year|month|fortnight|week|day|hour|minute|min|second|sec)))?"
    )


_ZONE = _zone_re("zone")
_TIME = (
    r"(?P<h>\d{1,2}):(?P<mi>\d{2})(?::(?P<s>\d{2})(?:[.,](?P<frac>\d+))?)?"
    r"(?:\s*(?P<ampm>am|pm|a\.m\.|p\.m\.))?" + _ZONE
)
_PATTERNS = [
    ("iso", re.compile(
        r"(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})(?:(?:t|\s+)" + _TIME + r"|"
        + _zone_re("zone2") + ")")),
    ("us", re.compile(r"(?P<m>\d{1,2})/(?P<d>\d{1,2})(?:/(?P<y>\d{2,4}))?")),
    ("time", re.compile(_TIME)),
    ("hour_ampm", re.compile(r"(?P<h>\d{1,2})\s*(?P<ampm>am|pm)")),
    ("mdy", re.compile(
        r"(?P<mon>jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s*(?P<d>\d{1,2})"
        r"(?:(?:,\s*|\s+)(?P<y>\d{4})(?!:))?")),
    ("dmy", re.compile(
        r"(?P<d>\d{1,2})[\s-]*(?P<mon>jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)"
        r"[a-z]*\.?(?:[\s-]*(?P<y>\d{4})(?!:))?")),
    ("ymd8", re.compile(r"(?P<y>\d{4})(?P<m>\d{2})(?P<d>\d{2})(?!\d)")),
    ("wday", re.compile(r"(?:(?P<ord>next|last|this|[+-]?\d+)\s+)?"
                        r"(?P<w>sun|mon|tue|wed|thu|fri|sat)(?:day|s|sday|nesday|rs|rsday|urday)?"
                        r"\.?,?(?![a-z])")),
    ("rel", re.compile(
        r"(?P<n>[+-]?\s*\d+|next|last|this)?\s*(?P<unit>year|month|fortnight|week|day|hour|"
        r"minute|min|second|sec)s?(?![a-z])(?P<ago>\s+ago)?")),
    ("word", re.compile(r"(?P<word>now|today|yesterday|tomorrow|midnight|noon)(?![a-z])")),
    ("zone", re.compile(r"(?P<zone>z|utc|gmt|ut|[+-]\d{2}:?\d{2})(?![a-z0-9])")),
    ("year", re.compile(r"(?P<y>\d{4})(?![\d:])")),
]


def _zone_offset(text: str) -> _dt.tzinfo:
    if text in ("z", "utc", "gmt", "ut"):
        return _dt.UTC
    sign = -1 if text[0] == "-" else 1
    digits = text[1:].replace(":", "")
    if len(digits) <= 2:
        h, m = int(digits), 0
    else:
        h, m = int(digits[:-2]), int(digits[-2:])
    return _dt.timezone(sign * _dt.timedelta(hours=h, minutes=m))


def _match(s: str, pos: int) -> tuple[str, re.Match[str]] | None:
    """The first grammar item that matches at ``pos``."""
    for kind, pat in _PATTERNS:
        mm = pat.match(s, pos)
        if mm and mm.end() > pos:
            return kind, mm
    return None


def parse(text: str, now: float, tz: _dt.tzinfo) -> tuple[int, int]:
    """Seconds since the epoch and nanoseconds for ``text``; ValueError if not understood
    or out of every calendar's range (``99999999999999999999 years``)."""
    try:
        return _parse(text, now, tz)
    except (OverflowError, OSError) as e:  # a date past C's time_t or datetime's years
        raise ValueError(str(e)) from None


def _parse(text: str, now: float, tz: _dt.tzinfo) -> tuple[int, int]:
    s = text.strip().lower()
    m = re.fullmatch(r"@\s*([+-]?\d+)(?:[.,](\d+))?", s)
    if m:
        secs = int(m.group(1))
        frac = (m.group(2) or "")[:9].ljust(9, "0")
        return secs, int(frac)
    date: tuple[int, int, int] | None = None
    clock: tuple[int, int, int, int] | None = None
    zone: _dt.tzinfo | None = None
    months = days = seconds = 0
    weekday: tuple[int, int] | None = None
    pos = 0
    while True:
        while pos < len(s) and (s[pos].isspace() or s[pos] == ","):
            pos += 1
        if pos >= len(s):
            break
        found = _match(s, pos)
        if found is None:
            raise ValueError(text)
        kind, mm = found
        g = mm.groupdict()
        pos = mm.end()
        if kind in ("iso", "ymd8", "us", "mdy", "dmy"):
            if date is not None:
                raise ValueError(text)
            if "mon" in g and g.get("mon"):
                month = _MONTHS.index(g["mon"]) + 1
            else:
                month = int(g["m"])
            year_text = g.get("y")
            if year_text is None:
                year = _dt.datetime.fromtimestamp(now, tz).year
            else:
                year = int(year_text)
                if len(year_text) == 2:
                    year += 2000 if year < 69 else 1900
            date = (year, month, int(g["d"]))
        if g.get("h") is not None:
            if clock is not None:
                raise ValueError(text)
            hour = int(g["h"])
            ampm = (g.get("ampm") or "").replace(".", "")
            if ampm:
                if not 1 <= hour <= 12:
                    raise ValueError(text)
                hour = hour % 12 + (12 if ampm == "pm" else 0)
            frac = (g.get("frac") or "")[:9].ljust(9, "0")
            clock = (hour, int(g.get("mi") or 0), int(g.get("s") or 0), int(frac))
        if g.get("zone") or g.get("zone2"):
            zone = _zone_offset(g.get("zone") or g["zone2"])
        if kind == "wday":
            if weekday is not None:
                raise ValueError(text)
            ordinal = {"next": 1, "last": -1, "this": 0, None: 0}.get(g.get("ord"))
            if ordinal is None:
                ordinal = int(g["ord"])
            weekday = (_WDAYS.index(g["w"]), ordinal)
        if kind == "rel":
            n_text = (g.get("n") or "").replace(" ", "")
            n = {"next": 1, "last": -1, "this": 0, "": 1}.get(n_text)
            if n is None:
                n = int(n_text)
            if g.get("ago"):
                n = -n
            field, mult = _UNITS[g["unit"]]
            if field == "months":
                months += n * mult
            elif field == "days":
                days += n * mult
            else:
                seconds += n * mult
        elif kind == "word":
            word = g["word"]
            if word == "yesterday":
                days -= 1
            elif word == "tomorrow":
                days += 1
            elif word == "midnight":
                clock = (0, 0, 0, 0)
            elif word == "noon":
                clock = (12, 0, 0, 0)
        elif kind == "year":
            if date is None:
                raise ValueError(text)
            date = (int(g["y"]), date[1], date[2])
    use_tz = zone or tz
    base = _dt.datetime.fromtimestamp(int(now), use_tz)
    nanos = round((now - int(now)) * 1e9) if date is None and clock is None else 0
    y, mo, d = date if date is not None else (base.year, base.month, base.day)
    if weekday is not None and clock is None and date is None:
        clock = (0, 0, 0, 0)
    if date is not None or clock is not None:
        hh, mi, ss, nanos = clock if clock is not None else (0, 0, 0, 0)
    else:
        hh, mi, ss = base.hour, base.minute, base.second
    if not (1 <= mo <= 12) or not (1 <= d <= 31) or hh > 24 or mi > 59 or ss > 60:
        raise ValueError(text)
    if d > calendar.monthrange(y, mo)[1]:
        raise ValueError(text)
    if months:
        total = y * 12 + (mo - 1) + months
        y, mo = divmod(total, 12)
        mo += 1
    # day overflow after month arithmetic normalises forward, as mktime does
    extra_days = 0
    last = calendar.monthrange(y, mo)[1]
    if d > last:
        extra_days = d - last
        d = last
    try:
        naive = _dt.datetime(y, mo, d, hh % 24, mi, min(ss, 59))
    except ValueError:
        raise ValueError(text) from None
    naive += _dt.timedelta(days=days + extra_days + (1 if hh == 24 else 0))
    if weekday is not None:
        want, n = weekday
        cur = naive.weekday()
        naive += _dt.timedelta(days=(want - cur + 7) % 7 + 7 * (n - (1 if n > 0 and cur != want
                                                                        else 0)))
    if zone is not None:
        aware = naive.replace(tzinfo=zone)
    elif date is None and clock is None:
        # mktime keeps the DST flag of "now" for purely relative dates, as GNU does
        aware = naive.replace(tzinfo=_dt.timezone(base.utcoffset() or _dt.timedelta(0)))
    else:
        aware = _localize(naive, tz)
    ts = int(aware.timestamp()) + seconds
    return ts, nanos


def _localize(naive: _dt.datetime, tz: _dt.tzinfo) -> _dt.datetime:
    """Attach ``tz`` to a wall-clock time (the earlier of two at a DST overlap)."""
    return naive.replace(tzinfo=tz, fold=0)
