"""cksum against GNU coreutils 9.1: the POSIX CRC over sizes whose appended length takes
0..3 bytes, sum's BSD/SysV checksums, the tagged digests, -c, and the error messages."""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest

from vshell import HostMount, Sandbox

SIZES = [0, 1, 2, 255, 256, 257, 4095, 65536, 65537, 300001]

CASES = [
    "cksum " + " ".join(f"f{n}" for n in SIZES),
    "cksum < f257; cat f65537 | cksum",
    "cksum -a sysv " + " ".join(f"f{n}" for n in SIZES) + "; cksum -a sysv < f255",
    "cksum -a bsd " + " ".join(f"f{n}" for n in SIZES) + "; cksum -a bsd < f255",
    "cksum -a md5 f1 f256; cksum -a sha1 f0; cksum -a sha224 f2; cksum -a sha384 f4095",
    "cksum -a sha256 --untagged f1 - < f2; cksum -a sha512 --tag f1",
    "cksum -a md5 --tag --untagged f1; cksum -a md5 --untagged --tag f1",
    "cksum -a blake2b f1; cksum -a blake2b -l 256 f1; cksum -a blake2b -l 0 f2",
    "cksum -a sm3 f257",
    "cksum --untagged f1; cksum -a crc --tag f2; cksum -a sysv --untagged f2",
    "cksum -z f1 | od -c; cksum -a md5 -z f1 | od -c",
    "cksum -a md5 f1 f2 > sums; cksum -a md5 -c sums; echo $?; cksum -a sha1 -c sums; echo $?",
    "cksum -a crc -c f1; echo $?; cksum -c < f1; echo $?",
    "cksum nope f1; echo $?",
    "cksum -a sha f1; echo $?; cksum -a bl f1; echo $?",
    "cksum -l 256 f1; echo $?; cksum -a blake2b -l 7 f1; echo $?",
    "cksum -a blake2b -l 1024 f1; echo $?; cksum -a blake2b -l x f1; echo $?",
    "cksum --version | head -1; cksum --help | head -3",
]


@pytest.mark.skipif(shutil.which("cksum") is None, reason="needs GNU cksum as the oracle")
@pytest.mark.parametrize("script", CASES)
def test_cksum_like_gnu(tmp_path: Path, script: str) -> None:
    rng = random.Random(5)
    for n in SIZES:
        (tmp_path / f"f{n}").write_bytes(bytes(rng.getrandbits(8) for _ in range(n)))
    want = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True,
                          env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"})
    for extra in ("sums",):
        (tmp_path / extra).unlink(missing_ok=True)
    with Sandbox(mounts=[HostMount(str(tmp_path), "/w")], cwd="/w") as sb:
        got = sb.exec(script)
    assert (got.exit_code, got.stdout, got.stderr) == (want.returncode, want.stdout, want.stderr)
