"""sed against GNU sed 4.9 on this machine: status, stdout and stderr byte for byte."""

from __future__ import annotations

import shutil

import pytest

from tests.cmdharness import run_cmd, run_gnu, same, write_files

pytestmark = pytest.mark.skipif(shutil.which("sed") is None, reason="no host sed")

FILES = {
    "t.txt": "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n",
    "noeol.txt": "alpha\nbeta",
    "w.txt": "hello world\nfoo bar baz\n  indented line\nHELLO again\n",
    "utf.txt": "café\nnaïve\nÉcole\n日本語\n",
    "bin.dat": b"a\xffb\nc\x00d\n",
    "z.dat": b"one\x00two\x00three",
    "s1.sed": "/two/,/four/{\n  s/o/0/g\n  p\n}\n$a\\\nEND\n",
    "s2.sed": "#n\n/e/p\n",
    "s3.sed": "1i\\\nfirst\\\nsecond\n3c\\\nchanged\n",
    "ins.txt": "inserted\n",
    "lines.txt": "L1\nL2\n",
}

CASES = [
    ["sed", "p", "t.txt"],
    ["sed", "-n", "p", "t.txt"],
    ["sed", "-n", "3p", "t.txt"],
    ["sed", "-n", "$p", "t.txt"],
    ["sed", "-n", "2,4p", "t.txt"],
    ["sed", "-n", "4,2p", "t.txt"],
    ["sed", "-n", "/two/,/four/p", "t.txt"],
    ["sed", "-n", "/t/,+1p", "t.txt"],
    ["sed", "-n", "2,~4p", "t.txt"],
    ["sed", "-n", "0~3p", "t.txt"],
    ["sed", "-n", "1~3p", "t.txt"],
    ["sed", "-n", "0,/o/p", "t.txt"],
    ["sed", "-n", "1,/o/p", "t.txt"],
    ["sed", "-n", "/T/Ip", "t.txt"],
    ["sed", "2!d", "t.txt"],
    ["sed", "1d;1,3p", "t.txt"],
    ["sed", "-n", "\\%f%p", "t.txt"],
    ["sed", "3q", "t.txt"],
    ["sed", "3q5", "t.txt"],
    ["sed", "3Q", "t.txt"],
    ["sed", "=", "noeol.txt"],
    ["sed", "-n", "$=", "t.txt", "noeol.txt"],
    ["sed", "-s", "-n", "$=", "t.txt", "noeol.txt"],
    ["sed", "p", "noeol.txt"],
    ["sed", "$!d", "noeol.txt"],
    ["sed", "a\\\nX", "noeol.txt"],
    ["sed", "s/o/0/", "t.txt"],
    ["sed", "s/o/0/g", "t.txt"],
    ["sed", "s/e/E/2", "t.txt"],
    ["sed", "s/e/E/2g", "t.txt"],
    ["sed", "-n", "s/e/E/p", "t.txt"],
    ["sed", "s/x*/-/g", "t.txt"],
    ["sed", "s/\\(o\\)\\(n\\)/\\2\\1/", "t.txt"],
    ["sed", "-E", "s/(o)(n)/\\2\\1/", "t.txt"],
    ["sed", "s/o/[&]/g", "t.txt"],
    ["sed", "s/o/\\&/g", "t.txt"],
    ["sed", "s/\\w\\+/\\u&/g", "w.txt"],
    ["sed", "s/\\w\\+/\\U&/", "w.txt"],
    ["sed", "s/\\(\\w\\+\\) \\(\\w\\+\\)/\\U\\1\\E \\l\\2/", "w.txt"],
    ["sed", "-E", "s/(hello|HELLO)/\\L\\1!/I", "w.txt"],
    ["sed", "s/hello/bye/I", "w.txt"],
    ["sed", "s/^/> /", "w.txt"],
    ["sed", "s/$/ </", "w.txt"],
    ["sed", "s/\\bb/B/g", "w.txt"],
    ["sed", "s/\\<\\(.\\)/(\\1)/g", "w.txt"],
    ["sed", "s/o\\>/O/g", "w.txt"],
    ["sed", "s/[[:space:]]\\+/_/g", "w.txt"],
    ["sed", "s/[^[:alpha:]]//g", "w.txt"],
    ["sed", "-E", "s/a|ab/X/", "w.txt"],
    ["sed", "-E", "s/(l+)(o?)/<\\1|\\2>/g", "w.txt"],
    ["sed", "s/l\\{2\\}/LL/", "w.txt"],
    ["sed", "-E", "s/l{1,2}/L/g", "w.txt"],
    ["sed", "s/o\\|e/#/g", "w.txt"],
    ["sed", "s/a\\?b/X/g", "w.txt"],
    ["sed", "s|/|x|", "w.txt"],
    ["sed", "s,[,],X,", "w.txt"],
    ["sed", "s/.*/\"&\"/", "utf.txt"],
    ["sed", "s/./X/", "utf.txt"],
    ["sed", "s/^..$/two/", "utf.txt"],
    ["sed", "y/abc/xyz/", "w.txt"],
    ["sed", "y/lo/\\n\\t/", "w.txt"],
    ["sed", "-n", "l", "bin.dat"],
    ["sed", "-n", "l 5", "w.txt"],
    ["sed", "-l", "6", "-n", "l", "w.txt"],
    ["sed", "-n", "l 0", "utf.txt"],
    ["sed", "s/b/B/", "bin.dat"],
    ["sed", "-z", "s/^t/T/", "z.dat"],
    ["sed", "-z", "$!d", "z.dat"],
    ["sed", "N;P;D", "t.txt"],
    ["sed", "$!N;s/\\n/-/", "t.txt"],
    ["sed", "N;N;s/\\n/,/g", "t.txt"],
    ["sed", "n;d", "t.txt"],
    ["sed", "-n", "h;n;G;p", "t.txt"],
    ["sed", "1!G;h;$!d", "t.txt"],
    ["sed", "x", "t.txt"],
    ["sed", "-n", "H;${x;s/\\n/,/g;p}", "t.txt"],
    ["sed", "/two/{n;s/./X/}", "t.txt"],
    ["sed", ":a;N;$!ba;s/\\n/ /g", "t.txt"],
    ["sed", "-e", ":a", "-e", "s/^.\\{1,5\\}$/ &/;ta", "t.txt"],
    ["sed", "s/o/0/;T;s/$/!/", "t.txt"],
    ["sed", "s/o/0/;tx;s/$/?/;:x", "t.txt"],
    ["sed", "/o/b end;s/$/ (no o)/;:end", "t.txt"],
    ["sed", "2i\\\ninserted", "t.txt"],
    ["sed", "2i inserted", "t.txt"],
    ["sed", "2a\\  two spaces", "t.txt"],
    ["sed", "2,4c\\\nchanged", "t.txt"],
    ["sed", "2,4!c X", "t.txt"],
    ["sed", "$a END", "t.txt"],
    ["sed", "a x\\ty", "lines.txt"],
    ["sed", "-e", "a\\", "-e", "foo", "lines.txt"],
    ["sed", "1r ins.txt", "lines.txt"],
    ["sed", "r missing.txt", "lines.txt"],
    ["sed", "R ins.txt", "lines.txt"],
    ["sed", "1w /dev/stdout", "lines.txt"],
    ["sed", "-n", "/L2/w /dev/stdout", "lines.txt"],
    ["sed", "s/L/l/w /dev/stdout", "lines.txt"],
    ["sed", "-n", "F;=", "lines.txt"],
    ["sed", "z;s/^$/empty/", "lines.txt"],
    ["sed", "-f", "s1.sed", "t.txt"],
    ["sed", "-f", "s2.sed", "t.txt"],
    ["sed", "-f", "s3.sed", "t.txt"],
    ["sed", "-n", "-e", "2p", "-e", "4p", "t.txt"],
    ["sed", "--expression=2d", "--quiet", "--expression=p", "lines.txt"],
    ["sed", "-s", "1d", "t.txt", "lines.txt"],
    ["sed", "1d", "t.txt", "lines.txt"],
    ["sed", "-n", "/one/{p;p}", "t.txt"],
    ["sed", "-n", "/one/ { p ; p } ", "t.txt"],
    ["sed", "2{h;d};4{x;G}", "t.txt"],
    ["sed", "--posix", "-n", "1p", "t.txt"],
    ["sed", "-u", "2q", "t.txt"],
    ["sed", "p", "missing.txt", "lines.txt"],
    ["sed", "-s", "n;d", "t.txt", "lines.txt"],
    ["sed", "-s", "N;s/\\n/+/", "t.txt", "lines.txt"],
    ["sed", "-s", "0,/L/d", "t.txt", "lines.txt"],
    ["sed", "-s", "F", "t.txt", "lines.txt"],
    ["sed", "-s", "2q", "t.txt", "lines.txt"],
    ["sed", "--sandbox", "w x", "t.txt"],
    ["sed", "--sandbox", "s/a/b/e", "t.txt"],
    ["sed", "--posix", "s/o\\+/0/", "t.txt"],
    ["sed", "s/o\\x2e/X/", "t.txt"],
    ["sed", "s/[\\t ]/_/g", "w.txt"],
    ["sed", "s/a/b/ g", "w.txt"],
    ["sed", "-n", "$p", "lines.txt", "missing.txt"],
    # errors
    ["sed", "s/a/b", "t.txt"],
    ["sed", "k", "t.txt"],
    ["sed", "}", "t.txt"],
    ["sed", "{p", "t.txt"],
    ["sed", "b foo", "t.txt"],
    ["sed", "s/x/y/gg", "t.txt"],
    ["sed", "s/x/y/3g2", "t.txt"],
    ["sed", "s/x/y/0", "t.txt"],
    ["sed", "s/x/y/q", "t.txt"],
    ["sed", "y/ab/c/", "t.txt"],
    ["sed", "a", "t.txt"],
    ["sed", ":", "t.txt"],
    ["sed", "3,1!!p", "t.txt"],
    ["sed", "s/\\(x\\)/\\2/", "t.txt"],
    ["sed", "p x", "t.txt"],
    ["sed", "0p", "t.txt"],
    ["sed", "0,5p", "t.txt"],
    ["sed", "1,2=;1,2q", "t.txt"],
    ["sed", "r", "t.txt"],
    ["sed", "s/[/x/", "t.txt"],
    ["sed", "s/\\(/x/", "t.txt"],
    ["sed", "-E", "s/(/x/", "t.txt"],
    ["sed", "-E", "s/a{1/x/", "t.txt"],
    ["sed", "s/a\\{1/x/", "t.txt"],
    ["sed", "-E", "s/*a/x/", "t.txt"],
    ["sed", "s/a**/x/", "t.txt"],
    ["sed", "s/[[:foo:]]/x/", "t.txt"],
    ["sed", "s//x/", "t.txt"],
    ["sed", "-n", "/o/{s//0/gp}", "t.txt"],
    ["sed", "-f", "missing.sed", "t.txt"],
    ["sed", "-e", "p", "-e", "k", "t.txt"],
    ["sed"],
    ["sed", "--help"],
    ["sed", "--version"],
    ["sed", "-k", "p"],
]


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    d = tmp_path_factory.mktemp("sed")
    write_files(d, FILES)
    return d


