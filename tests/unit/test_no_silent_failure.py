"""Writes that cannot happen say so: ``curl -D``, ``history -w`` and the guest's os.chmod
on a read-only mount (issue 14, point 7).  bash is the oracle for ``history``."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from vshell import HostMount, Sandbox


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    ro, rw = tmp_path / "ro", tmp_path / "rw"
    ro.mkdir()
    rw.mkdir()
    (ro / "f").write_text("x\n")
    (rw / "f").write_text("y\n")
    return ro, rw


def _box(dirs: tuple[Path, Path], **kw: object) -> Sandbox:
    ro, rw = dirs
    return Sandbox(mounts=[HostMount(str(ro), "/ro", readonly=True), HostMount(str(rw), "/rw")],
                   cwd="/rw", **kw)  # type: ignore[arg-type]


def test_history_w_and_r_fail_like_bash(dirs: tuple[Path, Path]) -> None:
    script = ("history -w /ro/h; echo w=$?; history -r /ro/nope; echo r=$?; "
              "history -w h; echo ok=$?; history -r h; echo read=$?; history -a /ro/h; echo a=$?")
    with _box(dirs) as sb:
        r = sb.exec(script)
    assert r.stdout == b"w=1\nr=1\nok=0\nread=0\na=0\n" and r.stderr == b""
    assert (dirs[1] / "h").exists() and not (dirs[0] / "h").exists()
    if shutil.which("bash"):
        want = subprocess.run(["bash", "-c", script.replace("/ro/", "/proc/nope/")],
                              cwd=dirs[1], capture_output=True, timeout=20)
        assert want.stdout == r.stdout and want.stderr == b""


def test_curl_dump_header_to_a_read_only_file_fails(dirs: tuple[Path, Path]) -> None:
    # the header file is opened before any connection: no server is needed to see it fail
    with _box(dirs, allow_net=["127.0.0.1"]) as sb:
        r = sb.exec("curl -D /ro/h http://127.0.0.1:9/; echo st=$?")
        assert r.stdout == b"st=23\n"
        assert r.stderr == (b"Warning: Failed to open /ro/h\n"
                            b"curl: (23) Failed writing received data to disk/application\n")
        r = sb.exec("curl -s -D /ro/h http://127.0.0.1:9/; echo st=$?")
        assert (r.stdout, r.stderr) == (b"st=23\n", b"")
        r = sb.exec("curl -sS -D /nodir/h http://127.0.0.1:9/; echo st=$?")
        assert r.stdout == b"st=23\n" and b"Failed to open /nodir/h" in r.stderr
    assert not (dirs[0] / "h").exists()


def test_curl_dump_header_still_writes(dirs: tuple[Path, Path]) -> None:
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "net"))
    from netserver import serve

    with serve() as srv, _box(dirs, allow_net=["127.0.0.1"]) as sb:
        r = sb.exec(f"curl -sS -D hdr {srv.url('/hello')}")
    assert (r.exit_code, r.stdout) == (0, b"hello\n"), r.stderr
    assert (dirs[1] / "hdr").read_bytes().startswith(b"HTTP/1.")


def test_guest_chmod_on_a_read_only_file_fails(dirs: tuple[Path, Path]) -> None:
    code = (
        "import os, pathlib\n"
        "for p in ('/ro/f', '/ro/missing', '/rw/f'):\n"
        "    try:\n"
        "        os.chmod(p, 0o600); print(p, 'ok')\n"
        "    except OSError as e:\n"
        "        print(p, e.strerror, e.filename)\n"
        "try:\n"
        "    pathlib.Path('/ro/f').chmod(0o600)\n"
        "except OSError as e:\n"
        "    print('pathlib', e.strerror)\n"
    )
    (dirs[1] / "c.py").write_text(code)
    with _box(dirs, timeout=120) as sb:
        r = sb.exec("python c.py")
    assert r.exit_code == 0, r.stderr
    assert r.stdout.decode().splitlines() == [
        "/ro/f Read-only file system /ro/f",
        "/ro/missing No such file or directory /ro/missing",
        "/rw/f ok",
        "pathlib Read-only file system",
    ]
    assert (dirs[0] / "f").stat().st_mode & 0o777 == 0o644
