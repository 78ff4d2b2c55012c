"""Shell builtins: commands that need the shell itself (its variables, descriptors,
options, control flow).  Each is ``fn(sh, name, args) -> status``; modules load lazily.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

_M = "vshell.interp."

TABLE: dict[str, str] = {
    ":": "builtins_core:b_true",
    "true": "builtins_core:b_true",
    "false": "builtins_core:b_false",
    "echo": "builtins_core:b_echo",
    "printf": "printf:b_printf",
    "cd": "builtins_core:b_cd",
    "pwd": "builtins_core:b_pwd",
    "exit": "builtins_core:b_exit",
    "return": "builtins_core:b_return",
    "break": "builtins_core:b_break",
    "continue": "builtins_core:b_break",
    "shift": "builtins_core:b_shift",
    "eval": "builtins_core:b_eval",
    "source": "builtins_core:b_source",
    ".": "builtins_core:b_source",
    "exec": "builtins_core:b_exec",
    "command": "builtins_core:b_command",
    "builtin": "builtins_core:b_builtin",
    "type": "builtins_core:b_type",
    "test": "cond:builtin_test",
    "[": "cond:builtin_test",
    "read": "read:b_read",
    "mapfile": "read:b_mapfile",
    "readarray": "read:b_mapfile",
    "set": "builtins_vars:b_set",
    "unset": "builtins_vars:b_unset",
    "export": "builtins_vars:b_export",
    "readonly": "builtins_vars:b_readonly",
    "local": "builtins_vars:b_local",
    "declare": "builtins_vars:b_declare",
    "typeset": "builtins_vars:b_declare",
    "let": "builtins_vars:b_let",
    "shopt": "builtins_vars:b_shopt",
    "getopts": "builtins_vars:b_getopts",
    "alias": "builtins_core:b_alias",
    "unalias": "builtins_core:b_unalias",
    "trap": "builtins_core:b_trap",
    "wait": "builtins_core:b_wait",
    "hash": "builtins_core:b_hash",
    "umask": "builtins_core:b_umask",
    "times": "builtins_core:b_times",
    "kill": "builtins_core:b_kill",
    "jobs": "builtins_core:b_jobs",
    "caller": "builtins_core:b_caller",
    "pushd": "builtins_core:b_pushd",
    "popd": "builtins_core:b_popd",
    "dirs": "builtins_core:b_dirs",
    "help": "builtins_core:b_help",
    "enable": "builtins_core:b_enable",
    "ulimit": "builtins_core:b_ulimit",
    "history": "builtins_core:b_history",
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
    fn = getattr(importlib.import_module(_M + mod), attr)
    _cache[name] = fn
    return fn


def is_builtin(name: str, disabled: frozenset[str] = NONE_DISABLED) -> bool:
    return name in TABLE and name not in disabled


def disabled_in(state: Any) -> frozenset[str]:
    """The builtins ``enable -n`` turned off in this shell (its state, so one Sandbox, or a
    subshell, never affects another)."""
    return getattr(state, "disabled_builtins", NONE_DISABLED)


Builtin = Callable[[Any, str, list[str]], int]
