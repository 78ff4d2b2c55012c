"""`--overlay DIR`, `vshell changes|diff|sync|discard` and `vshell --try`, as real processes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

VSHELL = [sys.executable, "-m", "vshell"]


def run(args: list[str], stdin: bytes | None = None, cwd: str | Path | None = None,
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(VSHELL + args, input=stdin, capture_output=True, cwd=cwd,
                          env=env, timeout=30)


@pytest.fixture()
def host(tmp_path: Path) -> Path:
    h = tmp_path / "host"
    h.mkdir()
    (h / "a.txt").write_text("old\n")
    (h / "b.txt").write_text("b\n")
    return h


def _work(host: Path, ov: Path, script: str) -> subprocess.CompletedProcess[bytes]:
    return run(["--mount", f"{host}:/w:cow", "--overlay", str(ov), "-c", script])


def test_two_runs_resume_and_review(host: Path, tmp_path: Path) -> None:
    ov = tmp_path / "ov"
    assert _work(host, ov, "echo new >> a.txt; rm b.txt").returncode == 0
    r = _work(host, ov, "cat a.txt; echo c > c.txt; ls")
    assert r.stdout == b"old\nnew\na.txt\nc.txt\n"
    assert sorted(p.name for p in host.iterdir()) == ["a.txt", "b.txt"]
    r = run(["changes", "--overlay", str(ov)])
    assert (r.returncode, r.stdout) == (0, b"M /w/a.txt\nD /w/b.txt\nA /w/c.txt\n")
    r = run(["diff", f"--overlay={ov}"])
    assert r.returncode == 0
    assert b"--- a/w/a.txt\n+++ b/w/a.txt\n@@ -1 +1,2 @@\n old\n+new\n" in r.stdout
    assert b"+++ b/w/c.txt" in r.stdout
    r = run(["sync", "--overlay", str(ov), "/w/c.txt"])
    assert (r.returncode, r.stdout) == (0, b"A /w/c.txt\n")
    assert (host / "c.txt").read_text() == "c\n" and (host / "b.txt").exists()
    r = run(["sync", "--overlay", str(ov)])
    assert (r.returncode, r.stdout) == (0, b"M /w/a.txt\nD /w/b.txt\n")
    assert (host / "a.txt").read_text() == "old\nnew\n" and not (host / "b.txt").exists()
    assert run(["changes", "--overlay", str(ov)]).stdout == b""


def test_sync_conflict_exit_1_nothing_applied(host: Path, tmp_path: Path) -> None:
    ov = tmp_path / "ov"
    assert _work(host, ov, "echo mine > a.txt; echo n > n.txt").returncode == 0
    (host / "a.txt").write_text("theirs, and longer\n")
    r = run(["sync", "--overlay", str(ov)])
    assert r.returncode == 1
    assert b"conflict: /w/a.txt" in r.stderr and b"nothing applied" in r.stderr
    assert r.stdout == b"" and not (host / "n.txt").exists()
    assert run(["changes", "--overlay", str(ov)]).stdout == b"M /w/a.txt\nA /w/n.txt\n"


def test_discard(host: Path, tmp_path: Path) -> None:
    ov = tmp_path / "ov"
    _work(host, ov, "rm a.txt")
    r = run(["discard", "--overlay", str(ov)])
    assert (r.returncode, r.stdout, r.stderr) == (0, b"", b"")
    assert run(["changes", "--overlay", str(ov)]).stdout == b""
    assert (host / "a.txt").exists()


def test_mismatched_dir_refused(host: Path, tmp_path: Path) -> None:
    ov = tmp_path / "ov"
    _work(host, ov, "echo x > f")
    other = tmp_path / "other"
    other.mkdir()
    r = run(["--mount", f"{other}:/w:cow", "--overlay", str(ov), "-c", "true"])
    assert r.returncode == 2 and b"recorded for" in r.stderr


def test_review_usage_errors(tmp_path: Path) -> None:
    r = run(["changes"])
    assert r.returncode == 2 and b"--overlay DIR is required" in r.stderr
    r = run(["diff", "--overlay", str(tmp_path), "extra"])
    assert r.returncode == 2 and b"unexpected argument" in r.stderr
    r = run(["sync", "--overlay", str(tmp_path / "none")])
    assert r.returncode == 2 and b"no overlay here" in r.stderr
    assert not (tmp_path / "none").exists()
    r = run(["discard", "--bogus"])
    assert r.returncode == 2 and b"unknown option --bogus" in r.stderr
    r = run(["changes", "--help"])
    assert r.returncode == 0 and r.stdout.startswith(b"usage: vshell changes --overlay DIR")


def test_script_named_changes_runs_as_dot_slash(host: Path) -> None:
    (host / "changes").write_text("echo script ran\n")
    r = run(["--mount", f"{host}:/w", "./changes"])
    assert (r.returncode, r.stdout) == (0, b"script ran\n")


def _env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["VSHELL_CACHE_DIR"] = str(tmp_path / "cache")
    return env


def test_try_then_sync(host: Path, tmp_path: Path) -> None:
    env = _env(tmp_path)
    r = run(["--try"], stdin=b"echo hi > f\ncat f\npwd\n", cwd=host, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.endswith(b"hi\n" + str(host).encode() + b"\n")
    assert not (host / "f").exists()
    (ov,) = (tmp_path / "cache" / "overlays").iterdir()
    assert (os.stat(ov).st_mode & 0o777) == 0o700
    err = r.stderr.decode()
    assert f"A {host}/f\n" in err
    assert err.endswith(
        f"vshell: changes kept in {ov}; apply them with: vshell sync --overlay {ov}\n")
    r = run(["sync", "--overlay", str(ov)])
    assert (r.returncode, r.stdout) == (0, f"A {host}/f\n".encode())
    assert (host / "f").read_text() == "hi\n"


def test_try_with_overlay_dir_resumes(host: Path, tmp_path: Path) -> None:
    env = _env(tmp_path)
    ov = tmp_path / "mine"
    run(["--try", "--overlay", str(ov)], stdin=b"echo 1 > f\n", cwd=host, env=env)
    r = run(["--try", "--overlay", str(ov)], stdin=b"echo 2 >> f\ncat f\n", cwd=host, env=env)
    assert r.stdout.endswith(b"1\n2\n")
    assert f"vshell: changes kept in {ov};".encode() in r.stderr
    assert not (tmp_path / "cache" / "overlays").exists()
    assert not (host / "f").exists()


# --- nothing is lost, nothing fails silently (issue 14, point 7) ---------------------------
def test_dash_c_says_how_many_cow_changes_it_discards(host: Path) -> None:
    r = run(["--mount", f"{host}:/w:cow", "-c", "echo x > /w/n; rm /w/b.txt; echo done"])
    assert (r.returncode, r.stdout) == (0, b"done\n")
    assert b"vshell: 2 change(s) under copy-on-write mounts discarded at exit" in r.stderr
    assert b"--overlay DIR" in r.stderr and b"vshell sync --overlay DIR" in r.stderr
    assert sorted(p.name for p in host.iterdir()) == ["a.txt", "b.txt"]
    (host / "s.sh").write_text("echo y >> /w/a.txt\nexit 3\n")
    r = run(["--mount", f"{host}:/w:cow", "/w/s.sh"])
    assert r.returncode == 3 and b"1 change(s) under copy-on-write" in r.stderr
    r = run(["--mount", f"{host}:/w:cow"], stdin=b"echo q > /w/q\n")  # the REPL, too
    assert b"1 change(s) under copy-on-write mounts discarded at exit" in r.stderr
    # nothing changed, or the changes are kept: no notice
    r = run(["--mount", f"{host}:/w:cow", "-c", "cat /w/a.txt >/dev/null"])
    assert r.stderr == b""
    r = run(["--mount", f"{host}:/w:cow", "--overlay", str(host.parent / "ov"), "-c",
             "echo z > /w/z"])
    assert r.stderr == b""


def test_try_runs_a_dash_c_script_then_reviews(host: Path, tmp_path: Path) -> None:
    env = _env(tmp_path)
    r = run(["--try", "-c", "echo hi > f; cat f; exit 4"], cwd=host, env=env)
    assert (r.returncode, r.stdout) == (4, b"hi\n"), r.stderr
    assert not (host / "f").exists()
    (ov,) = (tmp_path / "cache" / "overlays").iterdir()
    err = r.stderr.decode()
    assert f"vshell: 1 change(s):\nA {host}/f\n" in err
    assert err.endswith(f"apply them with: vshell sync --overlay {ov}\n")
    r = run(["sync", "--overlay", str(ov)])
    assert r.returncode == 0 and (host / "f").read_text() == "hi\n"


def test_try_runs_a_file_and_leaves_no_empty_overlay(host: Path, tmp_path: Path) -> None:
    env = _env(tmp_path)
    (host / "s.sh").write_text("wc -l < a.txt\n")
    r = run(["--try", "s.sh"], cwd=host, env=env)
    assert (r.returncode, r.stdout) == (0, b"1\n"), r.stderr
    assert r.stderr == b"vshell: no changes\n"
    assert list((tmp_path / "cache" / "overlays").iterdir()) == []
    ov = tmp_path / "fresh"
    r = run(["--try", "--overlay", str(ov), "-c", "true"], cwd=host, env=env)
    assert r.returncode == 0 and not ov.exists()
    r = run(["--try", "-c", "echo a > f"], stdin=b"", cwd=host, env=env)
    (kept,) = (tmp_path / "cache" / "overlays").iterdir()
    assert b"1 change(s)" in r.stderr and kept.is_dir()


def test_sync_takes_sandbox_relative_and_host_paths(host: Path, tmp_path: Path) -> None:
    ov = tmp_path / "ov"
    (host / "sub").mkdir()
    script = "echo 1 > one; echo 2 > two; echo 3 > sub/three; echo 4 > four"
    assert _work(host, ov, "cd /w && " + script).returncode == 0
    r = run(["sync", "--overlay", str(ov), "/w/one"])  # a sandbox path
    assert (r.returncode, r.stdout) == (0, b"A /w/one\n")
    r = run(["sync", "--overlay", str(ov), str(host / "two")])  # a host path
    assert (r.returncode, r.stdout) == (0, b"A /w/two\n")
    r = run(["sync", "--overlay", str(ov), "three"], cwd=host / "sub")  # relative to cwd
    assert (r.returncode, r.stdout) == (0, b"A /w/sub/three\n"), r.stderr
    r = run(["sync", "--overlay", str(ov), "four"], cwd=tmp_path)  # relative to the mount
    assert (r.returncode, r.stdout) == (0, b"A /w/four\n"), r.stderr
    assert [(host / n).read_text() for n in ("one", "two", "sub/three", "four")] == [
        "1\n", "2\n", "3\n", "4\n"]


def test_sync_of_a_path_with_no_change_is_an_error(host: Path, tmp_path: Path) -> None:
    ov = tmp_path / "ov"
    assert _work(host, ov, "echo n > /w/n").returncode == 0
    for bad in ("/w/nothing", "nothing", str(host / "a.txt"), "/elsewhere"):
        r = run(["sync", "--overlay", str(ov), "/w/n", bad], cwd=tmp_path)
        assert r.returncode == 1, bad
        assert f"vshell sync: {bad}: no change there".encode() in r.stderr
        assert r.stderr.endswith(b"vshell sync: nothing applied\n")
        assert not (host / "n").exists()


def test_diff_shows_mode_and_symlink_changes(host: Path, tmp_path: Path) -> None:
    ov = tmp_path / "ov"
    os.symlink("a.txt", host / "l")
    os.symlink("a.txt", host / "gone")
    script = ("cd /w && chmod 755 a.txt && ln -sfn b.txt l && ln -s a.txt new && rm gone"
              " && echo more >> b.txt && chmod 600 b.txt")
    assert _work(host, ov, script).returncode == 0
    changes = run(["changes", "--overlay", str(ov)]).stdout.decode()
    diff = run(["diff", "--overlay", str(ov)]).stdout.decode()
    assert changes == "M /w/a.txt\nM /w/b.txt\nD /w/gone\nM /w/l\nA /w/new\n"
    assert "diff --git a/w/a.txt b/w/a.txt\nold mode 100644\nnew mode 100755\n" in diff
    assert ("diff --git a/w/b.txt b/w/b.txt\nold mode 100644\nnew mode 100600\n"
            "--- a/w/b.txt\n+++ b/w/b.txt\n@@ -1 +1,2 @@\n b\n+more\n") in diff
    assert "--- a/w/l\n+++ b/w/l\n@@ -1 +1 @@\n-a.txt\n\\ No newline at end of file\n" \
        "+b.txt\n\\ No newline at end of file\n" in diff
    assert "diff --git a/w/new b/w/new\nnew file mode 120000\n" in diff
    assert "+a.txt\n" in diff.split("a/w/new b/w/new", 1)[1]
    assert "diff --git a/w/gone b/w/gone\ndeleted file mode 120000\n" in diff
    # every path `changes` lists appears in the diff
    for line in changes.splitlines():
        assert f"a{line[2:]} " in diff or f"b{line[2:]}\n" in diff, line
