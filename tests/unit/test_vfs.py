"""Unit tests for vshell.vfs: mount table, memory mounts, deny rules, listings, /dev."""

from __future__ import annotations

import errno
import io
import os
import stat
import threading
from pathlib import Path

import pytest

from vshell.vfs import VFS, DenyRules, HostBackend, MemoryBackend, Mount, parse_deny


@pytest.fixture
def host(tmp_path: Path) -> Path:
    root = tmp_path / "w"
    (root / "sub").mkdir(parents=True)
    (root / "a.txt").write_bytes(b"alpha\nbeta\n")
    (root / "sub" / "b.txt").write_bytes(b"b\n")
    return root


@pytest.fixture
def vfs(host: Path) -> VFS:
    return VFS([Mount("/work", HostBackend(host))])


# ---------------------------------------------------------------- mount table


def test_root_lists_mount_points_dev_and_default_tmp(vfs: VFS) -> None:
    assert sorted(vfs.listdir("/")) == ["dev", "tmp", "work"]
    assert [m.vpath for m in vfs.mounts] == ["/work", "/tmp"]
    assert isinstance(vfs.mounts[1].backend, MemoryBackend)


def test_synthetic_dirs_above_nested_mount_points(host: Path) -> None:
    v = VFS([Mount("/a/b/c", HostBackend(host)), Mount("/a/x", MemoryBackend())])
    assert sorted(v.listdir("/a")) == ["b", "x"]
    assert v.listdir("/a/b") == ["c"]
    info = v.stat("/a/b")
    assert stat.S_ISDIR(info.st_mode) and stat.S_IMODE(info.st_mode) == 0o555
    assert sorted(v.listdir("/a/b/c")) == ["a.txt", "sub"]
    with pytest.raises(FileNotFoundError):
        v.stat("/a/nope")
    with pytest.raises(FileNotFoundError):
        v.stat("/elsewhere")


@pytest.mark.parametrize("outer", ["memory", "host"])
def test_mount_parents_inside_a_mount_are_directories(host: Path, outer: str) -> None:
    """/work/deep/er (a mount) under /work: /work/deep is a directory there, as on Linux."""
    backend = MemoryBackend() if outer == "memory" else HostBackend(host)
    v = VFS([Mount("/work", backend), Mount("/work/deep/er", MemoryBackend({"f": b"1"}))])
    assert "deep" in v.listdir("/work")
    assert v.isdir("/work/deep")  # before any call that could raise FileNotFoundError
    assert stat.S_ISDIR(v.stat("/work/deep").st_mode)
    assert stat.S_ISDIR(v.lstat("/work/deep").st_mode)
    assert v.isdir("/work/deep/") and v.listdir("/work/deep") == ["er"]
    assert [e.name for e in v.scandir("/work/deep") if e.is_dir()] == ["er"]
    assert stat.S_ISDIR(v.stat("/work/deep/er/..").st_mode)
    with pytest.raises(IsADirectoryError):
        v.open("/work/deep", "wb")
    with pytest.raises(IsADirectoryError):
        v.unlink("/work/deep")
    with pytest.raises(OSError) as rmdir:
        v.rmdir("/work/deep")
    assert rmdir.value.errno == errno.ENOTEMPTY
    with pytest.raises(OSError) as mv:
        v.rename("/work/deep", "/work/moved")
    assert mv.value.errno == errno.EBUSY
    assert v.listdir("/work/deep") == ["er"]
    if outer == "host":
        assert not (host / "deep").exists()  # shown, never created on the host


def test_mount_parents_in_memory_take_new_files() -> None:
    v = VFS([Mount("/tmp/a/b", MemoryBackend())])
    assert v.isdir("/tmp/a")
    v.open("/tmp/a/new", "wb").close()
    assert sorted(v.listdir("/tmp/a")) == ["b", "new"]
    assert sorted(v.listdir("/tmp")) == ["a"]


