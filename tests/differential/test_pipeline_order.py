"""Pipelines against bash: statuses, PIPESTATUS, stdout and (where bash's order is fixed)
stderr, for the shapes where the order stages run in could show: a reader that quits
early, a writer that waits (sleep, a FIFO, a read), stages that need each other running
at once, and output that must reach the caller while the pipeline still runs.

vshell runs a pipeline's stages in order on one thread while none needs another one
running, so these pin down that no script can tell.  Scripts run in a fresh directory
on both sides (bash: a host temp dir; vshell: the same kind of dir mounted at /w), each
under a timeout, so a stage left waiting for one that never starts fails rather than
hangs.
"""

from __future__ import annotations

import subprocess
import threading
import time
from pathlib import Path

import pytest
from tools import needs

from vshell import HostMount, Sandbox
from vshell.result import Outcome

pytestmark = needs("bash", "seq", "yes", "head", "mkfifo")

BIG = b"".join(b"%d\n" % i for i in range(400000))  # 2.6 MB: more than any pipe holds

# each: its stdout and status are compared with bash's
SCRIPTS = [
    # a reader that quits early: the writer meets the closed pipe (141), as in bash
    'yes | head -1; echo "${PIPESTATUS[*]}"',
    'seq 1000000 | head -2; echo "${PIPESTATUS[*]}"',
    'set -o pipefail; cat big | head -c 1 >/dev/null; echo "$? ${PIPESTATUS[*]}"',
    'set -o pipefail; cat big | cat | head -c 1 >/dev/null; echo "$? ${PIPESTATUS[*]}"',
    'yes | true; echo "${PIPESTATUS[*]}"',
    'yes | cat | true; echo "${PIPESTATUS[*]}"',
    'yes | { read x; echo "got $x"; }; echo "${PIPESTATUS[*]}"',
    # a writer that waits, then writes after its reader has gone: SIGPIPE, as in bash
    '{ sleep 0.2; echo late; } | true; echo "${PIPESTATUS[*]}"',
    'set -o pipefail; { sleep 0.2; echo late; } | true; echo $?',
    # a writer that sleeps between its lines
    "{ echo a; sleep 0.2; echo b; } | cat",
    "for i in 1 2 3; do echo $i; sleep 0.05; done | cat -n",
    # while-read loops fed by a pipeline
    "printf '%s\\n' a b c | while read x; do echo \"<$x>\"; done",
    "printf '%s\\n' 1 2 3 4 5 6 7 | while read x; do echo $((x * x)); done | tail -3",
    "seq 5 | while read x; do echo $x; done | sort -rn | head -2",
    "printf 'a\\nb\\nc\\n' | { read x; echo \"1:$x\"; cat; } | cat -n",
    # lastpipe: the last stage runs in this shell
    'shopt -s lastpipe; echo "a b" | read x y; echo "$y $x"',
    "shopt -s lastpipe; seq 3 | while read n; do t=$((t + n)); done; echo $t",
    'shopt -s lastpipe; yes | head -2 | read x; echo "$x ${PIPESTATUS[*]}"',
    # |& sends a stage's stderr down the pipe, in the order it wrote them
    "{ echo e1 >&2; echo o1; echo e2 >&2; } |& cat",
    "{ echo out; echo err >&2; } |& sort | cat -n",
    "f() { echo fo; echo fe >&2; }; f |& tr a-z A-Z",
    # pipefail and PIPESTATUS with failing middle stages
    'set -o pipefail; true | false | true; echo $?',
    'set -o pipefail; true | (exit 3) | (exit 4) | true; echo "$? ${PIPESTATUS[*]}"',
    'true | (exit 3) | true; echo "$? ${PIPESTATUS[*]}"',
    'set -o pipefail; seq 10 | grep nothing | wc -l; echo "$? ${PIPESTATUS[*]}"',
    '! true | false; echo "$? ${PIPESTATUS[*]}"',
    # set -e: a pipeline's status is its last stage's (or pipefail's)
    "set -e; false | true; echo survived; true | false; echo not-reached",
    "set -eo pipefail; false | true; echo not-reached",
    # a pipeline inside $( ) and a substitution inside a stage
    'x=$(seq 5 | tail -2); echo "$x"',
    'x=$(yes | head -2); echo "$x ${PIPESTATUS[*]}"',
    "echo $(printf '%s\\n' b a | sort) | cat",
    "seq 3 | while read n; do echo $(echo $n | tr 1-3 a-c); done",
    # functions as stages
    'f() { echo "f:$1"; }; f a | cat',
    "g() { tr a-z A-Z; }; echo abc | g | g | cat",
    "h() { while read l; do echo \"[$l]\"; done; }; seq 3 | h | tail -1",
    # exit, and a stage's EXIT trap
    'echo a | { exit 3; }; echo $?; { exit 4; } | cat; echo "${PIPESTATUS[*]}"',
    "{ trap 'echo bye' EXIT; echo hi; } | cat",
    "(trap 'echo trapped' EXIT; exit 6) | cat; echo \"${PIPESTATUS[*]}\"",
    # big data through several stages (more than the pipe buffer)
    "seq 300000 | sort -n | tail -1",
    "head -c 3000000 /dev/zero | cat | wc -c",
    "cat big big | wc -l",
    # a background job holding the pipe's write end: its reader waits for it
    "{ (sleep 0.2; echo late) & echo early; } | cat",
    "{ (sleep 0.1; seq 3) & } | cat",
    # a process substitution writing to a stage's stdout
    "seq 3 | tee >(wc -l) >/dev/null | cat",
    # named pipes: a stage waits for a later one
    'mkfifo f; { echo hi > f; } | cat f; echo "${PIPESTATUS[*]}"',
    'mkfifo f; cat f | { echo x > f; cat; }; echo "${PIPESTATUS[*]}"',
    'mkfifo f; cat f | cat | { echo y > f; cat; }; echo "${PIPESTATUS[*]}"',
    'mkfifo f; { read l < f; echo "read $l"; } | { echo z > f; cat; }',
    # a stage waits on a background job the next stage's input does not depend on
    "{ sleep 0.1 & wait; echo waited; } | cat",
]