@pytest.mark.parametrize("argv", CASES, ids=[" ".join(c) for c in CASES])
def test_sed_same(root, argv):
    same(root, argv)


STDIN = [
    (["sed", "s/a/b/"], b"a\na"),
    (["sed", "-n", "$p"], b"x\ny\n"),
    (["sed", "p", "-", "lines.txt"], b"in\n"),
    (["sed", "s/\\t/<TAB>/;s/\\n/x/"], b"a\tb\n"),
    (["sed", "s/x/\\n/g"], b"axbxc\n"),
    (["sed", "s/\\x41/hex/;s/\\o102/oct/;s/\\d67/dec/"], b"ABC\n"),
    (["sed", "s/.*/\\x41\\t/"], b"a\n"),
    (["sed", "N;s/a$/A/M;s/^b/B/M"], b"a\nb\n"),
    (["sed", "N;s/a.b/X/"], b"a\nb\n"),
    (["sed", "N;s/\\`a/X/M;s/b\\'/Y/M"], b"a\nb\n"),
]


@pytest.mark.parametrize("argv,stdin", STDIN, ids=[" ".join(c[0]) for c in STDIN])
def test_sed_stdin_same(root, argv, stdin):
    same(root, argv, stdin)


def test_sed_in_place(tmp_path):
    for root in (tmp_path / "gnu", tmp_path / "vsh"):
        write_files(root, {"a.txt": "one\ntwo\n", "b.txt": "three\n"})
    argv = ["sed", "-i.bak", "s/o/0/;1s/^/>/", "a.txt", "b.txt"]
    want = run_gnu(tmp_path / "gnu", argv)
    got = run_cmd(tmp_path / "vsh", argv)
    assert (got.status, got.stdout, got.stderr) == (want.status, want.stdout, want.stderr)
    for name in ("a.txt", "b.txt", "a.txt.bak", "b.txt.bak"):
        assert (tmp_path / "vsh" / name).read_bytes() == (tmp_path / "gnu" / name).read_bytes()
    assert sorted(p.name for p in (tmp_path / "vsh").iterdir()) == sorted(
        p.name for p in (tmp_path / "gnu").iterdir()
    )


