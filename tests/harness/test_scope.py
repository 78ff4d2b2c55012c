"""Scopes: resolution from files (two worktrees, one repository), and the per-scope session
server behind ``vshell run`` (state persists, calls serialise, a dead server restarts, idle
timeout and ``vshell stop`` end it, vshell.toml's rules apply)."""

from __future__ import annotations

import json
import os
import signal
import socket
import threading
import time
from pathlib import Path

import pytest
from gitlayout import make_repo, runtime_dir, vshell

from vshell.scope.resolve import find_worktree, resolve_scope


def test_two_worktrees_two_scopes_one_worktree_one(tmp_path: Path) -> None:
    main, linked = make_repo(tmp_path)
    a, b = resolve_scope(str(main)), resolve_scope(str(main / "src"))
    c = resolve_scope(str(linked))
    assert a.kind == c.kind == "worktree"
    assert a.key == b.key == str(main) and a.ident == b.ident
    assert c.key == str(linked) and c.ident != a.ident
    assert a.roots == [str(main)] and c.roots == [str(linked)]
    assert c.repo_root == a.repo_root == str(main)


def test_repo_scope_shared_by_worktrees_and_mounts_each(tmp_path: Path) -> None:
    main, linked = make_repo(tmp_path)
    a, c = resolve_scope(str(main), "repo"), resolve_scope(str(linked), "repo")
    assert a.kind == "repo" and a.key == c.key == str(main)
    assert a.roots == [str(main), str(linked)]
    assert c.roots == [str(main), str(linked)]


def test_session_scope_falls_back_to_worktree(tmp_path: Path) -> None:
    main, _ = make_repo(tmp_path)
    s1, s2 = resolve_scope(str(main), "session", "abc"), resolve_scope(str(main), "session", "x")
    assert s1.kind == "session" and s1.ident != s2.ident and s1.roots == [str(main)]
    fallback = resolve_scope(str(main), "session", None)
    assert fallback.kind == "worktree" and fallback.key == str(main)


