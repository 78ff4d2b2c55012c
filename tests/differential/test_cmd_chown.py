"""chown and chgrp against GNU coreutils run as an unprivileged user (uid 1000).

The sandbox user owns every file; GNU run as uid 1000 over files that uid owns is the same
situation, so its output (with the host's name for uid 1000 given to vshell as ``$USER``)
must match byte for byte.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent))

from cmdharness import GNU_ENV, run_cmd  # noqa: E402

try:
    HOST_USER = pwd.getpwuid(1000).pw_name
except KeyError:
    HOST_USER = None

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None or HOST_USER is None,
    reason="needs root, setpriv and a host user with uid 1000 to run GNU chown unprivileged",
)

CASES = [
    ["chown", "root", "f"], ["chown", "1000", "f"], ["chown", "USER", "f"],
    ["chown", "USER:USER", "f"], ["chown", "USER:", "f"], ["chown", "1000:", "f"],
    ["chown", ":1000", "f"], ["chown", "0:0", "f"], ["chown", "-v", "1000", "f"],
    ["chown", "-c", "1000", "f"], ["chown", "-v", "root", "f"], ["chown", "-v", "0:0", "f"],
    ["chown", "-v", ":0", "f"], ["chown", "-v", "USER:1000", "f", "g"], ["chown", "-f", "0", "f"],
    ["chown", "nosuch", "f"], ["chown", "USER:nosuch", "f"], ["chown", "1000", "nofile"],
    ["chown", "-R", "0", "d"], ["chown", "-R", "1000", "d"], ["chown", "-Rv", "1000", "d"],
    ["chown", "-R", "-v", "0", "d"], ["chown"], ["chown", "0"], ["chown", "-z", "0", "f"],
    ["chown", "--reference=f", "g"], ["chown", "--reference=nofile", "g"],
    ["chown", "-h", "1000", "link"], ["chown", "1000", "f", "nofile", "g"],
    ["chgrp", "root", "f"], ["chgrp", "1000", "f"], ["chgrp", "-v", "1000", "f"],
    ["chgrp", "-v", "0", "f"], ["chgrp", "nosuch", "f"], ["chgrp", "-R", "0", "d"],
    ["chgrp", "-c", "USER", "f"], ["chgrp"], ["chgrp", "1000"], ["chgrp", "-f", "root", "f"],
    ["chown", "1000", "dangling"], ["chown", "-h", "1000", "dangling"],
    ["chgrp", "1000", "dangling"],
    ["chown", "-R", "1000", "d"], ["chown", "--dereference", "-h", "1000", "dangling"],
    ["chown", "-h", "--dereference", "1000", "dangling"], ["chown", "-v", "1000", "link"],
    ["chown", "--from=root", "0", "f"], ["chown", "-v", "--from=root", "0", "f"],
    ["chown", "-v", "--from=1000", "1000", "f"], ["chown", "--from=1000", "0", "f"],
    ["chown", "--from=nosuch", "0", "f"], ["chown", "--from=USER:0", "0", "f"],
    ["chgrp", "--from=root", "0", "f"], ["chown", "-vRP", "0", "lsd"],
    ["chown", "-vRL", "0", "lsd"], ["chown", "-vRH", "0", "lsd"], ["chown", "-vRH", "0", "top"],
    ["chown", "-vRL", "0", "top"], ["chown", "-vRP", "0", "top"],
    ["chown", "-R", "--preserve-root", "0", "/"],
    ["chown", "--preserve-root", "0", "f"], ["chown", "-R", "0", "dangling"],
]


@pytest.fixture()
def root(tmp_path: Path) -> Path:
    (tmp_path / "f").write_text("x")
    (tmp_path / "g").write_text("y")
    (tmp_path / "d" / "e").mkdir(parents=True)
    (tmp_path / "d" / "e" / "h").write_text("z")
    (tmp_path / "link").symlink_to("f")
    (tmp_path / "d" / "dl").symlink_to("nowhere")
    (tmp_path / "dangling").symlink_to("nowhere")
    (tmp_path / "sd" / "in").mkdir(parents=True)
    (tmp_path / "lsd").symlink_to("sd")
    (tmp_path / "top").mkdir()
    (tmp_path / "top" / "inner").symlink_to("../sd")
    os.chmod(tmp_path, 0o755)
    for dirpath, dirnames, filenames in os.walk(tmp_path):
        for n in [dirpath, *(os.path.join(dirpath, x) for x in dirnames + filenames)]:
            os.lchown(n, 1000, 1000)
    return tmp_path


@pytest.mark.parametrize("argv", CASES, ids=lambda a: " ".join(a))
def test_chown_as_unprivileged_gnu(root: Path, argv: list[str]) -> None:
    argv = [a.replace("USER", HOST_USER) for a in argv]
    p = subprocess.run(["setpriv", "--reuid=1000", "--regid=1000", "--clear-groups", *argv],
                       cwd=root, capture_output=True, env=GNU_ENV, timeout=30)
    got = run_cmd(root, argv, env=dict(GNU_ENV, USER=HOST_USER))
    assert (got.status, got.stdout, got.stderr) == (p.returncode, p.stdout, p.stderr)


def test_root_may_give_files_away(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    got = run_cmd(tmp_path, ["chown", "0:0", "f"], env=dict(GNU_ENV, USER="root"))
    assert (got.status, got.stderr) == (0, b"")
