"""Start-up cost of `vshell -c true` next to `python3 -c pass`, measured side by side.

Runs the two commands alternately (so machine load hits both alike) and reports the
medians and their ratio.  Usage: python3 benchmarks/bench_startup.py [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time


def _time(argv: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=21)
    args = ap.parse_args()
    cases = {
        "python3 -c pass": [sys.executable, "-c", "pass"],
        "vshell -c true": [sys.executable, "-m", "vshell", "-c", "true"],
        "vshell -c 'echo hi | cat'": [sys.executable, "-m", "vshell", "-c", "echo hi | cat"],
    }
    for argv in cases.values():  # warm the page cache and any compiled tables
        _time(argv)
    times: dict[str, list[float]] = {k: [] for k in cases}
    for _ in range(args.runs):
        for name, argv in cases.items():
            times[name].append(_time(argv))
    base = statistics.median(times["python3 -c pass"])
    print(f"{'command':<28} {'median ms':>10} {'ratio':>7}")
    for name, ts in times.items():
        med = statistics.median(ts)
        print(f"{name:<28} {med * 1000:>10.1f} {med / base:>7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
