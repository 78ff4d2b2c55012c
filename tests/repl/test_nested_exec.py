"""Nested execution: ``inv.run_nested`` against every row of sbsh's inheritance table.

A child shares the sandbox's capabilities (filesystem, deny rules, network policy,
commands, Python) and nothing of the caller's shell state; its limits only tighten.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from vshell import Command, Exit, Invocation, MemoryMount, NestedRequest, Outcome, Result, Sandbox

REPO = Path(__file__).resolve().parents[2]


class Nest:
    """A sandbox with a ``nest`` command that runs a request and records its Result."""

    def __init__(self, **kw: Any) -> None:
        self.results: list[Result] = []
        self.request: dict[str, Any] = {}
        self.probes: list[Invocation] = []
        files = {"data.txt": b"shared\n", "sub/inner.txt": b"inner\n", ".env": b"KEY=1\n"}
        kw.setdefault("mounts", [MemoryMount("/work", files=files)])
        kw.setdefault("deny", ["**/.env"])
        cmds = [Command("nest", "run the test's request", self._nest),
                Command("probe", "record the invocation", self._probe)]
        self.sb = Sandbox(commands=cmds, **kw)

    def _nest(self, inv: Invocation) -> int:
        req = dict(self.request)
        if inv.args:
            req["script"] = inv.args[0]
        res = inv.run_nested(**req)
        self.results.append(res)
        inv.stdout.write(res.stdout)
        inv.stderr.write(res.stderr)
        return res.exit_code

    def _probe(self, inv: Invocation) -> int:
        self.probes.append(inv)
        return 0

    def run(self, top: str, /, **request: Any) -> Result:
        """Run ``top`` at top level; ``request`` is what ``nest`` asks for."""
        self.request = request
        self.results.clear()
        return self.sb.exec(top)

    @property
    def child(self) -> Result:
        return self.results[-1]


@pytest.fixture
def nest() -> Nest:
    return Nest()


def test_filesystem_shared_both_ways(nest: Nest) -> None:
    r = nest.run("cd /work; nest; cat made.txt",
                 script="cat data.txt; echo child > made.txt")
    assert r.stdout == b"shared\nchild\n"


def test_deny_patterns_shared(nest: Nest) -> None:
    nest.run("cd /work; nest", script="cat .env")
    assert nest.child.outcome is Outcome.COMPLETED and nest.child.exit_code == 1
    assert b"Permission denied" in nest.child.stderr


def test_commands_python_and_network_shared() -> None:
    n = Nest(allow_net=["example.com"])
    n.run("probe; nest", script="probe")
    parent, child = n.probes
    assert child.http is parent.http and child.http is not None
    assert child.python is parent.python
    assert n.child.ok()
    n2 = Nest()
    n2.run("nest", script="probe; curl -s http://example.com/")
    assert n2.probes[0].http is None
    assert n2.child.exit_code != 0


def test_cwd_is_the_callers(nest: Nest) -> None:
    assert nest.run("cd /work/sub; nest", script="pwd; echo $PWD").stdout == \
        b"/work/sub\n/work/sub\n"
    # the caller is the invocation: a subshell's cd counts, not the session's
    assert nest.run("cd /work; (cd sub && nest)", script="pwd").stdout == b"/work/sub\n"
    assert nest.run("cd /; nest", script="pwd", dir="/work/sub").stdout == b"/work/sub\n"
    assert nest.run("cd /work; nest", script="pwd", dir="sub").stdout == b"/work/sub\n"
    assert nest.run("cd /work/sub; nest", script="pwd", dir="..").stdout == b"/work\n"


def test_missing_dir_and_empty_script_are_invalid(nest: Nest) -> None:
    for req in ({"script": "pwd", "dir": "nope"}, {"script": "pwd", "dir": "/work/data.txt"},
                {"script": ""}, {"script": "  \n"}, {"script": "true", "env": ["NOEQUALS"]},
                {"script": "true", "env": ["1BAD=x"]}):
        r = nest.run("cd /work; nest; echo after $?", **req)
        assert nest.child.outcome is Outcome.INVALID, req
        assert nest.child.exit_code == 2 and nest.child.error is not None
        assert nest.child.stderr.startswith(b"vshell: ")
        assert r.stdout == b"after 2\n"  # the caller's own run goes on


def test_parse_error_is_invalid_with_error(nest: Nest) -> None:
    nest.run("nest", script="echo )")
    assert nest.child.outcome is Outcome.INVALID
    assert nest.child.error is not None and b"syntax error" in nest.child.stderr


def test_environment_home_pwd_only(nest: Nest) -> None:
    script = ('echo "H=$HOME P=$PWD S=${SECRET-unset} O=${OLDPWD-unset} F=$FIELD"; '
              'env | grep -c SECRET')
    r = nest.run("cd /work; export SECRET=s3; cd sub; HOME=/work nest", script=script,
                 env=["FIELD=2", "PWD=/evil", "OLDPWD=/evil"])
    assert r.stdout == b"H=/work P=/work/sub S=unset O=unset F=2\n0\n"
    # HOME comes from the caller even without a prefix assignment
    r = nest.run("HOME=/work/sub; nest", script="echo $HOME")
    assert r.stdout == b"/work/sub\n"


def test_oldpwd_unset_so_cd_dash_fails(nest: Nest) -> None:
    nest.run("cd /work; cd /work/sub; nest", script="cd -")
    assert nest.child.exit_code == 1
    assert b"OLDPWD not set" in nest.child.stderr


def test_shell_state_not_inherited_nor_left_behind(nest: Nest) -> None:
    r = nest.run("cd /work; f() { echo f; }; V=1; set -u; alias a=echo; nest; "
                 "echo \"after V=$V pwd=$PWD\"; type g >/dev/null 2>&1 || echo no-g",
                 script='echo "V=${V-unset} opts=$-"; f; cd /; g() { :; }; V=2')
    assert b"V=unset" in r.stdout and b"u" not in r.stdout.split(b"opts=")[1].split(b"\n")[0]
    assert b"after V=1 pwd=/work" in r.stdout and b"no-g" in r.stdout
    assert b"f: command not found" in r.stderr


def test_not_found_outcome(nest: Nest) -> None:
    nest.run("nest", script="no-such-command")
    assert nest.child.outcome is Outcome.NOT_FOUND and nest.child.exit_code == 127


def test_no_stdin(nest: Nest) -> None:
    def both(inv: Invocation) -> int:
        res = inv.run_nested(script="cat; echo child-done")
        inv.stdout.write(res.stdout + inv.stdin.read())
        return 0

    sb = Sandbox(commands=[Command("both", "child then own stdin", both)])
    assert sb.exec("echo data | both").stdout == b"child-done\ndata\n"


def test_timeout_only_tightens() -> None:
    n = Nest(timeout=30)
    t0 = time.monotonic()
    r = n.run("nest; echo after $?", script="sleep 5", timeout=0.3)
    assert time.monotonic() - t0 < 2.5
    assert n.child.outcome is Outcome.TIMED_OUT and n.child.exit_code == 137
    assert n.child.stopped() and n.child.error is None
    assert r.stdout == b"after 137\n" and r.outcome is Outcome.COMPLETED
    # a longer request does not outlive the sandbox's own deadline
    n = Nest(timeout=0.5)
    t0 = time.monotonic()
    r = n.run("nest", script="sleep 5", timeout=60)
    assert time.monotonic() - t0 < 3.0
    assert r.outcome is Outcome.TIMED_OUT


def test_cancel_reaches_the_child() -> None:
    n = Nest(timeout=30)
    from vshell.command import CancelToken

    token = CancelToken()
    threading.Timer(0.3, token.cancel).start()
    t0 = time.monotonic()
    n.request = {"script": "sleep 5"}
    r = n.sb.exec("nest", cancel=token)
    assert time.monotonic() - t0 < 2.5
    assert r.outcome is Outcome.CANCELED
    assert n.results and n.results[0].outcome is Outcome.CANCELED


def test_output_limit_only_tightens() -> None:
    n = Nest(output_limit=100)
    n.run("nest", script="printf '%050d' 0", output_limit=10)
    assert n.child.stdout == b"0" * 10 and n.child.truncated
    assert n.child.outcome is Outcome.COMPLETED  # truncated, still completed
    n.run("nest", script="printf '%0500d' 0", output_limit=10**6)
    assert len(n.child.stdout) == 100 and n.child.truncated
    n.run("nest", script="echo small", output_limit=10)
    assert n.child.stdout == b"small\n" and not n.child.truncated


def test_nesting_bounded_at_8_levels() -> None:
    def deeper(inv: Invocation) -> int:
        level = int(inv.getenv("LEVEL", "0"))
        res = inv.run_nested(script="deeper", env=[f"LEVEL={level + 1}"])
        if res.outcome is Outcome.DENIED:
            inv.stdout.write(f"denied below level {level}\n".encode())
            inv.stderr.write(res.stderr)
            return 0
        inv.stdout.write(res.stdout)
        inv.stderr.write(res.stderr)
        return res.exit_code

    sb = Sandbox(commands=[Command("deeper", "recurse", deeper)])
    r = sb.exec("deeper")
    assert r.stdout == b"denied below level 8\n"
    assert b"deeper than 8 levels" in r.stderr


def test_exec_from_inside_is_unsupported_not_a_deadlock() -> None:
    seen: list[Result] = []

    def reenter(inv: Invocation) -> int:
        seen.append(sb.exec("echo inner"))
        return 0

    sb = Sandbox(commands=[Command("reenter", "calls Sandbox.exec", reenter)], timeout=10)
    t0 = time.monotonic()
    r = sb.exec("reenter; echo x | reenter; bash -c reenter")
    assert time.monotonic() - t0 < 3
    assert r.ok()
    assert [s.outcome for s in seen] == [Outcome.UNSUPPORTED] * 3
    assert all(s.exit_code == 126 and s.error is None for s in seen)
    assert b"run_nested" in seen[0].stderr

    # and from inside a nested child
    def nested_reenter(inv: Invocation) -> int:
        res = inv.run_nested(script="reenter")
        return res.exit_code

    seen.clear()
    sb2 = Sandbox(commands=[Command("reenter", "calls Sandbox.exec", lambda inv: reenter2(inv)),
                            Command("outer", "nests", nested_reenter)], timeout=10)

    def reenter2(inv: Invocation) -> int:
        seen.append(sb2.exec("echo inner"))
        return 0

    assert sb2.exec("outer").ok()
    assert seen[0].outcome is Outcome.UNSUPPORTED


def test_request_object_and_keywords_are_equivalent(nest: Nest) -> None:
    def both(inv: Invocation) -> int:
        a = inv.run_nested(NestedRequest(script="echo $X", env=["X=1"]))
        b = inv.run_nested(script="echo $X", env=["X=1"])
        if a.stdout != b.stdout:
            raise Exit(1, "differ")
        inv.stdout.write(a.stdout)
        return 0

    assert Sandbox(commands=[Command("both", "d", both)]).exec("both").stdout == b"1\n"


def test_background_jobs_end_with_the_child(nest: Nest) -> None:
    t0 = time.monotonic()
    nest.run("nest", script="sleep 5 & echo started")
    assert nest.child.stdout == b"started\n"
    assert time.monotonic() - t0 < 2.0
    deadline = time.monotonic() + 2
    while any(t.name.startswith("vshell-job") for t in threading.enumerate()):
        assert time.monotonic() < deadline, "a child's background job outlived it"
        time.sleep(0.05)


def test_example_nestedcommand_runs() -> None:
    res = subprocess.run([sys.executable, str(REPO / "examples" / "nestedcommand.py")],
                         capture_output=True, timeout=60, cwd=REPO)
    assert res.returncode == 0, res.stderr
    assert res.stdout == (b"== colours\n      3 red\n      2 blue\n      1 green\n"
                          b"== the most common size\n      3 M\n== a missing file\nstatus 1\n")
    assert b"cut: nope.csv: No such file or directory" in res.stderr
    assert b"tally: counting failed with status 1" in res.stderr
