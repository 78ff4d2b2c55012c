"""grep against GNU grep 3.8 on this machine: status, stdout and stderr byte for byte."""

from __future__ import annotations

import shutil

import pytest

from tests.cmdharness import run_cmd, run_gnu, same, write_files

pytestmark = pytest.mark.skipif(shutil.which("grep") is None, reason="no host grep")

FILES = {
    "t.txt": "a1\nb\nc\na2\nd\ne\nf\na3\n",
    "words.txt": "foo bar\nfoobar\nbar_foo baz\nFOO\n  foo\nfoo-bar\n",
    "mixed.txt": "alpha\nBeta\ngamma delta\n\n123 456\nab ab ab\nabc abd\nend",
    "utf.txt": "café\nnaïve\nÉcole\nplain\n日本語\nx\n",
    "bad.bin": b"text line\nbin\x00ary\nmore text\n",
    "latin.txt": b"caf\xe9\nok\n",
    "z.dat": b"one\x00two\nlines\x00three\x00",
    "pats.txt": "foo\nbaz\n",
    "empty.txt": "",
    "tree/a.txt": "hello world\n",
    "tree/b.c": "int hello;\n",
    "tree/sub/c.txt": "say hello\nbye\n",
    "tree/sub/d.log": "nothing\n",
    "tree/skip/e.txt": "hello skip\n",
    # one-byte literals counted by translate and count (text/regex count_lines)
    "sevens.txt": "".join(f"{i}\n" for i in range(1, 3000)) + "77\n\n7",
}

