"""patch against GNU patch 2.7.6 on this host: messages, status, results and rejects."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent))

from cmdharness import run_cmd, run_gnu, write_files  # noqa: E402


def _seq(a: int, b: int, **repl: str) -> str:
    return "".join(repl.get(f"l{i}", str(i)) + "\n" for i in range(a, b + 1))


U1 = """--- a/f\t2020-01-01 00:00:00.000000000 +0000
+++ b/f\t2020-01-01 00:00:00.000000000 +0000
@@ -2,7 +2,7 @@
 2
 3
 4
-5
+five
 6
 7
 8
@@ -12,7 +12,7 @@
 12
 13
 14
-15
+fifteen
 16
 17
 18
"""
GROW = """--- f
+++ f
@@ -2,6 +2,9 @@
 2
 3
 4
+n1
+n2
+n3
 5
 6
 7
@@ -17,7 +20,7 @@
 17
 18
 19
-20
+X
 21
 22
 23
"""
CREATE = "--- /dev/null\n+++ b/sub/new.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\n"
DELETE = "--- a/gone\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-x\n-y\n"
NOEOL = "--- a/t\n+++ b/t\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n"
ADDEOL = "--- a/t\n+++ b/t\n@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n"
MULTI = (
    "--- a/m1\n+++ b/m1\n@@ -1 +1 @@\n-one\n+ONE\n"
    "--- a/m2\n+++ b/m2\n@@ -1,2 +1,3 @@\n two\n+2.5\n three\n"
)
NORMAL = "2c2\n< 2\n---\n> two\n5a6\n> new\n"
CONTEXT = (
    "*** f\n"
    "--- f\n"
    "***************\n"
    "*** 2,18 ****\n"
    "  2\n"
    "  3\n"
    "  4\n"
    "! 5\n"
    "  6\n"
    "  7\n"
    "  8\n"
    "  9\n"
    "- 10\n"
    "  11\n"
    "  12\n"
    "  13\n"
    "  14\n"
    "! 15\n"
    "  16\n"
    "  17\n"
    "  18\n"
    "--- 2,17 ----\n"
    "  2\n"
    "  3\n"
    "  4\n"
    "! five\n"
    "  6\n"
    "  7\n"
    "  8\n"
    "  9\n"
    "  11\n"
    "  12\n"
    "  13\n"
    "  14\n"
    "! fifteen\n"
    "  16\n"
    "  17\n"
    "  18\n"
    "*** h\n"
    "--- h\n"
    "***************\n"
    "*** 1,2 ****\n"
    "  x\n"
    "! y\n"
    "--- 1,3 ----\n"
    "  x\n"
    "! Y\n"
    "! z\n"
    "*** n1\n"
    "--- n1\n"
    "***************\n"
    "*** 1,2 ****\n"
    "  x\n"
    "! y\n"
    "\\ No newline at end of file\n"
    "--- 1,2 ----\n"
    "  x\n"
    "! q\n"
)
MISSING = "--- nofile\n+++ nofile\n@@ -1 +1 @@\n-a\n+b\n"
DANGER = "--- /etc/x\n+++ ../x\n@@ -1 +1 @@\n-a\n+b\n"

SCENARIOS = {
    "exact": ({"f": _seq(1, 20)}, U1, ["-p1"]),
    "offset": ({"f": "0\n00\n" + _seq(1, 20)}, U1, ["-p1"]),
    "neg-offset": ({"f": _seq(3, 20)}, U1, ["-p1"]),
    "fail2": ({"f": _seq(1, 20, l15="X")}, U1, ["-p1"]),
    "fail-all": ({"f": "x\ny\n"}, U1, ["-p1"]),
    "reversed": ({"f": _seq(1, 20, l5="five", l15="fifteen")}, U1, ["-p1"]),
    "reversed-N": ({"f": _seq(1, 20, l5="five", l15="fifteen")}, U1, ["-p1", "-N"]),
    "R": ({"f": _seq(1, 20, l5="five", l15="fifteen")}, U1, ["-p1", "-R"]),
    "R-unrev": ({"f": _seq(1, 20)}, U1, ["-p1", "-R"]),
    "dry": ({"f": "0\n" + _seq(1, 20)}, U1, ["-p1", "--dry-run"]),
    "silent": ({"f": "0\n" + _seq(1, 20)}, U1, ["-p1", "-s"]),
    "silent-fail": ({"f": _seq(1, 20, l15="X")}, U1, ["-p1", "-s"]),
    "grow": ({"f": "0\n00\n" + _seq(1, 30)}, GROW, []),
    "grow-fail": ({"f": "0\n00\n" + _seq(1, 30, l20="Y")}, GROW, []),
    "create": ({}, CREATE, ["-p1"]),
    "delete": ({"gone": "x\ny\n"}, DELETE, ["-p1"]),
    "noeol": ({"t": "a\nb"}, NOEOL, ["-p1"]),
    "addeol": ({"t": "a\nb\n"}, ADDEOL, ["-p1"]),
    "multi": ({"m1": "one\n", "m2": "two\nthree\n"}, MULTI, ["-p1"]),
    "normal": ({"n": _seq(1, 6)}, NORMAL, ["n"]),
    "output": ({"f": _seq(1, 20)}, U1, ["-p1", "-o", "out"]),
    "missing": ({}, MISSING, []),
    "danger": ({}, DANGER, []),
    "garbage": ({}, "garbage\n", []),
    "p0-dir": ({"a/f": _seq(1, 20)}, U1, ["-p0"]),
    "backup": ({"f": _seq(1, 20)}, U1, ["-p1", "-b"]),
    "nobackup": ({"f": "0\n" + _seq(1, 20)}, U1, ["-p1", "--no-backup-if-mismatch"]),
    "context": ({"f": _seq(1, 20), "h": "x\ny\n", "n1": "x\ny"}, CONTEXT, []),
    "context-R": ({"f": _seq(1, 20), "h": "x\ny\n", "n1": "x\ny"}, CONTEXT, ["-R"]),
    "fuzz1": ({"f": _seq(1, 20, l2="TWO")}, U1, ["-p1"]),
    "fuzz1-end": ({"f": _seq(1, 20, l8="EIGHT", l18="X")}, U1, ["-p1"]),
    "fuzz2": ({"f": _seq(1, 20, l2="TWO", l3="THREE", l18="X")}, U1, ["-p1"]),
    "fuzz3-fails": ({"f": _seq(1, 20, l2="A", l3="B", l4="C")}, U1, ["-p1"]),
    "fuzz-offset": ({"f": "0\n" + _seq(1, 20, l2="TWO")}, U1, ["-p1"]),
    "fuzz-off": ({"f": _seq(1, 20, l2="TWO")}, U1, ["-p1", "-F", "0"]),
    "fuzz-F1": ({"f": _seq(1, 20, l2="TWO", l3="THREE")}, U1, ["-p1", "-F1"]),
}


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_patch(tmp_path, name):
    files, text, flags = SCENARIOS[name]
    results = []
    for side in ("gnu", "vsh"):
        root = tmp_path / side
        root.mkdir()
        write_files(root, files)
        argv = ["patch", *flags]
        ran = (run_gnu if side == "gnu" else run_cmd)(root, argv, text.encode())
        results.append((ran.status, ran.stdout, ran.stderr, _tree(root)))
    assert results[1] == results[0]


def test_patch_from_file_option(tmp_path):
    for side in ("gnu", "vsh"):
        root = tmp_path / side
        root.mkdir()
        write_files(root, {"f": _seq(1, 20), "u.patch": U1})
    g = run_gnu(tmp_path / "gnu", ["patch", "-p1", "-i", "u.patch"])
    v = run_cmd(tmp_path / "vsh", ["patch", "-p1", "-i", "u.patch"])
    assert (v.status, v.stdout) == (g.status, g.stdout)
    assert _tree(tmp_path / "vsh") == _tree(tmp_path / "gnu")
    shutil.rmtree(tmp_path)
