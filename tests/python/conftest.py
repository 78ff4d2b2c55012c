"""Fixtures for the ``python`` command tests (helpers live in pyharness.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyharness import make_fs, py


@pytest.fixture(scope="session")
def warm(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Load (or compile, once per machine) the runtime before any timed test."""
    root = tmp_path_factory.mktemp("warm")
    ran = py(make_fs(root), ["-c", "pass"])
    assert ran.status == 0, ran.stderr


@pytest.fixture
def root(tmp_path: Path, warm: None) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    return work


@pytest.fixture
def fs(root: Path):
    return make_fs(root)
