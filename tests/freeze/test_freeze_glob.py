"""Glob patterns never freeze a run: every construct with a pathological pattern ends at once
(the matcher is linear in the subject), and a pathname walk through looping links ends at
the run's timeout without leaving a thread behind."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.freeze.harness import (
    MAX_STALL,
    PYTHON_INSIDES,
    SLACK,
    TICK,
    Observed,
    assert_bounded,
    run_cli,
    run_in_process,
)

# a subject of 4096 "a" and patterns that backtrack exponentially in a naive translation
SUBJECT = "x=a; for i in 1 2 3 4 5 6 7 8 9 10 11 12; do x=$x$x; done; "
BAD = "*a*a*a*a*a*a*a*a*b"

CASES = {
    "dbracket": f"[[ $x == {BAD} ]]; echo $?",
    "dbracket_nocase": f"shopt -s nocasematch; [[ $x == {BAD.upper()} ]]; echo $?",
    "case": f"case $x in {BAD}) echo yes;; *) echo no;; esac",
    "strip_prefix": f"y=${{x#{BAD}}}; y=${{x##{BAD}}}; echo ${{#y}}",
    "strip_suffix": f"y=${{x%{BAD}}}; y=${{x%%{BAD}}}; echo ${{#y}}",
    "strip_star_a": "y=${x##*a*a*a}; z=${x%%a*a*a*}; echo ${#y} ${#z}",
    "patsub_first": f"y=${{x/{BAD}/r}}; echo ${{#y}}",
    "patsub_all": f"y=${{x//{BAD}/r}}; z=${{x//a/b}}; echo ${{#y}} ${{#z}}",
    "patsub_anchored": f"y=${{x/#{BAD}/r}}; z=${{x/%{BAD}/r}}; echo ${{#y}} ${{#z}}",
    "extglob_alt": "shopt -s extglob; [[ $x == +(a|aa)*(a|aa)@(a|aa)b ]]; echo $?",
    "extglob_neg": "shopt -s extglob; [[ $x == !(*a*a*a*a*b) ]]; echo $?",
    "extglob_nested": "shopt -s extglob; [[ $x == *(*(a)*(a))b ]]; [[ $x == *@(a|*(a))!(b)c ]];"
                      " echo $?",
    "extglob_strip": "shopt -s extglob; y=${x##+(a|aa)!(b)}; z=${x//+(a|aa)!(c)b/r}; echo ${#y}",
    "pathname": f"cd /tmp && touch ${{x:0:250}} && echo {BAD}; echo *(a|aa)b",
    "globignore": f"cd /tmp && touch ${{x:0:250}} && GLOBIGNORE='{BAD}:*(a)b' && echo a*",
    "find_name": f"cd /tmp && touch ${{x:0:250}} && find . -name '{BAD}' -o -path '{BAD}'",
}


@pytest.fixture(scope="module", autouse=True)
def _warm() -> None:
    """Import the modules each construct uses once, with harmless patterns: compiling a
    module's source (no bytecode cache here) holds the GIL and is not what we measure."""
    for script in CASES.values():
        run_in_process("x=ab; " + script.replace(BAD, "q*z").replace("(a|aa)", "(q)"),
                       timeout=5.0)


@pytest.mark.parametrize("name", sorted(CASES))
def test_in_process(name: str) -> None:
    obs = run_in_process(SUBJECT + CASES[name], timeout=2.0)
    assert_bounded(obs, 2.0)
    assert obs.elapsed < 1.0, f"{name} took {obs.elapsed:.2f}s: it should end at once"
    assert obs.exit_code == 0, obs.stderr


def test_answers_are_right() -> None:
    """Spot checks that the fast answers are bash's answers."""
    obs = run_in_process(SUBJECT + CASES["dbracket"] + "; " + CASES["patsub_all"]
                         + "; shopt -s extglob; [[ $x == !(*b) ]]; echo $?", timeout=5.0)
    assert obs.stdout == b"1\n4096 4096\n0\n"