def test_mount_parents_stay_denied(host: Path) -> None:
    v = VFS(
        [Mount("/work", HostBackend(host)), Mount("/work/d/m", MemoryBackend())], deny=["/work/d"]
    )
    with pytest.raises(PermissionError):
        v.stat("/work/d")
    with pytest.raises(PermissionError):
        v.listdir("/work/d")
    with pytest.raises(PermissionError):
        v.rmdir("/work/d")
    assert "d" not in v.listdir("/work")


def test_longest_prefix_wins_and_child_mounts_are_listed(host: Path) -> None:
    inner = MemoryBackend({"only-in-memory": b"m"})
    v = VFS([Mount("/work", HostBackend(host)), Mount("/work/sub/deep", inner)])
    assert v.open("/work/sub/deep/only-in-memory").read() == b"m"
    assert sorted(v.listdir("/work/sub")) == ["b.txt", "deep"]
    mount, inside = v.mount_for("/work/sub/deep/x/y")
    assert mount.backend is inner and inside == "/x/y"
    mount, inside = v.mount_for("/work/sub")
    assert isinstance(mount.backend, HostBackend) and inside == "/sub"


def test_mount_covering_tmp_replaces_default(host: Path) -> None:
    v = VFS([Mount("/", MemoryBackend())])
    assert [m.vpath for m in v.mounts] == ["/"]
    v2 = VFS([Mount("/tmp", HostBackend(host))])
    assert len(v2.mounts) == 1
    assert sorted(v2.listdir("/tmp")) == ["a.txt", "sub"]


def test_root_memory_mount_merges_mount_points(host: Path) -> None:
    v = VFS([Mount("/", MemoryBackend({"etc/motd": b"hi"})), Mount("/work", HostBackend(host))])
    assert sorted(v.listdir("/")) == ["dev", "etc", "work"]
    assert v.open("/etc/motd").read() == b"hi"


def test_bad_mounts_rejected(host: Path) -> None:
    with pytest.raises(ValueError):
        Mount("relative", MemoryBackend())
    with pytest.raises(ValueError):
        VFS([Mount("/dev", MemoryBackend())])
    with pytest.raises(ValueError):
        VFS([Mount("/w", MemoryBackend()), Mount("/w/", MemoryBackend())])
    with pytest.raises(ValueError):
        HostBackend(host / "a.txt")
    assert Mount("/a//b/", MemoryBackend()).vpath == "/a/b"


def test_paths_are_normalized_lexically(vfs: VFS) -> None:
    assert vfs.open("/work/sub/../a.txt").read(5) == b"alpha"
    assert vfs.open("//work/./a.txt").read(5) == b"alpha"
    assert vfs.open("/../../work/a.txt").read(5) == b"alpha"
    assert vfs.isdir("/work/sub/")
    with pytest.raises(NotADirectoryError) as exc:
        vfs.stat("/work/a.txt/")
    assert exc.value.filename == "/work/a.txt/"


def test_synthetic_dirs_are_read_only(vfs: VFS) -> None:
    for op in (
        lambda: vfs.open("/newfile", "wb"),
        lambda: vfs.mkdir("/newdir"),
        lambda: vfs.symlink("x", "/l"),
    ):
        with pytest.raises(OSError) as exc:
            op()
        assert exc.value.errno == errno.EROFS
    with pytest.raises(FileExistsError):
        vfs.mkdir("/work")
    with pytest.raises(OSError) as exc:
        vfs.rmdir("/work")
    assert exc.value.errno == errno.EBUSY
    with pytest.raises(IsADirectoryError):
        vfs.open("/")
    assert vfs.access("/", os.R_OK) and not vfs.access("/", os.W_OK)


# ---------------------------------------------------------------- errors


