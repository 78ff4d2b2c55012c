"""Security tests for vshell.vfs: no way out of a mount, past a deny rule or a read-only mount.

Each host mount is a pytest tmp dir with a sibling "outside" directory holding a secret
that must never be read, written, listed, created or linked to.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from vshell.vfs import VFS, HostBackend, MemoryBackend, Mount
from vshell.vfs import host as host_module

SECRET = b"TOP-SECRET"


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    inside = tmp_path / "mnt"
    outside = tmp_path / "outside"
    (inside / "dir" / "deeper").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret").write_bytes(SECRET)
    (inside / "file").write_bytes(b"inside")
    (inside / "dir" / "deeper" / "f").write_bytes(b"deep")
    return inside, outside


@pytest.fixture
def vfs(layout: tuple[Path, Path]) -> VFS:
    inside, _ = layout
    return VFS([Mount("/work", HostBackend(inside))])


def _denied(op: Callable[[], Any], code: int = errno.EACCES) -> OSError:
    with pytest.raises(OSError) as exc:
        op()
    assert exc.value.errno == code, exc.value
    return exc.value


def _all_reads(vfs: VFS, path: str) -> list[Callable[[], Any]]:
    return [
        lambda: vfs.open(path).read(),
        lambda: vfs.stat(path),
        lambda: vfs.listdir(path),
        lambda: vfs.realpath(path),
    ]


# ---------------------------------------------------------------- symlink escapes


@pytest.mark.parametrize(
    "target",
    [
        "../outside/secret",
        "../../outside/secret",
        "dir/../../outside/secret",
        "../" * 30 + "etc/passwd",
        "/etc/passwd",
        "ABS_OUTSIDE",  # replaced by the absolute host path of the secret
        "ABS_MNT_DOTDOT",  # mount path + /../outside/secret
    ],
)
def test_symlink_escapes_are_refused(layout: tuple[Path, Path], vfs: VFS, target: str) -> None:
    inside, outside = layout
    if target == "ABS_OUTSIDE":
        target = str(outside / "secret")
    elif target == "ABS_MNT_DOTDOT":
        target = str(inside) + "/../outside/secret"
    os.symlink(target, inside / "esc")
    err = _denied(lambda: vfs.open("/work/esc").read())
    assert err.filename == "/work/esc" and err.strerror == "Permission denied"
    _denied(lambda: vfs.stat("/work/esc"))
    _denied(lambda: vfs.realpath("/work/esc"))
    _denied(lambda: vfs.open("/work/esc", "wb"))
    _denied(lambda: vfs.open("/work/esc", "ab"))
    _denied(lambda: vfs.truncate("/work/esc", 0))
    _denied(lambda: vfs.chmod("/work/esc", 0o777))
    _denied(lambda: vfs.utime("/work/esc", (0, 0)))
    assert not vfs.exists("/work/esc") and vfs.islink("/work/esc")
    assert (outside / "secret").read_bytes() == SECRET
    assert (outside / "secret").stat().st_mode & 0o777 != 0o777


def test_directory_symlink_escape_and_traversal(layout: tuple[Path, Path], vfs: VFS) -> None:
    inside, outside = layout
    os.symlink("../outside", inside / "out")
    os.symlink(str(outside), inside / "outabs")
    for base in ("/work/out", "/work/outabs"):
        for op in _all_reads(vfs, base + "/secret"):
            _denied(op)
        _denied(lambda base=base: vfs.listdir(base))
        _denied(lambda base=base: vfs.open(base + "/new", "wb"))
        _denied(lambda base=base: vfs.mkdir(base + "/newdir"))
        _denied(lambda base=base: vfs.symlink("x", base + "/ln"))
        _denied(lambda base=base: vfs.rename("/work/file", base + "/stolen"))
        _denied(lambda base=base: vfs.link("/work/file", base + "/hard"))
        _denied(lambda base=base: vfs.unlink(base + "/secret"))
    assert sorted(p.name for p in outside.iterdir()) == ["secret"]
    assert (inside / "file").exists()


def test_chained_symlinks_escape_on_the_last_hop(layout: tuple[Path, Path], vfs: VFS) -> None:
    inside, _ = layout
    os.symlink("b", inside / "a")
    os.symlink("dir/c", inside / "b")
    os.symlink("../d", inside / "dir" / "c")
    os.symlink("dir/deeper/../../..", inside / "d")  # climbs one above the root
    _denied(lambda: vfs.open("/work/a/outside/secret").read())
    _denied(lambda: vfs.listdir("/work/a"))


def test_chained_symlinks_inside_work(layout: tuple[Path, Path], vfs: VFS) -> None:
    inside, _ = layout
    os.symlink("b", inside / "a")
    os.symlink("dir/c", inside / "b")
    os.symlink("deeper/f", inside / "dir" / "c")
    assert vfs.open("/work/a").read() == b"deep"
    assert vfs.realpath("/work/a") == "/work/dir/deeper/f"


def test_absolute_symlink_beneath_the_mount_is_followed(
    layout: tuple[Path, Path], vfs: VFS
) -> None:
    inside, _ = layout
    os.symlink(str(inside / "dir" / "deeper"), inside / "abs")
    assert vfs.open("/work/abs/f").read() == b"deep"
    assert vfs.readlink("/work/abs") == "/work/dir/deeper"
    assert vfs.realpath("/work/abs/f") == "/work/dir/deeper/f"


def test_dotdot_is_clamped_at_the_virtual_root(vfs: VFS) -> None:
    # Lexical: /work/../outside is /outside, which no mount covers.
    _denied(lambda: vfs.open("/work/../outside/secret"), errno.ENOENT)
    _denied(lambda: vfs.open("/work/../../../../outside/secret"), errno.ENOENT)
    assert vfs.open("/work/dir/../../work/file").read() == b"inside"
    err = _denied(lambda: vfs.open("/work/../outside/secret"), errno.ENOENT)
    assert err.filename == "/work/../outside/secret"


def test_dangling_symlinks(layout: tuple[Path, Path], vfs: VFS) -> None:
    inside, outside = layout
    os.symlink("nothing-here", inside / "dangle")
    os.symlink(str(outside / "created-by-sandbox"), inside / "dangle-out")
    os.symlink("../outside/created-too", inside / "dangle-out-rel")
    _denied(lambda: vfs.open("/work/dangle"), errno.ENOENT)
    for path in ("/work/dangle-out", "/work/dangle-out-rel"):
        _denied(lambda path=path: vfs.open(path, "wb"))
        _denied(lambda path=path: vfs.open(path, "ab"))
        _denied(lambda path=path: vfs.open(path))
    # O_EXCL never follows a final symlink
    _denied(lambda: vfs.open("/work/dangle-out", "xb"), errno.EEXIST)
    assert sorted(p.name for p in outside.iterdir()) == ["secret"]
    with vfs.open("/work/dangle", "wb") as f:
        f.write(b"ok")
    assert (inside / "nothing-here").read_bytes() == b"ok"


def test_symlink_loops(layout: tuple[Path, Path], vfs: VFS) -> None:
    inside, _ = layout
    os.symlink("loop", inside / "loop")
    os.symlink("p2", inside / "p1")
    os.symlink("p1", inside / "p2")
    os.symlink("self/x", inside / "self")
    for path in ("/work/loop", "/work/p1", "/work/self", "/work/p1/x"):
        err = _denied(lambda path=path: vfs.open(path), errno.ELOOP)
        assert err.strerror == "Too many levels of symbolic links" and err.filename == path
        _denied(lambda path=path: vfs.stat(path), errno.ELOOP)
        _denied(lambda path=path: vfs.realpath(path), errno.ELOOP)
    assert vfs.islink("/work/loop") and not vfs.exists("/work/loop")


def test_forty_links_are_fine_forty_one_are_a_loop(layout: tuple[Path, Path], vfs: VFS) -> None:
    inside, _ = layout
    os.symlink("file", inside / "l0")
    for i in range(1, 41):
        os.symlink(f"l{i - 1}", inside / f"l{i}")
    assert vfs.open("/work/l39").read() == b"inside"
    _denied(lambda: vfs.open("/work/l40"), errno.ELOOP)


def test_sandbox_created_symlinks_cannot_escape(layout: tuple[Path, Path], vfs: VFS) -> None:
    inside, outside = layout
    before = sorted(os.listdir(inside))
    # an escaping link is never planted on the host (EPERM), nor one into another mount
    with vfs.open("/tmp/t", "wb") as f:
        f.write(b"t")
    for target, path in (("../outside/secret", "/work/s1"), (str(outside / "secret"), "/work/s2"),
                         ("/outside/secret", "/work/s3"), ("/tmp/t", "/work/to-tmp")):
        with pytest.raises(PermissionError) as e:
            vfs.symlink(target, path)
        assert e.value.errno == errno.EPERM, target
    assert sorted(os.listdir(inside)) == before
    with pytest.raises(PermissionError):
        vfs.symlink("/work/file", "/tmp/to-work")  # the same rule on a memory mount
    _plant(vfs, "/work/file", ("to-work",))  # made anyway, the walk still refuses it
    _denied(lambda: vfs.open("/tmp/to-work").read())
    assert vfs.readlink("/tmp/to-work") == "/work/file"


def _plant(vfs: VFS, target: str, parts: tuple[str, ...]) -> None:
    """A link in /tmp made past the VFS's creation check, to test the walk on its own."""
    from vshell.vfs import Ctx

    vfs.mount_for("/tmp")[0].backend.symlink(target, parts, Ctx("/tmp", lambda p: None))


