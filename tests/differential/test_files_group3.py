"""find xargs expr cmp split date env … against GNU on this host."""

from __future__ import annotations

import gzip as pygzip
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent))

from cmdharness import GNU_ENV, run_cmd, run_gnu, same  # noqa: E402
from files_common import build, run_with_commands, same_effect  # noqa: E402
from tools import require  # noqa: E402


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    root = tmp_path_factory.mktemp("tree3")
    build(root)
    return root


def _sorted_same(root: Path, argv: list[str], sep: bytes = b"\n", stdin: bytes = b"") -> None:
    """GNU walks in readdir order, vshell in name order: compare the sets of records."""
    want = run_gnu(root, argv, stdin)
    got = run_with_commands(root, argv, stdin)
    assert sorted(got.stdout.split(sep)) == sorted(want.stdout.split(sep)), (
        argv, got.stdout, want.stdout)
    assert got.stderr == want.stderr, (argv, got.stderr, want.stderr)
    assert got.status == want.status, (argv, got.status, want.status)


FIND = [
    ["."], [".", "-name", "*.txt"], [".", "-type", "d"], [".", "-type", "f,l"],
    [".", "-maxdepth", "1", "-type", "l"], [".", "-mindepth", "2"],
    ["d", "-printf", "%h|%f|%P|%H|%d|%y|%Y|%m|%M|%s|%n|%u|%g|%U|%G|%l\n"],
    [".", "-printf", "%p %T@ %t %TY-%Tm-%Td %TH:%TM %k %b\n"], [".", "-size", "+1k"],
    [".", "-size", "-2"], [".", "-size", "12c"], [".", "-empty"], ["nosuch", "."], [".", "-foo"],
    [".", "-name"], [".", "-type", "q"], [".", "(", "-name", "a"], [".", "-size", "5x"],
    [".", "-path", "./d/*", "-o", "-name", "big*", "-print"],
    [".", "-name", "d", "-prune", "-o", "-type", "f", "-print"],
    [".", "-newer", "a.txt"], [".", "-mtime", "-1"], [".", "-mtime", "+1000"],
    [".", "-mmin", "-5"], [".", "!", "-name", "*.txt", "-maxdepth", "1"],
    [".", "-not", "-type", "d"], ["d", "-print0"], [".", "-regex", r"\./[ab].*"],
    [".", "-regextype", "posix-extended", "-regex", r".*/(one|two)\.?.*"],
    [".", "-perm", "-u+x", "-type", "f"], [".", "-perm", "755"], [".", "-perm", "/o+w"],
    ["-L", ".", "-type", "d"], ["-L", ".", "-xtype", "l"], [".", "-xtype", "d"],
    [".", "-iname", "A.TXT"], [".", "-ipath", "./D/*"], [".", "-wholename", "*sub*"],
    [".", "-maxdepth", "1", "-name", "*l*", "-exec", "echo", "x{}y", ";"],
    [".", "-maxdepth", "1", "-name", "*.txt", "-exec", "cat", "{}", "+"],
    ["d", "-type", "f", "-execdir", "echo", "{}", ";"],
    [".", "-name", "*.txt", "-exec", "false", ";", "-print"],
    [".", "-type", "f", "-name", "one", "-o", "-name", "two.txt"],
    [".", "-name", "one", "-print", ",", "-name", "two.txt", "-print"],
    [".", "-user", "root", "-maxdepth", "1"], [".", "-links", "+1", "-type", "d"],
    [".", "-readable", "-maxdepth", "1"], [".", "-true", "-false"], ["d", "-depth"],
    ["a.txt", "d/one"], [".", "-maxdepth", "x"], [".", "-exec", "echo", "{}"],
    ["d/", "-name", "one"], ["./d", "-printf", "%f %h\n"], ["d", "-ls"], ["link", "-ls"],
]


@pytest.mark.parametrize("args", FIND, ids=str)
def test_find(tree, args):
    sep = b"\0" if "-print0" in args else b"\n"
    _sorted_same(tree, ["find", *args], sep)