def test_errors_name_the_callers_path_with_gnu_wording(vfs: VFS) -> None:
    cases = [
        (lambda: vfs.open("/work//missing"), FileNotFoundError, "No such file or directory"),
        (lambda: vfs.open("/work/sub"), IsADirectoryError, "Is a directory"),
        (lambda: vfs.listdir("/work/a.txt"), NotADirectoryError, "Not a directory"),
        (lambda: vfs.mkdir("/work/sub"), FileExistsError, "File exists"),
        (lambda: vfs.rmdir("/work//sub"), OSError, "Directory not empty"),
        (lambda: vfs.unlink("/work/sub"), IsADirectoryError, "Is a directory"),
    ]
    for op, kind, text in cases:
        with pytest.raises(kind) as exc:
            op()
        assert exc.value.strerror == text
        assert exc.value.filename.startswith("/work/")
        assert "tmp" not in exc.value.filename  # never a host path
    with pytest.raises(OSError) as exc2:
        vfs.rmdir("/work//sub")
    assert exc2.value.filename == "/work//sub" and exc2.value.errno == errno.ENOTEMPTY


def test_rename_across_mounts_is_exdev(vfs: VFS) -> None:
    with pytest.raises(OSError) as exc:
        vfs.rename("/work/a.txt", "/tmp/a.txt")
    assert exc.value.errno == errno.EXDEV
    assert exc.value.filename == "/work/a.txt" and exc.value.filename2 == "/tmp/a.txt"
    with pytest.raises(OSError) as exc:
        vfs.link("/work/a.txt", "/tmp/a.txt")
    assert exc.value.errno == errno.EXDEV


# ---------------------------------------------------------------- file objects


@pytest.mark.parametrize("where", ["/work", "/tmp"])
def test_file_modes(vfs: VFS, where: str) -> None:
    path = f"{where}/f.bin"
    with vfs.open(path, "wb") as f:
        f.write(b"one\ntwo\n")
    with vfs.open(path, "ab") as f:
        f.write(b"three\n")
    with vfs.open(path, "rb") as f:
        assert f.readline() == b"one\n"
        assert list(f) == [b"two\n", b"three\n"]
        f.seek(0)
        assert f.read(3) == b"one" and f.tell() == 3
    with vfs.open(path, "r+b") as f:
        f.write(b"ONE")
        f.truncate(8)
    assert vfs.open(path).read() == b"ONE\ntwo\n"
    with pytest.raises(FileExistsError):
        vfs.open(path, "xb")
    with vfs.open(f"{where}/new.bin", "xb") as f:
        f.write(b"x")
    with vfs.open(path, "w+b") as f:
        f.write(b"abc")
        f.seek(0)
        assert f.read() == b"abc"
    with vfs.open(path, "a+b") as f:
        f.write(b"d")
        f.seek(0)
        assert f.read() == b"abcd"
    with pytest.raises(ValueError):
        vfs.open(path, "r")
    vfs.truncate(path, 1)
    assert vfs.stat(path).st_size == 1


@pytest.mark.parametrize("where", ["/work", "/tmp"])
def test_directory_operations(vfs: VFS, where: str) -> None:
    vfs.makedirs(f"{where}/d/e/f")
    vfs.makedirs(f"{where}/d/e/f", exist_ok=True)
    with pytest.raises(FileExistsError):
        vfs.makedirs(f"{where}/d/e/f")
    assert vfs.isdir(f"{where}/d/e") and not vfs.isfile(f"{where}/d/e")
    with vfs.open(f"{where}/d/file", "wb") as f:
        f.write(b"z")
    vfs.rename(f"{where}/d/file", f"{where}/d/e/moved")
    assert vfs.listdir(f"{where}/d/e") and sorted(vfs.listdir(f"{where}/d/e")) == ["f", "moved"]
    vfs.link(f"{where}/d/e/moved", f"{where}/d/hard")
    assert vfs.stat(f"{where}/d/hard").st_nlink == 2
    vfs.unlink(f"{where}/d/hard")
    vfs.unlink(f"{where}/d/e/moved")
    vfs.rmdir(f"{where}/d/e/f")
    assert vfs.listdir(f"{where}/d/e") == []
    vfs.chmod(f"{where}/d/e", 0o700)
    assert stat.S_IMODE(vfs.stat(f"{where}/d/e").st_mode) == 0o700
    vfs.utime(f"{where}/d/e", (1000.0, 2000.0))
    assert vfs.stat(f"{where}/d/e").st_mtime == 2000.0
    vfs.utime(f"{where}/d/e", ns=(5, 3_000_000_007))
    assert vfs.stat(f"{where}/d/e").st_mtime_ns == 3_000_000_007