def test_sed_w_file(tmp_path):
    for root in (tmp_path / "gnu", tmp_path / "vsh"):
        write_files(root, {"in.txt": "a\nb\nc"})
    argv = ["sed", "-n", "/[ac]/w out.txt", "in.txt"]
    run_gnu(tmp_path / "gnu", argv)
    run_cmd(tmp_path / "vsh", argv)
    assert (tmp_path / "vsh" / "out.txt").read_bytes() == (
        tmp_path / "gnu" / "out.txt"
    ).read_bytes()


# Scripts of unaddressed s commands run on whole chunks (sed/command.py ``fast_path``):
# each line must still be its own pattern space.  Each case runs twice, the second time
# from the cache of compiled scripts.
CHAINS = [
    (["sed", "s/a/A/g; s/^/> /"], b"alpha\nbeta\n\ngamma"),
    (["sed", "s/^/> /; s/a/A/g"], b"alpha\nbeta\n"),
    (["sed", "s/$/;/; s/^/[/; s/;$/]/"], b"one\ntwo\n\nthree\n"),
    (["sed", "s/a/\\n/; s/^/>/"], b"xay\nbab\n"),
    (["sed", "s/^/>/; s/a/\\n/"], b"xay\nbab\n"),
    (["sed", "s/o/0/; s/o/O/; s/O/@/g"], b"foo boo\nzoo\n"),
    (["sed", "-E", "s/([a-z]+) ([a-z]+)/\\2 \\1/; s/^(.)/\\1\\1/"], b"ab cd\nef gh ij\nk\n"),
    (["sed", "s/b*/x/g; s/a/A/"], b"abc\nbbb\n"),
    (["sed", "s/B/x/I; s/.$/!/"], b"abc\nBBB\n"),
    (["sed", "s/x/y/; s/a.c/Z/g"], b"abc\na\nc\naxc\n"),
    (["sed", "s/[^a]/-/g; s/^-*//"], b"bab\n\nccc\n"),
    (["sed", "-e", "s/1/one/", "-e", "s/2/two/g"], b"1 2 2\n21\n"),
    (["sed", "s/é/e/g; s/^./\\U&/"], "éa\nné\n".encode()),
    (["sed", "s/a/b/;s/b/c/2"], b"aab\nbbb\n"),
    (["sed", "s/a/b/w /dev/stdout\ns/b/c/"], b"ab\n"),
    (["sed", "s/a/b/;p"], b"ab\n"),
    (["sed", "-n", "s/a/b/;s/b/c/p"], b"ab\nx\n"),
    (["sed", "s/a/&&/g; s/&/and/"], b"a&a\n"),
    (["sed", "s/$/$/; s/\\$/D/2"], b"a$\n"),
    (["sed", "s/^/> /"], b"a\n\nb"),
    (["sed", "s/$/ ;/g"], b"a\n\nb\n"),
    (["sed", "-E", "s/^/\\t/; s/$/\\n/"], b"a\nb"),
    (["sed", "s/^/&x/; s/$/|&/"], b"a\n"),
    (["sed", "s/^//; s/$//"], b"\n\n"),
]


@pytest.mark.parametrize("argv,stdin", CHAINS, ids=[" ".join(c[0]) for c in CHAINS])
def test_sed_substitution_chain(root, argv, stdin):
    same(root, argv, stdin)
    same(root, argv, stdin)


def test_sed_same_script_twice_in_a_pipeline():
    """Two seds running one cached script at once keep their own address ranges."""
    from vshell import Sandbox

    script = "seq 1 12 | sed -n '/3/,/5/p;/8/,+1p' | sed -n '/3/,/5/p;/8/,+1p'"
    with Sandbox() as sb:
        for _ in range(3):
            assert sb.exec(script).stdout == b"3\n4\n5\n8\n9\n"
