"""The ``printf`` builtin against GNU bash: stdout, stderr and status of each script agree.

printf splits a format once and reuses it (``vshell/interp/builtins/printf.py``), so these
scripts reuse formats across calls and passes, and mix conversions, escapes, ``*`` widths,
malformed specs and bad numbers, whose complaints must come at the same point of the
output as bash's.
"""

from __future__ import annotations

import subprocess

import pytest
from tools import needs

from vshell import Sandbox

pytestmark = needs("bash")

SCRIPTS = [
    "printf '%s\\n' b a c b a",
    "printf '%03d|%-5s|%x\\n' 1 ab 17 2 cd 34",
    "for i in 1 2 3; do printf '%03d|%-5s|%x\\n' $i ab $((i*17)); done",
    "printf '%5s|%-5s|%.2s|%5.1s|\\n' abc abc abc abc",
    "printf '%d %i %o %u %x %X\\n' 255 -3 8 -1 255 255",
    "printf '%#o %#x %#X %#5x %#05x %-#6o|\\n' 8 255 255 0 1 8",
    "printf '%+d % d %05d %-5d|\\n' 5 5 5 5",
    "printf '%.3d %8.3d %-8.3d|\\n' 7 7 7",
    "printf '%*d|%-*d|%.*f\\n' 5 42 4 7 2 3.14159",
    "printf '%*d|\\n' -6 1 3 2",
    "printf '%e %E %f %g %G\\n' 1234.5 0.00012 3 1e-10 1e20",
    "printf '%c%c%c\\n' hello w ''",
    "printf '%b|%b\\n' 'a\\tb' 'c\\\\n'",
    "printf '%b and %s\\n' 'x\\cy' z; echo after",
    "printf '%q %q\\n' 'a b' \"it's\"",
    "printf '100%%\\n'; printf '%%d\\n' 1 2",
    "printf '%5%|\\n' a b; echo status $?",
    "printf '%-%|' a; printf '%.%|' a; printf '%0%|' a; printf '%%|' a",
    "printf '%c|%3c|%-2c|' '' ''; printf 'x%cy'",
    "printf '%d\\n' 12abc 0x1F 010 ' 7' '+3' -0 \"'A\" 1 2",
    "printf '%s\\n' a%b 'c%%d'; printf 'z%sz\\n'",
    "printf 'a%q\\n' 1; printf '%y'; echo $?",
    "printf 'no conversions\\n' a b c",
    "printf '\\045d \\x41\\101 \\u00e9\\n' 1",
    "printf '%s=%d\\n' a 1 b 2 c",
    "printf '%d %s\\n' 1 2 3",
    "printf 'a%' ; echo status $?",
    "printf 'x\\y\\n' 1 2",
    "printf 'a\\xb\\xg\\n'",
    "printf '\\u\\n'",
    "printf -v v '%s-%s' a b c d; echo \"$v\"",
    "printf '%s' a b c; echo",
    "printf '%.0s' a b c; echo done",
    "printf '%s %s %s\\n' $(seq 1 7)",
    "printf '%f|%.1f|%10.3f|\\n' 1 2.25 -3.5",
    "printf '%s\\n' 'é' '\\n'",
    "f='%s:%d\\n'; printf \"$f\" a 1; printf \"$f\" b 2 c 3",
    "printf '%(%Y)T\\n' 0 | wc -c",
    "printf '%-3c|%3c|\\n' a b",
    "printf '%i|%5i|%-5i|\\n' 3 4 5",
    "printf '%x %o\\n' -1 -1",
]


def _bash(script: str) -> tuple[int, bytes, bytes]:
    p = subprocess.run(["bash", "-c", script], capture_output=True, timeout=30,
                       env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "HOME": "/",
                            "TZ": "UTC"})
    return p.returncode, p.stdout, p.stderr


@pytest.fixture(scope="module")
def sandbox():
    with Sandbox(timeout=30, env={"TZ": "UTC"}) as sb:
        yield sb


@pytest.mark.parametrize("script", SCRIPTS)
def test_printf_same_as_bash(sandbox: Sandbox, script: str) -> None:
    want_status, want_out, want_err = _bash(script)
    # twice: the second run takes the format from the cache of split formats
    for _ in range(2):
        res = sandbox.exec(script)
        assert res.stdout == want_out, (res.stdout, want_out, res.stderr)
        assert res.exit_code == want_status, (res.exit_code, want_status, res.stderr)
        got_err = res.stderr.replace(b"vshell: ", b"bash: ").replace(b"line 1: ", b"")
        assert got_err == want_err.replace(b"line 1: ", b""), (got_err, want_err)
