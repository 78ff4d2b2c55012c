"""A cow mount is as closed as a host mount: no escape by symlink, deny rules hold, and
sync never writes outside the mounted directory."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from vshell.sandbox import HostMount, Sandbox
from vshell.vfs import VFS, Ctx, Mount
from vshell.vfs.overlay import OverlayBackend

SECRET = b"TOP-SECRET"


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    inside = tmp_path / "mnt"
    outside = tmp_path / "outside"
    (inside / "dir").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret").write_bytes(SECRET)
    (inside / "file").write_bytes(b"inside")
    (inside / ".env").write_bytes(b"KEY=1")
    return inside, outside


def _vfs(inside: Path, deny: list[str] | None = None) -> VFS:
    return VFS([Mount("/work", OverlayBackend(inside))], deny=deny or [])


def _denied(op: Callable[[], Any], code: int = errno.EACCES) -> None:
    with pytest.raises(OSError) as exc:
        op()
    assert exc.value.errno == code, exc.value


@pytest.mark.parametrize(
    "target",
    [
        "../outside/secret",
        "dir/../../outside/secret",
        "../" * 30 + "etc/passwd",
        "/etc/passwd",
        "ABS_OUTSIDE",
        "ABS_MNT_DOTDOT",
    ],
)
def test_host_symlink_escapes_are_refused(layout: tuple[Path, Path], target: str) -> None:
    inside, outside = layout
    if target == "ABS_OUTSIDE":
        target = str(outside / "secret")
    elif target == "ABS_MNT_DOTDOT":
        target = str(inside) + "/../outside/secret"
    os.symlink(target, inside / "esc")
    vfs = _vfs(inside)
    _denied(lambda: vfs.open("/work/esc").read())
    _denied(lambda: vfs.open("/work/esc", "wb"))
    _denied(lambda: vfs.open("/work/esc", "ab"))
    _denied(lambda: vfs.stat("/work/esc"))
    _denied(lambda: vfs.truncate("/work/esc", 0))
    _denied(lambda: vfs.chmod("/work/esc", 0o777))
    assert (outside / "secret").read_bytes() == SECRET


def test_host_dir_symlink_escape_for_create(layout: tuple[Path, Path]) -> None:
    inside, outside = layout
    os.symlink("../outside", inside / "out")
    vfs = _vfs(inside)
    _denied(lambda: vfs.open("/work/out/new", "wb"))
    _denied(lambda: vfs.mkdir("/work/out/d"))
    _denied(lambda: vfs.listdir("/work/out"))
    assert sorted(os.listdir(outside)) == ["secret"]


@pytest.mark.parametrize("target", ["/etc/passwd", "../x", "/work/../../etc/passwd"])
def test_overlay_symlink_escapes_are_refused(layout: tuple[Path, Path], target: str) -> None:
    """An escaping link is refused when it is made (EPERM), as on a host mount; one that
    reaches the upper layer anyway (a persisted overlay) is still refused when used."""
    inside, _ = layout
    vfs = _vfs(inside)
    path = "/work/dir/l2" if target == "../x" else "/work/l"
    bad = "../../x" if target == "../x" else target
    with pytest.raises(PermissionError) as e:
        vfs.symlink(bad, path)
    assert e.value.errno == errno.EPERM
    assert not vfs.lexists(path)
    backend = vfs.mount_for("/work")[0].backend
    parts = tuple(path.split("/")[2:])
    raw = Ctx("/work", lambda p: None)
    backend._upper_dirs(parts[:-1], raw)
    backend.upper.symlink(bad, parts, raw)
    _denied(lambda: vfs.open(path).read())


def test_internal_links_work(layout: tuple[Path, Path]) -> None:
    inside, _ = layout
    os.symlink(str(inside / "file"), inside / "abs")
    vfs = _vfs(inside)
    vfs.symlink("/work/file", "/work/vabs")
    with vfs.open("/work/abs") as f:
        assert f.read() == b"inside"
    with vfs.open("/work/vabs") as f:
        assert f.read() == b"inside"
    with vfs.open("/work/abs", "ab") as f:  # writes through an inside link go to upper
        f.write(b"!")
    assert (inside / "file").read_bytes() == b"inside"
    with vfs.open("/work/file") as f:
        assert f.read() == b"inside!"


def test_deny_patterns_hold(layout: tuple[Path, Path]) -> None:
    inside, _ = layout
    vfs = _vfs(inside, deny=["**/.env"])
    _denied(lambda: vfs.open("/work/.env").read())
    _denied(lambda: vfs.open("/work/.env", "wb"))
    _denied(lambda: vfs.unlink("/work/.env"))
    assert ".env" not in vfs.listdir("/work")
    vfs.symlink(".env", "/work/alias")
    _denied(lambda: vfs.open("/work/alias").read())
    _denied(lambda: vfs.open("/work/alias", "ab"))
    _denied(lambda: vfs.rename("/work/.env", "/work/plain"))
    assert (inside / ".env").read_bytes() == b"KEY=1"


def test_sync_never_follows_a_swapped_parent(layout: tuple[Path, Path]) -> None:
    inside, outside = layout
    with Sandbox(mounts=[HostMount(str(inside), "/work", cow=True)]) as sb:
        sb.exec("echo pwned > dir/secret")
        os.rmdir(inside / "dir")
        os.symlink(str(outside), inside / "dir")  # the host swaps a parent for a link
        result = sb.sync()
        assert not result.ok
        assert (outside / "secret").read_bytes() == SECRET
        assert sorted(os.listdir(outside)) == ["secret"]