def test_cli() -> None:
    obs = run_cli(SUBJECT + CASES["dbracket"] + "; " + CASES["extglob_neg"], timeout=2.0)
    assert_bounded(obs, 2.0, cli=True)
    assert obs.stdout == b"1\n0\n"


def test_quadratic_patsub_ends_at_the_timeout() -> None:
    """``//`` with a pattern that stays alive to the end but matches one character costs
    O(n²) cheap steps (bash takes minutes here too); the run's timeout still ends it."""
    script = "shopt -s extglob; x=a; for i in {1..13}; do x=$x$x; done; y=${x//@(a|a*z)/X}"
    control = _os_latency_control(1.2)
    obs = run_in_process(script, timeout=1.0)
    os_stall = float(control.communicate(timeout=30)[0] or 0.0)
    # The search loop checks the timeout every ~0.5 ms and runs no GC pass (measured), so
    # the ticker's stalls here are the OS's: on a loaded 2-core machine a thread sleeping
    # 10 ms alone, with no GIL to wait for, is woken up to ~25 ms late.  What the same
    # second costs a GIL-free ticker in another process is not vshell's stall.
    assert obs.elapsed <= 1.0 + SLACK, f"took {obs.elapsed:.2f}s"
    assert obs.max_stall <= MAX_STALL + os_stall, (
        f"ticker stalled {obs.max_stall * 1000:.0f} ms (OS alone: {os_stall * 1000:.0f} ms)")
    assert not PYTHON_INSIDES.search(obs.stdout + obs.stderr), obs.stderr
    assert obs.exit_code != 0


_CONTROL = """
import sys, time
end = time.perf_counter() + float(sys.argv[1])
worst = 0.0
last = time.perf_counter()
while last < end:
    time.sleep(TICK)
    now = time.perf_counter()
    worst = max(worst, now - last - TICK)
    last = now
print(worst)
"""


def _os_latency_control(seconds: float) -> subprocess.Popen[str]:
    """A ticker in its own process (no GIL shared with the run): the OS's wake-up latency."""
    return subprocess.Popen([sys.executable, "-c", _CONTROL.replace("TICK", repr(TICK)),
                             str(seconds)], stdout=subprocess.PIPE, text=True)


LOOP = "cd /tmp && ln -s . a && ln -s . b && echo " + "/".join(["*"] * 22) + " | wc -c"


def test_looping_links_end_at_the_timeout() -> None:
    """The walk ends at the timeout and leaves no thread.  The ticker is not checked here:
    the walk's exponentially growing lists make the cyclic GC's full passes slow (up to
    ~140 ms measured in a large test process), which no matcher change can avoid."""
    before = threading.active_count()
    obs = run_in_process(LOOP, timeout=1.0)
    assert obs.elapsed <= 1.0 + SLACK, f"took {obs.elapsed:.2f}s"
    assert not PYTHON_INSIDES.search(obs.stdout + obs.stderr), obs.stderr
    assert obs.exit_code != 0  # killed by the timeout, not finished
    time.sleep(0.2)
    assert threading.active_count() == before


def test_looping_links_cli() -> None:
    obs = run_cli(LOOP, timeout=1.0)
    assert_bounded(obs, 1.0, cli=True)
    assert obs.exit_code != 0


def test_mcp_glob_tool_is_quick_and_the_server_answers_meanwhile(tmp_path: Path) -> None:
    pytest.importorskip("mcp.client.stdio")
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "mcp"))
    from mcp_harness import SyncClient, text

    (tmp_path / ("a" * 250)).write_text("x")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / ("a" * 250 + "b")).write_text("y")
    client = SyncClient().open_stdio(["--mount", f"{tmp_path}:/w", "--command-timeout", "20"])
    try:
        t0 = time.perf_counter()
        pending = client.run_later(client.session.call_tool(
            "glob", {"pattern": "**/" + BAD, "path": "/w"}))
        echo = client.call("bash", {"command": "echo alive"})
        res = pending.result(30)
        elapsed = time.perf_counter() - t0
    finally:
        client.close()
    assert "alive" in text(echo)
    assert not res.is_error, text(res)
    assert res.structured_content["matches"] == ["sub/" + "a" * 250 + "b"]
    assert elapsed < 3.0, f"glob tool took {elapsed:.2f}s"


