"""Side-by-side runs of the same cases against this checkout and a reference checkout.

``--ref DIR`` in the benchmark scripts lands here: every case runs ``--runs`` times in
each tree, alternating which goes first, each run in a fresh child process whose
PYTHONPATH is that tree (``_run_case.py``), so both see the same machine load and the
same warm page cache.  Medians are reported, and the ratio this / reference, with CPU
time as the figure that matters on a shared machine.  Outputs must be identical.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
THIS_TREE = HERE.parent
Case = tuple[Path, list[str]]


def _run(tree: Path, cwd: Path, argv: list[str]) -> dict[str, float | str | int]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    p = subprocess.run(
        [sys.executable, str(HERE / "_run_case.py"), str(cwd), *argv],
        env=env, cwd=cwd, capture_output=True, text=True, check=False,
    )
    if p.returncode != 0:
        raise SystemExit(f"{tree}: {' '.join(argv)} failed:\n{p.stderr}")
    result: dict[str, float | str | int] = json.loads(p.stdout.splitlines()[-1])
    if Path(str(result["tree"])) != tree:  # another vshell (an editable install) answered
        raise SystemExit(f"asked for {tree}, ran {result['tree']}")
    return result


def compare(cases: list[Case], ref: Path, runs: int) -> list[tuple[str, float, float]]:
    """Print one row per case and return (label, cpu ratio, wall ratio) for each."""
    ref = ref.resolve()
    print(f"this tree {THIS_TREE}  vs  reference {ref}   ({runs} alternating runs, medians)")
    print(f"{'command':44} {'ref cpu':>8} {'new cpu':>8} {'ratio':>6} "
          f"{'ref wall':>8} {'new wall':>8} {'ratio':>6}  same")
    rows = []
    for cwd, argv in cases:
        figures: dict[str, list[dict[str, float | str | int]]] = {"new": [], "ref": []}
        for i in range(runs):
            order = (("new", THIS_TREE), ("ref", ref))
            for side, tree in order if i % 2 == 0 else order[::-1]:
                figures[side].append(_run(tree, cwd, argv))
        med = {
            side: (statistics.median(float(r["cpu"]) for r in rs),
                   statistics.median(float(r["wall"]) for r in rs))
            for side, rs in figures.items()
        }
        outcomes = {(r["hash"], r["status"]) for rs in figures.values() for r in rs}
        label = " ".join(argv)
        (rc, rw), (nc, nw) = med["ref"], med["new"]
        cpu_ratio, wall_ratio = nc / max(rc, 1e-6), nw / max(rw, 1e-6)
        print(f"{label[:44]:44} {rc:7.2f}s {nc:7.2f}s {cpu_ratio:6.2f} "
              f"{rw:7.2f}s {nw:7.2f}s {wall_ratio:6.2f}  {'yes' if len(outcomes) == 1 else 'NO'}",
              flush=True)
        rows.append((label, cpu_ratio, wall_ratio))
    return rows