@pytest.mark.parametrize("where", ["/work", "/tmp"])
def test_symlinks_inside_a_mount(vfs: VFS, where: str) -> None:
    vfs.makedirs(f"{where}/real/deeper")
    with vfs.open(f"{where}/real/deeper/t", "wb") as f:
        f.write(b"T")
    vfs.symlink("real", f"{where}/rel")
    vfs.symlink(f"{where}/real/deeper", f"{where}/absl")
    vfs.symlink("../real/deeper/t", f"{where}/real/up")
    assert vfs.open(f"{where}/rel/deeper/t").read() == b"T"
    assert vfs.open(f"{where}/absl/t").read() == b"T"
    assert vfs.open(f"{where}/real/up").read() == b"T"
    assert vfs.readlink(f"{where}/absl") == f"{where}/real/deeper"
    assert vfs.readlink(f"{where}/rel") == "real"
    assert vfs.realpath(f"{where}/rel/deeper/t") == f"{where}/real/deeper/t"
    assert vfs.realpath(f"{where}/rel/missing/x") == f"{where}/real/missing/x"
    with pytest.raises(FileNotFoundError):
        vfs.realpath(f"{where}/rel/missing", strict=True)
    assert vfs.islink(f"{where}/rel") and vfs.isdir(f"{where}/rel")
    assert stat.S_ISLNK(vfs.lstat(f"{where}/rel").st_mode)
    entries = {e.name: e for e in vfs.scandir(where)}
    assert entries["rel"].is_symlink() and entries["rel"].is_dir()
    assert not entries["rel"].is_dir(follow_symlinks=False)
    assert entries["real"].path == f"{where}/real"
    # writing through a dangling link creates its target
    vfs.symlink("made-later", f"{where}/dangling")
    assert not vfs.exists(f"{where}/dangling") and vfs.islink(f"{where}/dangling")
    with vfs.open(f"{where}/dangling", "wb") as f:
        f.write(b"now")
    assert vfs.open(f"{where}/made-later").read() == b"now"
    with pytest.raises(OSError) as exc:
        vfs.chmod(f"{where}/rel", 0o700, follow_symlinks=False)
    assert exc.value.errno == errno.EOPNOTSUPP


def test_memory_backend_seed_and_isolation() -> None:
    mem = MemoryBackend({"a/b.txt": "text", "c": b"\x00"})
    v = VFS([Mount("/m", mem, readonly=True)])
    assert v.open("/m/a/b.txt").read() == b"text"
    assert sorted(v.listdir("/m")) == ["a", "c"]
    with pytest.raises(OSError) as exc:
        v.open("/m/c", "wb")
    assert exc.value.errno == errno.EROFS
    # two VFSes with a default /tmp do not share it
    v1, v2 = VFS(), VFS()
    with v1.open("/tmp/x", "wb") as f:
        f.write(b"1")
    assert not v2.exists("/tmp/x")


def test_memory_threads(vfs: VFS) -> None:
    def worker(n: int) -> None:
        for i in range(50):
            path = f"/tmp/t{n}-{i}"
            with vfs.open(path, "wb") as f:
                f.write(b"x" * i)
            assert vfs.stat(path).st_size == i
            assert len(vfs.open(path).read()) == i

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(vfs.listdir("/tmp")) == 400


def test_exists_helpers_never_raise(vfs: VFS) -> None:
    for path in ("/nope", "/work/a.txt/x", "/work/\0", "/dev/fd/9"):
        assert not vfs.exists(path)
        assert not vfs.isdir(path) and not vfs.isfile(path) and not vfs.islink(path)
        assert not vfs.access(path, os.R_OK)
    assert vfs.access("/work/a.txt", os.R_OK | os.W_OK)


# ---------------------------------------------------------------- deny


