"""The one option parser every command uses: GNU getopt_long behaviour.

Grouped short flags (``-nq``), attached or separate arguments (``-n5``, ``-n 5``),
``--long``, ``--long=value``, unique prefixes of long names, ``--`` ending options, ``-``
as an operand, and GNU permutation (options may follow operands unless POSIXLY_CORRECT or
``permute=False``).  Unknown options are errors with GNU's wording, never ignored.
"""

from __future__ import annotations

from vshell.command import Exit, Invocation
from vshell.records import record

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence


@record
class Options:
    """Parsed options in command-line order, and the operands."""

    items: list[tuple[str, str | None]]
    operands: list[str]

    def has(self, *keys: str) -> bool:
        for k, _ in self.items:  # a loop, not any(): most commands ask with no items
            if k in keys:
                return True
        return False

    def last(self, *keys: str, default: str | None = None) -> str | None:
        """The value of the last occurrence of any of ``keys``."""
        value = default
        for k, v in self.items:
            if k in keys:
                value = v
        return value

    def all(self, *keys: str) -> list[str]:
        return [v or "" for k, v in self.items if k in keys]

    def count(self, *keys: str) -> int:
        return sum(1 for k, _ in self.items if k in keys)

    def required(self, inv: Invocation) -> list[str]:
        """The operands, of which there must be one: GNU's ``missing operand`` otherwise."""
        if not self.operands:
            raise _fail(inv, "missing operand", 1)
        return self.operands


class UsageError(Exit):
    pass


def switches(**fields: str) -> dict[str, str]:
    """The options that turn one field on, by spelling: ``switches(quiet="-q --quiet")``.

    A command's loop over ``Options.items`` then sets ``setattr(cfg, table[key], True)``
    for any key in the table instead of a branch per option.
    """
    return {spelling: name for name, spellings in fields.items() for spelling in spellings.split()}


def _fail(inv: Invocation, message: str, status: int,
          tail: Callable[[], bytes] | None = None) -> UsageError:
    rest = tail() if tail is not None else \
        f"Try '{inv.name} --help' for more information.\n".encode()
    inv.stderr.write(f"{inv.name}: {message}\n".encode() + rest)
    return UsageError(status)


def parse(
    inv: Invocation,
    short: str = "",
    long: Sequence[str] = (),
    *,
    args: Sequence[str] | None = None,
    permute: bool = True,
    numeric: bool = False,
    usage_status: int = 1,
    help_text: str | None = None,
    usage_tail: Callable[[], bytes] | None = None,
) -> Options:
    """Parse ``inv.args`` (or ``args``).

    ``short`` is getopt's spec (``"n:c:qv"``; ``::`` marks an optional attached argument).
    ``long`` lists names, ``"lines="`` for a required argument and ``"color=?"`` for an
    optional one.  Keys come back as ``-n`` / ``--lines``.  With ``numeric`` a ``-5`` style
    option is returned as ``("-NUM", "5")``.  ``--help`` prints ``help_text`` (or a short
    usage line) and ends the command with status 0.  ``usage_tail`` gives what follows an
    option error's first line instead of GNU's ``Try '... --help'`` line (grep and sed print
    their usage there).
    """
    argv = inv.args if args is None else args  # read only: never copied
    takes, longs = _tables(short, long if isinstance(long, tuple) else tuple(long))
    if permute and "POSIXLY_CORRECT" in inv.env:
        permute = False

    items: list[tuple[str, str | None]] = []
    operands: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if arg == "--":
            operands.extend(argv[i:])
            break
        if arg.startswith("--"):
            name, eq, value = arg[2:].partition("=")
            if name in longs:
                match = name
            else:
                candidates = [n for n in longs if n.startswith(name)]
                if len(candidates) == 1:
                    match = candidates[0]
                elif not candidates:
                    raise _fail(inv, f"unrecognized option '{arg}'", usage_status, usage_tail)
                else:
                    alts = " ".join(f"'--{c}'" for c in sorted(candidates))
                    raise _fail(
                        inv,
                        f"option '--{name}' is ambiguous; possibilities: {alts}",
                        usage_status,
                        usage_tail,
                    )
            kind = longs[match]
            if kind == "none":
                if eq:
                    raise _fail(
                        inv, f"option '--{match}' doesn't allow an argument", usage_status,
                        usage_tail,
                    )
                if match == "help":
                    _print_help(inv, help_text)
                items.append(("--" + match, None))
            elif kind == "optional":
                items.append(("--" + match, value if eq else None))
            else:
                if not eq:
                    if i >= len(argv):
                        raise _fail(
                            inv, f"option '--{match}' requires an argument", usage_status,
                            usage_tail,
                        )
                    value = argv[i]
                    i += 1
                items.append(("--" + match, value))
            continue
        if arg.startswith("-") and arg != "-":
            if numeric and arg[1:].isdigit():
                items.append(("-NUM", arg[1:]))
                continue
            j = 1
            while j < len(arg):
                ch = arg[j]
                short_kind = takes.get(ch)
                if short_kind is None:
                    raise _fail(inv, f"invalid option -- '{ch}'", usage_status, usage_tail)
                kind = short_kind
                if kind == "none":
                    items.append(("-" + ch, None))
                    j += 1
                    continue
                rest = arg[j + 1 :]
                if rest:
                    items.append(("-" + ch, rest))
                elif kind == "optional":
                    items.append(("-" + ch, None))
                else:
                    if i >= len(argv):
                        raise _fail(inv, f"option requires an argument -- '{ch}'", usage_status,
                                    usage_tail)
                    items.append(("-" + ch, argv[i]))
                    i += 1
                break
            continue
        operands.append(arg)
        if not permute:
            operands.extend(argv[i:])
            break
    return Options(items, operands)


_TABLES: dict[tuple[str, tuple[str, ...]], tuple[dict[str, str], dict[str, str]]] = {}


def _tables(short: str, long: tuple[str, ...]) -> tuple[dict[str, str], dict[str, str]]:
    """The short and long option kinds of one spec, built once per spec (a command's spec
    is a constant, and building it cost more than parsing a short command line)."""
    key = (short, long)
    got = _TABLES.get(key)
    if got is not None:
        return got
    takes: dict[str, str] = {}
    i = 0
    while i < len(short):
        ch = short[i]
        if short[i + 1 : i + 3] == "::":
            takes[ch] = "optional"
            i += 3
        elif short[i + 1 : i + 2] == ":":
            takes[ch] = "required"
            i += 2
        else:
            takes[ch] = "none"
            i += 1
    longs: dict[str, str] = {}
    for spec in long:
        if spec.endswith("=?"):
            longs[spec[:-2]] = "optional"
        elif spec.endswith("="):
            longs[spec[:-1]] = "required"
        else:
            longs[spec] = "none"
    longs.setdefault("help", "none")
    if len(_TABLES) < 512:  # specs built at run time (rare) do not grow it without end
        _TABLES[key] = (takes, longs)
    return takes, longs


def _print_help(inv: Invocation, help_text: str | None) -> None:
    text = help_text or f"Usage: {inv.name} [OPTION]... [FILE]...\n"
    if not text.endswith("\n"):
        text += "\n"
    inv.stdout.write(text.encode())
    raise Exit(0)
