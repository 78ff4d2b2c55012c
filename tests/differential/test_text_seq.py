"""seq against GNU coreutils on this host."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_text_common import ids, make_root, same  # noqa: E402

ARGS = (
    "1e2 1e2|1.5e1 16|0 0.1 0.3|-w 8 0.5 10|1 1.0 3|-w -1 1|10 -3 1|5 1|1 0 2|x|-f %05.1f 1 3"
    "|-f a%gb 2|-f %d 1|-s, 3|-w 9 11|2.50 3|1 2.5e0 6|1e-2 1e-2 3e-2|0x10 0x12"
    "|99999999999999999999 100000000000000000001|1 1 0x|1.|.5 2|-- -2 -1|1 -0 3|-1 -0.5 -3"
    "|-s : -w 1 3 12|-f %e 1 3|-f %.3g 0.5 0.25 2|-f %% 1|-f x%gy%g 1|-f %10.2f -5 2 5"
    "|0 0.1 1|1 100000|-w 0.9 0.01 1.1|-f %G 1e10 1e10|3 -1 -3|-w -10 5 10|-s x -w -f %g 1"
    "|1 2 3 4|-1|nan|-5|10 -1.5 0|1 .1 1.3|-1e1 -3e0|-f %-8.3f| 1 3|-f %+g -1 1|0 0.01 0.05"
    "|-w 1 0.5 3|1000000 1000002|-s ab 5|-f %.0f 0.5 1 4.5|5 -1 1"
).split("|")
CASES = [["seq", *a.split()] for a in ARGS]
CASES += [
    ["seq"],
    ["seq", "-s", "", "3"],
    ["seq", "-s", "-1", "3"],
    ["seq", "--help"],
    ["seq", "--separator=ab", "3"],
    ["seq", "1", "inf", "x"],
    ["seq", "-f", "%", "1"],
    ["seq", "-f", "abc", "1"],
    ["seq", "1", "300000"],
    # counting up by one runs on tables of the last three digits (seq.py _counting)
    ["seq", "0", "2000"],
    ["seq", "998", "1003"],
    ["seq", "999", "1000"],
    ["seq", "1000", "1000"],
    ["seq", "-7", "1205"],
    ["seq", "999990", "1001010"],
    ["seq", "-s", ", ", "995", "5005"],
    ["seq", "-s", "", "4090", "8200"],
    ["seq", "123456789012345678", "123456789012345999"],
]


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return make_root(tmp_path_factory, {})


@pytest.mark.parametrize("argv", CASES, ids=ids)
def test_seq(root, argv):
    same(root, argv)
