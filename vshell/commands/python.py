"""``python`` / ``python3``: CPython 3.15 (WASI) seeing exactly the sandbox.

``python [OPTIONS] [-c CODE | -m MODULE | FILE | -] [ARGS]``: every option is the guest
CPython's own (``-u -I -S -E -B -O -W -X``, ``-V``, ``--help`` …) and is passed through as
given.  The host only finds the program operand: a FILE is handed to the guest as an absolute
virtual path (the guest starts in "/" and would resolve it there) and ``sys.argv[0]`` keeps
the user's spelling.  With no program, or ``-``, the guest reads the program from stdin.
vshell's boot code inside the guest applies the options and starts the program.
"""

from __future__ import annotations

from vshell.command import Invocation
from vshell.records import field, record

# Options whose value is the next argument when not attached (-W arg, -X opt).
_WITH_VALUE = "WX"
_LONG_WITH_VALUE = ("--check-hash-based-pycs",)


@record
class CommandLine:
    """A python command line split at its program: options, program, the program's args."""

    options: list[str] = field(default_factory=list)
    kind: str | None = None  # "c", "m", "file", "stdin" (explicit "-"), or None
    value: str | None = None
    rest: list[str] = field(default_factory=list)
    index: int | None = None  # where FILE sits in the original args

    @property
    def no_site(self) -> bool:
        return any(
            opt.startswith("-") and not opt.startswith("--") and "S" in _flags(opt)
            for opt in self.options
        )


def _flags(opt: str) -> str:
    """The flag letters of a short-option group (stopping at -W/-X, whose value follows)."""
    out = ""
    for ch in opt[1:]:
        out += ch
        if ch in _WITH_VALUE:
            break
    return out


def split_command_line(args: list[str]) -> CommandLine:
    """Split ``args`` the way CPython's own getopt does."""
    line = CommandLine()
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "-":
            line.kind, line.rest = "stdin", args[i + 1 :]
            return line
        if arg == "--":
            if i + 1 < len(args):
                line.kind, line.value, line.index = "file", args[i + 1], i + 1
                line.rest = args[i + 2 :]
            return line
        if arg.startswith("--"):
            take = 2 if arg in _LONG_WITH_VALUE and i + 1 < len(args) else 1
            line.options += args[i : i + take]
            i += take
            continue
        if arg.startswith("-"):
            take = 1
            for j, flag in enumerate(arg[1:], start=1):
                if flag in "cm":
                    if j > 1:
                        line.options.append(arg[:j])
                    if j + 1 < len(arg):
                        line.kind, line.value, line.rest = flag, arg[j + 1 :], args[i + 1 :]
                    elif i + 1 < len(args):
                        line.kind, line.value, line.rest = flag, args[i + 1], args[i + 2 :]
                    else:  # "-c" without its code: the guest reports it
                        line.options.append(arg[j:])
                    return line
                if flag in _WITH_VALUE:
                    if j == len(arg) - 1 and i + 1 < len(args):
                        take = 2
                    break
            line.options += args[i : i + take]
            i += take
            continue
        line.kind, line.value, line.index, line.rest = "file", arg, i, args[i + 1 :]
        return line
    return line


def locate_program(args: list[str]) -> int | None:
    """Index of the FILE operand in ``args``, None for -c/-m/-/stdin/option-only calls."""
    return split_command_line(args).index


def run(inv: Invocation) -> int:
    from vshell import python

    args = list(inv.args)
    line = split_command_line(args)
    value = line.value
    argv0 = ""
    if line.kind == "file" and value:
        argv0, value = value, inv.abs(value)
    elif line.kind == "stdin":
        argv0 = "-"
    return python.run(inv, line.options, line.kind, value, [argv0, *line.rest])