def test_memory_mount_symlinks_cannot_climb(vfs: VFS) -> None:
    with pytest.raises(PermissionError):
        vfs.symlink("../../work/file", "/tmp/up")
    _plant(vfs, "../../work/file", ("up",))
    _denied(lambda: vfs.open("/tmp/up").read())
    vfs.makedirs("/tmp/a/b")
    vfs.symlink("../..", "/tmp/a/b/root")
    assert sorted(vfs.listdir("/tmp/a/b/root")) == ["a", "up"]
    with pytest.raises(PermissionError):
        vfs.symlink("../../..", "/tmp/a/b/above")
    _plant(vfs, "../../..", ("a", "b", "above"))
    _denied(lambda: vfs.listdir("/tmp/a/b/above"))


def test_host_special_files_are_refused(layout: tuple[Path, Path], vfs: VFS) -> None:
    inside, _ = layout
    os.mkfifo(inside / "fifo")
    _denied(lambda: vfs.open("/work/fifo").read())  # must not block


# ---------------------------------------------------------------- races


def test_directory_swapped_for_symlink_after_walk_is_not_followed(
    layout: tuple[Path, Path], vfs: VFS, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Swap /work/dir for a symlink to outside right after the walk opened it."""
    inside, outside = layout
    (outside / "deeper").mkdir()
    (outside / "deeper" / "f").write_bytes(SECRET)
    real_open = os.open
    swapped: list[bool] = []

    def racing_open(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        fd = real_open(path, flags, *args, **kwargs)
        if path == "dir" and not swapped:
            os.rename(inside / "dir", inside / "dir.old")
            os.symlink(str(outside), inside / "dir")
            swapped.append(True)
        return fd

    monkeypatch.setattr(host_module.os, "open", racing_open)
    data = vfs.open("/work/dir/deeper/f").read()
    monkeypatch.undo()
    assert swapped, "the race hook did not run"
    assert data == b"deep"  # served from the directory fd we walked, not the new link
    _denied(lambda: vfs.open("/work/dir/deeper/f").read())  # now a plain escape


def test_final_file_swapped_for_symlink_is_not_followed(
    layout: tuple[Path, Path], vfs: VFS, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between 'is it a symlink?' and the open, the file becomes a link to the secret."""
    inside, outside = layout
    real_readlink = os.readlink
    swapped: list[bool] = []

    def racing_readlink(path: Any, *args: Any, **kwargs: Any) -> str:
        try:
            return real_readlink(path, *args, **kwargs)
        finally:
            if path == "file" and not swapped:
                os.unlink(inside / "file")
                os.symlink(str(outside / "secret"), inside / "file")
                swapped.append(True)

    monkeypatch.setattr(host_module.os, "readlink", racing_readlink)
    with pytest.raises(OSError) as exc:
        data = vfs.open("/work/file").read()
        assert SECRET not in data
    monkeypatch.undo()
    assert swapped
    assert exc.value.errno in (errno.ELOOP, errno.EACCES)


def test_write_race_on_final_component(
    layout: tuple[Path, Path], vfs: VFS, monkeypatch: pytest.MonkeyPatch
) -> None:
    inside, outside = layout
    real_readlink = os.readlink
    swapped: list[bool] = []

    def racing_readlink(path: Any, *args: Any, **kwargs: Any) -> str:
        try:
            return real_readlink(path, *args, **kwargs)
        finally:
            if path == "newfile" and not swapped:
                os.symlink(str(outside / "planted"), inside / "newfile")
                swapped.append(True)

    monkeypatch.setattr(host_module.os, "readlink", racing_readlink)
    with pytest.raises(OSError):
        vfs.open("/work/newfile", "wb").write(b"x")
    monkeypatch.undo()
    assert swapped and not (outside / "planted").exists()


def test_open_uses_dir_fd_and_nofollow(
    layout: tuple[Path, Path], vfs: VFS, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every host open is relative to a walked fd and never follows a symlink."""
    calls: list[tuple[Any, int, Any]] = []
    real_open = os.open

    def spy(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        calls.append((path, flags, kwargs.get("dir_fd")))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(host_module.os, "open", spy)
    vfs.open("/work/dir/deeper/f").read()
    with vfs.open("/work/dir/new", "wb") as f:
        f.write(b"n")
    vfs.listdir("/work/dir")
    monkeypatch.undo()
    assert calls
    for path, flags, dir_fd in calls:
        assert "/" not in str(path), path  # one component at a time
        assert dir_fd is not None
        assert flags & os.O_NOFOLLOW


# ---------------------------------------------------------------- read-only


def _write_ops(v: VFS, base: str) -> dict[str, Callable[[], Any]]:
    return {
        "open-wb": lambda: v.open(f"{base}/file", "wb"),
        "open-wb-new": lambda: v.open(f"{base}/brand-new", "wb"),
        "open-ab": lambda: v.open(f"{base}/file", "ab"),
        "open-xb": lambda: v.open(f"{base}/brand-new", "xb"),
        "open-r+b": lambda: v.open(f"{base}/file", "r+b"),
        "open-w+b": lambda: v.open(f"{base}/file", "w+b"),
        "open-a+b": lambda: v.open(f"{base}/file", "a+b"),
        "mkdir": lambda: v.mkdir(f"{base}/newdir"),
        "makedirs": lambda: v.makedirs(f"{base}/n1/n2"),
        "unlink": lambda: v.unlink(f"{base}/file"),
        "rmdir": lambda: v.rmdir(f"{base}/empty"),
        "rename": lambda: v.rename(f"{base}/file", f"{base}/renamed"),
        "rename-dir": lambda: v.rename(f"{base}/dir", f"{base}/dir2"),
        "symlink": lambda: v.symlink("file", f"{base}/ln"),
        "link": lambda: v.link(f"{base}/file", f"{base}/hard"),
        "chmod": lambda: v.chmod(f"{base}/file", 0o777),
        "chmod-root": lambda: v.chmod(base, 0o777),
        "utime": lambda: v.utime(f"{base}/file", (1.0, 1.0)),
        "utime-now": lambda: v.utime(f"{base}/file"),
        "utime-root": lambda: v.utime(base),
        "truncate": lambda: v.truncate(f"{base}/file", 0),
    }


@pytest.mark.parametrize("op", sorted(_write_ops(VFS(), "/x")))
def test_read_only_host_mount_refuses_every_write(layout: tuple[Path, Path], op: str) -> None:
    inside, _ = layout
    (inside / "empty").mkdir()
    before = {
        p: (p.stat().st_mode, p.stat().st_mtime_ns, p.read_bytes() if p.is_file() else None)
        for p in inside.rglob("*")
    }
    v = VFS([Mount("/ro", HostBackend(inside), readonly=True)])
    err = _denied(_write_ops(v, "/ro")[op], errno.EROFS)
    assert err.strerror == "Read-only file system"
    assert err.filename.startswith("/ro")
    after = {
        p: (p.stat().st_mode, p.stat().st_mtime_ns, p.read_bytes() if p.is_file() else None)
        for p in inside.rglob("*")
    }
    assert after == before
    assert v.open("/ro/file").read() == b"inside"
    assert not v.access("/ro/file", os.W_OK) and v.access("/ro/file", os.R_OK)


@pytest.mark.parametrize("op", sorted(_write_ops(VFS(), "/x")))
def test_read_only_memory_mount_refuses_every_write(op: str) -> None:
    mem = MemoryBackend({"file": b"m", "dir/x": b"x"})
    VFS([Mount("/rw", mem)]).mkdir("/rw/empty")
    v = VFS([Mount("/ro", mem, readonly=True)])
    _denied(_write_ops(v, "/ro")[op], errno.EROFS)
    assert v.open("/ro/file").read() == b"m"


def test_read_only_mkdir_of_existing_dir_is_eexist(layout: tuple[Path, Path]) -> None:
    inside, _ = layout
    v = VFS([Mount("/ro", HostBackend(inside), readonly=True)])
    _denied(lambda: v.mkdir("/ro/dir"), errno.EEXIST)
    v.makedirs("/ro/dir/deeper", exist_ok=True)  # mkdir -p on existing tree works


# ---------------------------------------------------------------- deny through links


@pytest.fixture
def denied(layout: tuple[Path, Path]) -> tuple[Path, VFS]:
    inside, _ = layout
    (inside / ".env").write_bytes(SECRET)
    (inside / "secrets").mkdir()
    (inside / "secrets" / "key").write_bytes(SECRET)
    (inside / "secrets" / "public-link").symlink_to("../file")
    return inside, VFS([Mount("/work", HostBackend(inside))], deny=["**/.env", "/work/secrets"])


def test_link_to_denied_file_is_denied(denied: tuple[Path, VFS]) -> None:
    inside, v = denied
    os.symlink(".env", inside / "innocent")
    os.symlink(str(inside / ".env"), inside / "innocent-abs")
    os.symlink("secrets/key", inside / "k")
    os.symlink("secrets", inside / "s")
    os.symlink("dir/../.env", inside / "dotted")
    for path in ("/work/innocent", "/work/innocent-abs", "/work/k", "/work/s/key", "/work/dotted"):
        for op in (
            lambda p=path: v.open(p).read(),
            lambda p=path: v.open(p, "wb"),
            lambda p=path: v.stat(p),
            lambda p=path: v.realpath(p),
            lambda p=path: v.truncate(p, 0),
        ):
            err = _denied(op)
            assert err.filename == path
        assert not v.exists(path)
    _denied(lambda: v.listdir("/work/s"))
    assert (inside / ".env").read_bytes() == SECRET
    assert (inside / "secrets" / "key").read_bytes() == SECRET


def test_link_inside_denied_dir_is_denied(denied: tuple[Path, VFS]) -> None:
    inside, v = denied
    _denied(lambda: v.open("/work/secrets/public-link").read())
    # reaching the same link through another name still reads a link in a denied dir
    os.symlink("secrets/public-link", inside / "via")
    _denied(lambda: v.open("/work/via").read())
    _denied(lambda: v.readlink("/work/secrets/public-link"))


def test_cannot_link_or_move_a_denied_file_out(denied: tuple[Path, VFS]) -> None:
    _, v = denied
    _denied(lambda: v.link("/work/.env", "/work/copy"))
    _denied(lambda: v.rename("/work/.env", "/work/copy"))
    _denied(lambda: v.rename("/work/secrets", "/work/open"))
    _denied(lambda: v.rename("/work/file", "/work/secrets/file"))
    _denied(lambda: v.symlink("file", "/work/secrets/new"))
    assert not v.exists("/work/copy") and not v.exists("/work/open")


def test_renaming_a_parent_cannot_undeny(layout: tuple[Path, Path]) -> None:
    inside, _ = layout
    (inside / "proj" / "conf").mkdir(parents=True)
    (inside / "proj" / "conf" / "token").write_bytes(SECRET)
    (inside / "proj" / ".env").write_bytes(SECRET)
    v = VFS([Mount("/work", HostBackend(inside))], deny=["/work/proj/conf/token", ".env"])
    _denied(lambda: v.rename("/work/proj", "/work/other"))
    _denied(lambda: v.rename("/work/proj/conf", "/work/conf2"))
    assert v.exists("/work/proj/conf")
    # moving a tree whose denied names stay denied is fine
    v2 = VFS([Mount("/work", HostBackend(inside))], deny=[".env"])
    v2.rename("/work/proj", "/work/other")
    _denied(lambda: v2.open("/work/other/.env"))


def test_hidden_in_listings_even_through_a_linked_dir(denied: tuple[Path, VFS]) -> None:
    inside, v = denied
    os.symlink(".", inside / "here")
    assert ".env" not in v.listdir("/work/here") and "secrets" not in v.listdir("/work/here")
    assert ".env" not in v.listdir("/work")


def test_deny_applies_in_memory_mounts() -> None:
    v = VFS(deny=["*.key"])
    with v.open("/tmp/ok", "wb") as f:
        f.write(b"ok")
    _denied(lambda: v.open("/tmp/a.key", "wb"))
    v.symlink("a.key", "/tmp/link")
    _denied(lambda: v.open("/tmp/link", "wb"))
    assert sorted(v.listdir("/tmp")) == ["link", "ok"]


def test_errors_never_show_host_paths(layout: tuple[Path, Path], vfs: VFS) -> None:
    inside, outside = layout
    os.symlink(str(outside / "secret"), inside / "esc")
    for op in (
        lambda: vfs.open("/work/esc"),
        lambda: vfs.open("/work/none/x"),
        lambda: vfs.rename("/work/none", "/work/x"),
    ):
        with pytest.raises(OSError) as exc:
            op()
        text = f"{exc.value} {exc.value.filename} {exc.value.filename2}"
        assert str(inside) not in text and str(outside) not in text
