"""C escapes in all four places bash decodes them ($'…', echo -e, printf's format, %b),
vshell against bash 5.2 (C.UTF-8), plus the decoder's modes directly."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from vshell import Sandbox
from vshell.text import escapes

ESCAPES = [
    r"\a", r"\b", r"\e", r"\E", r"\f", r"\n", r"\r", r"\t", r"\v", r"\\", r"\'", r"\"", r"\?",
    r"\q", r"\101", r"\0101", r"\01", r"\0", r"\08", r"\1018", r"\400", r"\777", r"\x41",
    r"\x4", r"\xg", r"\x414", r"\xff", r"\xce\xbc", r"\u263a", r"\u", r"\uZ", r"\U1F600",
    r"\UFFFFFFFF", r"\U110000", r"\UD800", r"\ud800", r"\U0010FFFF", r"\U7FFFFFFF", r"\cA",
    r"\c", r"\c?", r"\ca", r"\c[", r"\c\\", "tail\\",
]


def _script() -> str:
    """One line per escape and mode, each as hex bytes (so NUL and \\c are visible)."""
    lines = []
    for e in ESCAPES:
        q = e.replace("'", "'\\''")
        lines.append(
            f"e='{q}'; "
            "eval \"printf %s \\$'$e'x\" | od -An -tx1 | tr -d ' \\n'; echo; "
            "echo -ne \"$e\"x | od -An -tx1 | tr -d ' \\n'; echo; "
            "printf \"$e\"x 2>/dev/null | od -An -tx1 | tr -d ' \\n'; echo; "
            "printf %b \"$e\"x 2>/dev/null | od -An -tx1 | tr -d ' \\n'; echo"
        )
    return "\n".join(lines) + "\n"


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash not available")
def test_all_modes_against_bash() -> None:
    script = _script()
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C.UTF-8"}
    want = subprocess.run(["bash", "-c", script], capture_output=True, env=env,
                          timeout=60).stdout.decode().splitlines()
    with Sandbox(timeout=60) as sb:
        got = sb.exec(script).stdout.decode().splitlines()
    modes = ["$'...'", "echo -e", "printf", "%b"]
    bad = [(ESCAPES[k // 4], modes[k % 4], w, g)
           for k, (w, g) in enumerate(zip(want, got, strict=True)) if w != g]
    assert len(want) == 4 * len(ESCAPES)
    assert bad == []


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash not available")
def test_printf_format_and_complaints_against_bash() -> None:
    script = (r"printf '\045d|\n' 5; printf '\%d|\n' 5; printf '%s\c%s|\n' a b; "
              r"printf '%b|%s\n' 'a\cb' z; printf '\xg' 2>&1; echo \ $?; "
              r"printf %b '\u' 2>&1; echo \ $?")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C.UTF-8"}
    want = subprocess.run(["bash", "-c", script], capture_output=True, env=env,
                          timeout=60).stdout.decode().replace("bash: ", "")
    with Sandbox(timeout=60) as sb:
        got = sb.exec(script).stdout.decode().replace("vshell: ", "")
    assert got == want


def test_modes_directly() -> None:
    d = escapes.decode
    assert d(r"a\cb", escapes.ECHO) == escapes.Decoded("a", True)
    assert d(r"a\cb", escapes.PRINTF) == escapes.Decoded(r"a\cb")
    assert d(r"\cA", escapes.ANSI_C).text == "\x01"
    assert d(r"\101", escapes.ECHO).text == r"\101"
    assert d(r"\101", escapes.PRINTF_B).text == "A"
    assert d(r"\0101", escapes.PRINTF).text == "\b1"
    assert d(r"\xce\xbc", escapes.ANSI_C).text == "\u03bc"
    assert d(r"\xff", escapes.ANSI_C).text.encode("utf-8", "surrogateescape") == b"\xff"
    assert d(r"\UFFFFFFFF", escapes.ECHO).text == ""
    assert d(r"\xg", escapes.PRINTF).errors == ("missing hex digit for \\x",)
    assert d(r"\xg", escapes.ECHO).errors == ()


# awk string literals (escapes.AWK): \NNN and \xHH above 127 are bytes, as gawk writes them,
# and a run of them spelling UTF-8 is that character
AWK_ESCAPES = [
    r"\n", r"\t", r"\\", r"\"", r"\/", r"\a", r"\b", r"\f", r"\v", r"\r", r"\101", r"\0101",
    r"\1", r"\18", r"\x41", r"\x414", r"\x4g", r"\xg", r"\q", r"\e", r"\E", r"\'", r"\?",
    r"\c", r"\u263a", "a\\\nb", r"\351", r"\xe9", r"\303\251", r"\xce\xbcx", r"\377\376",
]


@pytest.mark.skipif(shutil.which("gawk") is None, reason="gawk not available")
@pytest.mark.parametrize("escape", AWK_ESCAPES)
def test_awk_mode_against_gawk(escape: str) -> None:
    program = 'BEGIN { printf "%s|", "' + escape + '" }'
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C.UTF-8"}
    want = subprocess.run(["gawk", program], capture_output=True, env=env, timeout=60).stdout
    with Sandbox(timeout=60) as sb:
        sb.set_script(args=[program])
        got = sb.exec('awk "$1"').stdout
    assert want.endswith(b"|")
    assert got == want


def test_awk_mode_directly() -> None:
    d = escapes.decode
    assert d(r"\q", escapes.AWK) == escapes.Decoded("q", False,
                                                   ("escape sequence `\\q' treated as plain `q'",))
    assert d("a\\\nb", escapes.AWK).text == "ab"
    assert d(r"\351", escapes.AWK).text == "\udce9"  # a byte (surrogate-escaped), not é
    assert d(r"\303\251", escapes.AWK).text == "\xe9"  # two bytes spelling é
    assert d(r"\e\u", escapes.AWK).text == "eu"
