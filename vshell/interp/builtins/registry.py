"""Shell builtins: commands that need the shell itself (its variables, descriptors,
options, control flow).  Each is ``fn(sh, name, args) -> status``; modules load lazily.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeAlias

    from vshell.interp.state import ShellState

_M = "vshell.interp."

# builtins that also exist as programs in /usr/bin and /bin: `type -a echo` lists both, as
# bash does (here, not in builtins.resolve, so listing /bin imports no builtin's module)
COREUTILS_TWINS = frozenset(("echo", "printf", "test", "[", "kill", "pwd", "true", "false"))

TABLE: dict[str, str] = {
    ":": "builtins.echo:b_true",
    "true": "builtins.echo:b_true",
    "false": "builtins.echo:b_false",
    "echo": "builtins.echo:b_echo",
    "printf": "builtins.printf:b_printf",
    "cd": "builtins.dirs:b_cd",
    "pwd": "builtins.dirs:b_pwd",
    "exit": "builtins.flow:b_exit",
    "return": "builtins.flow:b_return",
    "break": "builtins.flow:b_break",
    "continue": "builtins.flow:b_break",
    "shift": "builtins.flow:b_shift",
    "eval": "builtins.flow:b_eval",
    "source": "builtins.flow:b_source",
    ".": "builtins.flow:b_source",
    "exec": "builtins.flow:b_exec",
    "command": "builtins.resolve:b_command",
    "builtin": "builtins.resolve:b_builtin",
    "type": "builtins.resolve:b_type",
    "test": "cond:builtin_test",
    "[": "cond:builtin_test",
    "read": "builtins.read:b_read",
    "mapfile": "builtins.read:b_mapfile",
    "readarray": "builtins.read:b_mapfile",
    "set": "builtins.vars:b_set",
    "unset": "builtins.vars:b_unset",
    "export": "builtins.vars:b_export",
    "readonly": "builtins.vars:b_readonly",
    "local": "builtins.vars:b_local",
    "declare": "builtins.vars:b_declare",
    "typeset": "builtins.vars:b_declare",
    "let": "builtins.vars:b_let",
    "shopt": "builtins.vars:b_shopt",
    "getopts": "builtins.vars:b_getopts",
    "alias": "builtins.alias:b_alias",
    "unalias": "builtins.alias:b_unalias",
    "trap": "builtins.jobs:b_trap",
    "wait": "builtins.jobs:b_wait",
    "hash": "builtins.resolve:b_hash",
    "umask": "builtins.misc:b_umask",
    "times": "builtins.misc:b_times",
    "kill": "builtins.jobs:b_kill",
    "jobs": "builtins.jobs:b_jobs",
    "caller": "builtins.flow:b_caller",
    "pushd": "builtins.dirs:b_pushd",
    "popd": "builtins.dirs:b_popd",
    "dirs": "builtins.dirs:b_dirs",
    "help": "builtins.misc:b_help",
    "enable": "builtins.misc:b_enable",
    "ulimit": "builtins.misc:b_ulimit",
    "history": "builtins.misc:b_history",
    "sh": "nested:b_shell",
    "bash": "nested:b_shell",
    "vshell": "nested:b_shell",
    "dash": "nested:b_shell",
}

# POSIX special builtins: prefix assignments persist in posix mode, errors are fatal there.
SPECIAL = frozenset(
    ": . break continue eval exec exit export readonly return set shift trap unset source".split()
)

_cache: dict[str, Callable[..., int]] = {}  # the functions, imported once (no session state)
NONE_DISABLED: frozenset[str] = frozenset()


def names() -> list[str]:
    return sorted(TABLE)


def lookup(name: str, disabled: frozenset[str] = NONE_DISABLED) -> Callable[..., int] | None:
    """The builtin ``name``; ``disabled`` is the session's ``enable -n`` set."""
    if name in disabled:
        return None
    fn = _cache.get(name)
    if fn is not None:
        return fn
    target = TABLE.get(name)
    if target is None:
        return None
    mod, _, attr = target.partition(":")
    __import__(_M + mod)  # importlib.import_module, without importing importlib
    fn = getattr(sys.modules[_M + mod], attr)
    _cache[name] = fn
    return fn


def is_builtin(name: str, disabled: frozenset[str] = NONE_DISABLED) -> bool:
    return name in TABLE and name not in disabled


def disabled_in(state: ShellState) -> frozenset[str]:
    """The builtins ``enable -n`` turned off in this shell (its state, so one Sandbox, or a
    subshell, never affects another)."""
    return getattr(state, "disabled_builtins", NONE_DISABLED)


Builtin: TypeAlias = "Callable[[Any, str, list[str]], int]"
