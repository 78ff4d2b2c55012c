"""curl file:// over the sandbox filesystem: curl 7.88 on this host as the oracle, and the
sandbox's deny rules and read-only mounts holding for it as for any other command."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from vshell import HostMount, Sandbox

CASES = [
    "-s file://{d}/h%20f", "file://{d}/nope", "-s file://{d}/nope", "-sS file://{d}/nope",
    "-s file://localhost{d}/x", "-sS file://otherhost{d}/x", "-sI file://{d}/x",
    "-s -w '%{{http_code}}|%{{size_download}}|%{{scheme}}|%{{url_effective}}' file://{d}/x",
    "-s -r 0-0 file://{d}/x", "-s -r 1- file://{d}/x", "-s -i file://{d}/x", "-s file:{d}/x",
    "-s FILE://{d}/x", "-s 'file://{d}/x?q=1#frag'", "-sS file://", "-sS file://{d}/",
    "-s -o copy file://{d}/x && cat copy", "-s -O file://{d}/x && cat x",
    "-s -T x file://{d}/uploaded && cat uploaded", "-sS -T x file://{d}/nodir/up",
    "-sSf file://{d}/nope", "-s file://{d}/x file://{d}/h%20f", "-sS -I file://{d}/nope",
]


@pytest.fixture()
def tree(tmp_path):
    (tmp_path / "x").write_text("xyz\n")
    (tmp_path / "h f").write_text("hello\n")
    os.utime(tmp_path / "x", (1700000000, 1700000000))
    return tmp_path


@pytest.mark.skipif(shutil.which("curl") is None, reason="needs curl as the oracle")
@pytest.mark.parametrize("args", CASES)
def test_file_url_like_curl(tree, args):
    script = "curl " + args.format(d=tree) + "; echo rc=$?"
    want = subprocess.run(["bash", "-c", script], cwd=tree, capture_output=True,
                          env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"})
    for leftover in ("copy", "uploaded"):
        (tree / leftover).unlink(missing_ok=True)
    with Sandbox(mounts=[HostMount(str(tree), str(tree))], cwd=str(tree)) as sb:
        got = sb.exec(script)
    assert (got.stdout, got.stderr) == (want.stdout, want.stderr)


def test_file_url_honours_deny_and_read_only(tree):
    mounts = [HostMount(str(tree), "/work", readonly=True)]
    with Sandbox(mounts=mounts, deny=["x"]) as sb:
        r = sb.exec("curl -sS file:///work/x; echo rc=$?; curl -sS file:///work/h%20f;"
                    " curl -sS -T '/work/h f' file:///work/new; echo rc=$?; ls /work")
    assert r.stdout == b"rc=37\nhello\nrc=23\nh f\n", r
    assert r.stderr == (b"curl: (37) Couldn't open file /work/x\n"
                        b"curl: (23) Can't open /work/new for writing\n"), r
    assert not (tree / "new").exists()


def test_file_url_needs_no_network_but_http_still_does(tree):
    with Sandbox(mounts=[HostMount(str(tree), "/w")]) as sb:
        r = sb.exec("curl -s file:///w/x; curl -s file:///w/x http://example.com/; echo $?")
    assert r.stdout == b"xyz\n1\n" and b"network access is not permitted" in r.stderr, r


def test_file_url_cannot_leave_the_sandbox(tree):
    with Sandbox(mounts=[HostMount(str(tree), "/w")]) as sb:
        r = sb.exec("curl -sS file:///etc/passwd; echo rc=$?; curl -sS file:///w/../../etc/passwd")
    assert r.stdout == b"rc=37\n" and b"root:" not in r.stdout + r.stderr, r