def _bash(cwd: Path, script: str) -> tuple[int, bytes, bytes]:
    p = subprocess.run(["/usr/bin/bash", "-c", script], cwd=cwd, capture_output=True,
                       timeout=30, env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"})
    return p.returncode, p.stdout, p.stderr


def _vshell(cwd: Path, script: str, timeout: float = 20) -> tuple[int, bytes, bytes]:
    with Sandbox(mounts=[HostMount(str(cwd), "/w")], cwd="/w", timeout=timeout) as sb:
        res = sb.exec(script)
    assert res.outcome is Outcome.COMPLETED, (res.outcome, res.stderr)
    return res.exit_code, res.stdout, res.stderr


def _dirs(tmp_path: Path) -> tuple[Path, Path]:
    a, b = tmp_path / "bash", tmp_path / "vshell"
    for d in (a, b):
        d.mkdir()
        (d / "big").write_bytes(BIG)
    return a, b


@pytest.mark.parametrize("script", SCRIPTS)
def test_pipeline_like_bash(tmp_path: Path, script: str) -> None:
    a, b = _dirs(tmp_path)
    want_status, want_out, _ = _bash(a, script)
    got_status, got_out, got_err = _vshell(b, script)
    assert (got_out, got_status) == (want_out, want_status), got_err
    assert b"Traceback" not in got_err


# stderr too, where bash's order does not depend on timing
STDERR_SCRIPTS = [
    "{ echo e1 >&2; sleep 0.1; echo o; } | { cat; echo e2 >&2; }",
    "(sleep 0.2; echo late >&2) | (echo early >&2)",
    "echo a >&2 | { sleep 0.1; echo b >&2; }",
    "{ echo x; echo y >&2; } | { read v; echo \"got $v\" >&2; }",
    "seq 3 | { while read n; do echo \"n$n\" >&2; done; }",
    # a long first stage that never waits nor writes to the pipe: the next one's own
    # output comes first, as when the stages run at once
    "{ i=0; while ((i < 30000)); do ((i++)); done; echo A >&2; } | { echo B >&2; }",
]


@pytest.mark.parametrize("script", STDERR_SCRIPTS)
def test_stderr_order_like_bash(tmp_path: Path, script: str) -> None:
    a, b = _dirs(tmp_path)
    assert _vshell(b, script) == _bash(a, script)


def test_exit_in_a_lastpipe_stage_ends_the_shell(tmp_path: Path) -> None:
    a, b = _dirs(tmp_path)
    script = "shopt -s lastpipe; echo x | exit 5; echo after"
    assert _vshell(b, script) == _bash(a, script) == (5, b"", b"")


class _Stamped:
    """An output stream that notes when each piece arrived."""

    def __init__(self) -> None:
        self.pieces: list[tuple[float, bytes]] = []
        self.lock = threading.Lock()

    def write(self, data: bytes) -> int:
        with self.lock:
            self.pieces.append((time.monotonic(), bytes(data)))
        return len(data)

    def flush(self) -> None:
        pass

    def first(self, text: bytes) -> float:
        seen = b""
        for t, piece in self.pieces:
            seen += piece
            if text in seen:
                return t
        raise AssertionError(f"{text!r} never arrived: {self.pieces!r}")


@pytest.mark.parametrize("script", [
    "{ echo first; sleep 1; } | cat",
    "{ echo first; sleep 1; } | cat | cat",
    "for i in 1 2; do echo first; sleep 0.5; done | tr a-z a-z",
    "mkfifo /tmp/f; (sleep 1; echo go > /tmp/f) & { echo first; read x < /tmp/f; } | cat",
    "(sleep 1; echo go) | { echo first; read x; echo $x; } | cat",
])
def test_output_reaches_the_stream_while_the_writer_waits(script: str) -> None:
    out = _Stamped()
    with Sandbox(timeout=10) as sb:
        start = time.monotonic()
        res = sb.exec(script, stdout=out)
        end = time.monotonic()
    assert res.exit_code == 0, res.stderr
    assert end - start >= 0.9
    assert out.first(b"first") - start < 0.5, out.pieces


def test_a_long_writer_streams_before_it_ends() -> None:
    """A writer that never waits still lets its output through once it has run a while."""
    out = _Stamped()
    with Sandbox(timeout=20) as sb:
        start = time.monotonic()
        res = sb.exec("echo first; i=0; while ((i < 60000)); do ((i++)); "
                      "if ((i % 1000 == 0)); then echo $i; fi; done | cat", stdout=out)
        end = time.monotonic()
    assert res.exit_code == 0, res.stderr
    if end - start < 0.3:
        pytest.skip("the loop ran too fast to tell")
    assert out.first(b"1000\n") - start < (end - start) / 2, out.pieces


@pytest.mark.parametrize("script", [
    "{ echo hi; sleep 30; } | cat",
    "yes | sleep 30",
    "sleep 30 | cat",
    "cat /dev/zero | { sleep 30; }",
    "mkfifo /tmp/p; cat /tmp/p | cat",
    "seq 3 | { sleep 30; cat; } | cat",
])
def test_a_timeout_stops_a_pipeline_promptly(script: str) -> None:
    with Sandbox(timeout=0.5) as sb:
        start = time.monotonic()
        res = sb.exec(script)
        took = time.monotonic() - start
    assert res.outcome is Outcome.TIMED_OUT, res
    assert took < 2.0  # the deadline and a loaded machine's margin
    if script.startswith("{ echo hi"):
        assert res.stdout == b"hi\n"


def test_recursion_through_a_first_stage_goes_past_the_interpreter_stack(tmp_path: Path
                                                                          ) -> None:
    """Each level's first stage runs on a thread of its own past some depth, so the
    interpreter's stack (about 550 levels of this on one thread) does not end the
    recursion where bash goes on.  (bash itself is not run: 600 nested forks take it a
    minute here.)"""
    _, b = _dirs(tmp_path)
    script = "f() { if (( $1 < 600 )); then f $(( $1 + 1 )) | cat; else echo deep $1; fi; }; f 0"
    assert _vshell(b, script, timeout=120) == (0, b"deep 600\n", b"")
