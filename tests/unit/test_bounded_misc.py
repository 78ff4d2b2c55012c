"""Smaller bounds of issue 15: expr's big integers (exact like GNU's GMP build up to its
bound), brace expansion calling the cancel check while it makes words, gunzip of a bomb."""

from __future__ import annotations

import gzip
import shutil
import subprocess

import pytest

from tests.cmdharness import run_cmd
from vshell import Sandbox
from vshell.commands.expr import MAX_DIGITS
from vshell.interp import braces

needs_expr = pytest.mark.skipif(shutil.which("expr") is None, reason="GNU expr not installed")


@needs_expr
@pytest.mark.parametrize("args", [
    ["9" * 5000, "+", "1"], ["-" + "7" * 9000, "/", "13"], ["8" * 6000, "*", "9" * 6000],
    ["1" + "0" * 19000, "%", "97"], ["99999999999999999999", "-", "1"],
])
def test_expr_big_integers_like_gnu(tmp_path, args: list[str]) -> None:
    want = subprocess.run(["expr", *args], capture_output=True, timeout=30)
    got = run_cmd(tmp_path, ["expr", *args])
    assert (got.status, got.stdout) == (want.returncode, want.stdout)


@pytest.mark.parametrize("args", [["9" * (MAX_DIGITS + 2), "+", "1"],
                                  ["9" * 15000, "*", "9" * 15000]])
def test_expr_past_its_bound_is_refused(tmp_path, args: list[str]) -> None:
    got = run_cmd(tmp_path, ["expr", *args])
    assert got.status == 3 and b"number too long" in got.stderr and got.stdout == b""


class _Stop(Exception):
    pass


@pytest.mark.parametrize("word", ["{1..3000000}", "x{1..2000}{1..2000}", "{a..j}{1..200000}",
                                  "{01..300000}"])
def test_brace_expansion_calls_the_cancel_check(word: str) -> None:
    calls = []

    def check() -> None:
        calls.append(1)
        if len(calls) > 3:
            raise _Stop

    with pytest.raises(_Stop):
        braces.expand(word, check)
    assert braces.expand("{1..3}") == ["1", "2", "3"]  # no check left behind


def test_a_gzip_bomb_expands_in_pieces_and_a_gone_reader_is_silent(tmp_path) -> None:
    bomb = gzip.compress(b"\0" * (64 << 20), compresslevel=9)
    with Sandbox(timeout=20) as sb:
        res = sb.exec("gunzip -c | wc -c", stdin=bomb)
        assert res.stdout.strip() == str(64 << 20).encode()
        res = sb.exec("gunzip -c | head -c 3 | wc -c; echo ${PIPESTATUS[@]}", stdin=bomb)
        assert (res.stdout, res.stderr) == (b"3\n141 0 0\n", b"")


@pytest.mark.parametrize(("word", "count"), [("{1..999}{1..999}{1..999}", 997002999),
                                             ("a{1..9999}b{1..999999}", 9998990001),
                                             ("{a,b,c}{1..2000000}", 6000000)])
def test_brace_expansion_refuses_before_making_the_words(word: str, count: int) -> None:
    calls: list[int] = []  # one call per block of words made: a few small blocks at most
    with pytest.raises(braces.BraceExpansionError, match=f"memory for {count} elements"):
        braces.expand(word, lambda: calls.append(1))
    assert len(calls) <= 4


@pytest.mark.skipif(shutil.which("seq") is None, reason="GNU seq not installed")
@pytest.mark.parametrize("fmt", ["%100000g", "%-70000.3f", "%.5000f"])
def test_seq_wide_formats_within_the_bound_like_gnu(tmp_path, fmt: str) -> None:
    want = subprocess.run(["seq", "-f", fmt, "3"], capture_output=True, timeout=30)
    got = run_cmd(tmp_path, ["seq", "-f", fmt, "3"])
    assert (got.status, got.stdout) == (want.returncode, want.stdout)
