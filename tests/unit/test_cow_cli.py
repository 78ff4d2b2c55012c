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
