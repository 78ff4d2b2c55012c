"""less and more against less 590 and util-linux more, writing to a pipe as in the sandbox."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_text_common import ids, make_root, same  # noqa: E402

FILES = {"x": "a\nb\n", "y": "c\n", "z": "one\n\n\n\ntwo\x1b[1mbold\x1b[0m\n", "noeol": "tail"}
STDIN = b"from stdin\n"
LESS = [
    ["less", "x"], ["less", "-R", "z"], ["less", "-RSNFX", "x", "y"], ["less", "-S", "-N", "z"],
    ["less", "-F", "-X", "noeol"], ["less"], ["less", "-"], ["less", "nofile"],
    ["less", "nofile", "x"], ["less", "d"], ["less", "-x4", "x"], ["less", "-x", "4", "x"],
    ["less", "+G", "x"], ["less", "-p", "b", "x"], ["less", "--RAW-CONTROL-CHARS", "z"],
    ["less", "--chop-long-lines", "x"], ["less", "-Z", "x"], ["less", "--nosuch", "x"],
    ["less", "-i", "-M", "--", "x"],
]
MORE = [
    ["more", "x"], ["more", "x", "y"], ["more", "-s", "z"], ["more", "-d", "-c", "x"],
    ["more", "+2", "z"], ["more", "-n", "3", "x"], ["more", "-5", "x"], ["more", "nofile"],
    ["more", "nofile", "y"], ["more", "d"], ["more", "noeol", "x"], ["more", "-Z", "x"],
    ["more", "--squeeze", "x"], ["more", "--lines=4", "x"], ["more", "--nosuch", "x"],
    ["more", "-n"], ["more", "--", "x"], ["more"],
]

pytestmark = pytest.mark.skipif(
    shutil.which("less") is None or shutil.which("more") is None,
    reason="needs less and util-linux more as the oracles (apt-get install less util-linux)",
)


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return make_root(tmp_path_factory, FILES)


@pytest.mark.parametrize("argv", LESS + MORE, ids=ids)
def test_pager_on_a_pipe(root, argv):
    same(root, argv, STDIN if argv in (["less"], ["less", "-"], ["more"]) else b"")
