"""bash's own invocation options on vshell's command line: ``-euo pipefail``, ``-x``, ``-lc``.

Why: harnesses and agents start their shell as ``bash -lc CMD`` or ``bash -euo pipefail -c
CMD``; vshell in bash's place refused every one of those words.  Here a word made of
``set``'s letters (with ``-`` or ``+``), ``-o NAME``/``+o NAME``, ``-O NAME``/``+O NAME``
(shopt) and the invocation letters ``c`` (the command string follows the options), ``l``
and ``--login``/``--noprofile``/``--norc`` (no profile files exist in a sandbox, so there
is nothing to skip or read) and ``s`` (commands from stdin, the words after it the
positional parameters) is read as bash reads it.  ``-h`` and ``-v`` standing alone stay
vshell's ``--help`` and ``--version``; inside a group they are hashall and verbose.
"""

from __future__ import annotations

from vshell.sandbox import shell_option_names

INVOCATION_LETTERS = frozenset("cls")  # the letters only invocation takes (besides set's)
IGNORED_LONG = frozenset(("--login", "--noprofile", "--norc"))


class FlagError(ValueError):
    """An option bash would refuse (the message is bash's own wording)."""


def is_shell_flag_word(word: str) -> bool:
    """Whether ``word`` is one of bash's option groups (``-eu``, ``+x``, ``-o``, ``-lc``)."""
    if word in IGNORED_LONG or word == "--posix":
        return True
    if len(word) < 2 or word[0] not in "-+" or word[1] == "-":
        return False
    letters = word[1:]
    _, set_letters, _ = shell_option_names()
    allowed = set_letters | {"o", "O"} | (INVOCATION_LETTERS if word[0] == "-" else set())
    return all(ch in allowed for ch in letters)


class ShellFlags:
    """What the option words asked for: ``set`` and ``shopt`` words to run first, whether
    ``c`` or ``s`` was given."""

    def __init__(self) -> None:
        self.set_words: list[str] = []  # e.g. ["-e", "-o", "pipefail", "+x"]
        self.shopt_on: list[str] = []
        self.shopt_off: list[str] = []
        self.command = False  # c: the first word after the options is the command string
        self.stdin = False  # s: commands from stdin

    def take(self, argv: list[str], i: int) -> int:
        """Read the option word ``argv[i]`` (and the names its o/O letters take); the index
        of the next word."""
        word = argv[i]
        i += 1
        if word in IGNORED_LONG:
            return i
        if word == "--posix":
            self.set_words += ["-o", "posix"]
            return i
        sign = word[0]
        set_names, _, shopt_names = shell_option_names()
        for ch in word[1:]:
            if ch in ("o", "O"):
                if i >= len(argv):
                    raise FlagError(f"{sign}{ch}: option requires an argument")
                name = argv[i]
                i += 1
                if ch == "o":
                    if name not in set_names:
                        raise FlagError(f"{name}: invalid option name")
                    self.set_words += [f"{sign}o", name]
                else:
                    if name not in shopt_names:
                        raise FlagError(f"{name}: invalid shell option name")
                    (self.shopt_on if sign == "-" else self.shopt_off).append(name)
            elif ch == "c":
                self.command = True
            elif ch == "s":
                self.stdin = True
            elif ch == "l":
                pass  # a login shell reads profile files; a sandbox has none
            else:
                self.set_words.append(f"{sign}{ch}")
        return i

    def prelude(self) -> str | None:
        """The ``set``/``shopt`` commands that put the options in force (None: nothing)."""
        parts = []
        if self.set_words:
            parts.append("set " + " ".join(self.set_words))
        if self.shopt_on:
            parts.append("shopt -s " + " ".join(self.shopt_on))
        if self.shopt_off:
            parts.append("shopt -u " + " ".join(self.shopt_off))
        return "; ".join(parts) or None
