"""vshell's own files are out of every sandbox's reach, whatever is mounted (point 2).

A user mounting their home (``--mount ~:/home``) also covers vshell's cache (the compiled
runtime, native code; the parser tables, marshal), overlay stores and the history file.
These behave as denied paths, matched on the host location, for the shell, the guest, the
MCP tools and the API; and a cache file is loaded only when vshell's seal on it holds.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from vshell import cachedir
from vshell.sandbox import HostMount, Sandbox


def _snapshot(root: Path) -> dict[str, bytes]:
    """The planted artifacts' bytes, and every other name (vshell may add its own files)."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            full = Path(dirpath) / name
            rel = str(full.relative_to(root))
            if name.endswith("-x.cwasm") or name.endswith("-x.tables"):
                out[rel] = full.read_bytes()
            elif not name.startswith((".seal-key", "bashlex-0", "python-3")):
                out[rel] = b"?"
    return out


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    cache = home / ".cache" / "vshell"
    cache.mkdir(parents=True, mode=0o700)
    (cache / "python-x.cwasm").write_bytes(b"\0asm native code")
    (cache / "bashlex-x.tables").write_bytes(b"tables")
    (home / "notes.txt").write_text("mine\n")
    monkeypatch.setenv("VSHELL_CACHE_DIR", str(cache))
    return home


@pytest.fixture
def sb(home: Path) -> Iterator[Sandbox]:
    with Sandbox(mounts=[HostMount(str(home), "/home")], cwd="/home") as box:
        yield box


ATTACKS = [
    "ls -a .cache",
    "ls -R /home",
    "echo .cache/*",
    "find / -name '*.cwasm'",
    "cat .cache/vshell/python-x.cwasm",
    "echo pwned > .cache/vshell/python-x.cwasm",
    "echo pwned >> .cache/vshell/python-x.cwasm",
    "rm -rf .cache/vshell",
    "mv .cache/vshell /home/moved",
    "mv .cache /home/moved",
    "cp notes.txt .cache/vshell/python-x.cwasm",
    "ln -s . d; echo pwned > d/.cache/vshell/python-x.cwasm",
    "ln -s .cache c; echo pwned > c/vshell/bashlex-x.tables",
    "ln -s .cache/vshell/python-x.cwasm l; echo pwned > l",
    "sed -i s/native/pwned/ .cache/vshell/python-x.cwasm",
    "touch .cache/vshell/new; mkdir .cache/vshell/dir",
    "tar -cf - .cache | tar -tf -",
    "grep -r native /home",
    "stat .cache/vshell/python-x.cwasm",
    "test -e .cache/vshell && echo VISIBLE",
    "du -a /home",
]


@pytest.mark.parametrize("script", ATTACKS)
def test_the_cache_is_unreachable(sb: Sandbox, home: Path, script: str) -> None:
    cache = home / ".cache" / "vshell"
    before = _snapshot(cache)
    r = sb.exec(script)
    assert b"native" not in r.stdout and b"cwasm" not in r.stdout, r.stdout
    assert b"VISIBLE" not in r.stdout
    assert b"vshell" not in r.stdout, r.stdout
    assert _snapshot(cache) == before
    assert not (home / "moved").exists()


def test_host_made_links_into_the_cache_are_refused(home: Path) -> None:
    cache = home / ".cache" / "vshell"
    os.symlink(cache, home / "abs-link")
    os.link(cache / "python-x.cwasm", home / "hardlink")  # same inode, elsewhere
    with Sandbox(mounts=[HostMount(str(home), "/home")], cwd="/home") as box:
        for script in ("cat abs-link/python-x.cwasm", "echo x > abs-link/new", "cat hardlink",
                       "echo pwned > hardlink"):
            r = box.exec(script)
            assert r.exit_code != 0 and b"Permission denied" in r.stderr, (script, r.stderr)
        assert "hardlink" not in box.fs.listdir("/home")
    assert (cache / "python-x.cwasm").read_bytes() == b"\0asm native code"


def test_a_mount_of_the_cache_itself_is_all_denied(home: Path) -> None:
    cache = home / ".cache" / "vshell"
    with Sandbox(mounts=[HostMount(str(cache), "/c")], cwd="/") as box:
        r = box.exec("ls /c; cat /c/python-x.cwasm; echo x > /c/new")
        assert r.stdout == b""
        assert r.stderr.count(b"Permission denied") == 3, r.stderr
    assert "new" not in os.listdir(cache)


