"""Test-wide set-up: the checkout, the tests directory and its sub-directories (for their
shared helper modules) are importable.  Test modules themselves are imported with
pytest's importlib mode, so equal basenames in different folders do not clash.

A test that starts a host tool which is not installed is skipped with the tool and its
Debian package named (see tests/tools.py; tests should call ``tools.require`` first)."""

import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent
for p in [_HERE.parent, _HERE, *sorted(d for d in _HERE.iterdir() if d.is_dir())]:
    if str(p) not in sys.path and not p.name.startswith((".", "__")):
        sys.path.insert(0, str(p))


# --- host reference tools: a test whose oracle is not installed is skipped, not failed ------
import pytest  # noqa: E402
from tools import why  # noqa: E402


def _missing_tool(exc: BaseException) -> str | None:
    """The tool a FileNotFoundError from starting a program names, if it is not installed."""
    import shutil

    name = getattr(exc, "filename", None)
    if isinstance(exc, FileNotFoundError) and isinstance(name, str) and name:
        base = name.rsplit("/", 1)[-1]
        if shutil.which(base) is None:
            return base
    return None


def _skip_when_tool_missing():
    try:
        return (yield)
    except FileNotFoundError as e:
        tool = _missing_tool(e)
        if tool is None:
            raise
        pytest.skip(why(tool))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item):
    return (yield from _skip_when_tool_missing())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    return (yield from _skip_when_tool_missing())
