"""A command line walked by hand, for the commands whose options getopt cannot describe.

less takes ``+cmd`` and unknown letters without failing, more takes ``-NUM`` and iconv
abbreviates its long options its own way; each walks its arguments itself, and this is the
walk they share: every argument up to ``--`` in turn, the values options take, the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence


class ArgWalk:
    """Iterating gives each argument before ``--``; those after it land in ``files``."""

    def __init__(self, args: Sequence[str]) -> None:
        self.args = list(args)
        self.pos = 0
        self.files: list[str] = []

    def __iter__(self) -> Iterator[str]:
        while self.pos < len(self.args):
            arg = self.args[self.pos]
            self.pos += 1
            if arg == "--":
                self.files.extend(self.args[self.pos:])
                return
            yield arg

    def take(self) -> str | None:
        """The next argument, consumed as an option's value; None when none is left."""
        if self.pos >= len(self.args):
            return None
        value = self.args[self.pos]
        self.pos += 1
        return value

    @staticmethod
    def letters(arg: str) -> Iterator[tuple[str, str]]:
        """Each letter of a ``-abc`` cluster with the text after it, which is the value of a
        letter that takes one (the caller stops there)."""
        for j in range(1, len(arg)):
            yield arg[j], arg[j + 1 :]

    def value(self, attached: str, usage: Callable[[str], Exception], message: str) -> str:
        """A letter's required value: attached to it (``-fUTF-8``), else the next argument."""
        return attached or self.need(usage, message)

    def need(self, usage: Callable[[str], Exception], message: str) -> str:
        """The next argument as a required value; raises ``usage(message)`` when none is left.

        ``usage`` is called only then: the commands' usage errors print as they are made.
        """
        value = self.take()
        if value is None:
            raise usage(message)
        return value