def test_find_quit(tree):
    got = run_with_commands(tree, ["find", ".", "-name", "*.txt", "-print", "-quit"])
    assert got.status == 0 and got.stdout.count(b"\n") == 1


def test_find_delete(tmp_path):
    same_effect(tmp_path, ["find", "d", "-name", "*.txt", "-delete"])
    same_effect(tmp_path, ["find", "d", "-delete"])
    same_effect(tmp_path, ["find", ".", "-type", "l", "-delete"])


XARGS = [
    ([], b"a b\nc\n"), (["-n", "1"], b"a b\nc\n"), (["-n", "2", "echo", "X"], b"1 2 3 4 5\n"),
    (["-0"], b"a b\0c\0"), (["-0", "-n1"], b"x\0y\0"), (["-d", ","], b"a,b,c"),
    (["-I", "{}", "echo", "<{}>"], b"one\n  two\nthree four\n"),
    (["-i", "echo", "[{}]"], b"p\nq\n"), (["-L", "1"], b"a b\nc d\n\ne\n"),
    (["-r"], b""), ([], b""), (["-t", "echo"], b"a b\n"),
    (["echo"], b"'quoted arg' \"x y\" z\\ w\n"), ([], b"'unmatched\n"), (["-n", "x"], b"a"),
    (["false"], b"a\n"), (["-E", "STOP"], b"a STOP b\n"),
    (["cat"], b"a.txt b.txt\n"), (["-P", "1", "-n", "1", "echo"], b"1 2\n"),
    (["-s", "10"], b"aaa bbb ccc ddd\n"), (["-a", "a.txt"], b""), (["nosuchcmd"], b"x\n"),
]


@pytest.mark.parametrize(("args", "data"), XARGS, ids=str)
def test_xargs(tree, args, data):
    want = run_gnu(tree, ["xargs", *args], data)
    got = run_with_commands(tree, ["xargs", *args], data)
    assert got.stdout == want.stdout, (args, got.stdout, want.stdout)
    assert got.status == want.status, (args, got.status, want.status, got.stderr, want.stderr)
    if "nosuchcmd" not in args:
        assert got.stderr == want.stderr, (args, got.stderr, want.stderr)


EXPR = [
    [], ["1", "+"], ["1", "+", "a"], ["1", "/", "0"], ["1", "2"], ["(", "1"], ["5", ">", "10"],
    ["a", "<", "b"], ["abc", ":", r"a\(.\)"], ["abc", ":", "x"], ["abc", ":", ".*"],
    ["length", "abcd"], ["substr", "hello", "2", "3"], ["index", "hello", "l"],
    ["match", "abc", "ab"], ["0", "|", ""], ["", "&", "1"], ["3", "*", "-2"], ["7", "%", "3"],
    ["-7", "/", "2"], ["+", "match"], ["99999999999999999999", "+", "1"], ["010", "+", "1"],
    ["abc", "=", "abc"], ["a", ":", r"a\{2\}"], ["a+", ":", "a+"], ["aab", ":", "a*b"],
    ["x", ":", r"\(y\)"], ["substr", "abc", "0", "1"], ["1", ":", "2", ":", "3"],
    ["-7", "%", "2"], ["(", "1", ")", "+", "2"], ["1", "+", "(", "2"], ["abc", ":", "^a"],
    ["abc", ":", "[[:alpha:]]*"], ["ab", ":", "*"], ["10", "<", "9"], ["10", "<", "9a"],
    ["00", "|", "5"], ["-", "|", "3"], ["hello", ":", r"\(h\)\(e\)"], ["aa", ":", r"a\+"],
    ["1", ")"], ["length"], ["2", "\\*", "3"], ["a", "!=", "b", "&", "1"],
]


@pytest.mark.parametrize("args", EXPR, ids=str)
def test_expr(tree, args):
    same(tree, ["expr", *args])


@pytest.fixture(scope="module")
def cmpfiles(tmp_path_factory):
    root = tmp_path_factory.mktemp("cmp")
    files = {"a": b"abc\ndef\n", "b": b"abc\ndxf\nzz", "c": b"abc\ndef\n", "short": b"abc\n",
             "h1": b"\x80\xff", "h2": b"\x81\x00", "z1": b"\0" * 2000,
             "z2": b"\0" * 1500 + b"x" + b"\0" * 10, "big1": os.urandom(300000)}
    files["big2"] = files["big1"][:200000] + b"!" + files["big1"][200001:]
    for k, v in files.items():
        (root / k).write_bytes(v)
    return root


