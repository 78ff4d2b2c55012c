"""cp: copy files and directories (GNU coreutils: -r -R -a -p -d -P -L -H -n -f -u -v -T -t).

Everything goes through the VFS; directory entries are copied in sorted order.  Owners are
never copied (the sandbox has one user); ``--preserve`` keeps mode and timestamps.
"""

from __future__ import annotations

from vshell.command import Invocation
from vshell.commands._lib.copy import Copier, CopyOptions
from vshell.commands._lib.futil import invalid_arg
from vshell.commands._lib.helptext import help_text
from vshell.commands._lib.opts import parse, switches
from vshell.commands._lib.targets import pairs

HELP = help_text("cp")

_ATTRS = ["mode", "ownership", "timestamps", "links", "context", "xattr", "all"]

# the options that only turn a setting on
_SWITCHES = switches(no_clobber="-n --no-clobber", recursive="-R -r --recursive",
                     update="-u --update", verbose="-v --verbose")


def run(inv: Invocation) -> int:
    opts = parse(
        inv, "adfHLnPpRrt:Tuv",
        ["archive", "force", "dereference", "no-clobber", "no-dereference", "preserve=?",
         "no-preserve=", "recursive", "target-directory=", "no-target-directory", "update",
         "verbose"],
        help_text=HELP,
    )
    o = CopyOptions(prog="cp")
    target_dir = None
    no_target = False
    for key, val in opts.items:
        if key in ("-a", "--archive"):
            o.recursive, o.deref, o.preserve_mode, o.preserve_times = True, "never", True, True
        elif key == "-d":
            o.deref = "never"
        elif key in ("-f", "--force"):
            o.force, o.no_clobber = True, False
        elif key == "-H":
            o.deref = "command-line"
        elif key in ("-L", "--dereference"):
            o.deref = "always"
        elif key in _SWITCHES:
            setattr(o, _SWITCHES[key], True)
        elif key in ("-P", "--no-dereference"):
            o.deref = "never"
        elif key == "-p":
            o.preserve_mode = o.preserve_times = True
        elif key in ("--preserve", "--no-preserve"):
            on = key == "--preserve"
            for attr in (val or "mode,ownership,timestamps").split(","):
                if attr not in _ATTRS:
                    raise invalid_arg(inv, attr, key, [[a] for a in _ATTRS])
                if attr in ("mode", "all"):
                    o.preserve_mode = on
                if attr in ("timestamps", "all"):
                    o.preserve_times = on
        elif key in ("-t", "--target-directory"):
            target_dir = val
        elif key in ("-T", "--no-target-directory"):
            no_target = True
    copier = Copier(inv, o)
    for src, dst in pairs(inv, opts.operands, target_dir, no_target):
        if src.endswith("/") and not inv.fs.isdir(inv.abs(src)) and inv.fs.exists(inv.abs(src)):
            copier.err(f"cannot stat {_q(src)}: Not a directory")
            continue
        copier.copy(src, inv.abs(src), dst, inv.abs(dst))
    return copier.status


def _q(name: str) -> str:
    from vshell.commands._lib.futil import quoteaf

    return quoteaf(name)
