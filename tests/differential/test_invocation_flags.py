"""bash's invocation options on vshell's command line (``bash -lc``, ``-euo pipefail -c``,
``-s``, ``-O``), against GNU bash: the options in force ($-, ``set -o``, ``shopt``), $0 and
the positionals, the status.  Harnesses start their shell this way."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BASH = shutil.which("bash")

PROBE = ('echo "$- $0 $# ${1-}"; set -o | grep -E "^(pipefail|errexit|nounset|noglob|posix)"'
         ' | tr -s " \\t" " "; shopt extglob nullglob; false | true; echo "st=$?"')

FLAG_CASES = [
    ["-c"],
    ["-lc"],
    ["-ec"],
    ["-euo", "pipefail", "-c"],
    ["-eu", "-o", "pipefail", "-c"],
    ["-o", "pipefail", "-o", "nounset", "-c"],
    ["-euco", "pipefail"],
    ["+e", "-c"],
    ["-f", "-c"],
    ["-O", "extglob", "-O", "nullglob", "-c"],
    ["--login", "-c"],
    ["--noprofile", "--norc", "-lc"],
    ["--posix", "-c"],
]


def _run(cmd: list[str], stdin: bytes = b"") -> tuple[bytes, int]:
    done = subprocess.run(cmd, input=stdin, capture_output=True, timeout=30, cwd="/tmp")
    return done.stdout, done.returncode


@pytest.mark.skipif(BASH is None, reason="bash is the oracle")
@pytest.mark.parametrize("flags", FLAG_CASES, ids=" ".join)
def test_flags_then_command_as_bash(flags: list[str]) -> None:
    assert BASH is not None
    args = [PROBE, "name0", "one"]
    want = _run([BASH, *flags, *args])
    got = _run([sys.executable, "-m", "vshell", *flags, *args])
    assert got == want


@pytest.mark.skipif(BASH is None, reason="bash is the oracle")
def test_s_reads_commands_from_stdin_with_positionals() -> None:
    assert BASH is not None
    script = b'echo "$# $1 $2"; read line; echo "got $line"\nsecond line\necho end\n'
    want = _run([BASH, "-s", "a", "b"], script)
    got = _run([sys.executable, "-m", "vshell", "-s", "a", "b"], script)
    assert got == want
    want = _run([BASH, "-es"], b"false\necho not reached\n")
    got = _run([sys.executable, "-m", "vshell", "-es"], b"false\necho not reached\n")
    assert got == want


@pytest.mark.parametrize(("argv", "message"), [
    (["-o", "nosuch", "-c", "echo hi"], "vshell: nosuch: invalid option name\n"),
    (["-O", "nosuch", "-c", "echo hi"], "vshell: nosuch: invalid shell option name\n"),
    (["-euo"], "vshell: -o: option requires an argument\n"),
    (["-ec"], "vshell: option -c requires an argument\n"),
])
def test_bad_invocation_options_are_refused(argv: list[str], message: str) -> None:
    done = subprocess.run([sys.executable, "-m", "vshell", *argv], capture_output=True,
                          timeout=30, cwd=REPO)
    assert done.returncode == 2
    assert done.stdout == b""
    assert done.stderr.decode() == message + "Try 'vshell --help' for more information.\n"


def test_mcp_refuses_shell_options() -> None:
    done = subprocess.run([sys.executable, "-m", "vshell", "mcp", "-euo", "pipefail"],
                          capture_output=True, timeout=30, cwd=REPO, stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert done.stderr.decode().startswith("vshell mcp: bash's invocation options")
