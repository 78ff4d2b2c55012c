"""``re`` and module-level patterns that cost nothing until a script needs a regex.

Importing :mod:`re` (with enum, functools and the sre compiler it loads) costs about half
the interpreter's own start, on every ``vshell -c``, and ``vshell -c true`` uses no regular
expression.  So the modules on the start-up path import ``re`` from here, a stand-in that
imports the real module at its first attribute use, and build their module-level patterns
with :func:`lazy_compile`, compiled at first use.  Either keeps what it fetched as its own
attribute, so later uses cost what they cost on the real objects.  To mypy both are the
real thing.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    import re as re
    from collections.abc import Callable

__all__ = ["lazy_compile", "re"]


class _OnFirstUse:
    """Stands for what ``make()`` returns: each attribute is fetched from it when first asked
    for (``make`` runs then, once per name: re caches its compiled patterns), then kept."""

    def __init__(self, make: Callable[[], object]) -> None:
        self._make = make

    def __getattr__(self, name: str) -> object:
        value = getattr(self._make(), name)
        setattr(self, name, value)
        return value


def _import_re() -> object:
    import re

    return re


if TYPE_CHECKING:

    def lazy_compile(pattern: str) -> re.Pattern[str]:
        """``re.compile(pattern)``, compiled at first use (flags go inline: ``(?s)``)."""
        ...

else:
    re = _OnFirstUse(_import_re)

    def lazy_compile(pattern: str) -> object:
        """``re.compile(pattern)``, compiled at first use (flags go inline: ``(?s)``)."""
        return _OnFirstUse(lambda: re.compile(pattern))
