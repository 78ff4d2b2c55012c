"""bc against GNU bc: the scale rules, output format (no leading zero, 68-column lines),
bases, variables and the -l library."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.cmdharness import run_cmd

pytestmark = pytest.mark.skipif(shutil.which("bc") is None, reason="GNU bc not installed")

CASES = [line for line in (
    "1/3", "scale=5; 1/3", "-1/3", "2^100", "2^300", "1.50 + 1", "x=5; x*2", "sqrt(2)",
    "scale=10; sqrt(2)", "10 % 3", "scale=2; 10 % 3", "3 > 2", "obase=16; 255",
    "obase=2; 10", "ibase=16; FF", "1.5 * 1.5", "-0.5", "0.000", "1.000",
    "x=3; x++; x; ++x", "scale=3; 2^-1", "-7 / 2", "-7 % 2", "length(123.45); scale(1.230)",
    "a=1;b=2;a<b && b<3", "!0", "1 == 1.0", "5; . + 1", "scale=4; 10/3*3", "(1+2)*3",
    "4 ^ 3 ^ 2", "-2^2", "x", "00012", ".5", "1.", "obase=16; -255", "obase=16; 15.5",
    "obase=8; 8", "scale=20; 1/7", "x = 2; x += 3; x", "x ^= 2; x", "1+1; 5/0; 2+2",
    "scale=2; 22/7; 3.14159 * 2", "total = 0; total = total + 1.5; total", "obase=2; 5.25",
    "ibase=2; 101.1", "scale=2; ibase=16; A.8", "length(0); length(.001); scale(0)",
    "\"hello\"", "12345678901234567890 * 98765432109876543210", "scale=50; 1/3",
    "(5 > 3) + (2 != 2)", "scale=3; 5 % 0.7", "sqrt(16); sqrt(0.25); scale=4; sqrt(10)",
    "a = 7; b = a--; a; b", "10^67; 10^68; 10^69", "1 +", "2 3\n4", "/* c */ 1 # x\n2",
    "quit\n5",
)]
MATHLIB = ["l(10); e(1); s(1); c(1); a(1)", "10/3", "s(3.14159); c(0.5); a(0.2); l(2); e(-1)",
           "scale=5; s(1); e(10); a(100)", "x=a(1)*4; x"]


def _gnu(script: str, *flags: str) -> tuple[int, bytes]:
    p = subprocess.run(["bc", *flags], input=(script + "\n").encode(), capture_output=True,
                       timeout=30)
    return p.returncode, p.stdout


@pytest.mark.parametrize("script", CASES)
def test_bc_like_gnu(tmp_path, script: str) -> None:
    got = run_cmd(tmp_path, ["bc"], stdin=(script + "\n").encode())
    assert (got.status, got.stdout) == _gnu(script)


@pytest.mark.parametrize("script", MATHLIB)
def test_bc_mathlib_like_gnu(tmp_path, script: str) -> None:
    got = run_cmd(tmp_path, ["bc", "-l"], stdin=(script + "\n").encode())
    assert (got.status, got.stdout) == _gnu(script, "-l")


def test_bc_refuses_what_it_does_not_do(tmp_path) -> None:
    for script in ("if (1) 5", "define f(x) { return x }", "a[1] = 2", "while (0) 1"):
        got = run_cmd(tmp_path, ["bc"], stdin=(script + "\n").encode())
        assert got.stdout == b"", script
        assert b"not supported by vshell's bc" in got.stderr or b"syntax error" in got.stderr
    got = run_cmd(tmp_path, ["bc"], stdin=b"2^1000000000\n")
    assert b"exponent too large" in got.stderr  # refused, not computed for hours
    assert run_cmd(tmp_path, ["bc", "-s"]).status == 1
