"""A script piped to vshell (or to ``bash`` inside the sandbox) runs a command at a time
and counts its lines on as bash does, in time linear in its length."""

from __future__ import annotations

import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from vshell.sandbox import Sandbox

REPO = Path(__file__).resolve().parents[2]
BASH = shutil.which("bash")

CASES = {
    "lineno_read_heredoc_if_function_trap": (
        "echo start $LINENO\nread x\nthis line is read\necho \"got $x\" $LINENO\n"
        "cat <<END\na $LINENO\nb\nEND\nif true; then\n  echo in if $LINENO\nfi\n"
        "f() {\n  echo in f $LINENO\n}\nf\ntrap 'echo exit trap $LINENO' EXIT\n"
        "echo $(echo sub $LINENO)\nnosuchcmd\necho after $LINENO\n"
    ),
    "syntax_error_on_line_3": "echo one\necho two $LINENO\nif then\necho never\n",
    "runtime_error_line_then_unfinished_quote": (
        "echo a\nx=$((1/0))\necho b $LINENO\necho \"unterminated\n"
    ),
    "multi_line_compound_and_loops": (
        "for i in 1 2; do\n  echo $i $LINENO\ndone\nwhile read l; do echo \"[$l]\"; break; done\n"
        "taken by read\n{ echo g1 $LINENO\n  echo g2 $LINENO; }\necho end $LINENO\n"
    ),
    "unset_positional_under_set_u": "echo a\nset -u\necho \"$1\"\necho never\n",
    # descriptors that `exec` opens on one line serve the next lines (one shell process)
    "exec_descriptors_outlive_their_line": (
        "f=/tmp/vshell-piped-fd.$$\nexec 3>$f\necho hi >&3\nexec 4<$f\n"
        "read -u 4 x; echo \"got $x\"\nexec 3>&- 4<&-\necho more >&3\ncat $f; rm $f\n"
    ),
    "exec_redirects_of_stdout_outlive_their_line": (
        "f=/tmp/vshell-piped-out.$$\nexec 3>&1\nexec >$f\necho one\nexec >&3 3>&-\n"
        "echo two\nexec 2>&1\nls /nonexistent-dir-x\ncat $f; rm $f\n"
    ),
}


def run_vshell(script: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "vshell"], input=script.encode(),
                          capture_output=True, timeout=60, cwd=REPO)


def first_lines(stderr: bytes) -> list[bytes]:
    """stderr lines with the shell's name (bash: / vshell:) cut off."""
    out = []
    for line in stderr.splitlines():
        out.append(line.split(b":", 1)[1] if b":" in line else line)
    return out


@pytest.mark.skipif(BASH is None, reason="bash is the oracle")
@pytest.mark.parametrize("name", sorted(CASES))
def test_piped_script_matches_bash(name: str) -> None:
    script = CASES[name]
    want = subprocess.run([BASH, "-s"], input=script.encode(), capture_output=True,
                          timeout=20)
    got = run_vshell(script)
    assert (got.stdout, got.returncode) == (want.stdout, want.returncode)
    # every message bash gives, vshell gives with the same line number
    got_err = first_lines(got.stderr)
    for line in first_lines(want.stderr):
        assert line in got_err


@pytest.mark.skipif(BASH is None, reason="bash is the oracle")
def test_bash_reading_stdin_in_the_sandbox_counts_lines_on() -> None:
    script = CASES["lineno_read_heredoc_if_function_trap"]
    want = subprocess.run([BASH, "-s"], input=script.encode(), capture_output=True,
                          timeout=20)
    sb = Sandbox()
    res = sb.exec("bash", stdin=script.encode())
    assert res.stdout == want.stdout
    assert res.exit_code == want.returncode


def _child_cpu() -> float:
    use = resource.getrusage(resource.RUSAGE_CHILDREN)
    return use.ru_utime + use.ru_stime


def _piped_seconds(lines: int) -> float:
    """CPU seconds vshell takes over a piped script of ``lines`` commands (CPU, not wall
    time: the machine may be busy)."""
    script = "".join(f"x={i}; echo $x $LINENO\n" for i in range(lines))
    start = _child_cpu()
    res = run_vshell(script)
    took = _child_cpu() - start
    assert res.returncode == 0
    if lines:
        assert res.stdout.splitlines()[-1] == f"{lines - 1} {lines}".encode()
    return took


def test_piped_script_time_is_linear_in_its_length() -> None:
    startup = min(_piped_seconds(0), _piped_seconds(0))
    t2000 = _piped_seconds(2000) - startup
    t4000 = _piped_seconds(4000) - startup
    # padding each command with the lines before it made this ratio about 4
    assert t4000 < 2.5 * t2000, (t2000, t4000)
