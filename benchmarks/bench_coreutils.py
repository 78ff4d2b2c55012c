"""cat, wc, sort, cut, sha256sum and tar against GNU, side by side, on ~100 MB inputs.

    python benchmarks/bench_coreutils.py [--size 100] [--runs 3] [--only NAME] [--keep DIR]

Each case runs the GNU command with ``sh -c`` and the same command line through
``python -m vshell --mount DIR:/w --timeout 0 -c 'cd /w && ...'`` (start-up included, as a
user would see it), alternating GNU and vshell ``--runs`` times so machine load hits both
alike.  Reported: median wall time and median CPU time (children's user+sys from
``getrusage``) and the vshell/GNU ratio of each, and in the ``net`` column the CPU ratio with
vshell's start-up (the ``start-up`` row: ``cd /w && true``) taken off: the cost of the
command's own work.  CPU time is the steadier figure on a loaded machine.  Where a case has a
``FLOORS`` entry, a third side runs the least any CPython program can do for it (``python3 -c``
with the C-level primitive, e.g. ``bytes.count`` for ``wc -l``): the ``py`` columns show how
much of vshell's ratio is CPython itself rather than vshell.  Outputs are
checked to be identical: stdout for the commands that print, the ``out`` file for sort and
cut, the extracted tree for tar.  The inputs are deterministic: a text file of
tab-separated fields, a binary file, and a ``.tar.gz`` made by GNU tar from a tree of
~``--size`` MB.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENV = {"LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"}
WORDS = (
    "alpha beta gamma delta error warning info debug request response user admin "
    "timeout connection hello"
).split()

# name, command line (run in DIR by GNU, in /w by vshell), what to compare
CASES: list[tuple[str, str, str]] = [
    ("start-up", "true", "stdout"),  # the fixed cost inside every vshell figure below
    ("cat | wc -l", "cat big.txt | wc -l", "stdout"),
    ("wc -l", "wc -l big.txt", "stdout"),
    ("sort", "sort big.txt > out", "out"),
    ("cut -f2", "cut -f2 big.txt > out", "out"),
    ("sha256sum", "sha256sum big.bin", "stdout"),
    ("tar xzf", "rm -rf out && mkdir out && tar xzf big.tar.gz -C out", "tree"),
]


# the least a CPython program does for a case: start-up, then the C primitive over the file
FLOORS: dict[str, str] = {
    "start-up": "pass",
    "wc -l": (
        "import sys\n"
        "buf = bytearray(1 << 20); n = 0\n"
        "with open('big.txt', 'rb', buffering=0) as f:\n"
        "    while k := f.readinto(buf):\n"
        "        n += buf.count(b'\\n', 0, k)\n"
        "print(n, 'big.txt')\n"
    ),
}


def make_text(path: Path, mb: int) -> None:
    """Tab-separated lines, every one different (so sort has real work to do)."""
    rnd = random.Random(1)
    words = [" ".join(rnd.choice(WORDS) for _ in range(rnd.randint(2, 8))) for _ in range(4096)]
    target = mb * 1_000_000
    size = 0
    i = 0
    with path.open("wb") as f:
        while size < target:
            batch = []
            for _ in range(20000):
                r = rnd.getrandbits(40)
                batch.append(
                    f"{r:010x}\t{WORDS[r % 15]}\t{i}\t{words[r % 4096]}\t{r % 1000}\n"
                )
                i += 1
            block = "".join(batch).encode()
            f.write(block)
            size += len(block)


def make_binary(path: Path, mb: int) -> None:
    rnd = random.Random(3)
    with path.open("wb") as f:
        for _ in range(mb):
            f.write(rnd.randbytes(1_000_000))


def make_tarball(root: Path, mb: int) -> None:
    """A tree of text and binary files (~mb MB), packed by GNU tar into big.tar.gz."""
    rnd = random.Random(2)
    tree = root / "src"
    per_file = 250_000
    for i in range(max(1, mb * 1_000_000 // per_file)):
        d = tree / f"d{i % 10}" / f"s{i % 4}"
        d.mkdir(parents=True, exist_ok=True)
        if i % 3 == 0:
            data = rnd.randbytes(per_file)
        else:
            line = " ".join(rnd.choice(WORDS) for _ in range(10)) + "\n"
            data = (f"file {i}\n" + line * (per_file // len(line))).encode()
        (d / f"f{i}.dat").write_bytes(data)
    subprocess.run(["tar", "czf", "big.tar.gz", "-C", "src", "."], cwd=root, env=ENV, check=True)
    shutil.rmtree(tree)


def tree_digest(top: Path) -> str:
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames.sort()
        rel = os.path.relpath(dirpath, top)
        h.update(f"D {rel}\n".encode())
        for name in sorted(filenames):
            p = Path(dirpath, name)
            fh = hashlib.sha256()
            with p.open("rb") as f:
                while chunk := f.read(1 << 20):
                    fh.update(chunk)
            mode = p.stat().st_mode & 0o7777
            h.update(f"F {rel}/{name} {mode:o} {fh.hexdigest()}\n".encode())
    return h.hexdigest()


def result_digest(stdout: bytes, kind: str, cwd: Path) -> str:
    if kind == "stdout":
        return hashlib.sha256(stdout).hexdigest()
    if kind == "out":
        h = hashlib.sha256()
        with (cwd / "out").open("rb") as f:
            while chunk := f.read(1 << 20):
                h.update(chunk)
        return h.hexdigest()
    return tree_digest(cwd / "out")


def timed(argv: list[str], cwd: Path) -> tuple[float, float, bytes, int]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(argv, cwd=cwd, env=ENV, stdout=subprocess.PIPE, check=False)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, p.stdout, p.returncode


def gnu_argv(script: str) -> list[str]:
    return ["sh", "-c", script]


def vshell_argv(script: str, root: Path) -> list[str]:
    return [sys.executable, "-m", "vshell", "--mount", f"{root}:/w", "--timeout", "0",
            "--env", "LC_ALL", "-c", f"cd /w && {script}"]


def cleanup(root: Path) -> None:
    out = root / "out"
    if out.is_dir():
        shutil.rmtree(out)
    elif out.exists():
        out.unlink()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=100, metavar="MB", help="input size (MB)")
    ap.add_argument("--runs", type=int, default=3, help="runs of each side (median)")
    ap.add_argument("--only", action="append", help="run only the case(s) named so")
    ap.add_argument("--keep", help="use (and keep) this directory for the data")
    a = ap.parse_args()
    for tool in ("cat", "wc", "sort", "cut", "sha256sum", "tar"):
        if shutil.which(tool, path=ENV["PATH"]) is None:
            print(f"no host {tool}", file=sys.stderr)
            return 1
    root = Path(a.keep) if a.keep else Path(tempfile.mkdtemp(prefix="bench-cu."))
    root.mkdir(parents=True, exist_ok=True)
    os.environ["LC_ALL"] = ENV["LC_ALL"]  # for vshell's --env LC_ALL
    ENV["PYTHONPATH"] = str(ROOT)
    try:
        if not (root / "big.txt").exists():
            make_text(root / "big.txt", a.size)
        if not (root / "big.bin").exists():
            make_binary(root / "big.bin", a.size)
        if not (root / "big.tar.gz").exists():
            make_tarball(root, a.size)
        mib = {n: (root / n).stat().st_size / 1e6 for n in ("big.txt", "big.bin", "big.tar.gz")}
        print(f"big.txt {mib['big.txt']:.0f} MB, big.bin {mib['big.bin']:.0f} MB, "
              f"big.tar.gz {mib['big.tar.gz']:.0f} MB compressed; {a.runs} runs each, "
              f"medians; load {os.getloadavg()[0]:.1f}, {os.cpu_count()} CPUs")
        print(f"{'case':<14} {'GNU wall':>9} {'vsh wall':>9} {'ratio':>6} "
              f"{'GNU cpu':>8} {'vsh cpu':>8} {'ratio':>6} {'net':>5}  same "
              f"{'py wall':>8} {'py/GNU':>6}")
        worst = 0.0
        startup = 0.0  # vshell's start-up CPU time
        for name, script, kind in CASES:
            if a.only and name not in a.only:
                continue
            sides = [("gnu", gnu_argv(script)), ("vsh", vshell_argv(script, root))]
            if name in FLOORS:
                sides.append(("py", [sys.executable, "-c", FLOORS[name]]))
            walls: dict[str, list[float]] = {side: [] for side, _ in sides}
            cpus: dict[str, list[float]] = {side: [] for side, _ in sides}
            digests: dict[str, set[str]] = {side: set() for side, _ in sides}
            for _ in range(a.runs):
                for side, argv in sides:
                    cleanup(root)
                    wall, cpu, out, status = timed(argv, root)
                    walls[side].append(wall)
                    cpus[side].append(cpu)
                    digests[side].add(f"{status}:{result_digest(out, kind, root)}")
            cleanup(root)
            gw, vw = statistics.median(walls["gnu"]), statistics.median(walls["vsh"])
            gc, vc = statistics.median(cpus["gnu"]), statistics.median(cpus["vsh"])
            same = "yes" if digests["gnu"] == digests["vsh"] and len(digests["gnu"]) == 1 else "NO"
            floor = "       -      -"
            if "py" in walls:
                pw = statistics.median(walls["py"])
                floor = f"{pw:7.3f}s {pw / gw:6.1f}"
                if digests["py"] != digests["gnu"]:
                    floor += " (output differs)"
            if script == "true":
                startup = vc
            else:
                worst = max(worst, vw / gw)
            net = max(vc - startup, 0.0) / max(gc, 1e-3)
            print(f"{name:<14} {gw:8.3f}s {vw:8.3f}s {vw / gw:6.1f} "
                  f"{gc:7.3f}s {vc:7.3f}s {vc / max(gc, 1e-3):6.1f} {net:5.1f}  {same:<4} {floor}",
                  flush=True)
        print(f"worst wall ratio {worst:.1f}x GNU")
    finally:
        if not a.keep:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