CASES = [
    ["grep", "-c", "7", "sevens.txt"],
    ["grep", "-c", "7", "sevens.txt", "t.txt", "mixed.txt"],
    ["grep", "-vc", "7", "sevens.txt"],
    ["grep", "-c", "é", "utf.txt"],
    ["grep", "-c", "\xe9", "latin.txt"],
    ["grep", "-c", "-i", "a", "mixed.txt"],
    ["grep", "-c", "-z", "o", "z.dat"],
    ["grep", "-c", "-F", "b", "mixed.txt"],
    ["grep", "-c", "d", "mixed.txt"],
    ["grep", "a", "t.txt"],
    ["grep", "-n", "a", "t.txt"],
    ["grep", "-c", "a", "t.txt"],
    ["grep", "-v", "a", "t.txt"],
    ["grep", "-vn", "a", "t.txt"],
    ["grep", "-vc", "a", "t.txt"],
    ["grep", "-b", "a", "t.txt"],
    ["grep", "-nb", "-o", "[0-9]", "t.txt"],
    ["grep", "-C1", "a2", "t.txt"],
    ["grep", "-n", "-A1", "a", "t.txt"],
    ["grep", "-n", "-B2", "a", "t.txt"],
    ["grep", "-n", "-C2", "a", "t.txt", "mixed.txt"],
    ["grep", "-2", "d", "t.txt"],
    ["grep", "-A0", "a", "t.txt"],
    ["grep", "-o", "-C1", "a.", "t.txt"],
    ["grep", "-m1", "-A3", "a", "t.txt"],
    ["grep", "-m2", "-n", "-A5", "a", "t.txt"],
    ["grep", "-m2", "-c", "a", "t.txt"],
    ["grep", "-m", "0", "a", "t.txt"],
    ["grep", "--group-separator=XX", "-A1", "a", "t.txt"],
    ["grep", "--no-group-separator", "-A1", "a", "t.txt"],
    ["grep", "-w", "foo", "words.txt"],
    ["grep", "-wo", "foo", "words.txt"],
    ["grep", "-x", "foo", "words.txt"],
    ["grep", "-x", "-e", "FOO", "-e", "foobar", "words.txt"],
    ["grep", "-i", "foo", "words.txt"],
    ["grep", "-y", "beta", "mixed.txt"],
    ["grep", "-in", "--no-ignore-case", "foo", "words.txt"],
    ["grep", "-F", "a.b", "mixed.txt"],
    ["grep", "-F", "-x", "alpha", "mixed.txt"],
    ["grep", "-F", "-w", "-i", "bar", "words.txt"],
    ["grep", "-F", "-e", "foo", "-e", "bar", "-o", "words.txt"],
    ["grep", "-f", "pats.txt", "words.txt"],
    ["grep", "-f", "empty.txt", "words.txt"],
    ["grep", "-e", "", "mixed.txt"],
    ["grep", "-c", "", "mixed.txt"],
    ["grep", "-o", "", "mixed.txt"],
    ["grep", "-E", "ab|abc", "-o", "mixed.txt"],
    ["grep", "-E", "(a|ab)(c|bcd)", "-o", "mixed.txt"],
    ["grep", "-E", "[[:digit:]]{3}", "-o", "mixed.txt"],
    ["grep", "[[:upper:]]", "mixed.txt"],
    ["grep", "\\(ab\\) \\1", "mixed.txt"],
    ["grep", "-E", "(ab) \\1 \\1", "mixed.txt"],
    ["grep", "-E", "^$", "-n", "mixed.txt"],
    ["grep", "\\<ab", "-o", "mixed.txt"],
    ["grep", "d\\>", "mixed.txt"],
    ["grep", "\\bdel", "mixed.txt"],
    ["grep", "\\w\\+", "-o", "words.txt"],
    ["grep", "-E", "\\W", "-c", "words.txt"],
    ["grep", "-o", "\\s", "words.txt"],
    ["grep", "end", "mixed.txt"],
    ["grep", "-c", "end", "mixed.txt"],
    ["grep", "-h", "a", "t.txt", "mixed.txt"],
    ["grep", "-H", "a", "t.txt"],
    ["grep", "-l", "a", "t.txt", "mixed.txt", "words.txt"],
    ["grep", "-L", "a", "t.txt", "mixed.txt", "words.txt"],
    ["grep", "-lZ", "a", "t.txt", "mixed.txt"],
    ["grep", "-cZ", "a", "t.txt", "mixed.txt"],
    ["grep", "-q", "a", "t.txt"],
    ["grep", "-q", "zzz", "t.txt"],
    ["grep", "-q", "a", "missing", "t.txt"],
    ["grep", "a", "missing", "t.txt"],
    ["grep", "-s", "a", "missing", "t.txt"],
    ["grep", "a", "tree"],
    ["grep", "-d", "skip", "a", "tree", "t.txt"],
    ["grep", "-r", "hello", "tree/sub"],
    ["grep", "-r", "hello", "tree/a.txt"],
    ["grep", "-r", "--include=*.c", "hello", "tree"],
    ["grep", "-T", "-n", "a", "t.txt"],
    ["grep", "-bT", "-H", "a", "t.txt"],
    ["grep", "ary", "bad.bin"],
    ["grep", "text", "bad.bin"],
    ["grep", "-c", "text", "bad.bin"],
    ["grep", "-a", "ary", "bad.bin"],
    ["grep", "--binary-files=text", "-n", "bin", "bad.bin"],
    ["grep", "-I", "text", "bad.bin"],
    ["grep", "--binary-files=without-match", "-c", "text", "bad.bin"],
    ["grep", "caf", "latin.txt"],
    ["grep", "ok", "latin.txt"],
    ["grep", "-z", "two", "z.dat"],
    ["grep", "-zc", "t", "z.dat"],
    ["grep", "-z", "^lines", "z.dat"],
    ["grep", "^.....$", "utf.txt"],
    ["grep", "-o", "[[:alpha:]]*", "utf.txt"],
    ["grep", "-i", "école", "utf.txt"],
    ["grep", "-c", ".", "utf.txt"],
    ["grep", "-o", "..", "utf.txt"],
    ["grep", "-w", "naïve", "utf.txt"],
    ["grep", "-P", "\\d+", "-o", "mixed.txt"],
    ["grep", "-P", "^(?:ab ){2}", "mixed.txt"],
    ["grep", "a\\{2", "t.txt"],
    ["grep", "-E", "a{1,0}", "t.txt"],
    ["grep", "[[:foo:]]", "t.txt"],
    ["grep", "\\(", "t.txt"],
    ["grep", "-E", "*a", "t.txt"],
    ["grep", "[z-a]", "t.txt"],
    ["grep", "-A", "x", "a", "t.txt"],
    ["grep", "-m", "x", "a", "t.txt"],
    ["grep", "--binary-files=foo", "a", "t.txt"],
    ["grep", "-k", "a", "t.txt"],
    ["grep"],
    ["grep", "--help"],
    ["grep", "-V"],
    ["egrep", "a|b", "t.txt"],
    ["fgrep", "a.", "t.txt"],
    ["grep", "--label=LBL", "-H", "x"],
    ["grep", "-e", "a", "-e", "b", "-n", "t.txt"],
    ["grep", "--color=always", "-n", "-H", "-C1", "a2", "t.txt"],
    ["grep", "--color=always", "-o", "-b", "a.", "t.txt"],
    ["grep", "--color=always", "-v", "-A1", "a", "t.txt"],
    ["grep", "--color=always", "-c", "a", "t.txt", "mixed.txt"],
    ["grep", "--color=always", "-l", "a", "t.txt", "mixed.txt"],
    ["grep", "--colour=auto", "a", "t.txt"],
    ["grep", "--color=bad", "a", "t.txt"],
    ["grep", "-lc", "a", "t.txt"],
    ["grep", "-w", "-E", "ba.|foo", "-o", "words.txt"],
    ["grep", "-w", "-e", "bar", "-e", "baz", "-n", "words.txt"],
    ["grep", "-wF", "-e", "foo", "-e", "bar_foo", "words.txt"],
    ["grep", "-wi", "FOO", "-c", "words.txt"],
    ["grep", "-zw", "two", "z.dat"],
    ["grep", "-P", "(", "t.txt"],
    ["grep", "-P", "[a", "t.txt"],
    ["grep", "-P", "a{2,1}", "t.txt"],
]

