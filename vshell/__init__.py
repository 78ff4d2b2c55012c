"""vshell: a bash-compatible virtual shell for AI agents.

Every command is a Python function over a virtual filesystem of host mounts; nothing
ever starts a host process.  The public API:

    from vshell import Sandbox, HostMount, MemoryMount, Result, Outcome

    with Sandbox(mounts=[HostMount("./work", "/work")], deny=["**/.env"]) as sb:
        res = sb.exec("cd /work && ls | wc -l")
        print(res.exit_code, res.stdout)
"""

# Only the names of ``__all__`` are public here: helpers carry a leading underscore, and
# tests/unit/test_public_api.py checks it (so no ``from __future__ import annotations``,
# which would leave a public ``annotations`` behind).
#
# ``import vshell`` imports nothing else: not even :mod:`typing` (with the ``re`` it pulls
# in, about 10 ms here, as much as the interpreter's own start).
import sys as _sys


class _typing:  # noqa: N801 - stands for ``typing`` in ``_typing.TYPE_CHECKING`` below
    """``typing.TYPE_CHECKING`` without importing typing (mypy takes any ``TYPE_CHECKING``
    as true, the layer test skips the block like ``if TYPE_CHECKING:``)."""

    TYPE_CHECKING = False

__version__ = "0.1.0"

__all__ = [
    "Sandbox",
    "SandboxPool",
    "SandboxConfigError",
    "HostMount",
    "MemoryMount",
    "BackendMount",
    "Result",
    "Outcome",
    "SandboxError",
    "Command",
    "Invocation",
    "Exit",
    "exitf",
    "command",
    "NestedRequest",
    "__version__",
]

_LAZY = {
    "Sandbox": "vshell.sandbox",
    "SandboxPool": "vshell.pool",
    "SandboxConfigError": "vshell.sandbox",
    "HostMount": "vshell.sandbox",
    "MemoryMount": "vshell.sandbox",
    "BackendMount": "vshell.sandbox",
    "Result": "vshell.result",
    "Outcome": "vshell.result",
    "SandboxError": "vshell.result",
    "Command": "vshell.command",
    "Invocation": "vshell.command",
    "Exit": "vshell.command",
    "exitf": "vshell.command",
    "NestedRequest": "vshell.command",
}

if _typing.TYPE_CHECKING:
    from vshell.command import Command, Exit, Invocation, NestedRequest, command, exitf
    from vshell.pool import SandboxPool
    from vshell.result import Outcome, Result, SandboxError
    from vshell.sandbox import BackendMount, HostMount, MemoryMount, Sandbox, SandboxConfigError


def __getattr__(name: str) -> object:
    """Import the public names lazily, keeping ``vshell -c`` start-up small."""
    mod = _LAZY.get(name)
    if mod is None:
        raise AttributeError(f"module 'vshell' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(mod), name)


class _Package(type(_sys)):  # type: ignore[misc]  # the class of modules, named cheaply
    """The package module's class: ``vshell.command`` is always the decorator.

    ``vshell.command`` is both a submodule and the name of the decorator.  Importing the
    submodule binds it on the package (the import system's ``setattr``); this property keeps
    the decorator there instead, and imports the submodule only when the name is used.
    """

    @property
    def command(self) -> object:
        from vshell.command import command

        return command

    @command.setter
    def command(self, value: object) -> None:
        pass  # the submodule, bound by the import system: it stays in sys.modules only


_sys.modules[__name__].__class__ = _Package
