"""which: locate a command.

Decision: ``PATH`` (from the command's environment) is searched in the VFS for executable
files first, as Debian's ``which`` does.  A command vshell ships (a builtin, not a file)
that is not found that way prints as ``/usr/bin/NAME``: scripts use ``which tool`` to ask
"is it available?", and inside vshell it is.  That path is a name only; it is not a file in
the VFS.  Not found: nothing printed, status 1.  ``-a`` prints every match.
"""

from __future__ import annotations

import os

from vshell.command import Invocation
from vshell.commands._lib.futil import enc
from vshell.commands._lib.helptext import help_text
from vshell.commands._lib.opts import parse

_SHELL_COMMANDS = {"echo", "printf", "test", "[", "pwd", "kill", "sh", "bash", "true", "false"}


def _shipped(name: str) -> bool:
    from vshell import commands as builtins

    return name in builtins.REGISTRY or name in _SHELL_COMMANDS


def run(inv: Invocation) -> int:
    opts = parse(inv, "as", [], help_text=help_text("which"))
    every = opts.has("-a")
    silent = opts.has("-s")
    if not opts.operands:
        return 1
    fs = inv.fs
    status = 0
    dirs = inv.env.get("PATH", "/usr/bin:/bin").split(":")
    for name in opts.operands:
        found: list[str] = []
        candidates = [name] if "/" in name else [
            (d or ".").rstrip("/") + "/" + name for d in dirs]
        for cand in candidates:
            path = inv.abs(cand)
            if fs.isfile(path) and fs.access(path, os.X_OK):
                found.append(cand)
                if not every:
                    break
        if "/" not in name and _shipped(name) and (every or not found):
            virtual = "/usr/bin/" + name
            if virtual not in found:
                found.append(virtual)
        if not found:
            status = 1
            continue
        if not silent:
            inv.stdout.write(b"".join(enc(f) + b"\n" for f in found))
    return status
