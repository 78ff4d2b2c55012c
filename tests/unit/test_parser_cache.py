"""The LALR table cache: written privately, reused, and ignored when damaged."""

from __future__ import annotations

import marshal
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PROBE = (
    "from vshell.syntax import parse;"
    "assert parse('case x in a) (( y )) ;; esac').items;"
    "import bashlex.parser as bp, hashlib;"
    "y = bp.yaccparser;"
    "print(hashlib.sha256(repr((sorted((k, sorted(v.items())) for k, v in y.action.items()),"
    " [(p.name, p.prod, p.func) for p in y.productions], sorted(y.defaulted_states.items())))"
    ".encode()).hexdigest())"
)


def _probe(cache: Path, enabled: bool = True) -> str:
    env = dict(os.environ, XDG_CACHE_HOME=str(cache), PYTHONPATH=str(REPO))
    env["VSHELL_PARSER_CACHE"] = "1" if enabled else "0"
    out = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX ownership checks")
def test_table_cache_roundtrip(tmp_path: Path) -> None:
    reference = _probe(tmp_path / "none", enabled=False)
    assert not (tmp_path / "none").exists()
    assert _probe(tmp_path) == reference  # builds and stores
    files = list((tmp_path / "vshell").glob("bashlex-*.tables"))
    assert len(files) == 1
    assert files[0].stat().st_mode & 0o777 == 0o600
    key = tmp_path / "vshell" / ".seal-key"  # the per-cache secret the tables are sealed with
    assert key.stat().st_mode & 0o777 == 0o600 and key.stat().st_size == 32
    assert sorted(p.name for p in (tmp_path / "vshell").iterdir()) == [key.name, files[0].name]
    assert (tmp_path / "vshell").stat().st_mode & 0o777 == 0o700
    assert _probe(tmp_path) == reference  # loads
    files[0].write_bytes(b"garbage")
    files[0].chmod(0o600)
    assert _probe(tmp_path) == reference  # ignores the damaged file and rewrites it
    files[0].chmod(0o666)
    assert _probe(tmp_path) == reference  # refuses a writable-by-others file
    files[0].chmod(0o600)
    files[0].write_bytes(marshal.dumps({"format": 2, "key": "another bashlex"}))
    assert _probe(tmp_path) == reference  # tables keyed for another install are rebuilt
    sealed = files[0].read_bytes()
    foreign = sealed[32:]  # well-formed tables, but not sealed by this cache's key
    files[0].write_bytes(foreign)
    files[0].chmod(0o600)
    assert _probe(tmp_path) == reference
    assert files[0].read_bytes() != foreign  # never loaded: rebuilt and sealed again
    assert files[0].read_bytes()[32:] == foreign


def test_import_is_lazy() -> None:
    code = "import sys, vshell.syntax; print('bashlex' in sys.modules)"
    env = dict(os.environ, PYTHONPATH=str(REPO))
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"
