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


def test_appending_line_by_line_is_linear_and_every_reader_sees_the_bytes() -> None:
    """The FakeFile holds the writers' buffer itself: a file written by many ``>>`` is
    never copied whole per append (that made a log written line by line quadratic), and
    pyfakefs's own view of the file (what the overlay store saves) has every byte."""
    import time

    backend = MemoryBackend()
    v = VFS([Mount("/m", backend)])

    def append(n: int) -> float:
        t0 = time.perf_counter()
        for i in range(n):
            with v.open("/m/log", "ab") as f:
                f.write(b"%07d %s\n" % (i, b"x" * 90))
        return time.perf_counter() - t0

    v.open("/m/log", "wb").close()
    small = append(200)  # to a file under 20 KB
    with v.open("/m/log", "ab") as f:
        f.write(b"y" * (16 << 20))
    big = append(200)  # to a 16 MB file: each append as cheap as before
    assert big < 3 * small + 0.05, (small, big)
    data = v.open("/m/log", "rb").read()
    assert len(data) == 400 * 99 + (16 << 20) and data.endswith(b"%07d %s\n" % (199, b"x" * 90))
    fobj = backend.fs.resolve("/log")
    assert bytes(fobj.byte_contents) == data and v.stat("/m/log").st_size == len(data)
    with v.open("/m/log", "r+b") as f:  # a writer in place changes what pyfakefs holds too
        f.write(b"Z")
    assert bytes(fobj.byte_contents)[:1] == b"Z" and v.open("/m/log", "rb").read(1) == b"Z"
