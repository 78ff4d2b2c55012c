"""grep and sed against GNU grep 3.8 / sed 4.9, side by side, on generated data.

    python benchmarks/bench_grep_sed.py [--mb 100] [--tree-files 2000] [--keep DIR]
                                        [--ref CHECKOUT [--runs 5]]

Cases: ``grep -c error`` and ``grep -c 'err[a-z]*r'`` on a log-like file of ``--mb`` MiB,
``grep -rn hello`` over a tree of small files, ``sed s/a/b/g`` and ``sed 's/e\\(rr\\)or/<\\1>/'``
on the big file (whole-chunk fast paths), and a script that needs sed's line-by-line
engine.  vshell's commands run in this process through the dispatcher over a
host mount, as the shell runs them, writing to a sink that counts bytes; GNU's output is
read from a pipe (not /dev/null, which GNU grep treats as -q).  Outputs are checked to be
identical.  Wall time is the figure; CPU time is printed too because shared machines make
wall time noisy.  Ratio = vshell / GNU.

With ``--ref CHECKOUT`` the same cases run against another vshell checkout instead of GNU
(say an older commit in ``git worktree add /tmp/old REV``), alternating runs in child
processes, medians; ratio = this tree / the reference (``_sidebyside.py``).
"""

from __future__ import annotations

import argparse
import hashlib
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _run_case import run_once  # noqa: E402
from _sidebyside import compare  # noqa: E402

ENV = {"LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"}
WORDS = (
    "alpha beta gamma delta error warning info debug request response user admin "
    "timeout connection hello"
).split()


def make_big(path: Path, mb: int) -> None:
    rnd = random.Random(1)
    lines = []
    for _ in range(50000):
        words = " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(3, 12)))
        lines.append(
            f"2026-11-30 12:{rnd.randint(0, 59):02d}:{rnd.randint(0, 59):02d} {words} "
            f"id={rnd.randint(1, 99999)}\n"
        )
    block = "".join(lines).encode()
    with path.open("wb") as f:
        size = 0
        while size < mb << 20:
            f.write(block)
            size += len(block)


def make_tree(root: Path, files: int) -> None:
    rnd = random.Random(2)
    for i in range(files):
        d = root / f"d{i % 20}" / f"s{i % 7}"
        d.mkdir(parents=True, exist_ok=True)
        text = "".join(
            " ".join(rnd.choice(WORDS) for _ in range(8)) + "\n" for _ in range(200)
        )
        (d / f"f{i}.txt").write_text(text)


def run_gnu(argv: list[str], cwd: Path) -> tuple[float, float, str, int]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(argv, cwd=cwd, env=ENV, stdout=subprocess.PIPE, check=False)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, hashlib.sha256(p.stdout).hexdigest(), p.returncode


def run_vshell(argv: list[str], root: Path) -> tuple[float, float, str, int]:
    return run_once(str(root), argv)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=int, default=100)
    ap.add_argument("--tree-files", type=int, default=2000)
    ap.add_argument("--keep", help="use (and keep) this directory for the data")
    ap.add_argument("--ref", type=Path, help="compare with this vshell checkout, not GNU")
    ap.add_argument("--runs", type=int, default=5, help="runs per side with --ref")
    a = ap.parse_args()
    for tool in ("grep", "sed"):
        if shutil.which(tool) is None:
            print(f"no host {tool}", file=sys.stderr)
            return 1
    tmp = Path(a.keep) if a.keep else Path(tempfile.mkdtemp(prefix="bench-gs."))
    tmp.mkdir(parents=True, exist_ok=True)
    try:
        big = tmp / "big.txt"
        if not big.exists():
            make_big(big, a.mb)
        tree = tmp / "tree"
        if not tree.exists():
            make_tree(tree, a.tree_files)
        cases = grep_sed_cases(tmp, tree)
        size = big.stat().st_size / (1 << 20)
        print(f"big.txt {size:.0f} MiB, tree {a.tree_files} files")
        if a.ref:
            compare(cases, a.ref, a.runs)
            return 0
        print(f"{'command':42} {'GNU wall':>9} {'vsh wall':>9} {'ratio':>6} "
              f"{'GNU cpu':>8} {'vsh cpu':>8} {'ratio':>6}  same")
        for cwd, argv in cases:
            gw, gc, gh, gs = run_gnu(argv, cwd)
            vw, vc, vh, vs = run_vshell(argv, cwd)
            label = " ".join(argv)
            if argv[:2] == ["grep", "-rn"]:
                same = "n/a (order)" if gs == vs else "STATUS DIFFERS"
            else:
                same = "yes" if (gh, gs) == (vh, vs) else "NO"
            print(f"{label[:42]:42} {gw:8.2f}s {vw:8.2f}s {vw / gw:6.1f} "
                  f"{gc:7.2f}s {vc:7.2f}s {vc / max(gc, 1e-3):6.1f}  {same}")
    finally:
        if not a.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


def grep_sed_cases(tmp: Path, tree: Path) -> list[tuple[Path, list[str]]]:
    """The measured commands: big.txt in ``tmp``, the small files under ``tree``."""
    return [
        (tmp, ["grep", "-c", "error", "big.txt"]),
        (tmp, ["grep", "-c", "err[a-z]*r", "big.txt"]),
        (tmp, ["grep", "-n", "timeout connection", "big.txt"]),
        (tree, ["grep", "-rn", "hello user"]),
        (tmp, ["sed", "s/a/b/g", "big.txt"]),
        (tmp, ["sed", "s/e\\(rr\\)or/<\\1>/", "big.txt"]),
        (tmp, ["sed", "-n", "/admin$/p", "big.txt"]),
        (tmp, ["sed", "/error/s/a/A/g;3~5d", "big.txt"]),  # the line-by-line engine
    ]


if __name__ == "__main__":
    sys.exit(main())
