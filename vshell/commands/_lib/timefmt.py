"""Time zones and strftime as GNU prints them, independent of the host's locale and zone.

``TZ`` comes from the command's environment (a zoneinfo name, ``UTC``, or a POSIX
``UTC0``/``EST5EDT``-style string that zoneinfo understands); unset or unknown means UTC, so
the sandbox never reveals the host's zone.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping

MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
FULL_MONTHS = [
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
]
FULL_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]



WIDTH_MAX = 1 << 24  # GNU pads to any int width; past this the text is refused, not built


class WidthTooLarge(ValueError):
    """A conversion's width asks for more padding than vshell builds in memory."""

def zone(env: Mapping[str, str]) -> _dt.tzinfo:
    """The tzinfo for ``TZ`` in ``env`` (UTC when unset, empty or unknown)."""
    name = env.get("TZ", "")
    name = name.removeprefix(":")
    if not name or name in ("UTC", "UTC0", "GMT", "GMT0", "Z"):
        return _dt.UTC
    try:
        import zoneinfo

        return zoneinfo.ZoneInfo(name)
    except (ValueError, OSError, ImportError):  # ZoneInfoNotFoundError is a KeyError
        return _fixed_posix(name)
    except KeyError:
        return _fixed_posix(name)


def _fixed_posix(name: str) -> _dt.tzinfo:
    """A POSIX TZ string without DST rules (``EST5``, ``UTC-2``); otherwise UTC as glibc does."""
    import re

    m = re.fullmatch(r"([A-Za-z]{3,})([+-]?)(\d{1,2})(?::(\d{2}))?", name)
    if not m:
        return _dt.timezone(_dt.timedelta(0), "UTC")
    sign = -1 if m.group(2) != "-" else 1
    delta = _dt.timedelta(hours=int(m.group(3)), minutes=int(m.group(4) or 0))
    return _dt.timezone(sign * delta, m.group(1))


def localtime(ts: float, tz: _dt.tzinfo) -> _dt.datetime:
    return _dt.datetime.fromtimestamp(ts, tz)


def _tzname(d: _dt.datetime) -> str:
    name = d.tzname() or "UTC"
    return name


def _offset(d: _dt.datetime, colons: int = 0) -> str:
    off = d.utcoffset() or _dt.timedelta(0)
    secs = int(off.total_seconds())
    sign = "-" if secs < 0 else "+"
    secs = abs(secs)
    h, rem = divmod(secs, 3600)
    m, s = divmod(rem, 60)
    if colons == 0:
        return f"{sign}{h:02d}{m:02d}"
    if colons == 1:
        return f"{sign}{h:02d}:{m:02d}"
    return f"{sign}{h:02d}:{m:02d}:{s:02d}"


def strftime(fmt: str, d: _dt.datetime, nanos: int = 0) -> str:
    """GNU date's strftime in the C locale, with ``%N``, ``%:z``, ``%-d`` style flags."""
    out: list[str] = []
    i = 0
    n = len(fmt)
    while i < n:
        j = fmt.find("%", i)
        if j < 0 or j + 1 >= n:  # no directive left (a final lone % is plain text)
            out.append(fmt[i:])
            break
        out.append(fmt[i:j])
        i = j + 1
        flag = ""
        while i < n and fmt[i] in "-_0^#":
            flag = fmt[i]
            i += 1
        width = ""
        while i < n and fmt[i].isdigit():
            width += fmt[i]
            i += 1
        if width and (len(width) > 9 or int(width) > WIDTH_MAX):
            raise WidthTooLarge(f"{width}: field width too large")
        colons = 0
        while i < n and fmt[i] == ":":
            colons += 1
            i += 1
        if i >= n:
            out.append("%" + flag + width + ":" * colons)
            break
        conv = fmt[i]
        i += 1
        out.append(_conv(conv, d, nanos, flag, width, colons))
    return "".join(out)


