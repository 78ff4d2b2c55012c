"""``Outcome`` is an Enum to the type checker and a lighter class at run time (importing
enum cost every ``vshell -c``): the two must list the same members, and the run-time class
must behave as the Enum does where callers rely on it."""

from __future__ import annotations

import ast
import copy
import pickle
from pathlib import Path

import pytest

from vshell import Outcome, Sandbox

RESULT_PY = Path(__file__).resolve().parents[2] / "vshell" / "result.py"


def _enum_members() -> list[tuple[str, str]]:
    """The members of the ``class Outcome(enum.Enum)`` mypy reads in vshell/result.py."""
    tree = ast.parse(RESULT_PY.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == "Outcome" and node.bases:
            return [(stmt.targets[0].id, stmt.value.value)  # type: ignore[attr-defined]
                    for stmt in node.body if isinstance(stmt, ast.Assign)]
    raise AssertionError("no Enum Outcome in vshell/result.py")


def test_runtime_members_are_the_enums() -> None:
    assert [(m.name, m.value) for m in Outcome] == _enum_members()
    assert len(Outcome) == len(_enum_members())


def test_behaves_as_an_enum() -> None:
    done = Outcome.COMPLETED
    assert Outcome("completed") is done and Outcome["COMPLETED"] is done
    assert str(done) == "completed" and repr(done) == "<Outcome.COMPLETED: 'completed'>"
    assert isinstance(done, Outcome) and done != Outcome.INVALID and hash(done) == hash(done)
    with pytest.raises(ValueError):
        Outcome("nope")
    with pytest.raises(KeyError):
        Outcome["nope"]
    with pytest.raises(KeyError):
        Outcome["_members"]


def test_pickled_and_copied_results_keep_the_member() -> None:
    res = Sandbox().exec("nosuchcommand")
    assert res.outcome is Outcome.NOT_FOUND
    assert pickle.loads(pickle.dumps(res)).outcome is Outcome.NOT_FOUND
    assert copy.deepcopy(res).outcome is Outcome.NOT_FOUND
    assert copy.copy(Outcome.DENIED) is Outcome.DENIED
