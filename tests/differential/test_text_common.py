"""Shared fixture builder for the text-command differential tests (no tests here).

Each ``test_text_<cmd>.py`` lists argv/stdin cases; ``check`` runs one through vshell and
the GNU tool on this host (tests/cmdharness.py) and compares status, stdout and stderr.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent))

from cmdharness import same, write_files  # noqa: E402

__all__ = ["same", "write_files", "make_root", "ids"]


def make_root(tmp_path_factory, files: dict[str, bytes | str], dirs: tuple[str, ...] = ("d",)):
    """A fresh host directory holding ``files`` plus empty directories ``dirs``."""
    root = tmp_path_factory.mktemp("text")
    write_files(root, files)
    for d in dirs:
        (root / d).mkdir(exist_ok=True)
    return root


def ids(case) -> str:
    """A readable test id for an argv list (or an (argv, stdin) pair)."""
    argv = case[0] if isinstance(case, tuple) else case
    text = " ".join(a if a else "''" for a in argv)
    return text.encode("unicode_escape").decode()[:80] or "noargs"
