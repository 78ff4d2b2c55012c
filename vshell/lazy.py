"""Modules and module-level regexes that cost nothing until a run uses them.

``vshell -c`` is called once per agent step, so its start-up is paid on every command, and
``vshell -c true`` needs no regular expression: importing :mod:`re` (with enum, functools
and the sre compiler it loads) costs about half the interpreter's own start.  So the
modules on the start-up path import ``re`` from here, a stand-in that imports the real
module at its first attribute use (:func:`lazy_module` makes one for any module), and build
their module-level patterns with :func:`lazy_compile`, compiled at first use.  A stand-in
keeps what it fetched as its own attribute, so later uses cost what they cost on the real
objects.  To mypy both are the real thing.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    import re as re
    from collections.abc import Callable
    from types import ModuleType
    from typing import Any

__all__ = ["lazy_compile", "lazy_function", "lazy_module", "re"]


class _OnFirstUse:
    """Stands for what ``make()`` returns: each attribute is fetched from it when first asked
    for (``make`` runs then, once per name: the import system and re cache what they made),
    then kept as this object's own."""

    def __init__(self, make: Callable[[], object]) -> None:
        self._make = make

    def __getattr__(self, name: str) -> object:
        value = getattr(self._make(), name)
        setattr(self, name, value)
        return value


def _importer(name: str) -> Callable[[], object]:
    def load() -> object:
        __import__(name)
        return sys.modules[name]

    return load


if TYPE_CHECKING:

    def lazy_module(name: str) -> ModuleType:
        """The module ``name``, imported at the first use of one of its attributes."""
        ...

    def lazy_compile(pattern: str) -> re.Pattern[str]:
        """``re.compile(pattern)``, compiled at first use (flags go inline: ``(?s)``)."""
        ...

    def lazy_function(module: str, name: str, into: dict[str, object]) -> Callable[..., Any]:
        """A stand-in for ``from module import name`` (a function or class to call)."""
        ...

else:

    def lazy_module(name: str) -> object:
        """The module ``name``, imported at the first use of one of its attributes."""
        return _OnFirstUse(_importer(name))

    re = lazy_module("re")

    def lazy_compile(pattern: str) -> object:
        """``re.compile(pattern)``, compiled at first use (flags go inline: ``(?s)``)."""
        return _OnFirstUse(lambda: re.compile(pattern))

    def lazy_function(module: str, name: str, into: dict[str, object]) -> object:
        """A stand-in for ``from module import name`` in the module whose globals are
        ``into``, for a function or class the module only calls: at its first call it
        imports the real one, puts it in its place there (later calls go straight to it)
        and calls it.  (Not for a class caught or tested with isinstance: the stand-in is
        none.)"""

        def stand_in(*args: object, **kwargs: object) -> object:
            __import__(module)
            real = getattr(sys.modules[module], name)
            into[name] = real
            return real(*args, **kwargs)

        stand_in.__name__ = stand_in.__qualname__ = name
        return stand_in
