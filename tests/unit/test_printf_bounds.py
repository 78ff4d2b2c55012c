"""printf's field widths and numeric precisions: like bash up to MAX_FIELD, refused past it
(bash would pad to gigabytes) with a message, status 1, and the rest of the format done."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from vshell import Sandbox
from vshell.interp.builtins.printf import MAX_FIELD

needs_bash = pytest.mark.skipif(shutil.which("bash") is None, reason="bash not installed")


def _vshell(script: str):
    with Sandbox(timeout=10) as sb:
        return sb.exec(script)


@needs_bash
@pytest.mark.parametrize("script", [
    f"printf '%*d|' {MAX_FIELD} 7 | wc -c", f"printf '%-{MAX_FIELD}s|' x | tail -c 3 | od -c",
    f"printf '%.{MAX_FIELD}d' 5 | wc -c",
    "printf '%*s|%-*s|\\n' -3 a 4 b", f"printf -v v '%*s' {MAX_FIELD} x; echo ${{#v}}",
])
def test_widths_up_to_the_bound_are_like_bash(script: str) -> None:
    want = subprocess.run(["bash", "-c", script], capture_output=True, timeout=30)
    got = _vshell(script)
    assert (got.exit_code, got.stdout) == (want.returncode, want.stdout)


@pytest.mark.parametrize("script", [
    "printf '%*d|%s\\n' 2000000000 1 after", f"printf '%{MAX_FIELD + 1}d|%s\\n' 1 after",
    "printf '%.*f|%s\\n' 3000000000 1 after", "printf '%99999999999999999999s|%s\\n' 1 after",
])
def test_past_the_bound_is_refused_at_once(script: str) -> None:
    got = _vshell(script + "; echo status=$?")
    assert got.stdout == b"|after\nstatus=1\n"
    assert b"too large (vshell's printf takes at most 1048576)" in got.stderr
    assert b"Error" not in got.stderr


def test_many_wide_fields_stream_but_one_pass_or_value_is_capped() -> None:
    got = _vshell("printf '%1048576s' $(seq 80) | wc -c")
    assert got.stdout == b"83886080\n"  # streamed pass by pass, as bash prints it
    got = _vshell("printf -v v '%1048576s' $(seq 80); echo $? ${#v}")
    assert got.stdout == b"1 0\n" and b"-v: value too long" in got.stderr
    got = _vshell("printf \"$(printf '%%1000000s%.0s' {1..80})\"; echo \" $?\"")
    assert got.stdout == b" 1\n" and b"output too long" in got.stderr
