"""What the shell builtins share: how they print and ask whether a name is a builtin."""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    from vshell.interp.shell import Shell


def is_enabled_builtin(sh: Shell, name: str) -> bool:
    """A builtin this shell has not turned off with ``enable -n``."""
    from vshell.interp.builtins import registry as builtins_registry

    return builtins_registry.is_builtin(name, builtins_registry.disabled_in(sh.state))


def out(sh: Shell, text: str) -> None:
    sh.write_out(text.encode("utf-8", "surrogateescape"))
