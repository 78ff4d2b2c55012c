"""A timeout leaves nothing running: after many timed-out runs of every shape, the thread
count is back where it started and the process is idle (no thread still burns CPU).

Walks run over a read-only mount of the host's /usr at /host/usr (off PATH; large enough that
none finishes within its deadline) and over a directory whose links loop (``a -> .``,
``b -> .``).
"""

from __future__ import annotations

import os
import threading
import time

import pytest

from vshell import HostMount, Sandbox

DEADLINE = 0.15  # seconds each run may take
SETTLE = 0.5  # after the last run: the slack for threads that are unwinding
GLOB_22 = "/".join(["*"] * 22)

# shape -> script; each must still be running when its deadline passes
SHAPES: dict[str, str] = {
    "loop": "while :; do :; done",
    "for-loop": "for ((i=0;;i++)); do x=$i; done",
    "function-recursion-loop": "f() { while :; do :; done; }; f",
    "pipeline": "yes | cat | cat > /dev/null",
    "sleep": "sleep 100",
    "read-from-pipe": "sleep 100 | read x",
    "read-stdin-of-loop": "while :; do echo; done | while read -r l; do :; done",
    "background-jobs": "sleep 100 & while :; do :; done & wait",
    "nested-sh": "sh -c 'while :; do :; done'",
    "nested-bash-pipeline": "bash -c 'yes | cat > /dev/null'",
    "command-substitution": "x=$(while :; do :; done)",
    "process-substitution": "cat <(yes) > /dev/null",
    "subshell": "( while :; do :; done )",
    "find": "find /host/usr > /dev/null",
    "find-loop": "find -L /tmp/l > /dev/null; while :; do :; done",
    "grep-r": "grep -r zzzzqqq /host/usr",
    "du": "du -a /host/usr > /dev/null",
    "tar-c": "tar -cf /dev/null /host/usr",
    "cp-r": "cp -r /host/usr /tmp/copy",
    "ls-R": "ls -R /host/usr > /dev/null",
    "chmod-R": "chmod -R u+w /host/usr 2>/dev/null",
    "rm-r": "rm -rf /host/usr 2>/dev/null",
    "tree": "tree /host/usr > /dev/null",
    "pattern-replace": "shopt -s extglob; y=${big//@(a|a*z)/b}",  # quadratic in the glob matcher
    "read-endless-line": "read -r y < /dev/zero",
    "mapfile-endless": "mapfile -t arr < <(yes)",
    "python": "python3 -c 'while True: pass'",
    "python-in-background": "python3 -c 'while True: pass' & wait",
}

# long loops owned by other branches (pathname expansion, brace/seq/printf/sort/checksum):
# the same invariant, kept here so that one test covers every shape
OTHER_SHAPES: dict[str, str] = {
    "brace": "echo {1..10000000} > /dev/null",
    "seq": "seq 1e12 > /dev/null",
    "sort": "yes | head -c 50M | sort > /dev/null",
    "md5sum": "md5sum /dev/zero",
    "printf-width": "printf '%*d' 2000000000 1 > /dev/null",
    "glob-over-link-loop": f"cd /tmp/l && echo {GLOB_22} > /dev/null",
}


def _idle_cpu(seconds: float = 0.2) -> float:
    start = time.process_time()
    time.sleep(seconds)
    return time.process_time() - start


def _python_available() -> bool:
    try:
        import wasmtime  # noqa: F401
    except ImportError:
        return False
    return True


def _settle(base: int) -> int:
    deadline = time.monotonic() + SETTLE
    while threading.active_count() > base and time.monotonic() < deadline:
        time.sleep(0.01)
    return threading.active_count()


def _run_shapes(shapes: dict[str, str], rounds: int) -> None:
    if not os.path.isdir("/usr"):
        pytest.skip("no /usr to walk on this host")
    if not _python_available():
        shapes = {k: v for k, v in shapes.items() if "python" not in k}
    mounts = [HostMount("/usr", "/host/usr", readonly=True)]
    with Sandbox(mounts=mounts, cwd="/", timeout=30) as sb:
        sb.exec("mkdir -p /tmp/l && cd /tmp/l && ln -s . a && ln -s . b && echo x > f")
        sb.exec("big=$(head -c 2M /dev/zero | tr '\\0' a)")
        if _python_available():
            sb.exec("python3 -c pass")  # the runtime's one ticker thread starts here, once
        base = threading.active_count()
        names = list(shapes)
        slow: list[str] = []
        for i in range(rounds):
            name = names[i % len(names)]
            t0 = time.monotonic()
            res = sb.exec(shapes[name], timeout=DEADLINE)
            took = time.monotonic() - t0
            # stopped by the deadline, or refused at once by a limit (a brace expansion too
            # big to hold): either way it is over when exec returns
            assert res.outcome.name == "TIMED_OUT" or (
                res.outcome.name == "COMPLETED" and res.exit_code != 0
            ), (name, res.outcome, res.stderr[-200:])
            if took > DEADLINE + 0.6:
                slow.append(f"{name} {took:.2f}s")
            sb.exec("rm -rf /tmp/copy", timeout=10)
        left = _settle(base)
        cpu = _idle_cpu()
    assert not slow, f"exec returned late: {slow}"
    assert left <= base, f"{left - base} threads still running"
    assert cpu < 0.1 * 0.2 + 0.01, f"{cpu * 1000:.0f} ms of CPU in 200 ms after the last run"


def test_a_hundred_timed_out_runs_leave_nothing_running() -> None:
    _run_shapes(SHAPES, 100)


@pytest.mark.parametrize("name", sorted(OTHER_SHAPES))
def test_other_long_loops_stop_at_the_deadline(name: str) -> None:
    _run_shapes({name: OTHER_SHAPES[name]}, 3)