def _num(value: int, default_width: int, flag: str, width: str, pad: str = "0") -> str:
    w = int(width) if width else default_width
    if flag == "-":
        return str(value)
    if flag == "_":
        pad = " "
    elif flag == "0":
        pad = "0"
    s = str(abs(value))
    s = s.rjust(w - (1 if value < 0 else 0), pad)
    return ("-" + s) if value < 0 else s


# the directives that stand for one character
_CHARS = {"%": "%", "n": "\n", "t": "\t"}


def _conv(c: str, d: _dt.datetime, nanos: int, flag: str, width: str, colons: int) -> str:
    char = _CHARS.get(c)
    if char is not None:
        return char
    if c == "N":
        digits = str(nanos).rjust(9, "0")
        if width:
            return digits[: int(width)].ljust(int(width), "0")
        return digits
    if c == "z":
        return _offset(d, colons)
    text: str | None = None
    if c == "a":
        text = DAYS[d.weekday()]
    elif c == "A":
        text = FULL_DAYS[d.weekday()]
    elif c in "bh":
        text = MONTHS[d.month - 1]
    elif c == "B":
        text = FULL_MONTHS[d.month - 1]
    elif c == "p":
        text = "AM" if d.hour < 12 else "PM"
    elif c == "P":
        text = "am" if d.hour < 12 else "pm"
    elif c == "Z":
        text = _tzname(d)
    elif c == "c":
        text = strftime("%a %b %e %H:%M:%S %Y", d)
    elif c == "D" or c == "x":
        text = strftime("%m/%d/%y", d)
    elif c == "F":
        text = strftime("%Y-%m-%d", d)
    elif c == "T" or c == "X":
        text = strftime("%H:%M:%S", d)
    elif c == "R":
        text = strftime("%H:%M", d)
    elif c == "r":
        text = strftime("%I:%M:%S %p", d)
    if text is not None:
        if flag == "^" or (flag == "#" and c in "abhBAp"):
            text = text.upper() if flag == "^" or c != "p" else text.lower()
        if width:
            text = text.rjust(int(width), "0" if flag == "0" else " ")
        return text
    if c == "Y":
        return _num(d.year, 1, flag, width)
    if c == "C":
        return _num(d.year // 100, 2, flag, width)
    if c == "y":
        return _num(d.year % 100, 2, flag, width)
    if c == "G":
        return _num(d.isocalendar()[0], 1, flag, width)
    if c == "g":
        return _num(d.isocalendar()[0] % 100, 2, flag, width)
    if c == "m":
        return _num(d.month, 2, flag, width)
    if c == "d":
        return _num(d.day, 2, flag, width)
    if c == "e":
        return _num(d.day, 2, flag or "_", width)
    if c == "H":
        return _num(d.hour, 2, flag, width)
    if c == "k":
        return _num(d.hour, 2, flag or "_", width)
    if c == "I":
        return _num((d.hour % 12) or 12, 2, flag, width)
    if c == "l":
        return _num((d.hour % 12) or 12, 2, flag or "_", width)
    if c == "M":
        return _num(d.minute, 2, flag, width)
    if c == "S":
        return _num(d.second, 2, flag, width)
    if c == "j":
        return _num(d.timetuple().tm_yday, 3, flag, width)
    if c == "u":
        return _num(d.isoweekday(), 1, flag, width)
    if c == "w":
        return _num(d.isoweekday() % 7, 1, flag, width)
    if c == "V":
        return _num(d.isocalendar()[1], 2, flag, width)
    if c == "U":
        yday = d.timetuple().tm_yday - 1
        return _num((yday + 7 - (d.isoweekday() % 7)) // 7, 2, flag, width)
    if c == "W":
        yday = d.timetuple().tm_yday - 1
        return _num((yday + 7 - ((d.weekday()) % 7)) // 7, 2, flag, width)
    if c == "s":
        return _num(int(d.timestamp()), 1, flag, width)
    return "%" + flag + width + ":" * colons + c
