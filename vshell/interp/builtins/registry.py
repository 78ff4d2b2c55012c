"""Shell builtins: commands that need the shell itself (its variables, descriptors,
options, control flow).  Each is ``fn(sh, name, args) -> status``; modules load lazily.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

_M = "vshell.interp."

TABLE: dict[str, str] = {
    ":": "builtins.core:b_true",
    "true": "builtins.core:b_true",
    "false": "builtins.core:b_false",
    "echo": "builtins.core:b_echo",
    "printf": "builtins.printf:b_printf",
    "cd": "builtins.core:b_cd",
    "pwd": "builtins.core:b_pwd",
    "exit": "builtins.core:b_exit",
    "return": "builtins.core:b_return",
    "break": "builtins.core:b_break",
    "continue": "builtins.core:b_break",
    "shift": "builtins.core:b_shift",
    "eval": "builtins.core:b_eval",
    "source": "builtins.core:b_source",
    ".": "builtins.core:b_source",
    "exec": "builtins.core:b_exec",
    "command": "builtins.core:b_command",
    "builtin": "builtins.core:b_builtin",
    "type": "builtins.core:b_type",
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
    "alias": "builtins.core:b_alias",
    "unalias": "builtins.core:b_unalias",
    "trap": "builtins.core:b_trap",
    "wait": "builtins.core:b_wait",
    "hash": "builtins.core:b_hash",
    "umask": "builtins.core:b_umask",
    "times": "builtins.core:b_times",
    "kill": "builtins.core:b_kill",
    "jobs": "builtins.core:b_jobs",
    "caller": "builtins.core:b_caller",
    "pushd": "builtins.core:b_pushd",
    "popd": "builtins.core:b_popd",
    "dirs": "builtins.core:b_dirs",
    "help": "builtins.core:b_help",
    "enable": "builtins.core:b_enable",
    "ulimit": "builtins.core:b_ulimit",
    "history": "builtins.core:b_history",
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
