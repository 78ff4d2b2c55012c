"""Host reference tools the tests compare vshell against, and how a test asks for one.

A differential test needs the real tool as its oracle.  ``require("tree")`` skips the test
(with the tool and the Debian package to install) when the tool is not on the PATH the
tests run with, so a fresh machine skips these tests instead of failing them; hiding a
tool by leaving its directory off PATH simulates that.  ``ORACLES`` lists every tool the
suite uses, for CI to install.
"""

from __future__ import annotations

import functools
import shutil
import subprocess

import pytest

# tool -> the Debian package that provides it
ORACLES: dict[str, str] = {
    "bash": "bash", "sh": "dash", "cat": "coreutils", "ls": "coreutils", "sort": "coreutils",
    "numfmt": "coreutils", "stat": "coreutils", "setpriv": "util-linux", "more": "util-linux",
    "grep": "grep", "sed": "sed", "find": "findutils", "xargs": "findutils", "diff": "diffutils",
    "cmp": "diffutils", "patch": "patch", "gzip": "gzip", "tar": "tar", "gawk": "gawk",
    "mawk": "mawk", "original-awk": "original-awk", "jq": "jq", "bc": "bc", "xxd": "xxd",
    "file": "file", "tree": "tree", "tmux": "tmux", "column": "bsdextrautils",
    "hexdump": "bsdextrautils", "iconv": "libc-bin", "less": "less", "curl": "curl",
    "pgrep": "procps", "strings": "binutils", "rev": "bsdextrautils", "egrep": "grep",
    "fgrep": "grep", "sha256sum": "coreutils", "yq": "yq",
}


@functools.cache
def have(tool: str) -> bool:
    """Whether ``tool`` is on the PATH the tests run with."""
    return shutil.which(tool) is not None


def why(*tools: str) -> str:
    missing = [t for t in tools if not have(t)]
    packages = sorted({ORACLES.get(t, t) for t in missing})
    return (f"needs host tool {', '.join(missing)} as the oracle "
            f"(apt-get install {' '.join(packages)})")


def require(*tools: str) -> None:
    """Skip the running test unless every tool is installed."""
    if not all(have(t) for t in tools):
        pytest.skip(why(*tools))


def needs(*tools: str) -> pytest.MarkDecorator:
    """A skipif mark for a test (or a module's ``pytestmark``) that runs these tools."""
    return pytest.mark.skipif(not all(have(t) for t in tools), reason=why(*tools))


@functools.cache
def gnu_awk_is_awk() -> bool:
    """Whether plain ``awk`` on this host is GNU awk (Debian's default is mawk)."""
    if not have("awk"):
        return False
    out = subprocess.run(["awk", "--version"], capture_output=True, text=True)
    return out.stdout.startswith("GNU Awk")