def test_mcp_glob_tool_stops_on_looping_links(monkeypatch: pytest.MonkeyPatch) -> None:
    """The glob tool has no run timeout of its own: its walk stops at GLOB_TIME_LIMIT."""
    from vshell import Sandbox
    from vshell.mcp import fileops

    monkeypatch.setattr(fileops, "GLOB_TIME_LIMIT", 0.5)
    with Sandbox(timeout=5.0) as sb:
        sb.exec("cd /tmp && ln -s . a && ln -s . b")
        before = threading.active_count()
        t0 = time.perf_counter()
        with pytest.raises(fileops.ToolError) as err:
            fileops.glob_files(sb.fs, "/tmp", "/".join(["*"] * 22))
        elapsed = time.perf_counter() - t0
    assert err.value.code == "E_TIMEOUT"
    assert elapsed < 0.5 + 0.1
    # no thread of the walk is left; the session's idle script thread, alive when `before`
    # was counted, ended with close()
    assert threading.active_count() <= before


# deny rules are checked at every walk step; a backtracking matcher took 293 s on one name
DENY_BAD = "*a*a*a*a*a*a*a*a*b"
LONG_NAME = "a" * 250
DENY_WALK = f"cd /tmp && touch {LONG_NAME} && ls | wc -l && find /tmp -name 'a*' | wc -l"


def test_pathological_deny_pattern_in_process() -> None:
    obs = run_in_process(DENY_WALK, timeout=2.0, deny=[DENY_BAD, "/tmp/**/" + DENY_BAD])
    assert_bounded(obs, 2.0)
    assert obs.elapsed < 1.0, f"took {obs.elapsed:.2f}s: deny matching should be instant"
    assert obs.stdout == b"1\n1\n", obs.stderr


def test_pathological_deny_pattern_still_denies() -> None:
    obs = run_in_process(f"cd /tmp && touch {LONG_NAME}b; echo $?", timeout=2.0,
                         deny=[DENY_BAD])
    assert_bounded(obs, 2.0)
    assert obs.stdout == b"1\n", obs.stdout + obs.stderr


def test_pathological_deny_path_cli() -> None:
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "vshell", "--timeout", "2s", "--deny-path",
                        DENY_BAD, "-c", DENY_WALK], capture_output=True, timeout=60)
    obs = Observed(time.perf_counter() - t0, 0.0, p.returncode, p.stdout, p.stderr)
    assert_bounded(obs, 2.0, cli=True)
    assert obs.stdout == b"1\n1\n", obs.stderr


@pytest.mark.parametrize("script", [
    f"grep -r --include='{BAD}' --exclude='{BAD}' --exclude-dir='{BAD}' x /tmp; echo $?",
    f"grep --include='{BAD}' x /tmp/{LONG_NAME}; grep --exclude='{BAD}' x /tmp/{LONG_NAME}",
    f"tree -P '{BAD}|{BAD}' -I '{BAD}' /tmp | wc -l",
    f"mkdir -p /tmp/o && cp /tmp/{LONG_NAME} /tmp/o/ && diff -r -x '{BAD}' /tmp/o /tmp; echo $?",
])
def test_name_pattern_options_are_linear(script: str) -> None:
    obs = run_in_process(f"cd /tmp && echo x > {LONG_NAME}{LONG_NAME[:4]} && "
                         f"echo x > {LONG_NAME} && " + script, timeout=2.0)
    assert_bounded(obs, 2.0)
    assert obs.elapsed < 1.0, f"took {obs.elapsed:.2f}s: {obs.stderr!r}"