def test_outside_git_the_directory_is_the_scope(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    s = resolve_scope(str(tmp_path / "d"))
    assert s.kind == "dir" and s.roots == [str(tmp_path / "d")]


def test_gitdir_file_that_is_not_one_is_skipped(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    inner = tmp_path / "x"
    inner.mkdir()
    (inner / ".git").write_text("not a gitdir line\n")
    assert find_worktree(str(inner)) == (str(tmp_path), str(tmp_path / ".git"))


# --- the session server ----------------------------------------------------------------

def run(cwd: Path, env: dict[str, str], script: str, *flags: str):  # type: ignore[no-untyped-def]
    return vshell(["run", *flags, "-c", script], cwd=cwd, env=env)


def test_state_persists_and_worktrees_are_separate(tmp_path: Path) -> None:
    main, linked = make_repo(tmp_path)
    (main / "src" / "f.txt").write_text("hello\n")
    with runtime_dir() as env:
        r = run(main / "src", env, "pwd; x=42; shopt -s extglob; f() { echo fn$1; }; cd ..")
        assert r.returncode == 0, r.stderr
        assert r.stdout.decode() == f"{main / 'src'}\n"  # mounted at its own host path
        r = run(main, env, 'pwd; echo $x; f 1; shopt -q extglob && echo opt; cat src/f.txt')
        assert r.stdout.decode() == f"{main}\n42\nfn1\nopt\nhello\n", r.stderr
        r = run(main / "src", env, "echo ${x-unset}")  # same worktree, same session
        assert r.stdout == b"42\n"
        r = run(linked, env, "echo ${x-unset}; pwd")  # the other worktree's own session
        assert r.stdout.decode() == f"unset\n{linked}\n"
        r = run(main, env, "exit 7")
        assert r.returncode == 7
        r = run(main, env, "echo out; echo err >&2; false")
        assert (r.returncode, r.stdout, r.stderr) == (1, b"out\n", b"err\n")
        assert len([n for n in os.listdir(env["VSHELL_RUNTIME_DIR"]) if n.endswith(".sock")]) == 2


def test_runtime_dir_is_private(tmp_path: Path) -> None:
    with runtime_dir() as env:
        run(tmp_path, env, "true")
        rt = Path(env["VSHELL_RUNTIME_DIR"])
        assert rt.stat().st_mode & 0o777 == 0o700
        os.chmod(rt, 0o755)
        try:
            r = run(tmp_path, env, "true")
            assert r.returncode == 125 and b"open to other users" in r.stderr
        finally:
            os.chmod(rt, 0o700)


def test_config_rules_apply_in_the_session(tmp_path: Path) -> None:
    main, _ = make_repo(tmp_path)
    (main / "secret.txt").write_text("s3cr3t\n")
    (main / "vshell.toml").write_text('deny = ["**/secret.txt"]\ntimeout = "1s"\n')
    with runtime_dir() as env:
        r = run(main, env, "cat secret.txt")
        assert r.returncode != 0 and b"s3cr3t" not in r.stdout
        r = run(main, env, "sleep 5")
        assert r.returncode == 137
        r = run(main, env, "sleep 0.1; echo ok", "--timeout", "20s")
        assert r.stdout == b"ok\n"


def test_args_file_and_stdin(tmp_path: Path) -> None:
    (tmp_path / "s.sh").write_text('echo "$0:$1:$#"; cat\n')
    with runtime_dir() as env:
        r = vshell(["run", "-c", 'echo "$0 $1 $2"', "name", "a", "b"], cwd=tmp_path, env=env)
        assert r.stdout == b"name a b\n"
        r = vshell(["run", "s.sh", "one", "two"], cwd=tmp_path, env=env, stdin=b"piped\n")
        assert r.stdout.decode() == "s.sh:one:2\npiped\n", r.stderr
        r = vshell(["run", "nope.sh"], cwd=tmp_path, env=env)
        assert r.returncode == 127 and b"nope.sh" in r.stderr


def _ping(env: dict[str, str], cwd: Path) -> dict[str, object]:
    from vshell.scope.resolve import resolve_scope

    path = Path(env["VSHELL_RUNTIME_DIR"]) / f"{resolve_scope(str(cwd)).ident}.sock"
    with socket.socket(socket.AF_UNIX) as s:
        s.connect(str(path))
        s.sendall(b'{"op":"ping"}\n')
        return json.loads(s.makefile("rb").readline())


def test_dead_server_restarts_transparently(tmp_path: Path) -> None:
    with runtime_dir() as env:
        assert run(tmp_path, env, "x=1").returncode == 0
        pid = int(_ping(env, tmp_path)["pid"])  # type: ignore[call-overload]
        os.kill(pid, signal.SIGKILL)  # the server this test started
        time.sleep(0.2)
        r = run(tmp_path, env, "echo ${x-fresh}")
        assert (r.returncode, r.stdout) == (0, b"fresh\n"), r.stderr


def test_calls_in_one_scope_are_serialised(tmp_path: Path) -> None:
    with runtime_dir() as env:
        run(tmp_path, env, ": > /tmp/log")
        script = "echo start$N >> /tmp/log; sleep 0.5; echo end$N >> /tmp/log"
        threads = [threading.Thread(target=run, args=(tmp_path, env, f"N={n}; {script}"))
                   for n in (1, 2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        lines = run(tmp_path, env, "cat /tmp/log").stdout.decode().split()
        assert sorted(lines) == ["end1", "end2", "start1", "start2"]
        assert lines[0][-1] == lines[1][-1] and lines[2][-1] == lines[3][-1], lines


def test_idle_timeout_and_stop(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "vshell.toml").write_text('idle_timeout = "1s"\n')
    with runtime_dir() as env:
        rt = Path(env["VSHELL_RUNTIME_DIR"])
        a_sock = rt / f"{resolve_scope(str(tmp_path / 'a')).ident}.sock"
        b_sock = rt / f"{resolve_scope(str(tmp_path / 'b')).ident}.sock"
        run(tmp_path / "b", env, "y=1")
        assert run(tmp_path / "a", env, "echo up").stdout == b"up\n"
        deadline = time.monotonic() + 15
        while a_sock.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not a_sock.exists() and b_sock.exists()  # a's server ended on its own
        r = vshell(["stop"], cwd=tmp_path / "b", env=env)
        assert r.returncode == 0 and not list(rt.glob("*.sock"))
        r = vshell(["stop"], cwd=tmp_path / "b", env=env)
        assert b"no session is running" in r.stderr
        assert run(tmp_path / "b", env, "echo ${y-gone}").stdout == b"gone\n"


def test_changed_settings_restart_the_session(tmp_path: Path) -> None:
    (tmp_path / "s.txt").write_text("visible\n")
    with runtime_dir() as env:
        assert run(tmp_path, env, "cat s.txt").stdout == b"visible\n"
        (tmp_path / "vshell.toml").write_text('deny = ["**/s.txt"]\n')
        r = run(tmp_path, env, "cat s.txt")
        assert b"visible" not in r.stdout and b"settings changed" in r.stderr


def test_cow_worktree_review_in_scope(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "vshell.toml").write_text('worktree_mount = "cow"\n')
    (tmp_path / "f.txt").write_text("old\n")
    with runtime_dir() as env:
        env["VSHELL_CACHE_DIR"] = str(tmp_path.parent / f"{tmp_path.name}-cache")
        assert run(tmp_path, env, "echo new > f.txt; cat f.txt").stdout == b"new\n"
        assert (tmp_path / "f.txt").read_text() == "old\n"  # the host waits for review
        r = vshell(["changes", "--scope"], cwd=tmp_path, env=env)
        assert r.stdout.decode() == f"M {tmp_path}/f.txt\n", r.stderr
        r = vshell(["diff", "--scope"], cwd=tmp_path, env=env)
        assert b"+new" in r.stdout
        vshell(["stop"], cwd=tmp_path, env=env)  # pending changes survive the server
        assert vshell(["changes", "--scope"], cwd=tmp_path, env=env).stdout.startswith(b"M ")
        r = vshell(["sync", "--scope", "f.txt"], cwd=tmp_path, env=env)
        assert r.returncode == 0, r.stderr
        assert (tmp_path / "f.txt").read_text() == "new\n"


def test_a_stuck_server_is_ended_after_timeout_and_grace(tmp_path: Path) -> None:
    """As vshell -c's SIGALRM watchdog: a session that cannot stop at its timeout (here:
    stopped with SIGSTOP) is ended by the client, and the next call starts afresh."""
    with runtime_dir() as env:
        assert run(tmp_path, env, "x=1").returncode == 0
        pid = int(_ping(env, tmp_path)["pid"])  # type: ignore[call-overload]
        os.kill(pid, signal.SIGSTOP)
        try:
            started = time.monotonic()
            r = run(tmp_path, env, "echo never", "--timeout", "1s")
            assert r.returncode == 137 and b"its session was ended" in r.stderr
            assert time.monotonic() - started < 30
        finally:
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass
        r = run(tmp_path, env, "echo ${x-fresh}")
        assert r.stdout == b"fresh\n", r.stderr


def test_session_scopes_by_id(tmp_path: Path) -> None:
    main, _ = make_repo(tmp_path)
    flags = ("--isolation", "session", "--session")
    with runtime_dir() as env:
        assert run(main, env, "v=one", *flags, "s1").returncode == 0
        assert run(main, env, "echo ${v-none}", *flags, "s2").stdout == b"none\n"
        assert run(main, env, "echo ${v-none}", *flags, "s1").stdout == b"one\n"
        assert run(main, env, "echo ${v-none}").stdout == b"none\n"  # the worktree's own
        r = vshell(["stop", *flags, "s1"], cwd=main, env=env)
        assert r.returncode == 0 and r.stderr == b""
        assert run(main, env, "echo ${v-none}", *flags, "s1").stdout == b"none\n"


def test_env_flag_reaches_the_session(tmp_path: Path) -> None:
    with runtime_dir() as env:
        r = run(tmp_path, env, "echo $GREETING", "--env", "GREETING=hello")
        assert r.stdout == b"hello\n", r.stderr
        r = run(tmp_path, env, "echo ${GREETING-unset}")  # other settings: a new session
        assert r.stdout == b"unset\n" and b"settings changed" in r.stderr
