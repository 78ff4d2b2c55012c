"""A memory mount creates and removes files from the objects its own walk found (not
through pyfakefs's path layer): what pyfakefs's os.open(O_CREAT) and os.unlink would have
made of the tree must still be what the tree holds."""

from __future__ import annotations

import os

import pytest

from vshell.vfs import VFS, MemoryBackend, Mount


def _fields(st: os.stat_result) -> tuple[int, ...]:
    return (st.st_mode, st.st_nlink, st.st_uid, st.st_gid, st.st_size)


def test_a_created_file_is_what_pyfakefs_os_open_makes() -> None:
    backend = MemoryBackend({"d/keep": b"x"})
    v = VFS([Mount("/m", backend)])
    with v.open("/m/d/new", "ab") as f:
        f.write(b"hi")
    fake_os = backend._os
    fd = fake_os.open("/d/ref", os.O_CREAT | os.O_WRONLY, 0o666)
    fake_os.write(fd, b"hi")
    fake_os.close(fd)
    assert _fields(v.stat("/m/d/new")) == _fields(fake_os.stat("/d/ref"))
    assert v.stat("/m/d/new").st_ino != v.stat("/m/d/ref").st_ino
    assert sorted(v.listdir("/m/d")) == ["keep", "new", "ref"]
    assert v.open("/m/d/new", "rb").read() == b"hi"


def test_unlink_drops_the_name_and_gives_the_bytes_back() -> None:
    backend = MemoryBackend({"d/a": b"12345"})
    v = VFS([Mount("/m", backend)])
    v.link("/m/d/a", "/m/d/b")
    used = backend.budget.used
    v.unlink("/m/d/a")
    assert v.stat("/m/d/b").st_nlink == 1 and backend.budget.used == used  # b holds them
    v.unlink("/m/d/b")
    assert v.listdir("/m/d") == [] and backend.budget.used == used - 5
    with pytest.raises(FileNotFoundError):
        v.unlink("/m/d/b")
    with pytest.raises(IsADirectoryError):
        v.unlink("/m/d")
    with pytest.raises(FileNotFoundError):
        v.open("/m/nodir/f", "wb")
