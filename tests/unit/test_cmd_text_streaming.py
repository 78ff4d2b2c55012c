"""Text commands stream: bounded memory, external sort, broken pipes, cancellation."""

from __future__ import annotations

import io
import sys
import tracemalloc
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent))

from cmdharness import make_fs  # noqa: E402

from vshell import commands as builtins  # noqa: E402
from vshell.command import Cancelled, CancelToken, Invocation  # noqa: E402
from vshell.interp.dispatch import call_command  # noqa: E402

TEXT_COMMANDS = [
    "head",
    "tail",
    "wc",
    "seq",
    "tr",
    "tac",
    "cut",
    "sort",
    "uniq",
    "od",
    "md5sum",
    "sha1sum",
    "sha224sum",
    "sha256sum",
    "sha384sum",
    "sha512sum",
    "base64",
    "rev",
    "nl",
    "paste",
    "comm",
    "join",
    "fold",
    "fmt",
    "column",
    "expand",
    "unexpand",
    "xxd",
    "hexdump",
    "strings",
    "diff",
    "patch",
]


class Endless(io.RawIOBase):
    """A stdin producing ``total`` bytes of ``line`` without ever holding them."""

    def __init__(self, line: bytes, total: int) -> None:
        self.block = line * (65536 // len(line))
        self.left = total

    def readable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        if self.left <= 0:
            return b""
        size = min(self.left, len(self.block) if n < 0 else min(n, len(self.block)))
        self.left -= size
        return self.block[:size]


class Sink(io.RawIOBase):
    """Counts what is written; raises BrokenPipeError after ``limit`` bytes if given."""

    def __init__(self, limit: int | None = None) -> None:
        self.n = 0
        self.limit = limit
        self.data = bytearray()

    def writable(self) -> bool:
        return True

    def write(self, b) -> int:
        if self.limit is not None and self.n >= self.limit:
            raise BrokenPipeError
        self.n += len(b)
        if len(self.data) < 1 << 20:
            self.data += bytes(b)[: (1 << 20) - len(self.data)]
        return len(b)


def _run(root: Path, argv: list[str], stdin=None, stdout=None, cancel=None):
    cmd = builtins.lookup(argv[0])
    assert cmd is not None
    out = stdout if stdout is not None else io.BytesIO()
    err = io.BytesIO()
    inp = stdin if stdin is not None else io.BytesIO()
    fs = make_fs(root)
    inv = Invocation(
        name=argv[0],
        args=argv[1:],
        dir="/work",
        stdin=inp,
        stdout=out,
        stderr=err,
        env={"LC_ALL": "C.UTF-8", "TZ": "UTC"},
        fs=fs.bind({0: inp, 1: out, 2: err}),
        cancel=cancel or CancelToken(),
    )
    return call_command(cmd, inv), out, err


@pytest.mark.parametrize("name", TEXT_COMMANDS)
def test_registered_with_help(tmp_path, name):
    status, out, _ = _run(tmp_path, [name, "--help"] if name != "xxd" else [name, "-h"])
    assert status in (0, 1)
    assert builtins.lookup(name) is not None


@pytest.mark.parametrize(
    "argv",
    [
        ["wc", "-l"],
        ["wc"],
        ["wc", "-m"],
        ["tr", "a-z", "A-Z"],
        ["cut", "-c1-3"],
        ["md5sum"],
        ["base64"],
        ["tail", "-n", "3"],
        ["uniq", "-c"],
        ["head", "-n", "-2"],
        ["strings"],
        ["rev"],
    ],
)
def test_bounded_memory_on_large_stream(tmp_path, argv):
    total = 4 * 1024 * 1024
    tracemalloc.start()
    try:
        status, out, _ = _run(tmp_path, argv, Endless(b"hello world line\n", total), Sink())
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert status == 0
    assert peak < 2 * 1024 * 1024, peak


def test_wc_counts_large_stream(tmp_path):
    status, out, _ = _run(tmp_path, ["wc", "-lwc"], Endless(b"ab cd\n", 6 * 1_000_000))
    assert out.getvalue() == b"1000000 2000000 6000000\n"


def test_sort_external_merge(tmp_path, monkeypatch):
    from vshell.commands import sort as sortmod

    monkeypatch.setattr(sortmod, "RUN_BYTES", 4096)
    lines = [f"{(i * 7919) % 5000:05d} x\n".encode() for i in range(5000)]
    data = b"".join(lines)
    for flags, want in (
        ([], sorted(lines)),
        (["-r"], sorted(lines, reverse=True)),
        (["-n", "-u"], sorted(set(lines))),
    ):
        status, out, err = _run(tmp_path, ["sort", *flags], io.BytesIO(data))
        assert status == 0, err.getvalue()
        assert out.getvalue() == b"".join(want)
    fs = make_fs(tmp_path)
    assert not [n for n in fs.listdir("/tmp") if n.startswith(".vshell-sort")]


def test_sort_random_is_a_grouped_permutation(tmp_path):
    data = b"".join(b"%d\n" % (i % 7) for i in range(200))
    status, out, _ = _run(tmp_path, ["sort", "-R"], io.BytesIO(data))
    lines = out.getvalue().splitlines()
    assert sorted(lines) == sorted(data.splitlines())
    groups = [k for i, k in enumerate(lines) if i == 0 or lines[i - 1] != k]
    assert len(groups) == 7


def test_seq_huge_range_stops_on_broken_pipe(tmp_path):
    status, out, _ = _run(tmp_path, ["seq", "1", "100000000000"], stdout=Sink(limit=10))
    assert status == 141


def test_seq_streams_in_bounded_memory(tmp_path):
    tracemalloc.start()
    try:
        status, sink, _ = _run(tmp_path, ["seq", "400000"], stdout=Sink())
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert status == 0 and sink.n == sum(len(str(i)) + 1 for i in range(1, 400001))
    assert peak < 2 * 1024 * 1024


def test_cancellation_stops_a_long_read(tmp_path):
    token = CancelToken()
    token.cancel()
    with pytest.raises(Cancelled):
        _run(tmp_path, ["wc", "-l"], Endless(b"x\n", 1 << 40), Sink(), cancel=token)


def test_head_returns_early_on_endless_input(tmp_path):
    status, out, _ = _run(tmp_path, ["head", "-n", "2"], Endless(b"y\n", 1 << 40))
    assert status == 0 and out.getvalue() == b"y\ny\n"


def test_tail_of_large_stream(tmp_path):
    status, out, _ = _run(tmp_path, ["tail", "-c", "5"], Endless(b"abcdefgh\n", 9 * 10**6))
    assert out.getvalue() == b"efgh\n"


def test_patch_refuses_parent_components(tmp_path):
    (tmp_path / "f").write_text("a\n")
    text = b"--- ../f\n+++ ../f\n@@ -1 +1 @@\n-a\n+b\n"
    (tmp_path / "sub").mkdir()
    status, out, _ = _run(tmp_path / "sub", ["patch"], io.BytesIO(text))
    assert status == 1
    assert b"can't find file to patch" in out.getvalue()
    assert (tmp_path / "f").read_text() == "a\n"


def test_patch_drops_leading_slash(tmp_path):
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc" / "conf").write_text("a\n")
    text = b"--- /etc/conf\n+++ /etc/conf\n@@ -1 +1 @@\n-a\n+b\n"
    status, out, _ = _run(tmp_path, ["patch", "-p0"], io.BytesIO(text))
    assert status == 0, out.getvalue()
    assert (tmp_path / "etc" / "conf").read_text() == "b\n"
