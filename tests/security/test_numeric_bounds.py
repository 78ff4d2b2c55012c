"""Huge, negative and odd numbers in options get the GNU tool's message and status.

Each case runs the same command line through the host tool (the oracle) and through vshell;
a tool missing on the host skips its cases.  No output may show Python's insides.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.freeze.harness import PYTHON_INSIDES
from vshell import Sandbox
from vshell.text.numarg import UINTMAX_MAX, parse_count, shell_number

HUGE = "99999999999999999999"
CASES = [
    # (tool, argv, stdin)
    ("uniq", ["-f", HUGE], b"a b\na c\n"),
    ("uniq", ["-s", HUGE, "-c"], b"a b\na c\n"),
    ("uniq", ["-w", HUGE, "-c"], b"a b\na c\n"),
    ("uniq", [f"-{HUGE}", "-c"], b"a b\na b\n"),
    ("uniq", ["-f", "-1"], b"a\n"),
    ("uniq", ["-f", "x"], b"a\n"),
    ("sort", ["-k", HUGE], b"b a\na b\n"),
    ("sort", ["-t", " ", "-k", HUGE], b"b a\na b\n"),
    ("sort", ["-k", "0"], b"a\n"),
    ("sort", ["-k", "-1"], b"a\n"),
    ("sort", ["-k", f"1.{HUGE}x"], b"a\n"),
    ("shuf", ["-i", f"1-{HUGE}"], b""),
    ("shuf", ["-i", "1-18446744073709551616", "-n", "1"], b""),
    ("shuf", ["-i", "0-18446744073709551615", "-n", "1"], b""),
    ("shuf", ["-i", "5-3"], b""),
    ("shuf", ["-i", "a-b"], b""),
    ("shuf", ["-i", "7"], b""),
    ("shuf", ["-i", "1-2", "-i", "1-3"], b""),
    ("shuf", ["-n", "-1", "-e", "a"], b""),
    ("shuf", ["-n", HUGE, "-e", "a"], b""),
    ("shuf", ["-r", "-n", "0", "-i", "5-4"], b""),
    ("shuf", ["-r", "-n", "3", "-i", "5-4"], b""),
    ("tr", ["abc", f"[x*{HUGE}]"], b"abcd\n"),
    ("tr", ["abc", "[x*18446744073709551615]"], b"abcd\n"),
    ("tr", ["abc", "[x*9999999999]"], b"abcd\n"),
    ("tr", ["abc", "[x*08]"], b"abcd\n"),
    ("tr", ["a-z", f"[x*3][y*{HUGE[:12]}]"], b"abcdef\n"),
    ("strings", ["-n", HUGE], b"hello world\n"),
    ("strings", ["-n", "4294967296"], b"hello world\n"),
    ("strings", ["-n", "-1"], b"hello world\n"),
    ("strings", ["-n", "0x5"], b"hello world\n"),
    ("strings", ["-n", "1x"], b"hello world\n"),
    ("strings", ["-n", ""], b"hello world\n"),
    ("split", ["-n", HUGE, "-"], b"abc\n"),
    ("split", ["-b", "9223372036854775808", "-"], b"abc\n"),
    ("split", ["-l", HUGE, "-"], b"abc\n"),
    ("split", ["-a", HUGE, "-"], b"abc\n"),
    ("split", ["-n", "r/5/" + HUGE, "-"], b"abc\n"),
    ("cut", ["-f", HUGE], b"a\tb\n"),
    ("cut", ["-f", "1-18446744073709551615"], b"a\tb\n"),
    ("cut", ["-b", "-0"], b"ab\n"),
    ("cut", ["-c", "9223372036854775808-"], b"ab\n"),
    ("column", ["-c", "4294967296"], b"a\nb\n"),
    ("column", ["-c", "-1"], b"a\nb\n"),
    ("column", ["-c", "18446744073709551615", "-x"], b"a\nb\n"),
    ("nl", ["-w", "4294967296"], b"a\n"),
    ("nl", ["-w", HUGE], b"a\n"),
    ("nl", ["-l", "18446744073709551615"], b"a\n"),
    ("nl", ["-v", "-9223372036854775809"], b"a\n"),
    ("nl", ["-v", "-9223372036854775808"], b"a\n"),
    ("nl", ["-i", HUGE], b"a\n"),
    ("stat", [f"--printf=%{HUGE}n|", "/"], b""),
    ("stat", ["--printf=%2147483648n|%.99999999999999999999n|%5n|", "/"], b""),
    ("date", ["-d", "9999999999999 years"], b""),
    ("date", ["-d", "@0", "+%20Y|%-3d|%_5H"], b""),
    ("date", ["-d", "99999999999999999999999 days"], b""),
    ("date", ["-d", f"@{HUGE}"], b""),
    ("date", ["-d", "@-99999999999999999"], b""),
]


def _quote(arg: str) -> str:
    return "'" + arg.replace("'", "'\\''") + "'"


@pytest.mark.parametrize(("tool", "argv", "stdin"), CASES,
                         ids=[" ".join([c[0], *c[1]]) for c in CASES])
def test_matches_the_host_tool(tool: str, argv: list[str], stdin: bytes,
                               tmp_path: Path) -> None:
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed on this host")
    want = subprocess.run([tool, *argv], input=stdin, capture_output=True, timeout=20,
                          cwd=tmp_path,
                          env={"LC_ALL": "C.UTF-8", "TZ": "UTC", "PATH": "/usr/bin:/bin"})
    with Sandbox(timeout=10, env={"TZ": "UTC"}) as sb:
        got = sb.exec(" ".join([tool, *map(_quote, argv)]), stdin=stdin)
    assert not PYTHON_INSIDES.search(got.stdout + got.stderr), got.stderr
    assert got.exit_code == want.returncode, (got.stderr, want.stderr)
    assert got.stderr == want.stderr
    if tool != "shuf" or want.returncode != 0:
        assert got.stdout == want.stdout
    else:
        assert len(got.stdout.splitlines()) == len(want.stdout.splitlines())


MAPFILE_CASES = [
    "printf 'a\\nb\\n' | { mapfile -C echo -c 0 a; echo $?; }",
    f"printf 'a\\nb\\n' | {{ mapfile -C echo -c {HUGE} a; echo $?; }}",
    "mapfile -c -1 a < /dev/null; echo $?",
    "mapfile -c x a < /dev/null; echo $?",
    f"mapfile -n {HUGE} a < /dev/null; echo $?",
    "mapfile -n -1 a < /dev/null; echo $?",
    f"mapfile -O {HUGE} a < /dev/null; echo $?",
    f"mapfile -s {HUGE} a < /dev/null; echo $?",
    f"mapfile -u {HUGE} a; echo $?",
    "mapfile -u 2147483648 a; echo $?",
    "printf 'a\\nb\\nc\\n' | { mapfile -n ' 2' -O +1 a; declare -p a; }",
    "printf \"it's\\n\\$(x)\\n\" | { mapfile -C 'printf [%s]' -c 1 a; }",
]


@pytest.mark.parametrize("script", MAPFILE_CASES)
def test_mapfile_numbers_match_bash(script: str) -> None:
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("bash is not installed on this host")
    want = subprocess.run(["bash", "-c", script], executable=bash, capture_output=True,
                          timeout=20)
    with Sandbox(timeout=10) as sb:
        got = sb.exec(script)
    assert not PYTHON_INSIDES.search(got.stdout + got.stderr), got.stderr
    assert got.stdout == want.stdout
    assert _strip_prefix(got.stderr) == _strip_prefix(want.stderr)


def _strip_prefix(stderr: bytes) -> bytes:
    return re.sub(rb"(?m)^\S+: line \d+: ", b"", stderr)


def test_date_refuses_a_width_it_would_build_gigabytes_for() -> None:
    # GNU pads to any int width (gigabytes of zeros); vshell refuses past WIDTH_MAX
    with Sandbox(timeout=10) as sb:
        r = sb.exec(f"date -d @0 +%{HUGE}Y; echo st=$?; date -d @0 +%2147483648Y | wc -c")
    assert r.stdout == b"st=1\n0\n" and r.stderr == b"date: memory exhausted\n" * 2


def test_parse_count_bounds_like_xstrtoumax() -> None:
    assert parse_count(HUGE) == parse_count("9" * 200)
    assert parse_count(HUGE).overflow and parse_count(HUGE).value == UINTMAX_MAX  # type: ignore[union-attr]
    assert parse_count(" +12").value == 12  # type: ignore[union-attr]
    assert parse_count("-1") is None and parse_count("") is None and parse_count("1x") is None
    assert parse_count("2K", suffixes=True).value == 2048  # type: ignore[union-attr]
    assert parse_count("0x1f", base=0).value == 31  # type: ignore[union-attr]
    assert parse_count("017", base=0).value == 15  # type: ignore[union-attr]
    assert shell_number(" -9223372036854775808 ") == -(1 << 63)
    assert shell_number("9223372036854775808") is None and shell_number("1e3") is None
