"""numfmt against GNU coreutils numfmt on this host."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_text_common import ids, make_root, same  # noqa: E402

pytestmark = pytest.mark.skipif(shutil.which("numfmt") is None,
                                reason="needs GNU numfmt (coreutils) as the oracle")

ARGS = [
    ["1.5"], ["1.50"], ["--from=si", "1.5K"], ["--from=auto", "1.5Ki"], ["--from=si", "1k"],
    ["--from=iec", "1Ki"], ["--from=iec-i", "1K"], ["--from=iec-i", "1Ki"], ["--to=si", "1500"],
    ["--to=si", "999999"], ["--to=si", "9999"], ["--to=si", "99999"], ["--to=iec", "1048576"],
    ["--to=iec-i", "1536"], ["--to=si", "1"], ["--to=si", "0"], ["--to=si", "--", "-1500"],
    ["--to=si", "-1500"], ["--to=si", "1.5"], ["--to=si", "15.5"], ["--to=si", "0.5"],
    ["--to=si", "--round=down", "1999"], ["--to=si", "--round=up", "1001"],
    ["--to=si", "--round=nearest", "1050"], ["--to=si", "--round=nearest", "1250"],
    ["--to=si", "--round=towards-zero", "--", "-1999"], ["--to=si", "--round=down", "--", "-1999"],
    ["--to=si", "--round=up", "--", "-1999"], ["--to=si", "--round=from-zero", "1001"],
    ["--round=near", "--to=si", "1050"], ["--round=bad", "1"], ["--to=xx", "1"],
    ["1000K"], ["abc"], ["--from=si", "1.5X"], ["--to=si", "--suffix=B", "1500"],
    ["--suffix=B", "1500B"], ["--from=si", "--suffix=B", "2KB"], ["--padding=8", "123"],
    ["--padding=-8", "123"], ["--to=si", "--padding=6", "1500"], ["--format=%08.2f", "3.14159"],
    ["--format=%-10f|", "5"], ["--format=x%fy", "5"], ["--format=%'f", "1234567"],
    ["--format=%.3f", "--to=si", "1234567"], ["--to=si", "--format=%.0f", "1234567"],
    ["--format=%.3f", "--to=si", "12"], ["--format=%.2f", "12"],
    ["--format=%05f", "--to=si", "1500"],
    ["--format=%.1f", "12345678901234567"], ["--format=abc%"], ["--format=%.f", "1.5"],
    ["--format=%.-1f", "1"], ["--format=% f", "1"], ["--format=%d", "1"], ["--format=abc", "1"],
    ["--format=%f%f", "1"], ["--format=%5.1f", "2.25"], ["--format=%e", "1"],
    ["--format=%010f", "5"], ["--format=%-010f", "5"], ["--format=%+f", "5"],
    ["--format=%%f %f", "5"], ["--format=%10f", "--padding=4", "3"],
    ["--to=si", "--padding=10", "--suffix=B", "2000"], ["--to=si", "--suffix= B", "2000"],
    ["--from-unit=1024", "1"], ["--to-unit=1000", "5000"], ["--from-unit=K", "1"],
    ["--to-unit=Ki", "2048"], ["--from-unit=abc", "1"], ["--from-unit=0", "1"],
    ["--to-unit=3", "10"], ["1e3"], [" 12"], ["--from=si", "1KK"], ["--to=si", "1e30"],
    ["--to=si", "123456789012345678901234567890"], ["--to=si", "123456789012345678901234567"],
    ["--to=iec", "1023"], ["--to=iec", "1024"], ["--to=iec", "10239"], ["--to=iec", "10240"],
    ["1234567890123456789"], ["99999999999999999999"], ["--from=si", "1000Y"],
    ["--from=si", "1.0005K"], ["--from=si", "1.2345M"], ["0.1"], ["--to=si", "999.5"],
    ["--to=si", "9.95"], ["--from=si", "--to=iec", "1M"], ["--to=si", "1000000000000000000000000"],
    ["--padding=abc", "1"], ["--padding=0", "1"], ["--to=si", "1", "2", "3"],
    ["--from=iec-i", "1"], ["12abc"], ["1.2.3"], [""], [" "], ["1."], [".5"], ["+5"], ["007"],
    ["--to=si", "--", "-0.5"], ["--", "-0.5"], ["--grouping", "--to=si", "1"], ["--grouping", "12"],
    ["--to=iec-i", "1023.5"], ["--from=si", "0.5K"], ["--from=auto", "1G"], ["--from=auto", "1R"],
    ["--field=0", "1"], ["--field=a", "1"], ["--field=2-1", "1"], ["--field=1,,2", "1"],
    ["--header=0", "1"], ["--invalid=x", "1"], ["-d", "ab", "1"], ["--to=si", "  100000"],
    ["--to=si", "1000 2000"], ["--to=si", "--field=2", "1000 2000"], ["--nosuch"],
]
STDIN_CASES = [
    (["--to=si", "--field=2"], "size 1000 x\n  2000   3000\n"),
    (["--to=si"], "  1000\n1000 2000\n"),
    (["-d,", "--to=si", "--field=2-"], "a,1000,2000\n"),
    (["-d,", "--to=si", "--field=-2"], "a,1000,2000\n"),
    (["-d:", "--to=si", "--field=1,3-4"], "a:1000:2000:3000\n"),
    (["-d:", "--to=si", "--field=3-4"], "a:1000:2000:3000\n"),
    (["--header", "--to=si", "--field=1,2"], "h1 h2\n1000 2000\n3000 x\n"),
    (["--header=2", "--to=si"], "h\nh2\n1000\n"),
    (["--to=si", "--invalid=fail"], "1000\nabc\n2000\n"),
    (["--to=si", "--invalid=warn"], "1000\nabc\n2000\n"),
    (["--to=si", "--invalid=ignore"], "1000\nabc\n2000\n"),
    (["--to=si"], "1000\nabc\n2000\n"),
    (["--to=si"], "1000\n\n2000"),
    (["-z", "--to=si"], "1000\0" "2000\0"),
    (["--to=si"], "x 1000\n"),
    (["--to=si", "--field=3"], "1000 y\n"),
    (["--to=si"], "   1500   \n"),
    (["--to=si", "--field=2"], "1000\t2000\n"),
    (["--to=si", "--padding=3"], " 1000\n"),
    (["--to=si", "--field=-", "--invalid=ignore"], "a  100000\n1 100000\n"),
    (["--to=si", "-d", " ", "--field=3"], "  100000\n"),
    (["--padding=6"], "  12\n"),
    (["--padding=3"], "  12345\n"),
    (["--to=si"], "1000 \n"),
    (["--invalid=warn", "--field=2"], "a b\n"),
    (["-d,", "--invalid=fail", "--field=1,2", "--to=si"], "1000,abc\n"),
    (["--to=iec", "--suffix=B", "--padding=7", "--field=1"], "1024 a\n1048576 b\n512 c\n"),
    (["--from=iec", "--to=si"], "1K\n2M\n3G\n"),
    (["--to=iec-i", "--format=%.2f"], "1536\n123456789\n"),
    (["--to=si"], "1000\n2000\n"),
]
VALUES = "".join(f"{v}\n" for v in [
    0, 1, 9, 10, 99, 999, 1000, 1001, 1023, 1024, 1100, 1536, 1999, 9999, 10000, 10239, 10240,
    123456, 999499, 999999, 1000000, 1048576, 12345678, 999999999, 1073741824, 5.5, 0.05,
    -1, -1001, -999999, 123456789012345,
])
SCALED = [([f"--to={to}", f"--round={r}"], VALUES) for to in ("si", "iec", "iec-i")
          for r in ("up", "down", "from-zero", "towards-zero", "nearest")]
SCALED += [([f"--to={to}", "--format=%.2f"], VALUES) for to in ("si", "iec", "none")]
SCALED += [([f"--from={fr}"], "1K\n2.5M\n3Gi\n0.5Ki\n7\n12T\n1.25E\n")
           for fr in ("si", "iec", "auto", "iec-i")]
STDIN_CASES += SCALED
CASES = [["numfmt", *a] for a in ARGS] + [(["numfmt", *a], s) for a, s in STDIN_CASES]


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return make_root(tmp_path_factory, {})


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_numfmt(root, case):
    argv, stdin = case if isinstance(case, tuple) else (case, "")
    same(root, argv, stdin.encode())


def test_numfmt_help(root):
    from cmdharness import run_cmd

    got = run_cmd(root, ["numfmt", "--help"])
    assert got.status == 0 and b"--to=UNIT" in got.stdout
