"""GuardedOutput (``inv.stdout``): what a failed write or flush of the stream becomes."""

from __future__ import annotations

import errno
import io

import pytest

from vshell.command import GuardedOutput, OutputError, ReaderGone


class _Failing:
    """A stream whose write and flush raise ``exc``."""

    def __init__(self, exc: BaseException, closed: bool = False) -> None:
        self.exc = exc
        self.closed = closed

    def write(self, data: bytes) -> int:
        raise self.exc

    def flush(self) -> None:
        raise self.exc


def test_writes_reach_the_stream_and_return_its_count() -> None:
    buf = io.BytesIO()
    out = GuardedOutput(buf)
    assert out.write(b"ab") == 2
    assert out.write(b"c") == 1
    out.flush()
    assert buf.getvalue() == b"abc"
    assert out.getvalue() == b"abc"  # other attributes are the stream's


@pytest.mark.parametrize("method", ["write", "flush"])
def test_broken_pipe_is_reader_gone(method: str) -> None:
    out = GuardedOutput(_Failing(BrokenPipeError(errno.EPIPE, "Broken pipe")))
    with pytest.raises(ReaderGone):
        getattr(out, method)(*([b"x"] if method == "write" else []))


@pytest.mark.parametrize("method", ["write", "flush"])
def test_other_os_errors_are_output_errors(method: str) -> None:
    out = GuardedOutput(_Failing(OSError(errno.ENOSPC, "No space left on device")))
    with pytest.raises(OutputError) as got:
        getattr(out, method)(*([b"x"] if method == "write" else []))
    assert not isinstance(got.value, ReaderGone)
    assert got.value.errno == errno.ENOSPC
    assert got.value.strerror == "No space left on device"


def test_closed_stream_is_reader_gone_and_other_value_errors_pass() -> None:
    closed = io.BytesIO()
    closed.close()
    with pytest.raises(ReaderGone):
        GuardedOutput(closed).write(b"x")
    with pytest.raises(ValueError, match="not closed"):
        GuardedOutput(_Failing(ValueError("not closed"))).write(b"x")


def test_an_output_error_from_the_stream_passes_unchanged() -> None:
    inner = ReaderGone()
    with pytest.raises(ReaderGone) as got:
        GuardedOutput(_Failing(inner)).write(b"x")
    assert got.value is inner
