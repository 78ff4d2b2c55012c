"""env: run a program in a modified environment (GNU coreutils: -i -u -0 -C, NAME=VALUE).

With no command it prints the resulting environment.  The command runs through
``inv.run_command`` with exactly the new environment.
"""

from __future__ import annotations

from vshell.command import Exit, Invocation
from vshell.commands._lib.futil import enc, quoteaf
from vshell.commands._lib.helptext import help_text
from vshell.commands._lib.opts import parse

HELP = help_text("env")


def run(inv: Invocation) -> int:
    opts = parse(inv, "i0u:C:", ["ignore-environment", "null", "unset=", "chdir="],
                 permute=False, help_text=HELP, usage_status=125)
    env: dict[str, str] = dict(inv.env)
    rest = list(opts.operands)
    if opts.has("-i", "--ignore-environment"):
        env = {}
    if rest and rest[0] == "-":
        env = {}
        rest = rest[1:]
    for key, val in opts.items:
        if key in ("-u", "--unset"):
            if not val or "=" in val:
                raise Exit(125, f"cannot unset {quoteaf(val or '')}: Invalid argument")
            env.pop(val, None)
    while rest and "=" in rest[0] and not rest[0].startswith("="):
        name, _, value = rest.pop(0).partition("=")
        env[name] = value
    chdir = opts.last("-C", "--chdir")
    end = b"\0" if opts.has("-0", "--null") else b"\n"
    if not rest:
        if chdir is not None:
            inv.stderr.write(b"env: must specify command with --chdir (-C)\n"
                             b"Try 'env --help' for more information.\n")
            return 125
        inv.stdout.write(b"".join(enc(f"{k}={v}") + end for k, v in env.items()))
        return 0
    if opts.has("-0", "--null"):
        inv.stderr.write(b"env: cannot specify --null (-0) with command\n"
                         b"Try 'env --help' for more information.\n")
        return 125
    cwd = None
    if chdir is not None:
        cwd = inv.abs(chdir)
        if not inv.fs.isdir(cwd):
            why = "Not a directory" if inv.fs.exists(cwd) else "No such file or directory"
            raise Exit(125, f"cannot change directory to {quoteaf(chdir)}: {why}")
    if inv.run_command is None:
        raise Exit(126, "running commands is not available here")
    kwargs: dict[str, object] = {"env": env}
    if cwd is not None:
        kwargs["cwd"] = cwd
    return inv.run_command(rest, **kwargs)
