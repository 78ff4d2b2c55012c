"""tr against GNU coreutils on this host."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_text_common import ids, make_root, same  # noqa: E402

STDIN = b"Hello, World!\n\taab  bbccc 123 \\ x-y [z] \x00\xff\xc3\xa9\n" * 50
CASES = [
    [],
    ["a"],
    ["-d", "a", "b"],
    ["a", "b", "c"],
    ["z-a", "x"],
    ["a", ""],
    ["[:digit:]", "[:alpha:]"],
    ["-s"],
    ["a-z", "A-Z"],
    ["[:lower:]", "[:upper:]"],
    ["[:upper:]", "[:lower:]"],
    ["-c", "a-z", "[X*]"],
    ["a-z", "A-C"],
    ["-t", "a-z", "A-C"],
    ["\\\\", "x"],
    ["abc", "\\101\\x"],
    ["-d", "\\"],
    ["a", "[b*2]"],
    ["-s", "a-z"],
    ["-s", " "],
    ["-d", "[:space:]"],
    ["-cd", "[:alnum:]"],
    ["-ds", "a", "b"],
    ["-s", "a-z", "A-Z"],
    ["-c", "[:alpha:]", "\\n"],
    ["-cs", "[:alpha:]", "\\n"],
    ["[:alpha:]", "x"],
    ["a-", "xy"],
    ["a\\-b", "xyz"],
    ["[:foo:]", "x"],
    ["\\0", "x"],
    ["\\377", "y"],
    ["-d", "\\000-\\037"],
    ["[=a=]", "b"],
    ["[x*3]", "y"],
    ["abc", "[x*]yz"],
    ["a-c", "[x*2]Z"],
    ["-C", "a", "b"],
    ["-s", "l", "-"],
    ["lo", "0-9"],
    ["[:punct:]", "_"],
    ["-d", "[:punct:][:digit:]"],
    ["[]", "xy"],
    ["[a", "xy"],
    ["a]", "xy"],
    ["-s", "\\n"],
    ["[:upper:]", "x"],
    ["-t", "abc", "x"],
    ["-d", "-s", "ab"],
    ["-sd", "l", "o"],
    ["--help"],
    ["-x"],
    ["\\t\\n", "TN"],
    ["-d", "\\\\"],
    ["a-c-e", "123"],
    ["[:xdigit:]", "X"],
    ["-d", "[:cntrl:]"],
    ["[:blank:]", "_"],
    ["-c", "\\n", "x"],
    ["\\ooo", "x"],
]


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return make_root(tmp_path_factory, {})


@pytest.mark.parametrize("args", CASES, ids=ids)
def test_tr(root, args):
    same(root, ["tr", *args], STDIN)


def test_tr_squeeze_across_chunks(root):
    data = b"a" * 70000 + b"b" + b" " * 140000 + b"c"
    same(root, ["tr", "-s", "a "], data)
