"""$LINENO inside $( ), backticks, <( ), here-docs and eval counts script lines, and
``set -u`` names a bare positional or special parameter as written (``$1``), as bash 5.2."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BASH = shutil.which("bash")

LINENO_CASES = {
    "cmdsub": "echo a\necho b $(echo $LINENO)\n",
    "backticks": "\n\necho `echo $LINENO`\n",
    "procsub": "\n\n\ncat <(echo $LINENO)\n",
    "heredoc": "echo\ncat <<EOF\n$(echo $LINENO)\nx\n$(echo $LINENO)\nEOF\n",
    "function_body": "\nf() {\n  echo $(echo $LINENO)\n}\n\nf\n",
    "nested_in_loop": "for i in 1; do\n echo $(echo $LINENO; echo $(echo $LINENO))\ndone\n",
    "eval_one_line": "\n\neval 'echo $LINENO'\n",
    "cmdsub_error_message": "echo\n\nout=$(cd /nowhere 2>&1); echo \"${out#*: }\"\n",
    "eval_syntax_error": "echo\n\neval '('\neval 'echo $LINENO; fi'\n",
    "cmdsub_after_many_lines": "\n" * 40 + "x=$(echo $LINENO)\necho $x\n",
}

UNBOUND_CASES = {
    "positional": 'set -u; echo "$1"',
    "positional_9": 'set -u; echo "$9"',
    "braced_positional": "set -u; echo ${10}",
    "braced_in_quotes": 'set -u; echo "${1}"',
    "length": "set -u; echo ${#1}",
    "bang": "set -u; echo $!",
    "braced_bang": "set -u; echo ${!}",
    "in_arith": "set -u; echo $(( $1 + 1 ))",
    "errexit": "set -eu; echo $2",
    "function": "set -u; f() { echo $1; }; f",
    "name": 'set -u; echo "$x"',
    "at_and_star_are_fine": 'set -u; echo "$@" "$*" x',
    "empty_array": "set -u; x=(); echo ${x[@]} ok",
}


def _vshell(script: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "vshell", "-c", script], capture_output=True,
                          timeout=30, cwd=REPO)


def _strip_name(stderr: bytes) -> bytes:
    """The messages with the shell's own name (``/usr/bin/bash:``, ``vshell:``) cut off."""
    out = []
    for line in stderr.splitlines():
        for name in (BASH.encode() if BASH else b"bash", b"bash", b"vshell"):
            if line.startswith(name + b": "):
                line = line[len(name) + 2 :]
                break
        out.append(line)
    return b"\n".join(out)


def _compare(script: str) -> None:
    assert BASH is not None
    want = subprocess.run([BASH, "-c", script], capture_output=True, timeout=30, cwd="/tmp")
    got = _vshell(script)
    assert got.stdout == want.stdout
    assert _strip_name(got.stderr) == _strip_name(want.stderr)
    assert got.returncode == want.returncode


@pytest.mark.skipif(BASH is None, reason="bash is the oracle")
@pytest.mark.parametrize("name", sorted(LINENO_CASES))
def test_lineno_in_nested_source_counts_script_lines(name: str) -> None:
    _compare(LINENO_CASES[name])


@pytest.mark.skipif(BASH is None, reason="bash is the oracle")
@pytest.mark.parametrize("name", sorted(UNBOUND_CASES))
def test_unbound_parameter_message_and_status(name: str) -> None:
    _compare(UNBOUND_CASES[name])
