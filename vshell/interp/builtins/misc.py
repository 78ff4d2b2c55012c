"""The remaining builtins: ``umask``, ``times``, ``ulimit``, ``history``, ``help`` and
``enable``."""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING

from vshell.interp.builtins.base import out
from vshell.interp.builtins.opts import OptionError, parse_flags

if TYPE_CHECKING:
    from vshell.interp.shell import Shell


def b_umask(sh: Shell, name: str, args: list[str]) -> int:
    st = sh.state
    sym = "-S" in args
    rest = [a for a in args if a not in ("-S", "-p")]
    if not rest:
        if sym:
            m = ~st.umask & 0o777
            parts = []
            for who, shift in (("u", 6), ("g", 3), ("o", 0)):
                bits = (m >> shift) & 7
                parts.append(who + "=" + "".join(c for c, b in (("r", 4), ("w", 2), ("x", 1))
                                                 if bits & b))
            out(sh, ",".join(parts) + "\n")
        else:
            out(sh, ("umask " if "-p" in args else "") + f"{st.umask:04o}\n")
        return 0
    spec = rest[0]
    if spec[:1].isdigit():
        try:
            value = int(spec, 8)
        except ValueError:
            value = -1
        if not 0 <= value <= 0o777:
            sh.err(f"umask: {spec}: octal number out of range")
            return 1
        st.umask = value
        return 0
    try:
        st.umask = _symbolic_umask(spec, st.umask)
    except ValueError as e:
        sh.err(f"umask: `{e}': invalid symbolic mode character")
        return 1
    return 0


def _symbolic_umask(spec: str, umask: int) -> int:
    """``umask u=rwx,g-w``: the clauses edit the bits files may have; ValueError names the
    first character bash would refuse (one operator per clause, r w x only)."""
    from vshell.commands._lib import modes as _modes

    allowed = ~umask & 0o777
    for clause in spec.split(","):
        m = re.fullmatch(r"([ugoa]*)([-+=])([rwx]*)(.*)", clause, re.S)
        if m is None:
            bad = next((c for c in clause if c not in "ugoa"), clause[:1] or ",")
            raise ValueError(bad)
        if m.group(4):
            raise ValueError(m.group(4)[0])
        allowed = _modes.apply(clause, allowed, False, umask=0) & 0o777
    return ~allowed & 0o777


def b_times(sh: Shell, name: str, args: list[str]) -> int:
    el = time.monotonic() - sh.state.start_time
    m, s = divmod(el, 60)
    out(sh, f"{int(m)}m{s:.3f}s 0m0.000s\n0m0.000s 0m0.000s\n")
    return 0


def b_help(sh: Shell, name: str, args: list[str]) -> int:
    """``help [-dms] [pattern ...]`` with bash's text for the builtins vshell has."""
    from vshell import commands as builtins
    from vshell.interp.builtins import registry as builtins_registry
    from vshell.interp.builtins.help import HELP
    from vshell.text.glob import fnmatch

    try:
        flags, topics = parse_flags(sh, "help", args, "dms", "help [-dms] [pattern ...]")
    except OptionError as e:
        return e.status
    if not topics:
        out(sh, "vshell: a bash-compatible virtual shell. Shell builtins "
                 "(`help NAME' for one):\n")
        out(sh, " ".join(builtins_registry.names()) + "\n")
        return 0
    status = 0
    for t in topics:
        glob = any(c in t for c in "*?[")
        # bash matches a topic as a pattern, or as the start of builtin names
        hits = [t] if t in HELP and not glob else sorted(
            n for n in HELP if (fnmatch(t, n) if glob else n.startswith(t)))
        if hits and glob and not flags:
            out(sh, f"Shell commands matching keyword `{t}'\n\n")
        if hits:
            for n in hits:
                text = HELP[n]
                synopsis, _, rest = text.partition("\n")
                if "s" in flags:
                    out(sh, synopsis + "\n")
                elif "d" in flags:
                    out(sh, f"{n} - {rest.partition(chr(10))[0].strip()}\n")
                else:
                    out(sh, text)
        elif builtins.lookup(t) is not None:
            out(sh, f"{t}: a vshell command: run `{t} --help' for its options.\n")
        else:
            sh.err(f"help: no help topics match `{t}'.  Try `help help' or `man -k {t}' "
                   f"or `info {t}'.")
            status = 1
    return status