@pytest.mark.parametrize(
    ("pattern", "path", "hit"),
    [
        (".env", "/.env", True),
        (".env", "/work/a/b/.env", True),
        (".env", "/work/.env/inside", True),
        (".env", "/work/x.env", False),
        ("*.pem", "/work/k.pem", True),
        ("*.pem", "/work/k.pem.bak", False),
        ("/work/secrets", "/work/secrets", True),
        ("/work/secrets", "/work/secrets/deep/k", True),
        ("/work/secrets", "/work/secretsX", False),
        ("/work/secrets", "/other/work/secrets", False),
        ("/work/*/key", "/work/a/key", True),
        ("/work/*/key", "/work/a/b/key", False),
        ("/work/**/key", "/work/key", True),
        ("/work/**/key", "/work/a/b/key", True),
        ("/work/**", "/work", True),
        ("/work/**", "/workx", False),
        ("secrets/*.txt", "/a/secrets/x.txt", True),
        ("secrets/*.txt", "/a/secrets/x.txt.gz", False),
        ("a*b*c", "/q/aXbYc", True),
        ("a*b*c", "/q/aXc", False),
        ("/work/secret.*", "/work/secretXtxt", False),
    ],
)
def test_deny_matching(pattern: str, path: str, hit: bool) -> None:
    assert parse_deny(pattern).matches(path) is hit
    assert DenyRules([pattern]).matches(path) is hit


@pytest.mark.parametrize(
    "pattern", ["", "  ", "a?b", "[ab]", "a]", "back\\slash", "a**", "**b/c", "/w/../x", "./x"]
)
def test_deny_parse_errors(pattern: str) -> None:
    with pytest.raises(ValueError) as exc:
        parse_deny(pattern)
    assert "invalid deny pattern" in str(exc.value)
    with pytest.raises(ValueError):
        VFS(deny=[pattern])


def test_deny_parse_error_message_names_the_character() -> None:
    with pytest.raises(ValueError, match=r"'\?' is not supported"):
        parse_deny("*.tx?")


def test_denied_entries_are_hidden_and_closed(host: Path) -> None:
    (host / ".env").write_bytes(b"SECRET")
    (host / "sub" / ".env").write_bytes(b"SECRET")
    (host / "secrets").mkdir()
    (host / "secrets" / "k").write_bytes(b"K")
    v = VFS([Mount("/work", HostBackend(host))], deny=[".env", "/work/secrets"])
    assert sorted(v.listdir("/work")) == ["a.txt", "sub"]
    assert [e.name for e in v.scandir("/work/sub")] == ["b.txt"]
    for path in ("/work/.env", "/work/sub/.env", "/work/secrets", "/work/secrets/k"):
        with pytest.raises(PermissionError) as exc:
            v.open(path)
        assert exc.value.filename == path and exc.value.strerror == "Permission denied"
        with pytest.raises(PermissionError):
            v.open(path, "wb")
        with pytest.raises(PermissionError):
            v.stat(path)
        assert not v.exists(path)
    with pytest.raises(PermissionError):
        v.listdir("/work/secrets")
    with pytest.raises(PermissionError):
        v.open("/work/new/.env", "wb")
    with pytest.raises(PermissionError):
        v.mkdir("/work/secrets2/.env")
    assert (host / ".env").read_bytes() == b"SECRET"


def test_deny_hides_mount_points_in_synthetic_listing(host: Path) -> None:
    v = VFS(
        [Mount("/work", HostBackend(host)), Mount("/hidden", MemoryBackend())], deny=["/hidden"]
    )
    assert "hidden" not in v.listdir("/")
    with pytest.raises(PermissionError):
        v.listdir("/hidden")


# ---------------------------------------------------------------- /dev and bind