def test_guest_mcp_and_api(sb: Sandbox, home: Path) -> None:
    from vshell.mcp import tools

    cache = home / ".cache" / "vshell"
    before = _snapshot(cache)
    cfg = tools.ServerConfig()
    for name, args in [("read", {"path": "/home/.cache/vshell/python-x.cwasm"}),
                       ("write", {"path": "/home/.cache/vshell/python-x.cwasm", "content": "x"}),
                       ("list", {"path": "/home/.cache"}),
                       ("glob", {"pattern": "**/*", "path": "/home"})]:
        res = tools.call(sb, cfg, name, args)
        assert "native" not in res.text, (name, res.text)
        if name in ("read", "write"):
            assert res.is_error and res.text.startswith("E_DENIED"), res.text
        else:
            assert "cwasm" not in res.text and "vshell" not in res.text, (name, res.text)
    with pytest.raises(PermissionError):
        sb.fs.open("/home/.cache/vshell/python-x.cwasm")
    with pytest.raises(PermissionError):
        sb.fs.open("/home/.cache/vshell/python-x.cwasm", "wb")
    assert sb.fs.listdir("/home/.cache") == []
    assert _snapshot(cache) == before


def test_guest_cannot_reach_the_real_cache() -> None:
    """The guest runs from the real cache; mounted (read-only, to be safe) it is not there."""
    pytest.importorskip("wasmtime")
    where = cachedir.cache_location()
    if where is None or not where.is_dir() or where.parent == Path("/"):
        pytest.skip("no vshell cache directory on this machine")
    mount = HostMount(str(where.parent), "/c", readonly=True)
    with Sandbox(mounts=[mount], cwd="/", timeout=600) as box:  # a first run compiles
        probe = (f"import os; print({where.name!r} in os.listdir('/c'));"
                 f" open('/c/{where.name}/.seal-key', 'rb')")
        r = box.exec(f"python3 -c \"{probe}\"")
        assert r.stdout == b"False\n", r.stderr
        assert b"PermissionError" in r.stderr


def test_overlay_store_inside_the_mount_is_private(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    (project / "f").write_text("f\n")
    store = project / ".vshell-overlay"
    with Sandbox(mounts=[HostMount(str(project), "/work", cow=True)], cwd="/work",
                 overlay_dir=str(store)) as box:
        r = box.exec("ls -a; ls .vshell-overlay; echo x > .vshell-overlay/pwn; echo y > f")
        assert b".vshell-overlay" not in r.stdout
        assert b"Permission denied" in r.stderr
        assert [p for p, _ in box.changes()] == ["/work/f"]
    assert not (store / "pwn").exists()


def test_protect_adds_a_private_file(tmp_path: Path) -> None:
    """The REPL's history file is protected this way (run_repl calls fs.protect)."""
    (tmp_path / "hist").write_text("secret command\n")
    with Sandbox(mounts=[HostMount(str(tmp_path), "/w")], cwd="/w") as box:
        assert box.exec("cat hist").stdout == b"secret command\n"
        box.fs.protect(tmp_path / "hist")
        r = box.exec("cat hist; ln -s . d; cat d/hist; echo x >> hist; ls")
        assert b"secret" not in r.stdout and b"hist" not in r.stdout
    assert (tmp_path / "hist").read_text() == "secret command\n"


# ---------------------------------------------------------------------- seals


def test_a_cache_file_is_used_only_with_its_seal(tmp_path: Path) -> None:
    folder = tmp_path / "c"
    folder.mkdir(mode=0o700)
    art = folder / "python-y.cwasm"
    art.write_bytes(b"compiled")
    art.chmod(0o600)
    assert cachedir.open_sealed(art) is None  # unsealed: never loaded
    cachedir.seal_file(art)
    fd = cachedir.open_sealed(art)
    assert fd is not None
    os.close(fd)
    with open(art, "ab") as f:  # changed after sealing (an attacker's rewrite)
        f.write(b"!")
    assert cachedir.open_sealed(art) is None
    cachedir.seal_file(art)
    replacement = folder / "new"
    replacement.write_bytes(art.read_bytes())
    replacement.chmod(0o600)
    os.replace(replacement, art)  # same bytes, another file
    assert cachedir.open_sealed(art) is None
    cachedir.seal_file(art)
    (folder / ".seal-key").write_bytes(b"k" * 32)  # a key the attacker knows
    assert cachedir.open_sealed(art) is None


def test_sealed_bytes(tmp_path: Path) -> None:
    folder = tmp_path / "c"
    folder.mkdir(mode=0o700)
    blob = cachedir.seal_bytes(folder, "tables", b"data")
    assert blob is not None and cachedir.unseal_bytes(folder, "tables", blob) == b"data"
    assert cachedir.unseal_bytes(folder, "other", blob) is None
    assert cachedir.unseal_bytes(folder, "tables", blob[:-1] + b"X") is None
    assert cachedir.unseal_bytes(folder, "tables", b"data") is None
    (folder / ".seal-key").chmod(0o644)  # a key others could read is no key
    assert cachedir.unseal_bytes(folder, "tables", blob) is None
