"""Option parsing for the shell's own builtins, as bash's ``internal_getopt`` does it.

Flags group (``-rp PROMPT``, ``-td,``): a flag that takes a value takes the rest of its word
or, when the word ends there, the next word. Parsing stops at ``--`` or at the first word that
is not an option (``-`` alone is an operand). Builtins that accept ``+x`` ask for it.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    from vshell.interp.shell import Shell


class OptionError(Exception):
    """A bad option; the message is already printed, ``status`` is what the builtin returns."""

    def __init__(self, status: int = 2) -> None:
        super().__init__(status)
        self.status = status


def parse_options(sh: Shell, name: str, args: list[str], spec: str, usage: str | None = None,
                  *, plus: bool = False) -> tuple[list[tuple[str, str | None]], list[str]]:
    """Split ``args`` into ``[(flag, value)]`` and the operands, by a getopts-style ``spec``.

    ``flag`` is ``-c`` or ``+c``. On a bad flag or a missing value the error and the usage line
    go to the shell's stderr and :class:`OptionError` is raised (status 2).
    """
    opts: list[tuple[str, str | None]] = []
    i = 0
    while i < len(args):
        word = args[i]
        if word == "--":
            return opts, args[i + 1:]
        if len(word) < 2 or word[0] not in ("-+" if plus else "-"):
            break
        sign = word[0]
        j = 1
        while j < len(word):
            c = word[j]
            k = spec.find(c)
            if k < 0 or c == ":":
                _bad(sh, name, f"{sign}{c}: invalid option", usage)
            if k + 1 < len(spec) and spec[k + 1] == ":":
                value = word[j + 1:]
                if not value:
                    i += 1
                    if i >= len(args):
                        _bad(sh, name, f"{sign}{c}: option requires an argument", usage)
                    value = args[i]
                opts.append((sign + c, value))
                break
            opts.append((sign + c, None))
            j += 1
        i += 1
    return opts, args[i:]


def parse_flags(sh: Shell, name: str, args: list[str], spec: str,
                usage: str | None = None) -> tuple[set[str], list[str]]:
    """The flag letters given (values dropped) and the operands: for the builtins that only
    ask whether a flag was given. Raises :class:`OptionError` as :func:`parse_options`."""
    opts, operands = parse_options(sh, name, args, spec, usage)
    return {flag[1] for flag, _ in opts}, operands


def _bad(sh: Shell, name: str, message: str, usage: str | None) -> None:
    sh.err(f"{name}: {message}")
    if usage:
        sh.write_err(f"{name}: usage: {usage}\n")
    raise OptionError(2)
