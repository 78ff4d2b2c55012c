"""File-mode expressions as chmod and mkdir -m take them: octal or symbolic (``u+x,go=r``).

The sandbox has no process umask; commands use 022, the usual default, for the
"no who given" case (``chmod +w f`` only adds u+w) exactly as GNU does with umask 022.
"""

from __future__ import annotations

import re

UMASK = 0o022

_CLAUSE = re.compile(r"([ugoa]*)((?:[-+=](?:[ugo]|[rwxXst]*))+)\Z")
_ACTION = re.compile(r"([-+=])([ugo]|[rwxXst]*)")
_WHO_BITS = {"u": 0o4700, "g": 0o2070, "o": 0o1007, "a": 0o7777}


def valid(spec: str) -> bool:
    try:
        apply(spec, 0o644, False)
    except ValueError:
        return False
    return True


def apply(spec: str, mode: int, is_dir: bool, umask: int = UMASK) -> int:
    """The permission bits (07777) that ``spec`` makes of ``mode``; ValueError if invalid."""
    mode &= 0o7777
    if spec and all(c in "01234567" for c in spec):
        value = int(spec, 8)
        if value > 0o7777:
            raise ValueError(spec)
        if is_dir and len(spec) < 5:
            value |= mode & 0o6000
        return value
    if not spec:
        raise ValueError(spec)
    for clause in spec.split(","):
        m = _CLAUSE.match(clause)
        if not m:
            raise ValueError(spec)
        who = m.group(1)
        if who:
            affected = 0
            for w in who:
                affected |= _WHO_BITS[w]
            masked = affected
        else:  # no "who": like "a", but the umask filters what is set
            affected = 0o7777
            masked = 0o7777 & ~umask
        for op, perms in _ACTION.findall(m.group(2)):
            if perms in ("u", "g", "o"):
                shift = {"u": 6, "g": 3, "o": 0}[perms]
                rwx = (mode >> shift) & 7
                bits = rwx << 6 | rwx << 3 | rwx
                bits &= affected & 0o777
                if not who:
                    bits &= masked
            else:
                bits = 0
                for p in perms:
                    if p == "r":
                        bits |= 0o444
                    elif p == "w":
                        bits |= 0o222
                    elif p == "x":
                        bits |= 0o111
                    elif p == "X":
                        if is_dir or mode & 0o111:
                            bits |= 0o111
                    elif p == "s":
                        bits |= 0o6000
                    elif p == "t":
                        bits |= 0o1000
                bits &= masked
            if op == "+":
                mode |= bits
            elif op == "-":
                mode &= ~bits
            else:
                clear = affected
                if is_dir and "s" not in perms:
                    clear &= ~0o6000
                mode = (mode & ~clear) | bits
    return mode


def describe(mode: int) -> str:
    """``rwxr-xr-x`` (with s/t) for messages."""
    import stat

    return stat.filemode(mode)[1:]


def classify_suffix(mode: int) -> str:
    """The character ``ls -F`` and ``tree -F`` put after a name: ``/ @ | = *`` or none."""
    import stat

    for is_type, suffix in ((stat.S_ISDIR, "/"), (stat.S_ISLNK, "@"), (stat.S_ISFIFO, "|"),
                            (stat.S_ISSOCK, "=")):
        if is_type(mode):
            return suffix
    return "*" if stat.S_ISREG(mode) and mode & 0o111 else ""
