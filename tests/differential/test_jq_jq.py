"""jq against the jq binary on this machine.

The oracle is jq 1.7 semantics; this machine's /usr/bin/jq may be older (Debian 12 ships
1.6), so the table keeps to programs, flags and outputs on which jq 1.6, 1.7 and the
libjq 1.8 we run agree.  Behaviour that changed between versions is pinned in
tests/unit/test_jq.py instead.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.cmdharness import run_cmd

JQ = shutil.which("jq")
pytestmark = pytest.mark.skipif(JQ is None, reason="jq not installed")
ENV = {"LC_ALL": "C.UTF-8", "TZ": "UTC", "PATH": "/usr/bin:/bin", "HOME": "/work"}

FILES = {
    "a.json": '{"name": "x", "tags": ["a", "b"], "n": 3, "nested": {"k": [1, {"z": null}]}}\n',
    "lines.jsonl": '{"id": 1, "v": "a"}\n{"id": 2, "v": "b"}\n{"id": 3, "v": null}\n',
    "arr.json": '[3, 1, 2, {"b": 1, "a": 2}, "s", null, true, false, [], {}]\n',
    "prog.jq": ".tags | map(ascii_upcase)\n",
    "text.txt": "line one\nline two\n\nlast",
}

DOC = b'{"users": [{"name": "ann", "age": 31, "roles": ["admin", "dev"]}, ' \
      b'{"name": "bob", "age": 25, "roles": []}, {"name": "cy", "age": 40, "roles": ["dev"]}]}'

CASES: list[tuple[list[str], bytes]] = [
    ([".", "a.json"], b""),
    (["-c", ".", "a.json"], b""),
    (["."], DOC),
    (["-c", ".users[] | select(.age > 30) | .name"], DOC),
    (["-r", ".users[].name"], DOC),
    (["-j", ".users[].name"], DOC),
    (["[.users[] | {name, n: (.roles | length)}]"], DOC),
    (["-c", ".users | map(.age) | add, min, max, (add / length)"], DOC),
    (["-c", ".users | sort_by(.age) | reverse | map(.name)"], DOC),
    (["-c", ".users | group_by(.roles | length) | map(map(.name))"], DOC),
    (["-c", "[.users[] | .roles[]] | unique"], DOC),
    (["-c", ".users[0] | keys, to_entries, with_entries(.value |= tostring)"], DOC),
    (["-c", "paths", "a.json"], b""),
    (["-c", "[paths(type == \"number\")]", "a.json"], b""),
    (["-c", "[leaf_paths]", "a.json"], b""),
    (["-c", ".nested | tostream", "a.json"], b""),
    (["-c", "del(.tags) | .n += 1", "a.json"], b""),
    (["-c", "to_entries | from_entries", "a.json"], b""),
    (["-c", ".tags |= . + [\"c\"] | .tags", "a.json"], b""),
    (["-c", "getpath([\"nested\", \"k\", 1])", "a.json"], b""),
    (["-c", "[.[] | type]", "arr.json"], b""),
    (["-c", "sort", "arr.json"], b""),
    (["-c", "map(select(type == \"number\")) | sort", "arr.json"], b""),
    (["-c", ".", "lines.jsonl"], b""),
    (["-c", "select(.v != null) | .id", "lines.jsonl"], b""),
    (["-s", "-c", "map(.id)", "lines.jsonl"], b""),
    (["-c", "-s", "."], b"1 2 3"),
    (["-n", "-c", "[limit(3; range(10))]"], b""),
    (["-n", "-c", "reduce range(5) as $x (0; . + $x)"], b""),
    (["-n", "-c", "[foreach range(5) as $x (0; . + $x)]"], b""),
    (["-n", "-r", "@base64 \"\\(\"hello\")\", @uri \"a b&c\", @html \"<x>\", @sh \"it's\""], b""),
    (["-n", "-r", "[1, \"a\", null] | @csv, @tsv"], b""),
    (["-n", "-c", "\"a,b, c\" | split(\", \"), (split(\",\") | join(\"-\"))"], b""),
    (["-n", "-c", "\"test\" | test(\"es\"), [match(\"(e)(s)\").captures[].string]"], b""),
    (["-n", "-c", "\"aXbXc\" | sub(\"X\"; \"-\"), gsub(\"X\"; \"-\")"], b""),
    (["-n", "-c", "\"abc\" | ascii_upcase, length, explode, (explode | implode)"], b""),
    (["-n", "-c", "[1, [2, [3]]] | flatten, flatten(1)"], b""),
    (["-n", "-c", "{\"a\": 1} * {\"a\": {\"b\": 2}}, ({\"a\": 1} + {\"b\": 2})"], b""),
    (["-n", "-c", "[1, 2, 3] | index(2), (\"abcb\" | indices(\"b\"))"], b""),
    (["-n", "-c", "[range(0; 10; 3)], [range(5; 0; -2)]"], b""),
    (["-n", "-c", "\"1,2\" | split(\",\") | map(tonumber) | add"], b""),
    (["-n", "-c", "[.[]?], (try error(\"x\") catch .), (.a.b.c // \"default\")"], b""),
    (["-n", "-c", "def f(x): x * 2; [f(1, 2)]"], b""),
    (["-n", "-c", "[recurse(if . < 3 then . + 1 else empty end)]"], b""),
    (["-n", "-c", "{} | .a.b.c = 1 | [paths]"], b""),
    (["-n", "-c", "[1, 2] | contains([1]), inside([1, 2, 3])"], b""),
    (["-n", "-c", "\"2015-03-05T23:51:47Z\" | fromdateiso8601"], b""),
    (["-n", "-c", "1425599507 | todate"], b""),
    (["-n", "-c", "[splits(\"a1b2c\"; \"[0-9]\")]"], b""),
    (["-n", "-c", "\"x\" as $v | {$v, w: $v}"], b""),
    (["-n", "-c", "[.[] | tostring]"], b"[1, \"a\", [2]]"),
    (["-c", "tojson, (tojson | fromjson)"], b"{\"a\": [1, 2.5, \"s\"]}"),
    (["--arg", "x", "1", "-n", "-c", "$x, ($x | tonumber)"], b""),
    (["--argjson", "o", "{\"k\": [1]}", "-n", "-c", "$o.k[0]"], b""),
    (["-n", "-c", "$ARGS", "--args", "a", "b"], b""),
    (["-n", "-c", "$ARGS.positional", "--jsonargs", "1", "{\"a\": 2}"], b""),
    (["--slurpfile", "s", "lines.jsonl", "-n", "-c", "$s | length"], b""),
    (["--rawfile", "r", "text.txt", "-n", "-c", "$r | length"], b""),
    (["-f", "prog.jq", "a.json"], b""),
    (["--tab", ".", "a.json"], b""),
    (["--indent", "1", ".", "a.json"], b""),
    (["--indent", "0", ".", "a.json"], b""),
    (["-S", "-c", "."], b"{\"b\": 1, \"a\": {\"d\": 1, \"c\": 2}}"),
    (["-a", "-c", "."], "{\"é\": \"ünï ☃ 😀\"}".encode()),
    (["-R", "."], b"line one\nline two\n"),
    (["-R", "-c", "."], b"no newline at end"),
    (["-R", "-s", "-c", "."], b"a\nb\n"),
    (["-R", "-r", "ascii_downcase"], b"ABC\nDeF\n"),
    (["-n", "-c", "[inputs]"], b"1 2 3"),
    (["-c", "[., input]"], b"1 2 3 4"),
    (["-n", "-c", "input, input"], b"[1] [2] [3]"),
    (["-nR", "-c", "[inputs | length]"], b"ab\ncde\n"),
    (["-e", ".a"], b"{\"a\": false}"),
    (["-e", ".a"], b"{\"a\": 1}"),
    (["-e", ".a"], b"{\"a\": null}"),
    (["-e", "empty"], b"1"),
    (["-r", ".[]"], b"[\"a\\tb\", 1, null, {\"x\": \"y\"}]"),
    (["-c", "."], b"[]\n{}\n[[]]\n{\"a\":{}}"),
    (["."], b"[]\n{}\n[[]]\n{\"a\":{}, \"b\": []}"),
    ([".", "lines.jsonl", "a.json"], b""),
    (["-c", "."], b"  1  \n\n  \"x\"  "),
    (["-n", "-c", "[range(3)] | .[1:], .[-1:], .[:1]"], b""),
    (["-n", "-c", "\"abcdef\" | .[2:4]"], b""),
    (["-n", "-c", "[{\"a\": 1}, {\"a\": 2}] | map(.a) | any(. > 1), all(. > 1)"], b""),
    (["-n", "-c", "{\"a\": 1, \"b\": 2} | with_entries(select(.value > 1)), keys_unsorted"], b""),
    (["-n", "-c", "[3, 1, 2] | sort_by(-.)"], b""),
    (["-n", "-c", "\"abc\" | ltrimstr(\"a\"), rtrimstr(\"c\"), startswith(\"ab\")"], b""),
    (["-n", "-c", "[1, 2, 3] | IN(2), (.[] as $x | $x * 10)"], b""),
    (["-n", "-c", "{\"a\": [1, 2]} | .a[1:] = [9]"], b""),
    (["-n", "-c", "[{\"k\": \"a\", \"v\": 1}] | INDEX(.k)"], b""),
    (["-n", "-c", "label $out | 1, 2, break $out, 3"], b""),
    (["-n", "-c", "[limit(5; repeat(1))]"], b""),
    (["-n", "-c", "(1, 2) as $x | $x * 3"], b""),
    (["-n", "-c", "[.[]?] | length"], b""),
    (["-n", "-c", "\"\\u00e9\" | utf8bytelength, length"], b""),
    (["-n", "-c", "[splits(\", *\"; null)]"], b""),
    (["-n", "-c", "env | type, ($ENV | type)"], b""),
    (["-n", "-c", "[1, null, 2] | map(values), (.[] | numbers)"], b""),
    (["-n", "-c", "{\"a\": {\"b\": 1}} | [.. | numbers], [paths(..)]"], b""),
    (["-n", "-c", "\"x\" | ascii, @json, @text"], b""),
    (["-n", "-r", "\"a\\u0000b\" | length"], b""),
    (["-n", "-c", "[1, 2] | first, last, nth(0)"], b""),
    (["-n", "-c", "\"abc\" | test(\"B\"; \"i\"), [scan(\"[a-c]\")]"], b""),
    (["-n", "-c", "\"a-b_c\" | ascii_downcase | gsub(\"[-_]\"; \" \")"], b""),
    (["-n", "-c", "{} | has(\"a\"), ([1] | has(0))"], b""),
    (["-n", "-c", "[\"a\", \"b\"] | combinations | join(\"\")"], b""),
    (["-n", "-c", "[[1, 2], [3, 4]] | transpose, (.[0] | add)"], b""),
    (["-n", "-c", "{\"a\": 1} | to_entries | map(\"\\(.key)=\\(.value)\") | .[]"], b""),
    (["-n", "-c", "1 as $x | 2 as $y | [$x, $y, $__loc__]"], b""),
    (["-n", "-c", "[1, 2, 3] | (.[] | select(. > 1)) |= . * 10"], b""),
    (["-n", "-c", "input_line_number? // 0 | type"], b""),
]


def _jq(root: Path, argv: list[str], stdin: bytes) -> tuple[int, bytes, bytes]:
    p = subprocess.run([JQ, *argv], input=stdin, capture_output=True, cwd=root, env=ENV,
                       timeout=30)  # type: ignore[list-item]
    return p.returncode, p.stdout, p.stderr


@pytest.fixture
def root(tmp_path: Path) -> Path:
    for name, text in FILES.items():
        (tmp_path / name).write_text(text)
    return tmp_path


@pytest.mark.parametrize(("argv", "stdin"), CASES, ids=[" ".join(a)[:60] for a, _ in CASES])
def test_same_as_jq(root: Path, argv: list[str], stdin: bytes) -> None:
    want = _jq(root, argv, stdin)
    got = run_cmd(root, ["jq", *argv], stdin, env=ENV)
    assert got.stdout == want[1], (argv, got.stdout, want[1], got.stderr)
    assert got.status == want[0], (argv, got.status, want[0], got.stderr)
