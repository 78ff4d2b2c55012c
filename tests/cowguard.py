"""A watch on the shell state's copy-on-write (a variable shared by a fork is never changed)
and on its kept environment (``exported()`` is always what the scopes say now).

``ShellState.subshell`` shares every variable between the parent and the child, and each
side copies a variable before it changes it (``vshell.interp.state.Owner``).  A change made
in place to a shared variable would show in the other shell, so this module wraps
``subshell`` to remember each variable at each fork with a snapshot of its value and
attributes, and :func:`changed` lists any of them that changed since.

``exported()`` is kept between changes (``ShellState.env_version``); the watch also builds
the environment afresh at every call and fails when the kept one differs.

Used by the isolation tests through :func:`watching`; as a pytest plugin (``-p cowguard``)
it checks after every test of a run, which is how a whole corpus can be put under it.
"""

from __future__ import annotations

import copy
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from vshell.interp.state import ShellState, Var

# weakly: a watched variable must be free to go (and give back its memory charge); one that
# nothing holds any more cannot show a change to anyone
_seen: list[tuple[weakref.ref[Var], Any, frozenset[str]]] = []
_original = ShellState.subshell
_original_exported = ShellState.exported
_stale: list[str] = []


def _snapshot(v: Var) -> tuple[Any, frozenset[str]]:
    return copy.copy(v.value), frozenset(v.attrs)


def _watched(self: ShellState) -> ShellState:
    child = _original(self)
    scopes = [child.globals, *(f.locals for f in child.frames)]
    for scope in scopes:
        for v in scope.values():
            _seen.append((weakref.ref(v), *_snapshot(v)))
    return child


def _checked_exported(self: ShellState) -> dict[str, str]:
    env = _original_exported(self)
    fresh = self.build_env()
    if env != fresh:
        _stale.append(f"kept {sorted(env.items())} but the scopes say {sorted(fresh.items())}")
    return env


def changed() -> list[str]:
    """What changed in a shared variable since its fork (and forget what was watched)."""
    bad = []
    for ref, value, attrs in _seen:
        v = ref()
        if v is not None and (v.value != value or frozenset(v.attrs) != attrs):
            bad.append(f"{value!r} {sorted(attrs)} became {v.value!r} {sorted(v.attrs)}")
    _seen.clear()
    bad.extend(_stale)
    _stale.clear()
    return bad


@contextmanager
def watching() -> Iterator[None]:
    """Watch the forks made inside the block; fail at its end if a shared variable changed."""
    ShellState.subshell = _watched  # type: ignore[method-assign]  # the watch wraps the method
    ShellState.exported = _checked_exported  # type: ignore[method-assign]  # and this one
    _seen.clear()
    _stale.clear()
    try:
        yield
    finally:
        ShellState.subshell = _original  # type: ignore[method-assign]  # put back
        ShellState.exported = _original_exported  # type: ignore[method-assign]  # put back
    bad = changed()
    assert not bad, "a shared variable changed in place, or a stale environment:\n" + "\n".join(
        bad[:10])


@pytest.fixture(autouse=True)
def _cow_guard() -> Iterator[None]:
    """As a plugin (``-p cowguard``): every test runs watched."""
    with watching():
        yield
