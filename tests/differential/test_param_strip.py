"""``${v#pat}``, ``${v##pat}``, ``${v%pat}`` and ``${v%%pat}`` against bash.

Patterns of the shapes ``*LIT`` and ``LIT*`` (``${path##*/}``, ``${file%.*}``, ``${kv#*=}``,
the ones agents write most) are matched with string searches, not the pattern automaton:
these cases hold the two ways to the same answers, over values with and without the
literal, at either end, repeated, empty, multibyte, and with a quoted ``*`` in the pattern.
"""

from __future__ import annotations

import subprocess

import pytest
from tools import needs

from vshell import Sandbox

pytestmark = needs("bash")

VALUES = ["", "a/b/c", "/a/b/", "a.b.c.tar.gz", "noslash", "x==y=z", "aaa", "héllo/wörld",
          "a*b/c", "//", "..", "=", "a"]
OPS = ["${v#*/}", "${v##*/}", "${v%/*}", "${v%%/*}", "${v#*.}", "${v##*.}", "${v%.*}",
       "${v%%.*}", "${v#*=}", "${v##*=}", "${v#a*}", "${v##a*}", "${v%*c}", "${v%%*c}",
       "${v#*}", "${v##*}", "${v%*}", "${v%%*}", "${v#*aa}", "${v%aa*}", "${v%%aa*}",
       "${v##*aa}", '${v#"*"*}', "${v%\\**}", "${v#*ö}", "${v%l*}", "${v#[a-z]*}",
       "${v%?*}", "${v##*[./]}", "${v#*(a)}"]


@pytest.mark.parametrize("value", VALUES)
def test_strip_matches_bash(value: str) -> None:
    script = f"v='{value}'\n" + "".join(f"printf '%s|' \"{op}\"; " for op in OPS) + "echo"
    want = subprocess.run(["bash", "-c", script], capture_output=True).stdout
    got = Sandbox().exec(script).stdout
    assert got == want
