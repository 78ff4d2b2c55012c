"""Copy-on-write mounts: every change lands in the overlay, the host is never touched."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest

from vshell.cli.args import parse_mount
from vshell.cli.main import main
from vshell.overlay_review import collapse_removals
from vshell.sandbox import HostMount, Sandbox, SandboxConfigError
from vshell.vfs import VFS, Ctx, Mount
from vshell.vfs.overlay import OverlayBackend


def _snapshot(root: Path) -> dict[str, tuple[int, bytes | str | None]]:
    """Every host entry under root: (mode, bytes / link target / None for a directory)."""
    out: dict[str, tuple[int, bytes | str | None]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            info = p.lstat()
            if stat.S_ISLNK(info.st_mode):
                data: bytes | str | None = os.readlink(p)
            elif stat.S_ISDIR(info.st_mode):
                data = None
            else:
                data = p.read_bytes()
            out[str(p.relative_to(root))] = (info.st_mode, data)
    return out


@pytest.fixture
def host(tmp_path: Path) -> Path:
    root = tmp_path / "host"
    (root / "sub" / "deep").mkdir(parents=True)
    (root / "a.txt").write_bytes(b"one\ntwo\n")
    (root / "sub" / "b.txt").write_bytes(b"bee\n")
    (root / "sub" / "deep" / "c").write_bytes(b"sea\n")
    (root / "bin").write_bytes(b"\x00\x01\x02")
    return root


@pytest.fixture
def vfs(host: Path) -> VFS:
    return VFS([Mount("/w", OverlayBackend(host))])


def _read(vfs: VFS, path: str) -> bytes:
    with vfs.open(path) as f:
        return f.read()


def _write(vfs: VFS, path: str, data: bytes, mode: str = "wb") -> None:
    with vfs.open(path, mode) as f:
        f.write(data)


def test_reads_come_from_the_host(vfs: VFS) -> None:
    assert _read(vfs, "/w/a.txt") == b"one\ntwo\n"
    assert sorted(vfs.listdir("/w")) == ["a.txt", "bin", "sub"]
    assert vfs.isdir("/w/sub/deep")


def test_every_kind_of_write_leaves_the_host_untouched(vfs: VFS, host: Path) -> None:
    before = _snapshot(host)
    _write(vfs, "/w/new.txt", b"new\n")
    _write(vfs, "/w/a.txt", b"three\n", "ab")
    vfs.unlink("/w/sub/b.txt")
    vfs.rename("/w/sub/deep", "/w/moved")
    vfs.mkdir("/w/d")
    vfs.mkdir("/w/e")
    vfs.rmdir("/w/e")
    vfs.chmod("/w/bin", 0o600)
    vfs.utime("/w/a.txt", ns=(1, 2))
    vfs.truncate("/w/bin", 1)
    vfs.symlink("a.txt", "/w/link")
    assert _snapshot(host) == before
    assert _read(vfs, "/w/a.txt") == b"one\ntwo\nthree\n"
    assert _read(vfs, "/w/new.txt") == b"new\n"
    assert _read(vfs, "/w/moved/c") == b"sea\n"
    assert _read(vfs, "/w/link") == b"one\ntwo\nthree\n"
    assert _read(vfs, "/w/bin") == b"\x00"
    assert stat.S_IMODE(vfs.stat("/w/bin").st_mode) == 0o600
    assert vfs.stat("/w/a.txt").st_mtime_ns == 2
    assert sorted(vfs.listdir("/w")) == ["a.txt", "bin", "d", "link", "moved", "new.txt", "sub"]
    assert vfs.listdir("/w/sub") == []
    assert not vfs.exists("/w/e")


def test_deleted_host_files_stay_hidden(vfs: VFS, host: Path) -> None:
    vfs.unlink("/w/a.txt")
    assert not vfs.exists("/w/a.txt")
    assert "a.txt" not in vfs.listdir("/w")
    with pytest.raises(FileNotFoundError):
        vfs.open("/w/a.txt")
    assert (host / "a.txt").exists()
    _write(vfs, "/w/a.txt", b"again\n")
    assert _read(vfs, "/w/a.txt") == b"again\n"


def test_recreated_directory_is_opaque(vfs: VFS) -> None:
    for p in ("/w/sub/deep/c", "/w/sub/b.txt"):
        vfs.unlink(p)
    vfs.rmdir("/w/sub/deep")
    vfs.rmdir("/w/sub")
    vfs.mkdir("/w/sub")
    assert vfs.listdir("/w/sub") == []


def test_posix_errors(vfs: VFS) -> None:
    with pytest.raises(OSError) as e:
        vfs.rmdir("/w/sub")
    assert e.value.errno == errno.ENOTEMPTY
    with pytest.raises(FileExistsError):
        vfs.mkdir("/w/sub")
    with pytest.raises(FileExistsError):
        vfs.open("/w/a.txt", "xb")
    with pytest.raises(IsADirectoryError):
        vfs.open("/w/sub", "wb")
    with pytest.raises(FileNotFoundError):
        vfs.open("/w/nope/x", "wb")
    with pytest.raises(NotADirectoryError):
        vfs.rmdir("/w/a.txt")


def test_changes_and_diff(host: Path) -> None:
    with Sandbox(mounts=[HostMount(str(host), "/w", cow=True)]) as sb:
        r = sb.exec(
            "echo three >> a.txt; echo hi > n.txt; rm sub/b.txt; printf '\\0\\3' > bin;"
            " mkdir d; rm -r sub/deep; ln -s a.txt l"
        )
        assert r.exit_code == 0, r.stderr
        assert sb.changes() == [
            ("/w/a.txt", "modify"),
            ("/w/bin", "modify"),
            ("/w/d", "add"),
            ("/w/l", "add"),
            ("/w/n.txt", "add"),
            ("/w/sub/b.txt", "delete"),
            ("/w/sub/deep", "delete"),  # what the directory held is implied
        ]
        assert sb.diff() == (
            "--- a/w/a.txt\n+++ b/w/a.txt\n@@ -1,2 +1,3 @@\n one\n two\n+three\n"
            "Binary files a/w/bin and b/w/bin differ\n"
            # a symlink shows as its target, with git's mode line (it used to be left out)
            "diff --git a/w/l b/w/l\nnew file mode 120000\n"
            "--- a/w/l\n+++ b/w/l\n@@ -0,0 +1 @@\n+a.txt\n\\ No newline at end of file\n"
            "--- a/w/n.txt\n+++ b/w/n.txt\n@@ -0,0 +1 @@\n+hi\n"
            "--- a/w/sub/b.txt\n+++ b/w/sub/b.txt\n@@ -1 +0,0 @@\n-bee\n"
            "--- a/w/sub/deep/c\n+++ b/w/sub/deep/c\n@@ -1 +0,0 @@\n-sea\n"
        )


def test_type_change_and_no_newline(host: Path) -> None:
    with Sandbox(mounts=[HostMount(str(host), "/w", cow=True)]) as sb:
        sb.exec("rm a.txt; mkdir a.txt; printf x > sub/b.txt")
        assert ("/w/a.txt", "type-change") in sb.changes()
        assert "-bee\n+x\n\\ No newline at end of file\n" in sb.diff()
        result = sb.sync()
        assert result.ok, result
    assert (host / "a.txt").is_dir()
    assert (host / "sub" / "b.txt").read_bytes() == b"x"


def test_unchanged_copy_up_is_no_change(host: Path) -> None:
    with Sandbox(mounts=[HostMount(str(host), "/w", cow=True)]) as sb:
        sb.exec("cat a.txt > t; cat t > a.txt; rm t")
        assert sb.changes() == []
        assert sb.diff() == ""


def test_sync_applies_everything(host: Path) -> None:
    with Sandbox(mounts=[HostMount(str(host), "/w", cow=True)]) as sb:
        sb.exec("echo three >> a.txt; mkdir -p d/e; echo n > d/e/n; rm -r sub; mv bin bin2")
        expected = sb.changes()
        result = sb.sync()
        assert result.ok and result.conflicts == [] and result.failed is None
        assert collapse_removals(result.applied) == expected
        assert sb.changes() == []
        assert sb.exec("cat a.txt d/e/n").stdout == b"one\ntwo\nthree\nn\n"
    assert (host / "a.txt").read_bytes() == b"one\ntwo\nthree\n"
    assert (host / "d" / "e" / "n").read_bytes() == b"n\n"
    assert not (host / "sub").exists() and not (host / "bin").exists()
    assert (host / "bin2").read_bytes() == b"\x00\x01\x02"
    assert not [p for p in host.rglob("*") if "vshell-sync" in p.name]


def test_sync_selected_paths_only(host: Path) -> None:
    with Sandbox(mounts=[HostMount(str(host), "/w", cow=True)]) as sb:
        sb.exec("echo x > a.txt; echo y > sub/b.txt")
        result = sb.sync(["/w/sub"])
        assert result.applied == [("/w/sub/b.txt", "modify")]
        assert sb.changes() == [("/w/a.txt", "modify")]
    assert (host / "a.txt").read_bytes() == b"one\ntwo\n"
    assert (host / "sub" / "b.txt").read_bytes() == b"y\n"


def test_conflict_applies_nothing(host: Path) -> None:
    with Sandbox(mounts=[HostMount(str(host), "/w", cow=True)]) as sb:
        sb.exec("echo more >> a.txt; echo n > new; rm sub/b.txt")
        (host / "a.txt").write_bytes(b"changed on the host\n")
        (host / "sub" / "b.txt").write_bytes(b"also changed\n")
        before = _snapshot(host)
        result = sb.sync()
        assert not result.ok
        assert result.conflicts == ["/w/a.txt", "/w/sub/b.txt"]
        assert result.applied == []
        assert _snapshot(host) == before
        assert sb.exec("cat a.txt new").stdout == b"one\ntwo\nmore\nn\n"


def test_conflict_detected_with_same_size_and_mtime(host: Path) -> None:
    with Sandbox(mounts=[HostMount(str(host), "/w", cow=True)]) as sb:
        sb.exec("echo x >> a.txt")
        info = (host / "a.txt").stat()
        (host / "a.txt").write_bytes(b"ONE\ntwo\n")
        os.utime(host / "a.txt", ns=(info.st_atime_ns, info.st_mtime_ns))
        assert sb.sync().conflicts == ["/w/a.txt"]


def test_failure_part_way_is_reported_exactly_and_retryable(
    host: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = os.replace
    calls: list[str] = []

    def flaky(src: str, dst: str, **kw: object) -> None:
        calls.append(dst)
        if len(calls) == 2:
            raise OSError(errno.EIO, "simulated I/O error")
        real(src, dst, **kw)  # type: ignore[arg-type]

    with Sandbox(mounts=[HostMount(str(host), "/w", cow=True)]) as sb:
        sb.exec("echo 1 > f1; echo 2 > f2; echo 3 > f3")
        monkeypatch.setattr(os, "replace", flaky)
        result = sb.sync()
        assert result.applied == [("/w/f1", "add")]
        assert result.failed == "/w/f2"
        assert result.error is not None and "simulated" in result.error
        assert (host / "f1").read_bytes() == b"1\n"
        assert not (host / "f2").exists() and not (host / "f3").exists()
        assert not [p for p in host.iterdir() if "vshell-sync" in p.name]
        assert sb.changes() == [("/w/f2", "add"), ("/w/f3", "add")]
        assert sb.exec("cat f1 f2 f3").stdout == b"1\n2\n3\n"
        monkeypatch.setattr(os, "replace", real)
        retry = sb.sync()
        assert retry.ok and retry.applied == [("/w/f2", "add"), ("/w/f3", "add")]
    assert (host / "f3").read_bytes() == b"3\n"


def test_symlink_sync_rules(host: Path) -> None:
    with Sandbox(mounts=[HostMount(str(host), "/w", cow=True)]) as sb:
        sb.exec("ln -s sub/b.txt good; ln -s ../../a.txt sub/deep/up")
        assert sb.sync().ok
        assert os.readlink(host / "good") == "sub/b.txt"
        assert os.readlink(host / "sub" / "deep" / "up") == "../../a.txt"
        upper_ctx = Ctx("/w", lambda p: None)
        for target in ("/w/a.txt", "/etc/passwd", "../outside", "sub/../../x"):
            sb.discard()
            if target != "/w/a.txt":  # the VFS refuses to make links that escape
                with pytest.raises(PermissionError):
                    sb.fs.symlink(target, "/w/bad")
            backend = sb.fs.mount_for("/w")[0].backend
            backend.upper.symlink(target, ("bad",), upper_ctx)  # as a persisted overlay could
            before = _snapshot(host)
            result = sb.sync()
            assert result.conflicts == ["/w/bad"], target
            assert _snapshot(host) == before


def test_discard(host: Path) -> None:
    with Sandbox(mounts=[HostMount(str(host), "/w", cow=True)]) as sb:
        sb.exec("echo x > a.txt; rm bin; echo y > z")
        sb.discard()
        assert sb.changes() == []
        assert sb.exec("cat a.txt; ls").stdout == b"one\ntwo\na.txt\nbin\nsub\n"


def test_config_and_cli(host: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert parse_mount("/h:/w:cow") == ("/h", "/w", "cow")
    assert parse_mount("/h:/w") == ("/h", "/w", "rw")
    with pytest.raises(SandboxConfigError):
        Sandbox(mounts=[HostMount(str(host), "/w", readonly=True, cow=True)])
    before = _snapshot(host)
    status = main(["--mount", f"{host}:/w:cow", "-c", "echo x > /w/a.txt; rm /w/bin; cat /w/a.txt"])
    assert status == 0
    assert capsys.readouterr().out == "x\n"
    assert _snapshot(host) == before


def test_host_change_during_sync_is_not_overwritten(
    host: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Sandbox(mounts=[HostMount(str(host), "/w", cow=True)]) as sb:
        sb.exec("echo mine > a.txt")
        (host / "a.txt").write_bytes(b"theirs, written after the up-front check\n")
        monkeypatch.setattr(OverlayBackend, "preflight", lambda self, changes, vroot="/": [])
        result = sb.sync()
        assert result.failed == "/w/a.txt" and result.applied == []
        assert sb.changes() == [("/w/a.txt", "modify")]
    assert (host / "a.txt").read_bytes() == b"theirs, written after the up-front check\n"


def test_rename_over_host_file_and_hard_link(vfs: VFS, host: Path) -> None:
    vfs.rename("/w/sub/b.txt", "/w/a.txt")
    vfs.link("/w/bin", "/w/bin2")
    assert _read(vfs, "/w/a.txt") == b"bee\n"
    assert not vfs.exists("/w/sub/b.txt")
    assert _read(vfs, "/w/bin2") == b"\x00\x01\x02"
    assert (host / "a.txt").read_bytes() == b"one\ntwo\n"
    assert (host / "sub" / "b.txt").exists() and not (host / "bin2").exists()
