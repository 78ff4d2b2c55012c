"""A host symlink into another host mount is followed through that mount's rules only."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from vshell.vfs import VFS, HostBackend, Mount


@pytest.fixture
def two_mounts(tmp_path: Path) -> VFS:
    a, b, outside = tmp_path / "a", tmp_path / "b", tmp_path / "outside"
    for d in (a, b / "sub", outside):
        d.mkdir(parents=True)
    (b / "sub" / "f").write_text("data")
    (b / "sub" / ".env").write_text("secret")
    (outside / "secret").write_text("nope")
    os.symlink(b / "sub", a / "to_b")
    os.symlink(outside, a / "to_outside")
    os.symlink(a / "loop2", a / "loop1")
    os.symlink(a / "loop1", a / "loop2")
    return VFS(mounts=[Mount("/a", HostBackend(a)), Mount("/b", HostBackend(b), readonly=True)],
               deny=["**/.env"])


def test_follows_into_other_mount(two_mounts: VFS) -> None:
    with two_mounts.open("/a/to_b/f") as f:
        assert f.read() == b"data"
    assert two_mounts.listdir("/a/to_b") == ["f"]
    assert two_mounts.realpath("/a/to_b/f") == "/b/sub/f"


def test_target_mount_rules_hold(two_mounts: VFS) -> None:
    with pytest.raises(OSError) as e:
        two_mounts.open("/a/to_b/new", "wb")
    assert e.value.errno == 30  # EROFS: /b is read-only
    with pytest.raises(PermissionError):
        two_mounts.open("/a/to_b/.env")


def test_outside_every_mount_is_refused(two_mounts: VFS) -> None:
    with pytest.raises(PermissionError):
        two_mounts.open("/a/to_outside/secret")
    assert not two_mounts.exists("/a/to_outside/secret")


def test_loops_end(two_mounts: VFS) -> None:
    with pytest.raises(OSError):
        two_mounts.open("/a/loop1")
