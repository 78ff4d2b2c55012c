"""Nested and masking mounts hold however a path is reached (issue 14, point 1).

Layout: host P mounted read-write at /work, with P/.git mounted read-only at /work/.git,
an empty directory masking P/secrets at /work/secrets, and P/cow mounted copy-on-write at
/work/cow.  Every attack goes through an alias (``d -> .``, an absolute host link, ``..``
after a link) that the mount table never sees; the host files must stay as they were.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from vshell.sandbox import HostMount, Sandbox
from vshell.vfs import VFS, HostBackend, Mount


def _tree(root: Path) -> dict[str, bytes | str]:
    """Every host entry under ``root``: file bytes or a link's target."""
    out: dict[str, bytes | str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            full = Path(dirpath) / name
            rel = str(full.relative_to(root))
            if full.is_symlink():
                out[rel] = "-> " + os.readlink(full)
            elif full.is_file():
                out[rel] = full.read_bytes()
            else:
                out[rel] = "dir"
    return out


@pytest.fixture
def host(tmp_path: Path) -> Path:
    p = tmp_path / "P"
    for d in (p / ".git" / "hooks", p / "secrets" / "prod", p / "cow", p / "src"):
        d.mkdir(parents=True)
    (p / ".git" / "config").write_text("cfg\n")
    (p / "secrets" / "key").write_text("TOPSECRET\n")
    (p / "secrets" / "prod" / "x").write_text("prod\n")
    (p / "cow" / "f").write_text("cow\n")
    (p / "src" / "a").write_text("a\n")
    (tmp_path / "EMPTY").mkdir()
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret").write_text("outside\n")
    return p


@pytest.fixture
def sb(host: Path) -> Iterator[Sandbox]:
    mounts = [
        HostMount(str(host), "/work"),
        HostMount(str(host / ".git"), "/work/.git", readonly=True),
        HostMount(str(host.parent / "EMPTY"), "/work/secrets", readonly=True),
        HostMount(str(host / "cow"), "/work/cow", cow=True),
    ]
    with Sandbox(mounts=mounts, cwd="/work") as box:
        r = box.exec("ln -s . d")
        assert r.exit_code == 0, r.stderr
        yield box


def _protected(host: Path) -> dict[str, dict[str, bytes | str]]:
    return {name: _tree(host / name) for name in (".git", "secrets", "cow")}


WRITES = [
    "echo X >> d/.git/config",
    "echo X > d/.git/config",
    "echo X > d/.git/new",
    "rm d/.git/config",
    "rm -rf d/.git",
    "mv d/.git/config d/moved",
    "mv d/src/a d/.git/hooks/a",
    "ln -s config d/.git/lnk",
    "ln d/src/a d/.git/hard",
    "sed -i s/cfg/pwned/ d/.git/config",
    "touch d/.git/config d/.git/t",
    "mkdir d/.git/newdir",
    "cp d/src/a d/.git/hooks/",
    "chmod 777 d/.git/config",
    "truncate -s 0 d/.git/config",
    "tar -cf /tmp/t.tar -C d/src a && tar -xf /tmp/t.tar -C d/.git",
    "cd d/.git && echo X >> config",
    "cd d && cd .git/hooks && echo X > ../config",
    "echo X > d/d/d/.git/config",
    "ln -s .git g && echo X >> g/config",
    "ln -s src/.. up && echo X >> up/.git/config",
    "echo X > d/cow/f && echo Y > d/cow/new",
    "rm d/cow/f",
    "mv d/cow d/cow2",
    "echo X > d/secrets/key",
    "rm -rf d/secrets",
    "mv d/secrets d/exposed",
    "mv d/.git d/exposed",
]


@pytest.mark.parametrize("script", WRITES)
def test_aliases_never_change_a_protected_host_file(sb: Sandbox, host: Path, script: str) -> None:
    before = _protected(host)
    sb.exec(script)
    assert _protected(host) == before


READS = [
    "cat d/secrets/key",
    "cat d/secrets/prod/x",
    "ls d/secrets",
    "ls -R d | grep -c TOPSECRET",
    "echo d/secrets/*",
    "find d/ -name key",
    "grep -r TOPSECRET d/",
    "ln -s secrets s && cat s/key",
    "cp -r d/secrets /tmp/copy && cat /tmp/copy/key",
    "tar -cf - d/secrets | tar -tf -",
    "du -a d/secrets",
    "stat d/secrets/key",
]


@pytest.mark.parametrize("script", READS)
def test_aliases_never_reveal_a_masked_file(sb: Sandbox, script: str) -> None:
    r = sb.exec(script)
    assert b"TOPSECRET" not in r.stdout + r.stderr
    assert b"key" not in r.stdout, r.stdout
    assert b"prod" not in r.stdout, r.stdout


def test_the_alias_is_the_inner_mount(sb: Sandbox, host: Path) -> None:
    """Reading through the alias reaches the inner mount itself (same answers as direct)."""
    r = sb.exec("cat d/.git/config; ls d/secrets | wc -l; cat d/cow/f")
    assert r.stdout == b"cfg\n0\ncow\n", r.stderr
    r = sb.exec("echo X >> d/.git/config")
    assert r.exit_code == 1
    assert b"Read-only file system" in r.stderr
    r = sb.exec("echo changed > d/cow/f; cat cow/f")
    assert r.stdout == b"changed\n"  # the copy-on-write view took the write
    assert (host / "cow" / "f").read_text() == "cow\n"
    assert [path for path, _ in sb.changes()] == ["/work/cow/f"]


def test_guest_python_goes_through_the_same_rules(sb: Sandbox, host: Path) -> None:
    before = _protected(host)
    script = (
        "import os\n"
        "for op in (lambda: open('/work/d/.git/config', 'a').write('X'),\n"
        "           lambda: os.symlink('config', '/work/d/.git/l'),\n"
        "           lambda: os.remove('/work/d/.git/config'),\n"
        "           lambda: open('/work/d/cow/f', 'w').write('X'),\n"
        "           lambda: print(open('/work/d/secrets/key').read()),\n"
        "           lambda: print(os.listdir('/work/d/secrets')),\n"
        "           lambda: print(os.stat('/work/d/secrets/key'))):\n"
        "    try:\n"
        "        op()\n"
        "    except OSError as e:\n"
        "        print('refused', e.errno)\n"
    )
    r = sb.exec(f"python3 -c {_quote(script)}")
    assert r.exit_code == 0, r.stderr
    assert b"TOPSECRET" not in r.stdout
    assert r.stdout.count(b"refused") == 5, r.stdout  # the cow write and the empty listing pass
    assert _protected(host) == before


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def test_mcp_file_tools_go_through_the_same_rules(sb: Sandbox, host: Path) -> None:
    from vshell.mcp import tools

    before = _protected(host)
    cfg = tools.ServerConfig()
    calls = [
        ("write", {"path": "/work/d/.git/config", "content": "pwned"}),
        ("write", {"path": "d/.git/new", "content": "pwned"}),
        ("edit", {"path": "d/.git/config", "edits": [{"oldText": "cfg", "newText": "X"}]}),
        ("write", {"path": "d/cow/f", "content": "in the overlay only"}),
        ("write", {"path": "d/secrets/key", "content": "pwned"}),
    ]
    for name, args in calls:
        tools.call(sb, cfg, name, args)
    for name, args in [("read", {"path": "d/secrets/key"}), ("list", {"path": "d/secrets"}),
                       ("glob", {"pattern": "**/*", "path": "/work/d/secrets"})]:
        res = tools.call(sb, cfg, name, args)
        assert "TOPSECRET" not in res.text and "prod" not in res.text, (name, res.text)
    assert _protected(host) == before


def test_api_goes_through_the_same_rules(sb: Sandbox, host: Path) -> None:
    before = _protected(host)
    fs = sb.fs
    with pytest.raises(OSError) as e:
        fs.open("/work/d/.git/config", "ab")
    assert e.value.errno == errno.EROFS
    with pytest.raises(OSError):
        fs.unlink("/work/d/d/.git/config")
    with pytest.raises(OSError):
        fs.rename("/work/d/.git/config", "/work/x")
    with pytest.raises(OSError):
        fs.open("/work/d/secrets/key")
    assert fs.listdir("/work/d/secrets") == []
    assert fs.realpath("/work/d/.git/config") == "/work/.git/config"
    assert fs.realpath("/work/d/secrets/key") == "/work/secrets/key"
    assert _protected(host) == before


def test_absolute_host_links_and_dotdot_after_a_link(host: Path) -> None:
    """Links planted on the host (not through vshell) are routed the same way."""
    os.symlink(host / ".git", host / "abs-git")
    os.symlink("src/..", host / "up")
    os.symlink(host / "secrets" / "key", host / "abs-key")
    vfs = VFS(mounts=[Mount("/work", HostBackend(host)),
                      Mount("/work/.git", HostBackend(host / ".git"), readonly=True),
                      Mount("/work/secrets", HostBackend(host.parent / "EMPTY"), readonly=True)])
    for path in ("/work/abs-git/config", "/work/up/.git/config", "/work/src/../up/.git/config"):
        with pytest.raises(OSError) as e:
            vfs.open(path, "ab")
        assert e.value.errno == errno.EROFS, path
    with pytest.raises(OSError):
        vfs.open("/work/abs-key")
    assert (host / ".git" / "config").read_text() == "cfg\n"


def test_inner_mount_elsewhere_is_found_by_host_identity(host: Path) -> None:
    """P/.git mounted read-only at /ro (not below /work) still governs /work/.git, also
    after its parent is renamed (host identity, not the path, decides)."""
    (host / "nest").mkdir()
    os.rename(host / ".git", host / "nest" / ".git")
    vfs = VFS(mounts=[Mount("/work", HostBackend(host)),
                      Mount("/ro", HostBackend(host / "nest" / ".git"), readonly=True)])
    for path in ("/work/nest/.git/config", "/work/nest/.git/new"):
        with pytest.raises(OSError) as e:
            vfs.open(path, "wb")
        assert e.value.errno == errno.EROFS
    assert vfs.realpath("/work/nest/.git/config") == "/ro/config"
    vfs.rename("/work/nest", "/work/moved")  # the parent may move; the rule moves with it
    with pytest.raises(OSError) as e:
        vfs.open("/work/moved/.git/config", "ab")
    assert e.value.errno == errno.EROFS
    with pytest.raises(OSError):
        vfs.rename("/work/moved/.git", "/work/git")  # the inner mount's root cannot move
    assert (host / "moved" / ".git" / "config").read_text() == "cfg\n"


def test_outer_cow_inner_readonly(host: Path) -> None:
    """A copy-on-write outer mount hands off to a read-only inner one through an alias."""
    mounts = [HostMount(str(host), "/work", cow=True),
              HostMount(str(host / ".git"), "/work/.git", readonly=True)]
    with Sandbox(mounts=mounts, cwd="/work") as box:
        r = box.exec("ln -s . d; echo X >> d/.git/config; mv d/.git d/g; rm -rf d/.git")
        assert b"Read-only file system" in r.stderr
        assert box.exec("cat d/.git/config").stdout == b"cfg\n"
        assert all(not path.startswith("/work/.git") for path, _ in box.changes())
        assert box.sync().ok
    assert (host / ".git" / "config").read_text() == "cfg\n"


def test_sync_never_writes_into_an_inner_mount(host: Path) -> None:
    """An upper-layer entry under an inner mount (a persisted overlay made with other mounts)
    is a conflict, never written to the host."""
    from vshell.vfs import Ctx

    mounts = [HostMount(str(host), "/work", cow=True),
              HostMount(str(host / ".git"), "/work/.git", readonly=True),
              HostMount(str(host.parent / "EMPTY"), "/work/secrets", readonly=True)]
    with Sandbox(mounts=mounts, cwd="/work") as box:
        backend = box.fs.mount_for("/work")[0].backend
        raw = Ctx("/work", lambda p: None)
        for parts in ((".git", "config"), ("secrets", "key"), (".git", "hooks", "new")):
            for i in range(1, len(parts)):
                try:
                    backend.upper.mkdir(parts[:i], 0o755, raw)
                except FileExistsError:
                    pass
            with backend.upper.open(parts, "wb", raw) as f:
                f.write(b"pwned\n")
        result = box.sync()
        assert not result.ok
        assert "/work/.git/hooks/new" in result.conflicts
        assert "/work/.git/config" in result.conflicts and "/work/secrets/key" in result.conflicts
    assert (host / ".git" / "config").read_text() == "cfg\n"
    assert (host / "secrets" / "key").read_text() == "TOPSECRET\n"
    assert not (host / ".git" / "hooks" / "new").exists()


def test_cow_and_memory_mounts_govern_their_host_locations(host: Path) -> None:
    """P/cow mounted copy-on-write elsewhere (/review) and a memory mount masking
    P/secrets: both win over /work's own view of those host locations."""
    from vshell.sandbox import MemoryMount

    mounts = [HostMount(str(host), "/work"), HostMount(str(host / "cow"), "/review", cow=True),
              MemoryMount("/work/secrets", files={"decoy": b"memory\n"})]
    with Sandbox(mounts=mounts, cwd="/work") as box:
        r = box.exec("ln -s . d; echo X > cow/f; echo Y > d/cow/new; cat /review/f;"
                     " ls d/secrets; cat d/secrets/decoy; echo Z > d/secrets/made")
        assert r.stdout == b"X\ndecoy\nmemory\n", r.stderr
        assert sorted(p for p, _ in box.changes()) == ["/review/f", "/review/new"]
        assert box.exec("ls /work/secrets").stdout == b"decoy\nmade\n"
    assert (host / "cow" / "f").read_text() == "cow\n"
    assert not (host / "cow" / "new").exists()
    assert sorted(os.listdir(host / "secrets")) == ["key", "prod"]
