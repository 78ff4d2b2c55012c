"""yq against Debian's yq 3 (kislyuk/yq, a jq wrapper) on this host."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_text_common import ids, make_root, same  # noqa: E402

pytest.importorskip("yaml", reason="vshell's yq needs PyYAML")

FILES = {
    "a.yaml": "name: app\nversion: 1.2\nitems:\n  - a\n  - b\nnested:\n  k: v\n  n: null\n"
    "  t: true\ndate: 2024-01-01\nempty: \"\"\nmulti: |\n  line1\n  line2\nlist:\n"
    "  - {id: 1, tag: x}\n  - {id: 2, tag: y}\nanchor: &A {p: 1}\nref: *A\n"
    "unicode: café\nnum: 007\noct: 0o17\nyes_: yes\nquoted: 'yes'\nten: 010\nhex: 0x1F\n"
    "f: 1.5e3\ninf: .inf\nno: no\ntil: ~\nt2: True\n",
    "multi.yaml": "a: 1\n---\na: 2\n",
    "ci.yml": "jobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - run: make\n"
    "      - uses: actions/checkout@v4\n        with:\n          depth: 1\n",
    "bad.yaml": "bad: [\n",
    "keys.yaml": "1: one\ntrue: t\n2024-01-01: d\n~: n\n1.5: f\n",
}
FILTERS = [
    [".name"], ["-r", ".name"], ["."], ["-c", "."], [".items[]"], ["-y", "."], ["-y", ".nested"],
    ["-y", ".items"], [".date"], ["-r", ".multi"], ["-y", ".multi"], ["-y", ".version"],
    ["--indentless-lists", "-y", "."], ["-y", "--explicit-start", ".nested"],
    ["-y", "--explicit-end", ".nested"], ["-s", "-c", "."], ["-n", "1+1"],
    ["--arg", "x", "5", "-r", "$x"], ["-e", ".nope"], [".ref"], ["-r", ".list[].tag"],
    ["-y", ".list | map(.id)"], ["-c", "[.num, .oct, .yes_, .quoted]"], ["-r", ".unicode"],
    ["-y", "{u: .unicode}"], ["-y", ".list[0] | .id = 9"], ["-c", "keys"], ["-y", "-w", "20", "."],
]
CASES = [["yq", *f, "a.yaml"] for f in FILTERS] + [
    ["yq", ".a", "multi.yaml"], ["yq", "-y", ".", "multi.yaml"], ["yq", "-s", ".", "multi.yaml"],
    ["yq", "-y", "-s", ".", "multi.yaml"],
    ["yq", "-r", ".jobs.test.steps[].run // empty", "ci.yml"],
    ["yq", "-y", ".jobs.test.steps[1]", "ci.yml"], ["yq", "-y", ".x", "nofile.yaml"],
    ["yq", ".", "a.yaml", "multi.yaml"], ["yq", "-c", ".", "-"], ["yq", "-c", ".", "keys.yaml"],
]


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return make_root(tmp_path_factory, FILES)


@pytest.mark.parametrize("argv", CASES, ids=ids)
def test_yq(root, argv):
    same(root, argv, b"k: [1, 2]\n")


def test_yq_in_place(root):
    from cmdharness import run_cmd

    (root / "edit.yaml").write_text("a: 1\nb: [x]\n")
    got = run_cmd(root, ["yq", "-y", "-i", ".a = 2", "edit.yaml"])
    assert got.status == 0 and (root / "edit.yaml").read_text() == "a: 2\nb:\n  - x\n", got
    bad = run_cmd(root, ["yq", "."], stdin=b"bad: [\n")
    assert bad.status == 1 and bad.stderr.startswith(b"yq: Error running jq: ParserError"), bad
