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
import typing as _typing

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


def __getattr__(name: str) -> _typing.Any:
    """Import the public names lazily, keeping ``vshell -c`` start-up small."""
    mod = _LAZY.get(name)
    if mod is None:
        raise AttributeError(f"module 'vshell' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(mod), name)


# ``vshell.command`` is both a submodule and the name of the decorator.  Import the
# submodule now (it is small) and bind the package attribute to the decorator, so that
# ``from vshell import command`` is always the function, whatever is imported later.
from vshell import command as _command_module  # noqa: E402

command = _command_module.command  # noqa: F811
