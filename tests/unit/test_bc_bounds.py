"""bc's bounds: big numbers are exact like GNU bc up to MAX_DIGITS, past it refused at once
with a bc-style runtime error and status 1 (GNU would compute for hours)."""

from __future__ import annotations

import shutil
import subprocess
from decimal import Decimal

import pytest

from tests.cmdharness import run_cmd
from vshell.commands._lib.bigdigits import approx_digits, to_int, to_str
from vshell.commands.bc import MAX_DIGITS

needs_bc = pytest.mark.skipif(shutil.which("bc") is None, reason="GNU bc not installed")


def _gnu(script: str, *flags: str) -> bytes:
    return subprocess.run(["bc", *flags], input=(script + "\n").encode(), capture_output=True,
                          timeout=60).stdout


@needs_bc
@pytest.mark.parametrize("script", [
    "2^20000", "length(2^30000)", "scale=5000; 1/3", "scale=3000; sqrt(2)", "3^-2000",
    "ibase=16; obase=2; FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF^50",
    "x=7^5000; x/7^4999", "-(9^9000) % 1000007",
])
def test_big_but_bounded_numbers_are_exact_like_gnu(tmp_path, script: str) -> None:
    got = run_cmd(tmp_path, ["bc"], stdin=(script + "\n").encode())
    assert (got.status, got.stdout, got.stderr) == (0, _gnu(script), b"")


@needs_bc
@pytest.mark.parametrize("script", ["scale=500; e(1); l(3); s(4); c(5); a(6)",
                                    "scale=5; e(-50); e(-3); s(1)", "e(1000)"])
def test_mathlib_within_its_precision_is_like_gnu(tmp_path, script: str) -> None:
    got = run_cmd(tmp_path, ["bc", "-l"], stdin=(script + "\n").encode())
    assert (got.status, got.stdout) == (0, _gnu(script, "-l"))


@pytest.mark.parametrize(("flags", "script", "words"), [
    ((), "scale=20000000; 1/3", b"scale too large"),
    ((), f"scale={MAX_DIGITS + 1}", b"scale too large"),
    ((), "2^(2^70)", b"exponent too large in raise"),
    ((), "2^1000000000", b"exponent too large in raise"),
    ((), "(10^9999)*(10^9999)", b"number too long"),
    ((), "1" * (MAX_DIGITS + 1), b"number too long"),
    (("-l",), "e(99999)", b"e(): result too large"),
    (("-l",), "scale=2000; l(2)", b"l(): scale or argument too large"),
    (("-l",), "s(10^5000)", b"s(): scale or argument too large"),
])
def test_past_the_bounds_is_a_runtime_error_with_status_1(tmp_path, flags, script,
                                                          words) -> None:
    got = run_cmd(tmp_path, ["bc", *flags], stdin=(script + "\n").encode())
    assert got.status == 1
    assert got.stderr.startswith(b"Runtime error (func=(main)): ") and words in got.stderr
    assert b"Error" not in got.stderr and got.stdout == b""


def test_e_of_a_huge_negative_is_zero_at_once(tmp_path) -> None:
    got = run_cmd(tmp_path, ["bc", "-l"], stdin=b"scale=5; e(-99999)\n")  # GNU: minutes
    assert (got.status, got.stdout) == (0, b"0\n")


def test_deep_nesting_is_a_message_not_a_traceback(tmp_path) -> None:
    got = run_cmd(tmp_path, ["bc"], stdin=b"(" * 5000 + b"1" + b")" * 5000 + b"\n")
    assert got.status == 1 and b"nested too deeply" in got.stderr


def test_later_lines_still_run_after_a_refusal(tmp_path) -> None:
    got = run_cmd(tmp_path, ["bc"], stdin=b"scale=99999999\n1+1\n")
    assert got.stdout == b"2\n" and got.status == 1


@pytest.mark.parametrize(("base", "exp", "sign"), [(0, 1, 1), (7, 1, -1), (10, 3999, 1),
                                                   (10, 4000, 1), (10, 4000, -1),
                                                   (3, 30000, 1), (7, 20001, -1)])
def test_chunked_conversion_is_exact_past_pythons_guard(base: int, exp: int, sign: int) -> None:
    n = sign * base**exp
    text = to_str(n)
    assert text == str(Decimal(n))  # the decimal module's own conversion as the oracle
    assert to_int(text.lstrip("-")) == abs(n)
    assert approx_digits(n) - len(text.lstrip("-")) in (0, 1)