def test_dev_devices(vfs: VFS) -> None:
    assert sorted(vfs.listdir("/dev")) == sorted(
        ["null", "zero", "full", "random", "urandom", "tty", "stdin", "stdout", "stderr", "fd"]
    )
    assert vfs.open("/dev/null").read() == b""
    with vfs.open("/dev/null", "wb") as f:
        assert f.write(b"gone") == 4
    with vfs.open("/dev/null", "ab") as f:
        f.write(b"gone")
    assert vfs.open("/dev/zero").read(5) == b"\0" * 5
    assert len(vfs.open("/dev/urandom").read(16)) == 16
    assert len(vfs.open("/dev/random").read(3)) == 3
    with pytest.raises(OSError) as exc:
        vfs.open("/dev/tty")
    assert exc.value.errno == errno.ENXIO and exc.value.filename == "/dev/tty"
    assert stat.S_ISCHR(vfs.stat("/dev/null").st_mode)
    assert stat.S_ISDIR(vfs.stat("/dev").st_mode)
    with pytest.raises(FileNotFoundError):
        vfs.open("/dev/sda")
    with pytest.raises(OSError) as exc:
        vfs.mkdir("/dev/x")
    assert exc.value.errno == errno.EROFS
    vfs.utime("/dev/null")  # touch /dev/null works


def test_unbound_std_streams_are_ebadf(vfs: VFS) -> None:
    for path in ("/dev/stdin", "/dev/stdout", "/dev/fd/0", "/dev/fd/7"):
        with pytest.raises(OSError) as exc:
            vfs.open(path, "wb" if "out" in path else "rb")
        assert exc.value.errno == errno.EBADF and exc.value.filename == path


def test_bind_views(vfs: VFS) -> None:
    stdin, stdout, stderr, extra = (
        io.BytesIO(b"in\nput\n"),
        io.BytesIO(),
        io.BytesIO(),
        io.BytesIO(),
    )
    view = vfs.bind({0: stdin, 1: stdout, 2: stderr, 3: extra})
    with view.open("/dev/stdin") as f:
        assert f.readline() == b"in\n"
        assert f.read() == b"put\n"
    assert not stdin.closed
    with view.open("/dev/stdout", "wb") as f:
        f.write(b"to out")
    with view.open("/dev/fd/2", "ab") as f:
        f.write(b"to err")
    with view.open("/dev/fd/3", "wb") as f:
        f.write(b"three")
    assert not stdout.closed and not stderr.closed
    assert stdout.getvalue() == b"to out"
    assert stderr.getvalue() == b"to err" and extra.getvalue() == b"three"
    with pytest.raises(OSError) as exc:
        view.open("/dev/fd/9")
    assert exc.value.errno == errno.EBADF
    assert sorted(view.listdir("/dev/fd")) == ["0", "1", "2", "3"]
    assert view.readlink("/dev/stdout") == "/dev/fd/1"
    assert stat.S_ISLNK(view.lstat("/dev/stdin").st_mode)
    assert view.exists("/dev/stdin") and not vfs.exists("/dev/stdin")
    # the view shares everything else
    with view.open("/tmp/shared", "wb") as f:
        f.write(b"s")
    assert vfs.open("/tmp/shared").read() == b"s"
    assert vfs.listdir("/dev/fd") == []


def test_dev_zero_refuses_read_all(vfs: VFS) -> None:
    with pytest.raises(OSError) as exc:
        vfs.open("/dev/zero").read()
    assert exc.value.errno == errno.ENOMEM


# ---------------------------------------------------------------- memory file semantics


def test_memory_handles_share_contents_like_real_files() -> None:
    v = VFS()
    a = v.open("/tmp/log", "ab")
    b = v.open("/tmp/log", "ab")
    a.write(b"a1\n")
    a.flush()
    b.write(b"b1\n")
    b.flush()
    a.write(b"a2\n")
    a.close()
    b.close()
    assert v.open("/tmp/log").read() == b"a1\nb1\na2\n"
    w = v.open("/tmp/s", "wb")
    w.write(b"12345")
    w.flush()
    assert v.stat("/tmp/s").st_size == 5
    assert v.open("/tmp/s").read() == b"12345"
    w.close()
    v.truncate("/tmp/s", 2)
    assert v.open("/tmp/s").read() == b"12"
    with v.open("/tmp/s", "r+b") as f:
        f.seek(4)
        f.write(b"!")
    assert v.open("/tmp/s").read() == b"12\0\0!"


