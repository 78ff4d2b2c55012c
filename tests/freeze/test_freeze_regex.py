"""Pathological regular expressions never freeze the host (issue 15, regex half).

Every construct that takes a user's pattern runs it on RE2 (linear time, GIL released on
bytes), so the catastrophic cases of a backtracking engine -- ``(a|aa)*b``, ``(.*a){8}b``,
``^(a+)+b$`` on long subjects -- end at once.  Back-references, which RE2 cannot run, go
to a backtracker with a work budget: past it the command fails with ``regular expression
too complex`` instead of running for ever.  Each script runs in-process with a 10 ms
ticker thread (a stall means the GIL was held) and must end well within its timeout.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from tests.freeze.harness import assert_bounded, run_cli, run_in_process

LONG = "s=$(head -c 3000 /dev/zero | tr '\\0' a); "  # a run of 3000 a's, no b anywhere
FILE = LONG + "printf '%s\\n' \"$s\" \"$s\" > /tmp/as.txt; "
BACKREF = "\\(a*\\)\\(a*\\)\\(a*\\)\\(a*\\)\\1\\2\\3\\4c"  # polynomial blow-up, any engine

# (name, script, expected status, text expected on stdout+stderr or None)
CASES = [
    ("grep -E", FILE + "grep -E '(.*a){8}b' /tmp/as.txt", 1, None),
    ("grep -E alt", FILE + "grep -cE '(a|aa)*b' /tmp/as.txt", 1, "0"),
    ("grep -G", FILE + "grep '\\(a*\\)*b' /tmp/as.txt", 1, None),
    ("grep -w -x", FILE + "grep -wx -E '(a|aa)+' /tmp/as.txt | wc -l", 0, "2"),
    ("grep -P", FILE + "grep -P '(a|aa)*b' /tmp/as.txt", 1, None),
    ("grep -o", FILE + "grep -oE '(a|aa)*' /tmp/as.txt | wc -c", 0, "6002"),
    ("sed", FILE + "sed -E 's/(a|aa)*b/X/' /tmp/as.txt | wc -c", 0, "6002"),
    ("sed g", FILE + "sed 's/\\(a*\\)*b/X/g' /tmp/as.txt | wc -l", 0, "2"),
    ("awk ~", FILE + "awk '$0 ~ /(a|aa)*b/ {n++} END {print n+0}' /tmp/as.txt", 0, "0"),
    ("awk gsub", FILE + "awk '{n += gsub(/(a|aa)*c/, \"x\")} END {print n}' /tmp/as.txt",
     0, "0"),
    ("awk split", FILE + "awk '{print split($0, p, /(a|aa)*b/)}' /tmp/as.txt", 0, "1\n1"),
    ("awk FS", FILE + "awk -F '(a|aa)*b' '{print NF}' /tmp/as.txt", 0, "1\n1"),
    ("expr", LONG + "expr match \"$s\" '\\(a*\\)*b'", 1, None),
    ("[[ =~ ]]", LONG + "[[ $s =~ ^(a+)+b$ ]]; echo $?", 0, "1"),
    ("find -regex", "mkdir -p /tmp/f && touch /tmp/f/" + "a" * 200
     + " && find /tmp/f -regextype posix-extended -regex '.*/(a|aa)*b'", 0, None),
    ("grep backref budget", FILE + f"grep '{BACKREF}' /tmp/as.txt", 2,
     "grep: regular expression too complex"),
    ("sed backref budget", FILE + f"sed -n '/{BACKREF}/p' /tmp/as.txt", 4,
     "sed: regular expression too complex"),
    ("expr backref budget", LONG + f"expr \"$s\" : '{BACKREF}'", 2,
     "expr: regular expression too complex"),
    ("[[ =~ ]] backref budget",
     LONG + "re='(a*)(a*)(a*)(a*)\\1\\2\\3\\4c'; [[ $s =~ $re ]]; echo status=$?", 0,
     "status=2"),
]


@pytest.fixture(scope="module", autouse=True)
def _warm() -> None:
    """Import every command once, untimed: first imports are not what is measured here."""
    run_in_process("echo a > /tmp/w; grep -w a /tmp/w; sed s/a/b/ /tmp/w; awk '/a/' /tmp/w; "
                   "expr a : a; [[ a =~ a ]]; find /tmp -regex x; grep -P a /tmp/w; "
                   "head -c 1 /dev/zero | tr '\\0' a", timeout=10)


@pytest.mark.parametrize(("name", "script", "status", "want"), CASES, ids=[c[0] for c in CASES])
def test_pathological_pattern_ends_at_once(name, script, status, want):
    obs = run_in_process(script, timeout=2.0)
    assert_bounded(obs)
    out = (obs.stdout + obs.stderr).decode()
    assert obs.exit_code == status, out
    if want is not None:
        assert want in out


def test_most_constructs_in_one_script():
    """One session running the catastrophic patterns one after another."""
    script = "; ".join(s for name, s, _, _ in CASES if "budget" not in name)
    obs = run_in_process(script, timeout=2.0)
    assert_bounded(obs)


def test_through_the_cli():
    obs = run_cli(FILE + "grep -E '(.*a){8}b' /tmp/as.txt; sed -E 's/(a|aa)*b//' /tmp/as.txt"
                  " | wc -l; [[ $s =~ ^(a+)+b$ ]]; echo $?", timeout=2.0)
    assert_bounded(obs, cli=True)
    assert obs.stdout == b"2\n1\n"


def test_mcp_server_answers_while_a_pathological_regex_runs(tmp_path: Path):
    """A long regex workload in one call; the server keeps answering pings meanwhile."""
    pytest.importorskip("mcp.client.stdio")
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "mcp"))
    from mcp_harness import SyncClient, text

    client = SyncClient().open_stdio(["--command-timeout", "20"])
    try:
        work = client.run_later(client.session.call_tool("bash", {"command": (
            FILE + "for i in $(seq 8); do grep -cE '(a|aa)*b' /tmp/as.txt; "
            f"grep -c '{BACKREF}' /tmp/as.txt; done 2>&1 | sort | uniq -c"
        )}))
        time.sleep(0.3)
        latencies = []
        while not work.done():
            began = time.monotonic()
            client.run(client.session.send_ping(), timeout=10)
            latencies.append(time.monotonic() - began)
            time.sleep(0.05)
        res = work.result(30)
        assert "regular expression too complex" in text(res)
        assert latencies, "the workload ended before any ping could be sent"
        assert max(latencies) < 1.0, latencies
    finally:
        client.close()