CASES_STDIN = [
    (["grep", "x"], b"x\ny\nx"),
    (["grep", "-c", "x"], b"x\ny\nxx\n"),
    (["grep", "-n", "^"], b"a\n\nb"),
    (["grep", "-v", "x"], b"x\ny\nx"),
    (["grep", "--label=LBL", "-H", "x"], b"x\n"),
    (["grep", "-o", "ab*"], b"abbb ab a\n"),
    (["grep", "a", "-", "t.txt"], b"a from stdin\n"),
]


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    d = tmp_path_factory.mktemp("grep")
    write_files(d, FILES)
    return d


@pytest.mark.parametrize("argv", CASES, ids=[" ".join(c) for c in CASES])
def test_grep_same(root, argv):
    if argv[:2] == ["grep", "--label=LBL"]:
        same(root, argv, b"x\n")
    else:
        same(root, argv)


@pytest.mark.parametrize("argv,stdin", CASES_STDIN, ids=[" ".join(c[0]) for c in CASES_STDIN])
def test_grep_stdin_same(root, argv, stdin):
    same(root, argv, stdin)


RECURSIVE = [
    ["grep", "-rc", "hello", "tree/sub"],
    ["grep", "-r", "hello", "tree"],
    ["grep", "-rn", "hello"],
    ["grep", "-R", "-l", "hello", "."],
    ["grep", "-r", "--exclude=*.c", "--exclude-dir=skip", "-l", "hello", "tree"],
    ["grep", "-r", "--include=*.txt", "-L", "hello", "tree"],
]


@pytest.mark.parametrize("argv", RECURSIVE, ids=[" ".join(c) for c in RECURSIVE])
def test_grep_recursive_sorted(root, argv):
    """GNU walks in readdir order, vshell in name order: compare sorted lines."""
    want = run_gnu(root / "tree" if argv[-1] == "hello" else root, argv)
    got = run_cmd(root / "tree" if argv[-1] == "hello" else root, argv)
    assert got.status == want.status
    assert sorted(got.stdout.splitlines()) == sorted(want.stdout.splitlines())


DEVICES = [
    ["grep", "-r", "x", "."],  # recursion skips the FIFO (it would block on open)
    ["grep", "-D", "skip", "x", "fifo", "a.txt"],
    ["grep", "-r", "-D", "skip", "x", "."],
]


@pytest.mark.parametrize("argv", DEVICES, ids=[" ".join(c) for c in DEVICES])
def test_grep_skips_devices_like_gnu(tmp_path, argv):
    """GNU reads devices named as operands but skips those met while recursing (and all of
    them with ``-D skip``)."""
    import os

    (tmp_path / "a.txt").write_bytes(b"x\n")
    os.mkfifo(tmp_path / "fifo")
    want = run_gnu(tmp_path, argv)
    got = run_cmd(tmp_path, argv)
    assert (got.status, got.stdout, got.stderr) == (want.status, want.stdout, want.stderr)


def test_grep_recursion_skips_vshell_devices():
    """/dev/fd/1 is the command's own output: recursion must not try to read it."""
    from vshell import Sandbox

    with Sandbox() as sb:
        res = sb.exec("grep -r x /dev; echo $?")
    assert (res.stdout, res.stderr) == (b"1\n", b"")


NESTED = [("-E", "(a*)*b"), ("-E", "(a+)+b"), ("-E", "(a*)+b"), ("-E", "(a+)*b"), ("-E", "a**b"),
          ("-E", "((a+)*)+c"), ("-E", "(a*)*\\1x"), ("-G", "\\(a*\\)*b"), ("-G", "a**")]


@pytest.mark.parametrize("flag,pattern", NESTED, ids=[p for _, p in NESTED])
def test_nested_repeats_are_linear_and_like_gnu(tmp_path, flag, pattern):
    """`(a*)*b` on a run of a's made Python's re backtrack exponentially (minutes, holding the
    interpreter so no timeout could act); the translator now writes one repeat."""
    import subprocess
    import sys

    data = b"a" * 40 + b"\nxab\nb\naac\naaxaax\n\n"
    want = run_gnu(tmp_path, ["grep", flag, "-n", pattern], data)
    p = subprocess.run([sys.executable, "-m", "vshell", "--timeout", "20", "-c",
                        f"grep {flag} -n '{pattern}'"], input=data, capture_output=True,
                       timeout=60)
    assert (p.returncode, p.stdout) == (want.status, want.stdout)