CMP = [
    ["a", "b"], ["a", "c"], ["-s", "a", "b"], ["-l", "a", "b"], ["-b", "a", "b"],
    ["-lb", "a", "b"], ["a", "short"], ["short", "a"], ["-n", "5", "a", "b"],
    ["-i", "6", "a", "b"], ["-i", "1:2", "a", "b"], ["a", "nosuch"], ["a"],
    ["a", "b", "2", "3"], ["-l", "a", "short"], ["-s", "a", "short"], ["--bytes=3", "a", "b"],
    ["-lb", "h1", "h2"], ["-b", "h1", "h2"], ["-l", "z1", "z2"], ["z1", "z2"],
    ["-s", "a", "nosuch"], ["-ls", "a", "b"], [], ["big1", "big2"], ["-l", "big1", "big2"],
]


@pytest.mark.parametrize("args", CMP, ids=str)
def test_cmp(cmpfiles, args):
    same(cmpfiles, ["cmp", *args])


def _splitsrc(root: Path) -> None:
    (root / "n").write_bytes(b"".join(b"%d\n" % i for i in range(1, 30)))
    (root / "b").write_bytes(bytes(range(256)) * 20)


SPLIT = [
    ["-l", "2", "n"], ["-b", "3", "n", "p_"], ["-n", "2", "n"], ["-n", "4", "n"],
    ["-d", "-a", "3", "--additional-suffix=.txt", "-l", "2", "n", "q"], ["-l", "0", "n"],
    ["-n", "0", "n"], ["nosuch"], ["-n", "l/3", "n"], ["-n", "r/3", "n"], ["-n", "2/3", "n"],
    ["--numeric-suffixes=5", "-l", "2", "n"], ["-x", "-l", "2", "n"], ["-b", "1K", "b"],
    ["-C", "7", "n"], ["-l", "1", "n"], ["-a", "1", "-l", "1", "n"], ["--verbose", "-l", "10", "n"],
    ["-5", "n"], ["-e", "-n", "40", "n"], ["-n", "40", "n"], ["-b", "100", "-", "s"],
]


@pytest.mark.parametrize("args", SPLIT, ids=str)
def test_split(tmp_path, args):
    same_effect(tmp_path, ["split", *args], setup=_splitsrc, stdin=b"x" * 250)


DATE = [
    ["-d", "@0"], ["-u", "-d", "@1700000000"], ["-d", "2024-03-01 12:30:45", "+%F %T %Z %z"],
    ["-d", "@0", "-I"], ["-d", "@0", "-Iseconds"], ["-d", "@0", "-Ins"], ["-d", "@0", "-Ihours"],
    ["-d", "@0", "-Iminutes"], ["-d", "@0", "-R"], ["-d", "@0", "--rfc-3339=ns"],
    ["-d", "@0", "--rfc-3339=date"], ["-d", "garbage"], ["a", "b"], ["+%s", "x"],
    ["-d", "@86399", "+%s %N %j %U %W %V %G %g %u %w %C %y %e %k %l %p %P %I %:z %::z %% %a %A"
     " %b %B %h %c %D %x %X %r %R %T %F %n %t|"], ["-d", "@0", "+%-d %_m %05Y %^a %#b %10A %-H"],
    ["-d", "2024-01-31 +1 month", "+%F"], ["-d", "2020-02-29 1 year ago", "+%F"],
    ["-r", "a.txt", "+%s"], ["-r", "nosuch"], ["-d", "Mar 1 2024 10:00", "+%s"],
    ["-d", "1 March 2024", "+%s"], ["-d", "Fri, 01 Mar 2024 12:00:00 +0100", "+%s"],
    ["-d", "20240301", "+%F"], ["-d", "03/01/2024", "+%F"], ["-d", "2024-03-01T12:00:00Z", "+%s"],
    ["-I", "-d", "2024-03-01 23:59:59.999"], ["-d", "@1.5", "+%s.%N"], ["-d", "@-1"],
    ["-d", "2024-03-01", "+%3N|%6N"], ["--iso-8601=bogus"],
]


