"""awk and jq against the host tools, side by side, on generated data.

    python benchmarks/bench_awk_jq.py [--awk-mb 100] [--jq-mb 50] [--keep DIR]
                                      [--ref CHECKOUT [--runs 5] [--log-mb 100]]

awk: ``awk '{s+=$3} END{print s}'`` over a whitespace-separated file, by gawk, mawk (when
installed) and vshell's awk.  jq: ``jq -c 'select(.score > 50) | {id, name}'`` over a
JSON-lines file, by the host jq and vshell's jq.  vshell's commands run in this process
through the dispatcher over a host mount, as the shell runs them.  Wall time is the
figure; CPU time is shown too because shared machines make wall time noisy.

With ``--ref CHECKOUT`` awk's cases (the sum, two anchored-alternation field matches and a
regex pattern over bench_grep_sed's log file) run against another vshell checkout instead
of the host tools, alternating runs in child processes, medians (``_sidebyside.py``).
"""

from __future__ import annotations

import argparse
import io
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _sidebyside import compare  # noqa: E402
from bench_grep_sed import make_big  # noqa: E402

from vshell import commands as builtins  # noqa: E402
from vshell.command import CancelToken, Invocation  # noqa: E402
from vshell.interp.dispatch import call_command  # noqa: E402
from vshell.vfs import VFS, HostBackend, Mount  # noqa: E402

ENV = {"LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"}


def make_awk_data(path: Path, mb: int) -> None:
    rnd = random.Random(1)
    words = ["alpha", "beta", "gamma", "delta", "epsilon"]
    block = "".join(
        f"{rnd.choice(words)} {i} {rnd.randint(0, 100000)} {rnd.random():.4f} "
        f"{rnd.choice(words)}x\n"
        for i in range(100000)
    ).encode()
    with path.open("wb") as f:
        size = 0
        while size < mb << 20:
            f.write(block)
            size += len(block)


def make_jq_data(path: Path, mb: int) -> None:
    rnd = random.Random(2)
    block = "".join(
        f'{{"id": {i}, "name": "user{i}", "score": {rnd.randint(0, 100)}, '
        f'"tags": ["a", "b"], "ok": {"true" if i % 2 else "false"}}}\n'
        for i in range(50000)
    ).encode()
    with path.open("wb") as f:
        size = 0
        while size < mb << 20:
            f.write(block)
            size += len(block)


def host(argv: list[str], cwd: Path) -> tuple[float, float, bytes]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(argv, cwd=cwd, capture_output=True, env=ENV, check=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, p.stdout


def ours(argv: list[str], root: Path) -> tuple[float, float, bytes]:
    cmd = builtins.lookup(argv[0])
    assert cmd is not None
    fs = VFS(mounts=[Mount("/work", HostBackend(str(root)), readonly=True)], deny=[])
    out = io.BytesIO()
    inv = Invocation(name=argv[0], args=argv[1:], dir="/work", stdin=io.BytesIO(), stdout=out,
                     stderr=sys.stderr.buffer, env=ENV, fs=fs, cancel=CancelToken())
    c0 = time.process_time()
    t0 = time.perf_counter()
    status = call_command(cmd, inv)
    wall = time.perf_counter() - t0
    cpu = time.process_time() - c0
    assert status == 0, status
    return wall, cpu, out.getvalue()


def report(title: str, rows: list[tuple[str, float, float]], base: str) -> None:
    print(f"\n{title}")
    ref = {name: (w, c) for name, w, c in rows}
    for name, wall, cpu in rows:
        line = f"  {name:<14} wall {wall:7.2f} s   cpu {cpu:7.2f} s"
        if name.startswith("vshell"):
            for other, (w, c) in ref.items():
                if not other.startswith("vshell"):
                    line += f"   x{wall / w:4.1f} wall / x{cpu / c:4.1f} cpu vs {other}"
        print(line)
    del base


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--awk-mb", type=int, default=100)
    ap.add_argument("--jq-mb", type=int, default=50)
    ap.add_argument("--keep", help="directory for the data files (kept between runs)")
    ap.add_argument("--ref", type=Path, help="compare awk with this vshell checkout")
    ap.add_argument("--runs", type=int, default=5, help="runs per side with --ref")
    ap.add_argument("--log-mb", type=int, default=100, help="log file size with --ref")
    args = ap.parse_args()
    root = Path(args.keep or tempfile.mkdtemp(prefix="bench-awk-jq."))
    root.mkdir(parents=True, exist_ok=True)
    try:
        data = root / "data.txt"
        if not data.exists() or data.stat().st_size < args.awk_mb << 20:
            make_awk_data(data, args.awk_mb)
        prog = "{s+=$3} END{print s}"
        if args.ref:
            log = root / "big.txt"
            if not log.exists() or log.stat().st_size < args.log_mb << 20:
                make_big(log, args.log_mb)
            compare(awk_cases(root, prog), args.ref, args.runs)
            return
        rows = []
        outputs = {}
        for tool in ("gawk", "mawk"):
            exe = shutil.which(tool)
            if exe:
                wall, cpu, out = host([exe, prog, "data.txt"], root)
                rows.append((tool, wall, cpu))
                outputs[tool] = out
        wall, cpu, out = ours(["awk", prog, "data.txt"], root)
        rows.append(("vshell awk", wall, cpu))
        outputs["vshell awk"] = out
        report(f"awk '{prog}' on {data.stat().st_size / 2**20:.0f} MiB", rows, "gawk")
        print("  outputs:", {k: v.decode().strip() for k, v in outputs.items()})

        jdata = root / "data.jsonl"
        if not jdata.exists() or jdata.stat().st_size < args.jq_mb << 20:
            make_jq_data(jdata, args.jq_mb)
        jprog = "select(.score > 50) | {id, name}"
        rows = []
        exe = shutil.which("jq")
        host_out = b""
        if exe:
            wall, cpu, host_out = host([exe, "-c", jprog, "data.jsonl"], root)
            rows.append(("jq (host)", wall, cpu))
        wall, cpu, out = ours(["jq", "-c", jprog, "data.jsonl"], root)
        rows.append(("vshell jq", wall, cpu))
        report(f"jq -c '{jprog}' on {jdata.stat().st_size / 2**20:.0f} MiB", rows, "jq (host)")
        lines = out.count(b"\n")
        print("  same output:", out == host_out, f"({lines} lines)")
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    sys.stdout.flush()


def awk_cases(root: Path, prog: str) -> list[tuple[Path, list[str]]]:
    """awk's measured commands: data.txt and the log file big.txt in ``root``."""
    return [
        (root, ["awk", prog, "data.txt"]),
        (root, ["awk", "$2 ~ /^(a|b)$/", "data.txt"]),
        (root, ["awk", "$1 ~ /^(alpha|beta)$/ {n++} END{print n}", "data.txt"]),
        (root, ["awk", "/err[a-z]*r/", "big.txt"]),
    ]


if __name__ == "__main__":
    main()
