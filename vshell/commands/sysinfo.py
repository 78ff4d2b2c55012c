"""Small system commands: true false yes sleep whoami hostname uname id nproc printenv.

They report the sandbox, never the host: the user is ``$USER`` (default ``user``; uid 0
only when that name is ``root``, else 1000), the host name ``$HOSTNAME`` (default
``vshell``), and uname says Linux with this machine's architecture and a fixed release.
"""

from __future__ import annotations

import os
import platform
import re
import time

from vshell.command import Exit, Invocation
from vshell.commands._lib.futil import enc, quote
from vshell.commands._lib.helptext import help_text
from vshell.commands._lib.opts import parse

RELEASE = "6.1.0-vshell"
VERSION = "#1 SMP vshell"


def _usage(inv: Invocation, msg: str) -> Exit:
    inv.stderr.write(enc(f"{inv.name}: {msg}\nTry '{inv.name} --help' for more information.\n"))
    return Exit(1)


def true(inv: Invocation) -> int:
    return 0


def false(inv: Invocation) -> int:
    return 1


def yes(inv: Invocation) -> int:
    opts = parse(inv, "", [], help_text=help_text("yes"))
    line = enc(" ".join(opts.operands) if opts.operands else "y") + b"\n"
    block = line * max(1, 65536 // len(line))
    write = inv.stdout.write
    while True:
        inv.cancel.check()
        write(block)


_UNITS = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


def sleep(inv: Invocation) -> int:
    opts = parse(inv, "", [], help_text=help_text("sleep"))
    if not opts.operands:
        raise _usage(inv, "missing operand")
    total = 0.0
    bad = False
    for arg in opts.operands:
        m = re.fullmatch(r"\s*\+?((?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?)([smhd]?)",
                         arg, re.IGNORECASE)
        if not m:
            inv.error(f"invalid time interval {quote(arg)}")
            bad = True
            continue
        total += float(m.group(1)) * _UNITS[m.group(2)]
    if bad:
        inv.stderr.write(b"Try 'sleep --help' for more information.\n")
        return 1
    deadline = time.monotonic() + total
    while True:
        inv.cancel.waiting()
        left = deadline - time.monotonic()
        if left <= 0:
            return 0
        time.sleep(min(left, 0.02))


def user_name(inv: Invocation) -> str:
    return inv.env.get("USER") or inv.env.get("LOGNAME") or "user"


def whoami(inv: Invocation) -> int:
    opts = parse(inv, "", [], help_text=help_text("whoami"))
    if opts.operands:
        raise _usage(inv, f"extra operand {quote(opts.operands[0])}")
    inv.stdout.write(enc(user_name(inv)) + b"\n")
    return 0


def hostname(inv: Invocation) -> int:
    opts = parse(inv, "sfd", ["short", "fqdn", "long", "domain"],
                 help_text=help_text("hostname"))
    if opts.operands:
        inv.stderr.write(b"hostname: you must be root to change the host name\n")
        return 1
    name = inv.env.get("HOSTNAME") or "vshell"
    if opts.has("-d", "--domain"):
        name = name.partition(".")[2]
    elif opts.has("-s", "--short"):
        name = name.partition(".")[0]
    inv.stdout.write(enc(name) + b"\n")
    return 0


def uname(inv: Invocation) -> int:
    opts = parse(
        inv, "asnrvmpio",
        ["all", "kernel-name", "nodename", "kernel-release", "kernel-version", "machine",
         "processor", "hardware-platform", "operating-system"],
        help_text=help_text("uname"),
    )
    if opts.operands:
        raise _usage(inv, f"extra operand {quote(opts.operands[0])}")
    keys = {k for k, _ in opts.items}
    alias = {"--all": "-a", "--kernel-name": "-s", "--nodename": "-n",
             "--kernel-release": "-r", "--kernel-version": "-v", "--machine": "-m",
             "--processor": "-p", "--hardware-platform": "-i", "--operating-system": "-o"}
    keys = {alias.get(k, k) for k in keys}
    machine = platform.machine() or "x86_64"
    fields = [
        ("-s", "Linux"), ("-n", inv.env.get("HOSTNAME") or "vshell"), ("-r", RELEASE),
        ("-v", VERSION), ("-m", machine), ("-p", "unknown"), ("-i", "unknown"),
        ("-o", "GNU/Linux"),
    ]
    if not keys:
        keys = {"-s"}
    out = []
    for key, value in fields:
        if key in keys or ("-a" in keys and value != "unknown"):
            out.append(value)
    inv.stdout.write(enc(" ".join(out)) + b"\n")
    return 0


def id_(inv: Invocation) -> int:
    opts = parse(inv, "ugGnrz", ["user", "group", "groups", "name", "real", "zero"],
                 help_text=help_text("id"))
    name = user_name(inv)
    uid = 0 if name == "root" else 1000
    for op in opts.operands:
        if op != name:
            inv.error(f"{quote(op)}: no such user")
            return 1
    show_name = opts.has("-n", "--name")
    end = b"\0" if opts.has("-z", "--zero") else b"\n"
    which = [k for k in ("-u", "-g", "-G") if opts.has(k, {"-u": "--user", "-g": "--group",
                                                             "-G": "--groups"}[k])]
    if len(which) > 1:
        raise Exit(1, "cannot print \"only\" of more than one choice")
    if which:
        value = name if show_name else str(uid)
        inv.stdout.write(enc(value) + end)
        return 0
    if show_name:
        raise Exit(1, "cannot print only names or real IDs in default format")
    inv.stdout.write(enc(f"uid={uid}({name}) gid={uid}({name}) groups={uid}({name})") + b"\n")
    return 0


def nproc(inv: Invocation) -> int:
    opts = parse(inv, "", ["all", "ignore="], help_text=help_text("nproc"))
    n = os.cpu_count() or 1
    if not opts.has("--all"):
        for var in ("OMP_NUM_THREADS",):
            v = inv.env.get(var, "").split(",")[0].strip()
            if v.isdigit() and int(v) > 0:
                n = int(v)
        limit = inv.env.get("OMP_THREAD_LIMIT", "").strip()
        if limit.isdigit() and int(limit) > 0:
            n = min(n, int(limit))
    ignore = opts.last("--ignore")
    if ignore is not None:
        if not ignore.isdigit():
            raise Exit(1, f"invalid number: {quote(ignore)}")
        n = max(1, n - int(ignore))
    inv.stdout.write(b"%d\n" % n)
    return 0


def printenv(inv: Invocation) -> int:
    opts = parse(inv, "0", ["null"], help_text=help_text("printenv"))
    end = b"\0" if opts.has("-0", "--null") else b"\n"
    if not opts.operands:
        inv.stdout.write(b"".join(enc(f"{k}={v}") + end for k, v in inv.env.items()))
        return 0
    status = 0
    for name in opts.operands:
        if "=" in name or name not in inv.env:
            status = 1
            continue
        inv.stdout.write(enc(inv.env[name]) + end)
    return status