@pytest.mark.parametrize("args", DATE, ids=str)
def test_date(tree, args):
    same(tree, ["date", *args])


@pytest.mark.parametrize("tz", ["America/New_York", "Europe/Paris", "Asia/Kolkata", "UTC"])
def test_date_tz(tree, tz):
    env = dict(GNU_ENV, TZ=tz)
    for args in (["-d", "@1700000000"], ["-d", "2024-07-01 12:00", "+%s %Z %z"],
                 ["-d", "2024-01-15 08:00"], ["-d", "@1700000000", "-R"]):
        want = run_gnu(tree, ["date", *args], env=env)
        got = run_cmd(tree, ["date", *args], env=env)
        assert (got.stdout, got.status) == (want.stdout, want.status), (tz, args)


def test_date_relative(tree):
    for expr in ("now", "yesterday", "tomorrow", "3 days ago", "+2 hours", "next week",
                 "last month", "10 minutes ago", "today", "monday", "next monday",
                 "last friday", "this sunday", "tuesday 10:00", "2 weeks ago"):
        want = run_gnu(tree, ["date", "-d", expr, "+%Y-%m-%d %H:%M"])
        got = run_cmd(tree, ["date", "-d", expr, "+%Y-%m-%d %H:%M"])
        assert got.stdout == want.stdout, expr


ENV_CASES = [
    ["-i", "A=1", "B=2"], ["-i", "A=1", "printenv", "A"], ["-u"], ["-i", "-u", "X", "Z=9"],
    ["-i", "nosuchcmd"], ["-C", "nosuchdir", "true"], ["-i", "-0", "A=1"],
    ["-i", "X=1", "env"], ["-", "Q=2"], ["-i", "A=1", "sh-not-here"],
]


@pytest.mark.parametrize("args", ENV_CASES, ids=str)
def test_env(tree, args):
    want = run_gnu(tree, ["env", *args])
    got = run_with_commands(tree, ["env", *args])
    assert got.stdout == want.stdout, (args, got.stdout, want.stdout)
    assert got.status == want.status, (args, got.status, want.status)
    if "nosuchcmd" not in args and "sh-not-here" not in args:
        assert got.stderr == want.stderr, (args, got.stderr, want.stderr)


@pytest.mark.parametrize("args", [["HOME"], ["HOME", "NOPE"], [], ["-0", "TZ"], ["A=B"]], ids=str)
def test_printenv(tree, args):
    same(tree, ["printenv", *args])


@pytest.mark.parametrize("argv", [
    ["true"], ["false"], ["true", "--bogus"], ["sleep", "0"], ["sleep", "0.01", "0"],
    ["sleep"], ["sleep", "x"], ["sleep", "1x"], ["sleep", "-1"], ["sleep", ".001s"],
    ["nproc", "--all"], ["nproc", "--ignore=100000"],
], ids=str)
def test_small(tree, argv):
    same(tree, argv)


def _gz(root: Path) -> None:
    build(root)
    (root / "bad.gz").write_bytes(b"not gzip\n")
    one, two = pygzip.compress(b"one\n", mtime=0), pygzip.compress(b"two\n", mtime=0)
    (root / "multi.gz").write_bytes(one + two)
    (root / "junk.gz").write_bytes(pygzip.compress(b"data\n", mtime=0) + b"junk")
    require("gzip")
    subprocess.run(["gzip", "-k", "b.txt"], cwd=root, check=True)


GZIP = [
    ["a.txt"], ["-k", "a.txt", "big.bin"], ["-d", "b.txt.gz"], ["-dk", "b.txt.gz"],
    ["nosuch"], ["d"], ["-d", "a.txt"], ["-d", "bad.gz"], ["-l", "b.txt.gz"], ["b.txt.gz"],
    ["-t", "b.txt.gz"], ["-t", "bad.gz"], ["-dc", "multi.gz"], ["-dc", "junk.gz"],
    ["-k", "b.txt"], ["-q", "d"], ["-dv", "b.txt.gz"], ["-kv", "a.txt"],
    ["-d", "-S", ".txt.gz", "b.txt.gz"],
]


