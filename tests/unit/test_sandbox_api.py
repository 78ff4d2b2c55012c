"""The Python API: session persistence, Result/Outcome, limits, validation, async."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import pytest

from vshell import (
    Command,
    HostMount,
    MemoryMount,
    Outcome,
    Result,
    Sandbox,
    SandboxConfigError,
    SandboxError,
)


def test_session_persists_cwd_vars_functions() -> None:
    with Sandbox(mounts=[MemoryMount("/work")]) as sb:
        assert sb.exec("mkdir -p /work/d && cd /work/d; X=1; f() { echo fn$X; }").ok()
        res = sb.exec("pwd; f")
        assert res.stdout == b"/work/d\nfn1\n"
        assert res.outcome is Outcome.COMPLETED


def test_exit_status_and_not_found() -> None:
    with Sandbox() as sb:
        r = sb.exec("exit 3")
        assert (r.outcome, r.exit_code, r.ok()) == (Outcome.COMPLETED, 3, False)
        r = sb.exec("nosuchcmd")
        assert (r.outcome, r.exit_code) == (Outcome.NOT_FOUND, 127)
        assert b"nosuchcmd: command not found" in r.stderr
        r = sb.exec("nosuchcmd || exit 4")
        assert (r.outcome, r.exit_code) == (Outcome.COMPLETED, 4)


def test_parse_error_is_invalid() -> None:
    with Sandbox() as sb:
        r = sb.exec("echo (")
        assert r.outcome is Outcome.INVALID and r.exit_code == 2
        assert r.error is not None
        assert b"syntax error" in r.stderr
        with pytest.raises(SandboxError):
            r.raise_for_outcome()


def test_timeout_stops_quickly() -> None:
    with Sandbox(timeout=0.3) as sb:
        t0 = time.monotonic()
        r = sb.exec("while true; do :; done")
        took = time.monotonic() - t0
        assert r.outcome is Outcome.TIMED_OUT and r.exit_code == 137 and r.stopped()
        assert took < 1.0
        t0 = time.monotonic()
        r = sb.exec("sleep 10 | cat")
        assert r.outcome is Outcome.TIMED_OUT
        assert time.monotonic() - t0 < 1.0
        assert sb.exec("echo after").stdout == b"after\n"


def test_no_thread_left_behind() -> None:
    before = {t.ident for t in threading.enumerate()}
    with Sandbox(timeout=0.3) as sb:
        sb.exec("yes | cat | cat > /dev/null")
        sb.exec("sleep 5 & echo started")
    time.sleep(0.3)
    left = [t for t in threading.enumerate() if t.ident not in before and t.is_alive()]
    assert not [t.name for t in left if t.name.startswith("vshell-")]


def test_output_limit_truncates() -> None:
    with Sandbox(output_limit=10) as sb:
        r = sb.exec("echo 0123456789abcdef; echo done >&2")
        assert r.stdout == b"0123456789"
        assert r.truncated and r.outcome is Outcome.COMPLETED
        assert r.stderr == b"done\n"


def test_yes_head_ends() -> None:
    with Sandbox(timeout=5) as sb:
        r = sb.exec("yes | head -1; echo ${PIPESTATUS[@]}")
        assert r.stdout == b"y\n141 0\n"


def test_host_env_does_not_leak(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SECRET_TOKEN", "s3cr3t")
    with Sandbox(env={"MINE": "1"}) as sb:
        r = sb.exec("env; echo ${SECRET_TOKEN:-unset}")
        assert b"s3cr3t" not in r.stdout
        assert b"MINE=1" in r.stdout and r.stdout.endswith(b"unset\n")


def test_validation_errors() -> None:
    with pytest.raises(SandboxConfigError):
        Sandbox(mounts=[HostMount("/definitely/not/here", "/work")])
    with pytest.raises(SandboxConfigError):
        Sandbox(mounts=[MemoryMount("relative")])
    with pytest.raises(SandboxConfigError):
        Sandbox(deny=["a?b"])
    with pytest.raises(SandboxConfigError):
        Sandbox(timeout=-1)
    with pytest.raises(SandboxConfigError):
        Sandbox(env={"BAD NAME": "x"})
    with pytest.raises(SandboxConfigError):
        Sandbox(cwd="/nowhere")
    ok = Command("mycmd", "does things", lambda inv: 0)
    for bad in (Command("bad name", "d", lambda inv: 0), Command("x", "", lambda inv: 0),
                Command("cd", "d", lambda inv: 0), Command("cat", "d", lambda inv: 0),
                Command("if", "d", lambda inv: 0)):
        with pytest.raises(SandboxConfigError):
            Sandbox(commands=[bad])
    with pytest.raises(SandboxConfigError):
        Sandbox(commands=[ok, ok])


def test_custom_command_and_exec_reentry() -> None:
    holder: dict[str, Result] = {}

    def reenter(inv):  # type: ignore[no-untyped-def]
        holder["r"] = sb.exec("echo inner")
        inv.stdout.write(inv.stdin.read().upper())
        return 0

    sb = Sandbox(commands=[Command("upper", "upper-case stdin", reenter)])
    with sb:
        r = sb.exec("echo abc | upper; upper < /dev/null; echo $?")
        assert r.stdout == b"ABC\n0\n"
        assert holder["r"].outcome is Outcome.UNSUPPORTED


def test_host_mount_readonly_and_deny(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    (tmp_path / ".env").write_text("KEY=1\n")
    with Sandbox(mounts=[HostMount(str(tmp_path), "/work", readonly=True)],
                 deny=["**/.env"]) as sb:
        r = sb.exec("cd /work && cat a.txt | wc -l; ls -A")
        assert r.stdout == b"2\na.txt\n"
        r = sb.exec("cat /work/.env")
        assert r.exit_code == 1 and b"Permission denied" in r.stderr
        r = sb.exec("echo x > /work/new.txt")
        assert r.exit_code == 1 and b"Read-only file system" in r.stderr
    assert not (tmp_path / "new.txt").exists()


def test_aexec_and_cancel() -> None:
    async def main() -> None:
        with Sandbox(timeout=10) as sb:
            r = await sb.aexec("echo async")
            assert r.stdout == b"async\n"
            task = asyncio.ensure_future(sb.aexec("sleep 5"))
            await asyncio.sleep(0.2)
            task.cancel()
            t0 = time.monotonic()
            with pytest.raises(asyncio.CancelledError):
                await task
            assert time.monotonic() - t0 < 1.5
            r = await sb.aexec("echo again")
            assert r.stdout == b"again\n"

    asyncio.run(main())


def test_nested_run_from_command() -> None:
    from vshell.command import NestedRequest

    def tally(inv):  # type: ignore[no-untyped-def]
        res = inv.run_nested(NestedRequest(script="echo $FIELD; pwd", env=["FIELD=2"]))
        inv.stdout.write(res.stdout)
        return res.exit_code

    with Sandbox(mounts=[MemoryMount("/work")], commands=[Command("tally", "t", tally)]) as sb:
        r = sb.exec("cd /work; X=1; tally")
        assert r.stdout == b"2\n/work\n"


def test_readme_example_runs() -> None:
    """The Python API example in the README, executed."""
    import re

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    m = re.search(r"```python\n(.*?)```", readme, re.S)
    assert m, "README has a python example"
    code = m.group(1)
    ns: dict[str, object] = {}
    exec(compile(code, "README.md", "exec"), ns)  # noqa: S102 - our own README


def test_script_types() -> None:
    """bytes are decoded (UTF-8, undecodable bytes kept); anything else is INVALID, not a
    Python error."""
    with Sandbox() as sb:
        r = sb.exec(b"printf '%s' \xff | od -An -tx1")
        assert (r.outcome, r.stdout) == (Outcome.COMPLETED, b" ff\n")
        for bad in (None, 123, ["echo"]):
            r = sb.exec(bad)  # type: ignore[arg-type]
            assert (r.outcome, r.exit_code) == (Outcome.INVALID, 2)
            assert r.stderr.startswith(b"vshell: script must be str or bytes, not ")
            assert isinstance(r.error, TypeError)


def test_runaway_recursion_ends_its_line_not_the_host() -> None:
    """bash crashes (SIGSEGV) on `f(){ f; }; f`; vshell stops at 1000 levels with bash's
    FUNCNEST message, drops the rest of that line and runs the next, in a fresh process's
    recursion limit as well as after awk or arithmetic raised it."""
    import sys

    old = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    try:
        with Sandbox() as sb:
            r = sb.exec("f(){ f; }; f; echo same line\necho next $?")
            assert r.stdout == b"next 1\n"
            assert r.stderr.endswith(b"f: maximum function nesting level exceeded (1000)\n")
            r = sb.exec("( " * 300 + "echo deep" + " )" * 300)
            assert (r.stdout, r.exit_code) == (b"deep\n", 0)
    finally:
        sys.setrecursionlimit(max(old, sys.getrecursionlimit()))


def test_ctrl_c_of_a_script_on_its_callers_thread_reaches_the_caller() -> None:
    """A script without host streams runs on the calling thread: a KeyboardInterrupt there
    (the host's Ctrl-C) ends the run, leaves the sandbox usable and is raised to the caller,
    as it was while the caller waited for a runner thread."""
    import _thread

    with Sandbox() as sb:
        timer = threading.Timer(0.2, _thread.interrupt_main)
        timer.start()
        start = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            sb.exec("sleep 5")
        assert time.monotonic() - start < 2
        assert sb.exec("echo again").stdout == b"again\n"
