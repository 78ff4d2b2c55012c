"""No symlink or hard link that leaves its mount is ever planted on the host (point 3).

After every attack, each link vshell left in the host tree must resolve inside it when the
*host* follows it (os.path.realpath), and the refusal reads as ln's:
``ln: failed to create symbolic link 'l': Operation not permitted``.
"""

from __future__ import annotations

import io
import os
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from vshell.sandbox import HostMount, Sandbox

PLANTED = "planted-by-host"  # a pre-existing escaping link, not vshell's doing


def _links_leaving(root: Path) -> list[str]:
    bad = []
    real_root = os.path.realpath(root)
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            full = os.path.join(dirpath, name)
            if name == PLANTED or not os.path.islink(full):
                continue
            real = os.path.realpath(full)
            if real != real_root and not real.startswith(real_root + "/"):
                bad.append(f"{os.path.relpath(full, root)} -> {os.readlink(full)}")
    return bad


@pytest.fixture
def host(tmp_path: Path) -> Path:
    p = tmp_path / "P"
    (p / "src").mkdir(parents=True)
    (p / "src" / "a").write_text("a\n")
    (p / "deep" / "er").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret").write_text("outside\n")
    os.symlink(tmp_path / "outside" / "secret", p / PLANTED)
    return p


@pytest.fixture
def sb(host: Path) -> Iterator[Sandbox]:
    with Sandbox(mounts=[HostMount(str(host), "/work")], cwd="/work") as box:
        yield box


ATTACKS = [
    "ln -s . d; ln -s d/../outside/secret l",
    "ln -s . d; ln -s d/d/../../outside l",
    "ln -s ../outside/secret l",
    "ln -s src/../../outside/secret l",
    "ln -s /tmp l",
    "ln -s /work/../outside l",
    "ln -sf ../outside src/a",
    "cd deep/er && ln -s ../../../outside l",
    "ln -s planted-by-host l",
    "ln -s planted-by-host/.. l",
    "cp -P planted-by-host copy",
    "cp -a . /work/deep/copy",
    "cp -r --preserve=links planted-by-host copy",
    "ln -s ../src/a deep/l && cp -P deep/l top",
    "ln -s ../src/a deep/l && mv deep/l top",
    "ln -s ../../src/a deep/er/l && mv deep/er moved",
    "ln -s ../../src/a deep/er/l && mv deep/er /work/moved2",
    "ln -s . d; tar -cf /tmp/t.tar d; rm d; tar -xf /tmp/t.tar; ln -s d/../outside l2",
    "python3 -c \"import os; os.symlink('../outside/secret', '/work/l')\"",
    "python3 -c \"import os; os.symlink('.', '/work/d'); os.symlink('d/../outside', '/work/l')\"",
]


@pytest.mark.parametrize("script", ATTACKS)
def test_no_escaping_link_is_planted(sb: Sandbox, host: Path, script: str) -> None:
    if "python3" in script:
        pytest.importorskip("wasmtime")
    sb.exec(script)
    assert _links_leaving(host) == []


def test_ln_message_and_status(sb: Sandbox, host: Path) -> None:
    r = sb.exec("ln -s . d; ln -s d/../outside/secret l")
    assert r.exit_code == 1
    assert r.stderr == b"ln: failed to create symbolic link 'l': Operation not permitted\n"
    assert not os.path.lexists(host / "l")


def test_tar_extract_refuses_escaping_members(sb: Sandbox, host: Path) -> None:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tf:
        for name, target in (("d", "."), ("l", "d/../outside/secret"), ("m", "../outside")):
            info = tarfile.TarInfo(name)
            info.type = tarfile.SYMTYPE
            info.linkname = target
            tf.addfile(info)
    with sb.fs.open("/tmp/evil.tar", "wb") as f:
        f.write(buf.getvalue())
    r = sb.exec("tar -xf /tmp/evil.tar")
    assert r.exit_code != 0
    assert os.path.islink(host / "d")
    assert not os.path.lexists(host / "l") and not os.path.lexists(host / "m")
    assert _links_leaving(host) == []


def test_hard_links_stay_in_the_mount(tmp_path: Path, host: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "f").write_text("other\n")
    mounts = [HostMount(str(host), "/work"), HostMount(str(other), "/other", readonly=True)]
    with Sandbox(mounts=mounts, cwd="/work") as box:
        r = box.exec("ln /other/f h1; ln planted-by-host h2; ln -s /other o; ln o/f h3")
        assert r.exit_code == 1
        for name in ("h1", "h2", "h3", "o"):
            assert not os.path.lexists(host / name), (name, r.stderr)
        assert (other / "f").stat().st_nlink == 1


def test_api_symlink_and_allowed_links(sb: Sandbox, host: Path) -> None:
    fs = sb.fs
    fs.symlink(".", "/work/d")
    with pytest.raises(PermissionError) as e:
        fs.symlink("d/../outside", "/work/l")
    assert e.value.errno == 1  # EPERM
    assert not fs.symlink_allowed("d/../outside", "/work/l")
    # links that stay inside keep working, on the host too
    r = sb.exec("ln -s src/a rel; ln -s ../src/a deep/up; ln -s /work/src/a abs;"
                " ln -s nowhere dangling; cat rel deep/up abs")
    assert r.stdout == b"a\na\na\n", r.stderr
    assert (host / "rel").read_text() == "a\n" and (host / "abs").read_text() == "a\n"
    assert os.readlink(host / "dangling") == "nowhere"
    assert _links_leaving(host) == []


def test_cow_sync_never_plants_an_escaping_link(host: Path) -> None:
    with Sandbox(mounts=[HostMount(str(host), "/work", cow=True)], cwd="/work") as box:
        r = box.exec("ln -s . d; ln -s d/../outside l; ln -s ../src/a deep/ok; mv deep/ok top")
        assert b"Operation not permitted" in r.stderr
        backend = box.fs.mount_for("/work")[0].backend
        from vshell.vfs import Ctx

        backend.upper.symlink("d/../outside", ("l2",), Ctx("/work", lambda p: None))
        result = box.sync()
        assert "/work/l2" in result.conflicts
    assert _links_leaving(host) == []
    assert not os.path.lexists(host / "l2")
