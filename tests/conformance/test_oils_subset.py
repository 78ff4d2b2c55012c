"""A fast regression guard on the Oils spec tests: chosen files must keep their scores.

The full sets (`--set core`, `--set extended`) take minutes; this runs a handful of files
covering the core language and fails when any file passes fewer cases than recorded.
Raise a floor when a file improves; never lower one to make the test pass.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
RUNNER = SHARED / "tools" / "oils_spec.py"
SPEC = SHARED / "conformance" / "oils" / "spec"

# file -> cases that must pass (measured with --mode file on this implementation)
FLOORS = {
    "case_": 12,
    "if_": 5,
    "quote": 34,
    "word-split": 41,
    "var-op-strip": 29,
    "var-op-test": 27,
    "arith": 71,
    "errexit": 35,
    "command-sub": 28,
    "pipeline": 25,
    "here-doc": 30,
    "redirect": 37,
    "sh-func": 11,
    "tilde": 14,
    "glob": 39,
    "brace-expansion": 54,
    "array": 68,
    "assoc": 41,
    "dbracket": 46,
    "nameref": 31,
    "extglob-files": 23,
    "var-op-patsub": 25,
    "introspect": 8,
    "builtin-trap-err": 23,
    "process-sub": 9,
    "ble-features": 10,
    "var-ref": 24,
    "builtin-type-bash": 30,
    "builtin-process": 25,
    "builtin-trap": 21,
    "alias": 48,
    "sh-options": 46,
}


@pytest.mark.skipif(not RUNNER.exists(), reason="shared/ conformance suite not present")
def test_oils_subset(tmp_path: Path) -> None:
    # this checkout's vshell: --vshell gives the shell a clean environment, so an installed
    # `vshell` (or PYTHONPATH) would run whatever tree is installed, not this one
    shell = f"{shutil.which('env') or '/usr/bin/env'} PYTHONPATH={ROOT} {sys.executable} -m vshell"
    # The specs' helpers (argv.py, printenv.py) run in vshell's Python guest, whose first
    # use compiles the runtime (tens of seconds on a fresh machine): every case would hit
    # the runner's 5 s limit while the compile never finishes.  Compile it once first.
    warm = subprocess.run([sys.executable, "-m", "vshell", "--timeout", "0", "-c",
                           "python3 -c pass"], capture_output=True, timeout=900, cwd=ROOT,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert warm.returncode == 0, warm.stderr[-2000:]
    out = tmp_path / "oils.json"
    proc = subprocess.run(
        [sys.executable, str(RUNNER), "--shell", shell, "--vshell", "--mode", "file",
         "--spec-dir", str(SPEC), "--files", ",".join(FLOORS), "--json", str(out)],
        capture_output=True, text=True, timeout=600, cwd=ROOT,
    )
    assert out.exists(), proc.stdout[-2000:] + proc.stderr[-2000:]
    data = json.loads(out.read_text())
    below = []
    for name, floor in FLOORS.items():
        cases = data["files"][name]["cases"]
        passed = sum(1 for c in cases if c["result"] not in ("FAIL", "TIME"))
        if passed < floor:
            failed = [f"{c['index']} {c['name']}" for c in cases if c["result"] in ("FAIL", "TIME")]
            below.append(f"{name}: {passed} < {floor} (failing: {failed})")
    assert not below, "\n".join(below)
