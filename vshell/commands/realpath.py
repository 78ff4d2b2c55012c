"""realpath: print the resolved absolute file name (GNU: -e -m -L -P -s -q -z,
--relative-to, --relative-base).  Names are virtual paths inside the sandbox; ``..`` after
a symlink is the parent of its target (-P, the default) unless -L resolves it first."""

from __future__ import annotations

from vshell.command import Invocation, absolute  # absolute without fs: ".." lexical (-L)
from vshell.commands._lib.futil import enc, last_switch, quotef, strerror
from vshell.commands._lib.helptext import help_text
from vshell.commands._lib.opts import parse
from vshell.commands._lib.resolve import canonical, relative

HELP = help_text("realpath")


def run(inv: Invocation) -> int:
    opts = parse(
        inv, "emLPqsz",
        ["canonicalize-existing", "canonicalize-missing", "logical", "physical", "quiet",
         "relative-to=",
         "relative-base=", "strip", "no-symlinks", "zero"],
        help_text=HELP,
    )
    mode = "f"
    for key, _ in opts.items:
        if key in ("-e", "--canonicalize-existing"):
            mode = "e"
        elif key in ("-m", "--canonicalize-missing"):
            mode = "m"
    follow = not opts.has("-s", "--strip", "--no-symlinks")
    logical = last_switch(opts.items, ("-L", "--logical"), ("-P", "--physical"))

    def resolve(name: str) -> str:
        return canonical(inv, absolute(inv.dir, name) if logical else name, mode, follow)

    quiet = opts.has("-q", "--quiet")
    end = b"\0" if opts.has("-z", "--zero") else b"\n"
    opts.required(inv)
    rel_to = opts.last("--relative-to")
    rel_base = opts.last("--relative-base")
    try:
        if rel_to is not None:
            rel_to = resolve(rel_to)
        if rel_base is not None:
            rel_base = resolve(rel_base)
    except OSError as e:
        bad = rel_to if rel_to is not None else rel_base
        inv.error(f"{quotef(bad or '')}: {strerror(e)}")
        return 1
    if rel_base is not None and rel_to is None:
        rel_to = rel_base
    status = 0
    for op in opts.operands:
        try:
            path = resolve(op)
        except OSError as e:
            if not quiet:
                inv.error(f"{quotef(op)}: {strerror(e)}")
            status = 1
            continue
        if rel_to is not None:
            under = rel_base is None or path == rel_base or path.startswith(
                rel_base.rstrip("/") + "/")
            if under and (rel_base is None or rel_to == rel_base or rel_to.startswith(
                    rel_base.rstrip("/") + "/")):
                path = relative(path, rel_to)
        inv.stdout.write(enc(path) + end)
    return status
