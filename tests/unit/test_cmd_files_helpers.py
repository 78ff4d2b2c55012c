"""Helpers behind the file commands: quoting, sizes, modes, date strings, globs, BRE."""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent))

from cmdharness import run_cmd  # noqa: E402

from vshell.commands._lib import dateparse as _dateparse
from vshell.commands._lib import modes as _modes  # noqa: E402
from vshell.commands._lib.futil import human, quote, quoteaf, quotef  # noqa: E402
from vshell.text import regex  # noqa: E402
from vshell.text.glob import fnmatch  # noqa: E402

MINE = [
    "cat", "ls", "mkdir", "rm", "touch", "basename", "dirname", "cp", "mv", "ln", "chmod",
    "rmdir", "readlink", "realpath", "stat", "tee", "mktemp", "truncate", "du", "df", "tree",
    "file", "find", "xargs", "expr", "date", "env", "which", "timeout", "yes", "sleep",
    "whoami", "hostname", "uname", "id", "nproc", "printenv", "tar", "gzip", "gunzip", "zcat",
    "cmp", "shuf", "split", "mkfifo",
]


@pytest.mark.parametrize("name", MINE)
def test_help_and_unknown_option(tmp_path: Path, name: str) -> None:
    r = run_cmd(tmp_path, [name, "--help"])
    assert r.status == 0 and r.stdout and not r.stderr, name
    if name in ("expr", "which"):
        return
    r = run_cmd(tmp_path, [name, "--no-such-option-x"])
    assert r.status != 0 and b"no-such-option-x" in r.stderr, (name, r)


@pytest.mark.parametrize(("name", "f", "af", "q"), [
    ("a", "a", "'a'", "\u2018a\u2019"),
    ("a b", "'a b'", "'a b'", "\u2018a b\u2019"),
    ("it's", "\"it's\"", "\"it's\"", "\u2018it's\u2019"),
    ("x\ny", "'x'$'\\n''y'", "'x'$'\\n''y'", "\u2018x\\ny\u2019"),
    ("\udcff", "''$'\\377'", "''$'\\377'", "\u2018\\377\u2019"),
    ("caf\u00e9", "caf\u00e9", "'caf\u00e9'", "\u2018caf\u00e9\u2019"),
    ("a:b", "'a:b'", "'a:b'", "\u2018a:b\u2019"),
    ("~x", "'~x'", "'~x'", "\u2018~x\u2019"),
    ("", "''", "''", "\u2018\u2019"),
])
def test_quoting(name: str, f: str, af: str, q: str) -> None:
    assert (quotef(name), quoteaf(name), quote(name)) == (f, af, q)


@pytest.mark.parametrize(("n", "text"), [
    (0, "0"), (1023, "1023"), (1024, "1.0K"), (1025, "1.1K"), (10240, "10K"), (10241, "11K"),
    (1048575, "1.0M"), (1048576, "1.0M"), (5 * 1024**3 + 1, "5.1G"),
])
def test_human(n: int, text: str) -> None:
    assert human(n) == text


@pytest.mark.parametrize(("spec", "start", "is_dir", "want"), [
    ("+x", 0o644, False, 0o755), ("go-r", 0o644, False, 0o600), ("u=g", 0o654, False, 0o554),
    ("a+X", 0o644, True, 0o755), ("a+X", 0o644, False, 0o644), ("755", 0o2700, True, 0o2755),
    ("00755", 0o2700, True, 0o755), ("+t", 0o755, True, 0o1755), ("-w", 0o666, False, 0o466),
    ("u+s,g+s", 0o755, False, 0o6755), ("=", 0o777, False, 0o000),
])
def test_modes(spec: str, start: int, is_dir: bool, want: int) -> None:
    assert _modes.apply(spec, start, is_dir) == want


@pytest.mark.parametrize("bad", ["", "8", "u+q", "x+", "u", "07777777", "a=rw,"])
def test_bad_modes(bad: str) -> None:
    assert not _modes.valid(bad)


def test_dateparse_forms() -> None:
    utc = dt.UTC
    now = 1700000000.0
    assert _dateparse.parse("@5", now, utc) == (5, 0)
    assert _dateparse.parse("@1.25", now, utc) == (1, 250000000)
    assert _dateparse.parse("1970-01-02", now, utc) == (86400, 0)
    assert _dateparse.parse("1970-01-01 00:01 +0100", now, utc) == (-3540, 0)
    assert _dateparse.parse("2 days ago", now, utc)[0] == int(now) - 2 * 86400
    assert _dateparse.parse("tomorrow", now, utc)[0] == int(now) + 86400
    assert _dateparse.parse("Jan 2 1970", now, utc) == (86400, 0)
    assert _dateparse.parse("2024-01-31 1 month", now, utc)[0] == _dateparse.parse(
        "2024-03-02", now, utc)[0]
    for bad in ("garbage", "2024-02-30", "25:00", "1 fortnights ago ago"):
        with pytest.raises(ValueError):
            _dateparse.parse(bad, now, utc)


@pytest.mark.parametrize(("pat", "text", "ok"), [
    ("*.txt", "a.txt", True), ("*.txt", "a.txta", False), ("a?c", "abc", True),
    ("[!a]*", "bcd", True), ("[^a]*", "abc", False), ("[[:digit:]]x", "5x", True),
    ("\\*", "*", True), ("\\*", "a", False), ("*", "a/b", True), ("[a-c]", "b", True),
    ("[", "[", True), ("[]]", "]", True),
])
def test_glob(pat: str, text: str, ok: bool) -> None:
    assert fnmatch(pat, text) is ok


@pytest.mark.parametrize(("pat", "text", "want"), [
    (r"a\(.\)", "abc", "ab"), ("a*", "aaab", "aaa"), ("*a", "*a", "*a"), (r"a\{2\}", "aaa", "aa"),
    ("a+", "a+", "a+"), (r"a\+", "aaa", "aaa"), (r"x\|a", "abc", "a"), ("[.]", ".", "."),
    (r"\(a\)\1", "aa", "aa"),
])
def test_bre(pat: str, text: str, want: str) -> None:
    m = regex.compile(pat, "bre", gnu_escapes=True).match(text)
    assert m is not None and m.group(0) == want