# builtins that take --help as an ordinary argument, as in bash
NO_HELP_OPTION = frozenset(("echo", "test", "[", "true", "false", ":", "exec"))


def builtin_help_option(sh: Shell, name: str, args: list[str]) -> int | None:
    """``cd --help``: bash prints the builtin's help and returns 2; None when not asked."""
    if not args or args[0] != "--help" or name in NO_HELP_OPTION:
        return None
    from vshell.interp.builtins.help import HELP

    text = HELP.get(name)
    if text is None:
        return None
    out(sh, text)
    return 2


def b_enable(sh: Shell, name: str, args: list[str]) -> int:
    """``enable [-n] [name ...]``: turns builtins off and on in this shell only."""
    from vshell.interp.builtins import registry as builtins_registry

    try:
        flags, names = parse_flags(sh, "enable", args, "apnsfd:",
                                  "enable [-a] [-dnps] [-f filename] [name ...]")
    except OptionError as e:
        return e.status
    if "f" in flags or "d" in flags:
        sh.err("enable: cannot load or delete builtins: vshell has no loadable builtins")
        return 1
    disabled = builtins_registry.disabled_in(sh.state)
    if not names:
        for b in builtins_registry.names():
            off = b in disabled
            if "a" in flags or ("n" in flags) == off:
                out(sh, f"enable {'-n ' if off else ''}{b}\n")
        return 0
    status = 0
    for b in names:
        if b not in builtins_registry.TABLE:
            sh.err(f"enable: {b}: not a shell builtin")
            status = 1
    known = {b for b in names if b in builtins_registry.TABLE}
    sh.state.disabled_builtins = disabled | known if "n" in flags else disabled - known
    return status


# bash's table: option -> (description, unit, soft, hard); the values a fresh Linux shell has
_ULIMITS: dict[str, tuple[str, str, str, str]] = {
    "R": ("real-time non-blocking time", "microseconds", "unlimited", "unlimited"),
    "c": ("core file size", "blocks", "0", "unlimited"),
    "d": ("data seg size", "kbytes", "unlimited", "unlimited"),
    "e": ("scheduling priority", "", "0", "0"),
    "f": ("file size", "blocks", "unlimited", "unlimited"),
    "i": ("pending signals", "", "63704", "63704"),
    "l": ("max locked memory", "kbytes", "8192", "8192"),
    "m": ("max memory size", "kbytes", "unlimited", "unlimited"),
    "n": ("open files", "", "1024", "1048576"),
    "p": ("pipe size", "512 bytes", "8", "8"),
    "q": ("POSIX message queues", "bytes", "819200", "819200"),
    "r": ("real-time priority", "", "0", "0"),
    "s": ("stack size", "kbytes", "8192", "unlimited"),
    "t": ("cpu time", "seconds", "unlimited", "unlimited"),
    "u": ("max user processes", "", "63704", "63704"),
    "v": ("virtual memory", "kbytes", "unlimited", "unlimited"),
    "x": ("file locks", "", "unlimited", "unlimited"),
}


_ULIMIT_SCALE = {"c": 512, "d": 1024, "f": 512, "l": 1024, "m": 1024, "p": 512, "s": 1024,
                 "v": 1024, "R": 1, "q": 1, "t": 1}


_RLIM_MAX = (1 << 63) - 1


def _limit_le(a: str, b: str) -> bool:
    return b == "unlimited" or (a != "unlimited" and int(a) <= int(b))


