"""``tar cz`` deflates at gzip's default level 6 (what GNU tar gets from gzip), not at
tarfile's stream level 9: same size/time trade-off as GNU, and the archive still reads."""

from __future__ import annotations

import base64
import gzip
import random
import shutil
import subprocess
import zlib

import pytest

from vshell import MemoryMount, Sandbox


def _payload() -> bytes:
    rng = random.Random(7)
    words = ["alpha", "beta", "gamma", "delta", "eps"]
    return " ".join(rng.choice(words) + str(rng.randint(0, 999)) for _ in range(60000)).encode()


def _archive() -> bytes:
    with Sandbox(mounts=[MemoryMount("/m", files={"d/a.txt": _payload()})]) as sb:
        res = sb.exec("cd /m && tar czf - d | base64 -w0")
    assert res.exit_code == 0, res.stderr
    return base64.b64decode(res.stdout)


def test_tar_cz_deflates_at_level_6() -> None:
    blob = _archive()
    tar = gzip.decompress(blob)
    assert blob[:2] == b"\x1f\x8b" and blob[4:8] == b"\0\0\0\0"  # no mtime, as from a pipe
    body = blob[10:-8]
    for level, same in ((6, True), (9, False)):
        comp = zlib.compressobj(level, zlib.DEFLATED, -15)
        assert (comp.compress(tar) + comp.flush() == body) is same, level


@pytest.mark.skipif(shutil.which("gzip") is None, reason="needs GNU gzip as the oracle")
def test_tar_cz_size_close_to_gnu_gzip() -> None:
    blob = _archive()
    tar = gzip.decompress(blob)
    gnu = subprocess.run(["gzip", "-c"], input=tar, capture_output=True, check=True).stdout
    assert abs(len(blob) - len(gnu)) <= len(gnu) // 50
