"""Start-up cost of `vshell -c true` next to `python -I -c pass`, in a clean venv.

An editable install (or PYTHONPATH) adds import-hook finders and path entries to every
start-up, and `python3` on PATH may be a pyenv shim (a shell script costing more than the
interpreter itself), so the figures come from a venv that holds vshell installed from this
tree, non-editable, and every command runs that venv's own binaries with no PYTHON*
variables.  The commands run alternately (machine load hits them alike); the table gives
the median wall and CPU (user + system of the child) times and their ratios to
`python -I -c pass`.

Usage: python3 benchmarks/bench_startup.py [--runs N] [--venv DIR [--reinstall]]
Without --venv a fresh venv is made under /tmp and removed afterwards; with --venv DIR the
venv is made there if missing, and vshell is (re)installed into it if it is missing or
--reinstall is given.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TREE = Path(__file__).resolve().parents[1]
BASE = "python -I -c pass"


def _clean_env() -> dict[str, str]:
    """The environment without PYTHON* variables, which would change what start-up does."""
    return {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}


def make_venv(venv: Path, python: str) -> None:
    """A venv of ``python`` at ``venv`` (without the system's site-packages)."""
    subprocess.run([python, "-m", "venv", str(venv)], check=True, env=_clean_env())


def install(venv: Path, fresh: bool) -> None:
    """Install this tree into ``venv``, non-editable (with its dependencies into a fresh
    venv, else over the vshell there); without build isolation if that fails (an index
    that setuptools cannot reach, say)."""
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet",
           "--disable-pip-version-check"]
    if not fresh:
        pip += ["--force-reinstall", "--no-deps"]
    env = _clean_env()
    if subprocess.run(pip + [str(TREE)], env=env, check=False).returncode != 0:
        subprocess.run(pip + ["--no-build-isolation", str(TREE)], env=env, check=True)


def check_clean(venv: Path) -> None:
    """Refuse a venv where vshell is editable or comes from elsewhere than site-packages."""
    code = "import vshell, sys; print(vshell.__file__)"
    out = subprocess.run([str(venv / "bin" / "python"), "-I", "-c", code], env=_clean_env(),
                         capture_output=True, text=True, check=True).stdout.strip()
    site = next((venv / "lib").glob("python*/site-packages"))
    if not Path(out).resolve().is_relative_to(site.resolve()):
        sys.exit(f"bench_startup: vshell is imported from {out}, not from {site}")
    editable = sorted(p.name for p in site.glob("__editable__*"))
    if editable:
        sys.exit(f"bench_startup: {site} holds editable installs: {editable}")


def run_once(argv: list[str], env: dict[str, str]) -> tuple[float, float, bytes]:
    """(wall seconds, CPU seconds of the child, its stdout) of one run."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    assert proc.stdout is not None
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t0
    return wall, usage.ru_utime + usage.ru_stime, out


def cases(venv: Path) -> dict[str, tuple[list[str], bytes]]:
    """Each case's argv and the stdout it must print."""
    py, vsh = str(venv / "bin" / "python"), str(venv / "bin" / "vshell")
    return {
        BASE: ([py, "-I", "-c", "pass"], b""),
        'python -I -c "import vshell"': ([py, "-I", "-c", "import vshell"], b""),
        "vshell -c true": ([vsh, "-c", "true"], b""),
        "vshell -c 'echo hi | cat'": ([vsh, "-c", "echo hi | cat"], b"hi\n"),
    }


def measure(venv: Path, runs: int) -> dict[str, tuple[list[float], list[float]]]:
    """Wall and CPU times of every case, the cases taken in turn ``runs`` times."""
    env = _clean_env()
    table = cases(venv)
    for name, (argv, want) in table.items():  # warm the page cache and the parser tables
        for _ in range(2):
            out = run_once(argv, env)[2]
        if out != want:
            sys.exit(f"bench_startup: {name} printed {out!r}, not {want!r}")
    times: dict[str, tuple[list[float], list[float]]] = {k: ([], []) for k in table}
    for _ in range(runs):
        for name, (argv, _want) in table.items():
            wall, cpu, _out = run_once(argv, env)
            times[name][0].append(wall)
            times[name][1].append(cpu)
    return times


def report(times: dict[str, tuple[list[float], list[float]]]) -> str:
    base_wall = statistics.median(times[BASE][0])
    base_cpu = statistics.median(times[BASE][1])
    lines = [f"{'command':<30} {'wall ms':>8} {'ratio':>6} {'CPU ms':>8} {'ratio':>6}"]
    for name, (walls, cpus) in times.items():
        wall, cpu = statistics.median(walls), statistics.median(cpus)
        lines.append(f"{name:<30} {wall * 1000:>8.1f} {wall / base_wall:>6.2f}"
                     f" {cpu * 1000:>8.1f} {cpu / base_cpu:>6.2f}")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=21, help="rounds over the cases (default 21)")
    ap.add_argument("--venv", type=Path, help="make or reuse the venv here (kept)")
    ap.add_argument("--reinstall", action="store_true",
                    help="with --venv: install this tree again even if vshell is there")
    ap.add_argument("--python", default=sys.executable,
                    help="the interpreter to make the venv from (default: this one)")
    args = ap.parse_args()
    venv = args.venv or Path(tempfile.mkdtemp(prefix="vshell-startup-", dir="/tmp"))
    try:
        fresh = not (venv / "bin" / "python").exists()
        if fresh:
            make_venv(venv, args.python)
        missing = not (venv / "bin" / "vshell").exists()
        if fresh or missing or args.reinstall:
            install(venv, fresh or missing)
        check_clean(venv)
        load = os.getloadavg()[0]
        times = measure(venv, args.runs)
        print(f"venv {venv}; {args.runs} rounds; load average {load:.1f} at the start, "
              f"{os.getloadavg()[0]:.1f} at the end")
        print(report(times))
    finally:
        if args.venv is None:
            shutil.rmtree(venv, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