def b_ulimit(sh: Shell, name: str, args: list[str]) -> int:
    """Resource limits as numbers the shell keeps (vshell has no processes to limit), parsed
    as bash does: each resource option takes the next word as its value unless that word is
    an option; ``-S``/``-H`` choose the soft or hard limit; a hard one is never raised."""
    st = sh.state
    limits: dict[tuple[str, str], str] = getattr(st, "ulimits", None) or {}
    st.ulimits = limits
    usage = "ulimit [-SHabcdefiklmnpqrstuvxPRT] [limit]"

    def current(kind: str, c: str) -> str:
        soft, hard = _ULIMITS[c][2:]
        return limits.get((kind, c), soft if kind == "S" else hard)

    which = ""
    show_all = False
    commands: list[tuple[str, str | None]] = []
    i = 0
    while i < len(args):
        a = args[i]
        i += 1
        if a == "--":
            break
        if not (a.startswith("-") and len(a) > 1):
            i -= 1
            break
        for k, c in enumerate(a[1:]):
            if c in "SH":
                which = which + c if c not in which else which
            elif c == "a":
                show_all = True
            elif c in _ULIMITS:
                value = None
                if k == len(a) - 2 and i < len(args) and not args[i].startswith("-"):
                    value = args[i]
                    i += 1
                commands.append((c, value))
            else:
                sh.err(f"ulimit: -{c}: invalid option")
                sh.write_err(f"ulimit: usage: {usage}\n")
                return 2
    rest = args[i:]
    if rest:
        if len(rest) > 1 or (commands and commands[-1][1] is not None):
            sh.err("ulimit: too many arguments")
            return 2
        if commands:
            commands[-1] = (commands[-1][0], rest[0])
        else:
            commands.append(("f", rest[0]))
    kind_shown = "H" if which == "H" else "S"
    labelled = show_all or len(commands) > 1

    def show(c: str) -> None:
        desc, unit = _ULIMITS[c][:2]
        label = f"({unit}, -{c}) " if unit else f"(-{c}) "
        out(sh, (f"{desc:<20} {label:>20}" if labelled else "") + current(kind_shown, c) + "\n")

    if show_all:
        for c in _ULIMITS:
            show(c)
    if not commands and not show_all:
        commands.append(("f", None))
    status = 0
    for c, value in commands:
        if value is None:
            if not show_all:  # -a already listed it
                show(c)
            continue
        desc = _ULIMITS[c][0]
        if value in ("hard", "soft", "unlimited"):
            new = current("H" if value == "hard" else "S", c) if value != "unlimited" \
                else "unlimited"
        elif value.isdigit():
            if int(value) * _ULIMIT_SCALE.get(c, 1) > _RLIM_MAX:
                sh.err(f"ulimit: {value}: limit out of range")
                status = 1
                continue
            new = str(int(value))
        else:
            sh.err(f"ulimit: {value}: invalid number")
            status = 1
            continue
        kinds = ("S", "H") if which in ("", "SH", "HS") else (which,)
        hard = new if "H" in kinds else current("H", c)
        if "H" in kinds and not _limit_le(new, current("H", c)):
            sh.err(f"ulimit: {desc}: cannot modify limit: Operation not permitted")
            status = 1
            continue
        if "S" in kinds and not _limit_le(new, hard):
            sh.err(f"ulimit: {desc}: cannot modify limit: Invalid argument")
            status = 1
            continue
        for kind in kinds:
            limits[(kind, c)] = new
    return status


def b_history(sh: Shell, name: str, args: list[str]) -> int:
    """A script's shell keeps no history (as bash with history off): only usage is checked."""
    if not args:
        return 0
    a = args[0]
    if a.startswith("-") and len(a) > 1 and a[1:] not in ("c", "w", "r", "a", "n"):
        sh.err(f"history: {a}: invalid option")
        sh.write_err("history: usage: history [-c] [-d offset] [n] or history -anrw [filename]"
                     " or history -ps arg [arg...]\n")
        return 2
    if len(args) > 1 and not a.startswith("-"):
        sh.err("history: too many arguments")
        return 1
    if not a.startswith("-") and not a.lstrip("+").isdigit():
        sh.err(f"history: {a}: numeric argument required")
        return 1
    if a in ("-w", "-r"):
        return _history_file(sh, a, args[1] if len(args) > 1 else None)
    return 0


def _history_file(sh: Shell, flag: str, name: str | None) -> int:
    """``-w`` writes the (empty) history to FILE, ``-r`` reads it; like bash, a file that
    cannot be written or read fails with status 1, silently."""
    from vshell.command import normpath

    name = name if name is not None else sh.state.get("HISTFILE")
    if not name:
        return 0
    path = normpath(name if name.startswith("/") else sh.state.cwd.rstrip("/") + "/" + name)
    try:
        with sh.ctx.fs.open(path, "wb" if flag == "-w" else "rb"):
            pass
    except OSError:
        return 1
    return 0
