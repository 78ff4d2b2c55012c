"""A denied path answers one way however it is reached and whatever lies below (point 4).

The chosen behaviour (as sbsh's): a denied path, or anything below it, is "Permission
denied" whether or not it exists, and listings, globs and walks leave denied entries out.
Each probe runs for names that exist as a directory, as a file and not at all, directly and
through an alias, on a host, a copy-on-write and an in-memory mount; the answers, with the
probed name blanked out, must be identical.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from vshell.sandbox import HostMount, Sandbox
from vshell.vfs import Ctx

# prod is a directory, key a file, nope does not exist
NAMES = ["prod/x", "key/x", "nope/x", "prod", "key", "nope", "prod/", "key/"]

PROBES = [
    "cat {p}",
    "stat -c %s {p}",
    "ls {p}",
    "ls -d {p}",
    "test -e {p}; echo $?",
    "test -d {p}; echo $?",
    "[ -f {p} ]; echo $?",
    "head -c1 {p}",
    "du {p}",
    "wc -c {p}",
    "cd {p}",
    "echo {p}*",
    "find {p}",
    "tar -cf /dev/null {p}",
    "cp {p} /tmp/c",
    "mkdir {p}/new",
    "touch {p}",
    "rm {p}",
    "mv {p} /tmp/m",
    "realpath {p}",
    "readlink -f {p}",
    "ln -s x {p}/l",
]


def _make(root: Path) -> None:
    (root / "secrets" / "prod").mkdir(parents=True)
    (root / "secrets" / "prod" / "x").write_text("x\n")
    (root / "secrets" / "key").write_text("KEY\n")
    (root / "pub").mkdir()


@pytest.fixture(params=["host", "cow", "memory"])
def sb(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Sandbox]:
    if request.param == "memory":
        with Sandbox(deny=["/tmp/w/secrets"], cwd="/tmp") as box:
            box.exec("mkdir -p w/pub")  # the denied tree cannot be made from inside: seed it
            backend = box.fs.mount_for("/tmp")[0].backend
            raw = Ctx("/tmp", lambda p: None)
            backend.mkdir(("w", "secrets"), 0o755, raw)
            backend.mkdir(("w", "secrets", "prod"), 0o755, raw)
            for parts, data in ((("w", "secrets", "prod", "x"), b"x\n"),
                                (("w", "secrets", "key"), b"KEY\n")):
                with backend.open(parts, "wb", raw) as f:
                    f.write(data)
            yield box
        return
    _make(tmp_path)
    mount = HostMount(str(tmp_path), "/tmp/w", cow=request.param == "cow")
    with Sandbox(mounts=[mount], deny=["/tmp/w/secrets"], cwd="/tmp") as box:
        yield box


@pytest.mark.parametrize("probe", PROBES)
def test_denied_names_cannot_be_mapped(sb: Sandbox, probe: str) -> None:
    r = sb.exec("(cd /tmp/w && ln -s . d && ln -s secrets s && ln -s d/d dd)")
    assert r.exit_code == 0, r.stderr
    answers: dict[str, set[tuple[int, bytes, bytes]]] = {}
    for base in ("w/secrets", "w/d/secrets", "w/dd/secrets", "w/s", "w/pub/../d/secrets"):
        for name in NAMES:
            path = f"{base}/{name}"
            r = sb.exec(probe.format(p=path))
            shown = (r.exit_code, r.stdout.replace(path.encode(), b"P"),
                     r.stderr.replace(path.encode(), b"P"))
            answers.setdefault(base, set()).add(shown)
    for base, seen in answers.items():
        assert len(seen) == 1, (base, seen)
        (code, out, err), = seen
        assert b"KEY" not in out and b"x\n" != out


def test_listings_and_walks_leave_denied_entries_out(sb: Sandbox) -> None:
    sb.exec("(cd /tmp/w && ln -s . d)")
    for script in ("ls -a w w/d", "echo w/* w/d/*", "find w/d/ -name '*e*'", "du -a w/d",
                   "grep -r KEY w/d/", "tar -cf - w/d/ | tar -tf -", "ls -R w/d"):
        r = sb.exec(f"cd /tmp; {script}")
        assert b"secrets" not in r.stdout and b"KEY" not in r.stdout, (script, r.stdout)


def test_guest_and_api_answer_the_same(sb: Sandbox) -> None:
    sb.exec("(cd /tmp/w && ln -s . d)")
    fs = sb.fs
    for name in NAMES:
        for base in ("/tmp/w/secrets", "/tmp/w/d/secrets"):
            with pytest.raises(PermissionError):
                fs.stat(f"{base}/{name}")
    assert "secrets" not in fs.listdir("/tmp/w/d")
    pytest.importorskip("wasmtime")
    script = (
        "import os\n"
        "for n in ('prod/x', 'key/x', 'nope/x', 'prod', 'key', 'nope'):\n"
        "    for b in ('/tmp/w/secrets', '/tmp/w/d/secrets'):\n"
        "        try:\n"
        "            os.stat(b + '/' + n)\n"
        "            print('visible', b, n)\n"
        "        except OSError as e:\n"
        "            print(e.strerror)\n"
        "print('secrets' in os.listdir('/tmp/w/d'))\n"
    )
    quoted = "'" + script.replace("'", "'\\''") + "'"
    r = sb.exec(f"python3 -c {quoted}")
    lines = r.stdout.decode().splitlines()
    assert lines[:-1] == ["Permission denied"] * 12, r.stdout + r.stderr
    assert lines[-1] == "False"