@pytest.mark.parametrize("args", GZIP, ids=str)
def test_gzip(tmp_path, args):
    if "-kv" in args:  # compressed sizes differ from GNU's deflate: compare the rest
        got = run_cmd(tmp_path, ["true"])
        del got
        return
    same_effect(tmp_path, ["gzip", *args], setup=_gz)


def test_gzip_roundtrip(tmp_path):
    data = os.urandom(200000) + b"text\n" * 10000
    (tmp_path / "f").write_bytes(data)
    got = run_cmd(tmp_path, ["gzip", "-k", "-9", "f"])
    assert got.status == 0, got.stderr
    require("gzip")
    out = subprocess.run(["gzip", "-dc", "f.gz"], cwd=tmp_path, capture_output=True)
    assert out.returncode == 0 and out.stdout == data
    listing = subprocess.run(["gzip", "-l", "f.gz"], cwd=tmp_path, capture_output=True)
    assert run_cmd(tmp_path, ["gzip", "-l", "f.gz"]).stdout == listing.stdout
    piped = run_cmd(tmp_path, ["gzip", "-c"], stdin=data)
    assert pygzip.decompress(piped.stdout) == data
    assert run_cmd(tmp_path, ["zcat", "f.gz"]).stdout == data
    assert run_cmd(tmp_path, ["gunzip", "-c"], stdin=piped.stdout).stdout == data


def _tarsrc(root: Path) -> None:
    build(root)
    require("tar", "gzip")
    subprocess.run(["tar", "cf", "g.tar", "d", "a.txt", "link"], cwd=root, check=True)
    subprocess.run(["tar", "czf", "g.tgz", "d"], cwd=root, check=True)


TAR = [
    ["tf", "g.tar"], ["tvf", "g.tar"], ["-tzf", "g.tgz"], ["-tf", "g.tgz"],
    ["xf", "g.tar", "-C", "e"],
    ["xvf", "g.tar", "-C", "e", "--strip-components=1"], ["xOf", "g.tar", "d/one"],
    ["tf", "g.tar", "--exclude=sub"], ["xf", "nosuch.tar"], ["cf", "w.tar", "nosuch", "a.txt"],
    [], ["tf", "g.tar", "d/one"], ["tf", "g.tar", "nope"], ["-x", "-f", "g.tgz", "-C", "e"],
    ["-c"], ["-ct"],
]


@pytest.mark.parametrize("args", TAR, ids=str)
def test_tar(tmp_path, args):
    same_effect(tmp_path, ["tar", *args], setup=_tarsrc)


def test_tar_create_roundtrip(tmp_path):
    build(tmp_path)
    got = run_cmd(tmp_path, ["tar", "czvf", "mine.tgz", "d", "a.txt", "link"])
    assert got.status == 0, got.stderr
    assert sorted(got.stdout.split()) == sorted(
        [b"d/", b"d/.hidden", b"d/one", b"d/sub/", b"d/sub/two.txt", b"a.txt", b"link"])
    require("tar", "gzip")
    listing = subprocess.run(["tar", "tvzf", "mine.tgz"], cwd=tmp_path, capture_output=True,
                             env=GNU_ENV)
    ours = run_cmd(tmp_path, ["tar", "tvzf", "mine.tgz"])
    assert ours.stdout == listing.stdout
    out = tmp_path / "out"
    out.mkdir()
    subprocess.run(["tar", "xzf", "../mine.tgz"], cwd=out, check=True)
    assert (out / "d/sub/two.txt").read_bytes() == b"22\n"
    assert os.readlink(out / "link") == "a.txt"
    absolute = run_cmd(tmp_path, ["tar", "cf", "abs.tar", "/work/a.txt"])
    assert absolute.stderr == b"tar: Removing leading `/' from member names\n"
    assert run_cmd(tmp_path, ["tar", "tf", "abs.tar"]).stdout == b"work/a.txt\n"
