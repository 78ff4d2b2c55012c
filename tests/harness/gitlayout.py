"""Git layouts made of plain files (no git needed) and a private runtime directory per
test, whose session servers are stopped when the test ends."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def make_repo(base: Path) -> tuple[Path, Path]:
    """(main worktree, linked worktree) of one repository, as ``git worktree add`` lays
    them out: ``main/.git/`` and ``linked/.git`` = ``gitdir: main/.git/worktrees/linked``."""
    main, linked = base / "main", base / "linked"
    (main / ".git" / "worktrees" / "linked").mkdir(parents=True)
    (main / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    admin = main / ".git" / "worktrees" / "linked"
    linked.mkdir()
    (linked / ".git").write_text(f"gitdir: {admin}\n")
    (admin / "commondir").write_text("../..\n")
    (admin / "gitdir").write_text(f"{linked / '.git'}\n")
    (main / "src").mkdir()
    return main, linked


@contextmanager
def runtime_dir() -> Iterator[dict[str, str]]:
    """An environment for ``vshell run`` with a fresh runtime dir (short: sockets have a
    path limit) and config home; every server started in it is stopped afterwards."""
    rt = tempfile.mkdtemp(prefix="vsh-rt-")
    os.chmod(rt, 0o700)
    cfg = tempfile.mkdtemp(prefix="vsh-cfg-")
    env = {**os.environ, "VSHELL_RUNTIME_DIR": rt, "XDG_CONFIG_HOME": cfg,
           "PYTHONPATH": str(ROOT)}
    try:
        yield env
    finally:
        vshell(["stop", "--all"], cwd="/", env=env)
        deadline = time.monotonic() + 10
        while any(n.endswith(".sock") for n in os.listdir(rt)) and time.monotonic() < deadline:
            time.sleep(0.05)
        left = [n for n in os.listdir(rt) if n.endswith(".sock")]
        shutil.rmtree(rt, ignore_errors=True)
        shutil.rmtree(cfg, ignore_errors=True)
        assert not left, f"session servers left running: {left}"


def vshell(args: list[str], cwd: str | Path, env: dict[str, str], stdin: bytes = b"",
           timeout: float = 120) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "vshell", *args], cwd=cwd, env=env,
                          input=stdin, capture_output=True, timeout=timeout)
