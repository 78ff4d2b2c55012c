"""cp mv ln chmod rmdir readlink realpath stat tee mktemp truncate du tree file vs GNU."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent))

from cmdharness import run_cmd, run_gnu, same  # noqa: E402
from files_common import build, same_effect  # noqa: E402


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    root = tmp_path_factory.mktemp("tree2")
    build(root)
    return root


CP = [
    ["a.txt", "new"], ["-v", "a.txt", "b.txt", "e"], ["-r", "d", "d2"], ["-rv", "d/sub", "d3"],
    ["d", "x"], ["nosuch", "x"], ["-n", "a.txt", "b.txt"], ["a.txt", "a.txt"],
    ["-T", "d", "x"], ["-rT", "d", "x3"], ["-t", "e", "a.txt", "-v"], ["-a", "d", "d4"],
    ["a.txt/", "x"], [], ["a.txt"], ["-p", "b.txt", "p"], ["-r", "d", "e"], ["a.txt", "d"],
    ["-P", "link", "l2"], ["link", "l3"], ["-r", "dlink", "dl2"], ["-rL", "dlink", "dl3"],
    ["a.txt", "b.txt", "nosuchdir"], ["a.txt", "b.txt", "empty"], ["-u", "a.txt", "b.txt"],
    ["-f", "a.txt", "b.txt"], ["--bogus"], ["-r", "d", "a.txt"], ["a.txt", "e/"],
    ["-R", "--verbose", "d/sub", "e"], ["a.txt", "nb/"], ["-r", "d", "nd/"],
]


@pytest.mark.parametrize("args", CP, ids=str)
def test_cp(tmp_path, args):
    same_effect(tmp_path, ["cp", *args])


def test_cp_preserves_times(tmp_path):
    same_effect(tmp_path, ["cp", "-a", "d", "b.txt", "e"])
    for rel in ("e/d", "e/d/one", "e/b.txt", "e/d/sub/two.txt"):
        assert os.lstat(tmp_path / "g" / rel).st_mtime_ns == os.lstat(
            tmp_path / "v" / rel).st_mtime_ns, rel


MV = [
    ["a.txt", "new"], ["-v", "a.txt", "b.txt", "e"], ["d", "e"], ["d", "d/sub/x"],
    ["nosuch", "x"], ["-n", "a.txt", "b.txt"], ["-v", "a.txt", "b.txt"], ["a.txt", "a.txt"],
    ["-T", "d", "e"], ["-T", "e", "d"], ["-t", "d", "a.txt", "empty", "-v"], ["a.txt"], [],
    ["e", "a.txt"], ["a.txt", "e/"], ["a.txt", "b.txt", "nosuchdir"], ["link", "d"],
    ["-u", "a.txt", "b.txt"], ["--bogus"], ["a.txt", "nb/"], ["d", "nd/"],
]


@pytest.mark.parametrize("args", MV, ids=str)
def test_mv(tmp_path, args):
    same_effect(tmp_path, ["mv", *args])


LN = [
    ["-s", "a.txt", "l1"], ["-sv", "a.txt", "l1"], ["-s", "a.txt", "link"],
    ["-sf", "b.txt", "link"], ["-sfv", "b.txt", "link"], ["a.txt", "hard"], ["-v", "a.txt", "h"],
    ["a.txt", "b.txt"], ["-f", "a.txt", "b.txt"], ["d", "dd"], ["nosuch", "z"],
    ["-s", "a.txt", "e"], ["-s", "x", "dlink"], ["-sn", "x", "dlink"], ["-snf", "x", "dlink"],
    ["-sT", "x", "e"], ["-s", "a.txt", "b.txt", "e"], ["-s", "d/one"], [], ["-s", "a", "b", "c"],
    ["-s", "../a.txt", "d/up"], ["-s", "a.txt", "nl/"],
]


@pytest.mark.parametrize("args", LN, ids=str)
def test_ln(tmp_path, args):
    same_effect(tmp_path, ["ln", *args])


CHMOD = [
    ["755", "a.txt"], ["-v", "644", "a.txt"], ["-v", "600", "a.txt"], ["-c", "600", "a.txt"],
    ["-c", "644", "a.txt"], ["-R", "-v", "u+x", "d/sub"], ["-Rc", "go-rwx", "d/sub"],
    ["xyz", "a.txt"],
    [], ["755"], ["755", "nosuch"], ["+x", "a.txt", "b.txt"], ["-w", "a.txt"],
    ["u=rw,g=r,o=", "a.txt"], ["a+X", "d", "a.txt"], ["-v", "=r", "a.txt"], ["-v", "644", "link"],
    ["--reference=d/one", "a.txt"], ["-f", "755", "nosuch"], ["-v", "g=u", "d/one"],
    ["1777", "e"], ["-v", "u+s,g+s", "a.txt"],
]


@pytest.mark.parametrize("args", CHMOD, ids=str)
def test_chmod(tmp_path, args):
    same_effect(tmp_path, ["chmod", *args])


def _deep(root: Path) -> None:
    build(root)
    (root / "p/q/r").mkdir(parents=True)


RMDIR = [
    ["e"], ["-v", "e"], ["d"], ["nosuch"], ["a.txt"], ["-p", "p/q/r"], ["-pv", "p/q/r"],
    ["--ignore-fail-on-non-empty", "d"], [], ["-v", "p/q/r", "p/q", "p"], ["dlink"],
]


@pytest.mark.parametrize("args", RMDIR, ids=str)
def test_rmdir(tmp_path, args):
    same_effect(tmp_path, ["rmdir", *args], setup=_deep)


READLINK = [
    ["link"], ["a.txt"], ["-v", "a.txt"], ["-f", "link"], ["-f", "dlink/sub/../one"],
    ["-e", "nosuch"], ["-m", "nosuch/x/../y"], ["-f", "nosuch/x"], ["-n", "link"],
    ["link", "dangling"], ["-f", "dangling"], ["-e", "dangling"], ["-z", "link"], [],
    ["-fn", "link", "dlink"], ["-f", "."], ["-f", "d/"], ["-e", "a.txt/"],
]


@pytest.mark.parametrize("args", READLINK, ids=str)
def test_readlink(tmp_path, args):
    same_effect(tmp_path, ["readlink", *args])


REALPATH = [
    ["link", "nosuch"], ["-e", "nosuch"], ["-m", "nosuch/../z"], ["-s", "link"],
    ["--relative-to=d", "link"], ["--relative-to=d/sub", "a.txt", "d/sub", "."],
    ["-q", "nosuch/x"], ["dlink/sub"], ["-z", "a.txt"], [], ["--relative-base=d", "d/one",
                                                              "a.txt"],
    ["-e", "dangling"], ["dangling"], ["."], ["d/../a.txt"], ["-s", "dlink/../a.txt"],
]


@pytest.mark.parametrize("args", REALPATH, ids=str)
def test_realpath(tmp_path, args):
    same_effect(tmp_path, ["realpath", *args])


STAT = [
    ["-c", "%n %s %a %A %F %U %G %u %g %h %b %B %o %N %t %T %f %Y %Z %i %d %D"],
    ["-c", "%y|%z|%x"], ["-c", "%-10s|%10n|%05a|%.3n"], ["--printf", r"%n\t%s\n"],
    ["-L", "-c", "%n %F %s"], ["-c", "%N"], ["-c", "%%%s"],
]


@pytest.mark.parametrize("args", STAT, ids=str)
def test_stat_format(tree, args):
    same(tree, ["stat", *args, "a.txt", "empty", "d", "link", "dangling", "space name"])


def _no_birth(text: bytes) -> bytes:
    return re.sub(rb" Birth: [^\n]*\n", b"", text)


@pytest.mark.parametrize("args", [["a.txt"], ["d", "link"], ["-L", "dlink"], ["-t", "a.txt"],
                                  ["space name"]])
def test_stat_default(tree, args):
    want = run_gnu(tree, ["stat", *args])
    got = run_cmd(tree, ["stat", *args])
    if "-t" in args:  # the terse form ends with birth time then block size
        w = want.stdout.split(b" ")
        w[-2] = b"0"
        assert got.stdout == b" ".join(w)
    else:
        assert _no_birth(got.stdout) == _no_birth(want.stdout)
    assert got.status == want.status


def test_stat_errors(tree):
    same(tree, ["stat", "nosuch", "a.txt", "-c", "%n"])
    same(tree, ["stat"])


TEE = [[], ["out"], ["-a", "a.txt"], ["out", "nodir/x", "out2"], ["a.txt", "b.txt"]]


@pytest.mark.parametrize("args", TEE, ids=str)
def test_tee(tmp_path, args):
    same_effect(tmp_path, ["tee", *args], stdin=b"line1\nline2\n" * 1000)


TRUNCATE = [
    ["-s", "10", "a.txt"], ["-s", "+5K", "a.txt"], ["-s", "%7", "big.bin"], ["-s", "<5", "a.txt"],
    ["-s", ">100", "a.txt"], ["-s", "/3", "big.bin"], ["-s", "1KB", "new"], ["-s", "bad", "a.txt"],
    ["-s", "-99999", "a.txt"], ["-c", "-s", "5", "nf"], [], ["a.txt"], ["-s", "10", "nod/x"],
    ["-r", "b.txt", "a.txt"], ["-r", "b.txt", "-s", "+2", "a.txt"], ["-s", "0", "a.txt", "big.bin"],
    ["-s", "2M", "sparse"], ["-s", "/0", "a.txt"],
]


@pytest.mark.parametrize("args", TRUNCATE, ids=str)
def test_truncate(tmp_path, args):
    same_effect(tmp_path, ["truncate", *args])


DU = [
    [], ["-a"], ["-s"], ["-sh", "d"], ["-c", "a.txt", "d"], ["-d", "1"], ["-b"], ["-k", "a.txt"],
    ["--apparent-size"], ["-sb", "nosuch"], ["-ab", "d"], ["-m", "a.txt"], ["-ah"], ["-s", "-a"],
    ["--max-depth=0", "d", "e"], ["-0", "d"],
]


@pytest.mark.parametrize("args", DU, ids=str)
def test_du(tree, args):
    want = run_gnu(tree, ["du", *args])
    got = run_cmd(tree, ["du", *args])
    sep = b"\0" if "-0" in args else b"\n"
    assert sorted(got.stdout.split(sep)) == sorted(want.stdout.split(sep)), args
    assert got.stderr == want.stderr and got.status == want.status


TREE = [
    [], ["-a"], ["-d"], ["-L", "1"], ["--noreport", "d"], ["nosuch"], ["-a", "-L", "1", "d", "e"],
    ["-F", "d"], ["-f", "d"], ["-I", "sub", "d"], ["--dirsfirst"], ["-P", "*.txt"], ["e"],
    ["a.txt"], ["-da"],
]


@pytest.mark.parametrize("args", TREE, ids=str)
def test_tree(tree, args):
    same(tree, ["tree", *args])


def _typed(root: Path) -> None:
    import gzip
    import tarfile

    files = {
        "empty": b"", "ascii": b"hi\n", "utf": "h\u00e9\n".encode(), "crlf": b"a\r\nb\r\n",
        "cr": b"a\rb\r", "mix": b"a\r\nb\n", "esc": b"\x1b[1mx\n", "noeol": b"noeol",
        "long": b"x" * 1000, "iso": b"a\xffb\n", "bin": b"\x00\x01\x02binary",
        "j.json": b'{"a": 1}\n', "arr.json": b"[1,2]\n", "bad.json": b"{bad\n",
        "s.sh": b"#!/bin/bash\necho\n", "s2": b"#!/bin/sh\necho\n",
        "p.py": b"#!/usr/bin/env python3\nprint(1)\n", "pl": b"#!/usr/bin/perl\n",
        "nd": b"#!/usr/bin/env node\n", "zs": b"#!/bin/zsh\n", "ak": b"#!/usr/bin/awk -f\n",
        "x.xml": b'<?xml version="1.0"?>\n<a/>\n', "h.html": b"<!DOCTYPE html>\n<html></html>\n",
        "c.c": b"#include <stdio.h>\n", "d.pdf": b"%PDF-1.4\n",
        "p.png": b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10\0\0\0\x10\x08\x06\0\0\0",
        "g.gz": gzip.compress(b"hi\n", mtime=0)[:3] + b"\0" + b"\0" * 4 + b"\0\x03"
        + gzip.compress(b"hi\n", mtime=0)[10:],
    }
    for name, data in files.items():
        (root / name).write_bytes(data)
    (root / "dir").mkdir()
    os.symlink("ascii", root / "lnk")
    os.symlink("nowhere", root / "broken")
    with tarfile.open(root / "t.tar", "w", format=tarfile.GNU_FORMAT) as tf:
        tf.add(root / "ascii", arcname="ascii")


def test_file_types(tmp_path):
    _typed(tmp_path)
    names = sorted(p.name for p in tmp_path.iterdir())
    same(tmp_path, ["file", *names])
    same(tmp_path, ["file", "-b", "ascii", "dir"])
    same(tmp_path, ["file", "-L", "lnk", "broken"])
    same(tmp_path, ["file", "-i", "ascii", "utf", "empty", "dir", "iso", "j.json", "s.sh", "p.png"])
    same(tmp_path, ["file", "--mime-type", "ascii", "bin", "t.tar", "g.gz"])
    same(tmp_path, ["file", "nosuch"])
    same(tmp_path, ["file", "-"], stdin=b"hello\n")