def test_memory_large_file_is_linear() -> None:
    v = VFS()
    chunk = b"y" * 65536
    with v.open("/tmp/big", "wb") as f:
        for _ in range(320):  # 20 MiB
            f.write(chunk)
    assert v.stat("/tmp/big").st_size == 320 * 65536
    total = 0
    with v.open("/tmp/big", "rb") as f:
        while data := f.read(65536):
            total += len(data)
    assert total == 320 * 65536
    with v.open("/tmp/lines", "wb") as f:
        for i in range(50_000):
            f.write(b"%d\n" % i)
    with v.open("/tmp/lines") as f:
        assert sum(1 for _ in f) == 50_000


def test_memory_file_object_attributes(vfs: VFS) -> None:
    with vfs.open("/tmp/n", "wb") as f:
        assert f.name == "/tmp/n" and f.writable() and not f.readable()
        with pytest.raises(io.UnsupportedOperation):
            f.fileno()
    with vfs.open("/work/a.txt") as f:
        assert f.name == "/work/a.txt" and f.readable()
    f = vfs.open("/tmp/n")
    f.close()
    with pytest.raises(ValueError):
        f.read()


class _ReadOnlyPipe:
    """A stream with read(n) only, like vshell's in-process pipe reader."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self.closed = False

    def read(self, n: int = -1) -> bytes:
        if n < 0:
            n = len(self._data)
        out, self._data = self._data[:n], self._data[n:]
        return out

    def close(self) -> None:
        self.closed = True


def test_stream_view_over_read_only_pipe(vfs: VFS) -> None:
    pipe = _ReadOnlyPipe(b"l1\nl2\n")
    view = vfs.bind({0: pipe})
    with view.open("/dev/stdin") as f:
        assert f.readline() == b"l1\n"
        assert list(f) == [b"l2\n"]
    assert not pipe.closed
    with pytest.raises(OSError) as exc:
        view.open("/dev/stdin", "wb").write(b"x")
    assert exc.value.errno == errno.EBADF


def test_final_slash_follows_a_link_and_must_be_a_directory() -> None:
    v = VFS([Mount("/m", MemoryBackend({"real/f": b"x", "file": b"y"}))])
    v.symlink("real", "/m/d")
    v.symlink("file", "/m/fl")
    assert stat.S_ISDIR(v.lstat("/m/d/").st_mode) and stat.S_ISLNK(v.lstat("/m/d").st_mode)
    for op in (v.unlink, v.rmdir, lambda p: v.rename(p, "/m/e")):
        with pytest.raises(NotADirectoryError):
            op("/m/fl/")
        with pytest.raises(NotADirectoryError):
            op("/m/d/")
    with pytest.raises(NotADirectoryError):
        v.rename("/m/file", "/m/new/")
    with pytest.raises(OSError) as rl:
        v.readlink("/m/d/")
    assert rl.value.errno == errno.EINVAL
    with pytest.raises(IsADirectoryError):
        v.open("/m/fl/", "wb")
    with pytest.raises(NotADirectoryError):
        v.utime("/m/fl/")
    assert sorted(v.listdir("/m")) == ["d", "file", "fl", "real"]  # nothing went
    v.chmod("/m/d/", 0o700)
    assert stat.S_IMODE(v.stat("/m/real").st_mode) == 0o700
    v.rename("/m/real/", "/m/moved")
    assert v.listdir("/m/moved") == ["f"]


def test_synthetic_inodes_hash_as_zlib_crc32() -> None:
    """vfs.stats.crc32 (written out, keeping zlib off start-up) is zlib.crc32: the inode
    numbers of /, /dev and /bin entries stay what they were."""
    import random
    import zlib

    from vshell.vfs.stats import crc32

    rng = random.Random(19)
    cases = [b"", b"/", b"/dev/null", "/é/ü".encode(), bytes(range(256)), rng.randbytes(5000)]
    cases += [rng.randbytes(rng.randrange(80)) for _ in range(500)]
    assert [crc32(c) for c in cases] == [zlib.crc32(c) for c in cases]
    vfs = VFS(mounts=[], deny=[])
    assert vfs.stat("/").st_ino == zlib.crc32(b"/") | 1
