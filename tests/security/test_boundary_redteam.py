"""Red-team findings against the VFS boundary (issue 14, points 1-4), each a regression test.

Layout as in test_nested_mounts: host P read-write at /work, P/.git read-only at /work/.git,
an empty directory masking P/secrets at /work/secrets, P/cow copy-on-write at /work/cow;
``d -> .`` is the alias the mount table never sees.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from vshell.sandbox import HostMount, Sandbox


@pytest.fixture
def host(tmp_path: Path) -> Path:
    p = tmp_path / "P"
    for d in (p / ".git" / "hooks", p / "secrets" / "prod", p / "cow" / "sub", p / "src"):
        d.mkdir(parents=True)
    (p / ".git" / "config").write_text("cfg\n")
    (p / "secrets" / "key").write_text("TOPSECRET\n")
    (p / "cow" / "f").write_text("cow\n")
    (tmp_path / "EMPTY").mkdir()
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


# --- a link made through an alias into another mount is made there, under its own name ---


@pytest.mark.parametrize("target", ["f", "sub", "/work/cow/f"])
def test_link_through_an_alias_lands_in_the_inner_mount(
    sb: Sandbox, host: Path, target: str
) -> None:
    """Before: the hand-off lost the link's name ('File exists' on the mount root)."""
    r = sb.exec(f"ln -s {target} d/cow/l && readlink cow/l")
    assert r.exit_code == 0, r.stderr
    assert r.stdout == f"{target}\n".encode()
    assert not (host / "cow" / "l").is_symlink()  # copy-on-write: the host is untouched


def test_link_through_an_alias_into_a_missing_dir_names_the_right_path(
    sb: Sandbox, host: Path
) -> None:
    """Before: the hand-off re-ran on the parent, planting a link named 'nodir' instead."""
    r = sb.exec("ln -s f d/cow/nodir/l")
    assert r.exit_code == 1
    assert b"No such file or directory" in r.stderr
    assert sb.exec("ls -a cow").stdout.split() == [b".", b"..", b"f", b"sub"]
    assert sorted(p.name for p in (host / "cow").iterdir()) == ["f", "sub"]


def test_link_through_an_alias_into_a_readonly_mount_is_refused(
    sb: Sandbox, host: Path
) -> None:
    r = sb.exec("ln -s config d/.git/l; ln -s config d/.git/hooks/l")
    assert r.stderr.count(b"Read-only file system") == 2, r.stderr
    assert sorted(p.name for p in (host / ".git").iterdir()) == ["config", "hooks"]


def test_api_symlink_through_an_alias(sb: Sandbox, host: Path) -> None:
    sb.fs.symlink("f", "/work/d/cow/api")
    assert sb.fs.readlink("/work/cow/api") == "f"
    with pytest.raises(FileNotFoundError):
        sb.fs.symlink("f", "/work/d/cow/nodir/api")
    assert not sb.fs.lexists("/work/cow/nodir")


# --- a directory's link count does not count the subdirectories it hides ---


def _dirs(root: Path, *names: str) -> None:
    for name in names:
        (root / name).mkdir(parents=True)


@pytest.mark.parametrize("cow", [False, True])
def test_link_count_hides_denied_and_private_subdirs(tmp_path: Path, cow: bool) -> None:
    """Before: ``stat -c %h`` said 5 where 3 were visible, counting denied/private dirs."""
    w = tmp_path / "w"
    _dirs(w, "pub", "secrets/prod", "priv")
    mount = HostMount(str(w), "/tmp/w", cow=cow)
    with Sandbox(mounts=[mount], deny=["/tmp/w/secrets"], cwd="/tmp/w") as box:
        box.fs.protect(str(w / "priv"))
        box.exec("ln -s . d")
        for spelled in (".", "-L d", "/tmp/w", "pub/..", "-L d/d"):
            r = box.exec(f"stat -c %h {spelled}")
            assert r.stdout == b"3\n", (spelled, r.stdout, r.stderr)
        assert box.fs.stat("/tmp/w").st_nlink == 3
        assert box.exec("find . -maxdepth 0 -links 3").stdout == b".\n"
        assert box.exec("stat -c %h pub").stdout == b"2\n"  # nothing hidden: the host count
    assert os.stat(w).st_nlink == 5  # the host still counts them (a real count was masked)


def test_link_count_unchanged_without_hidden_entries(tmp_path: Path) -> None:
    w = tmp_path / "w"
    _dirs(w, "a", "b", "c/d")
    with Sandbox(mounts=[HostMount(str(w), "/tmp/w")], deny=["/tmp/w/zz"], cwd="/tmp/w") as box:
        assert box.exec("stat -c %h . c").stdout == b"5\n3\n"


def test_directory_size_does_not_grow_with_hidden_entries(tmp_path: Path) -> None:
    """Before: 'stat -c %s' of a host directory grew with the denied entries it holds
    (by blocks on ext4, by name lengths on tmpfs and btrfs)."""
    w = tmp_path / "w"
    (w / "pub").mkdir(parents=True)
    for i in range(400):
        (w / f"hidden-{i:04}-{'x' * 40}.pem").write_text("k")
    assert os.stat(w).st_size > 4096  # the host directory really grew
    with Sandbox(mounts=[HostMount(str(w), "/tmp/w")], deny=["*.pem"], cwd="/tmp/w") as box:
        assert box.exec("stat -c '%s %b' . ; ls").stdout == b"4096 8\npub\n"
        assert box.fs.stat("/tmp/w").st_size == 4096


# --- removing a directory that lists empty does not say it holds something ---


@pytest.fixture
def hidden(tmp_path: Path) -> Iterator[tuple[Sandbox, Path]]:
    w = tmp_path / "w"
    (w / "onlyhidden" / "sec").mkdir(parents=True)
    (w / "onlyhidden" / "sec" / "k").write_text("K")
    (w / "pems").mkdir()
    (w / "pems" / "a.pem").write_text("P")
    (w / "full").mkdir()
    (w / "full" / "seen").write_text("s")
    (w / "empty").mkdir()
    (w / "priv").mkdir()
    (w / "priv" / "p").write_text("p")
    (w / "privhost").mkdir()
    mount = HostMount(str(w), "/tmp/w")
    with Sandbox(mounts=[mount], deny=["/tmp/w/onlyhidden/sec", "*.pem"], cwd="/tmp/w") as box:
        box.fs.protect(str(w / "priv" / "p"))
        yield box, w


@pytest.mark.parametrize("name", ["onlyhidden", "pems", "priv"])
@pytest.mark.parametrize("how", ["rmdir {n}", "rm -r {n}", "rm -d {n}", "mv -T empty {n}"])
def test_removing_a_dir_of_hidden_entries_says_permission_denied(
    hidden: tuple[Sandbox, Path], name: str, how: str
) -> None:
    """Before: 'Directory not empty' of a directory every listing shows as empty."""
    box, w = hidden
    r = box.exec(f"ls -A {name}; " + how.format(n=name))
    assert r.stdout == b""
    assert r.exit_code == 1
    assert b"Permission denied" in r.stderr and b"not empty" not in r.stderr, r.stderr
    assert len(list((w / name).iterdir())) == 1  # the hidden entry is still there


def test_a_visibly_full_dir_is_still_not_empty(hidden: tuple[Sandbox, Path]) -> None:
    box, _ = hidden
    r = box.exec("rmdir full; mv -T empty full")
    assert r.stderr.count(b"Directory not empty") == 2, r.stderr
    assert box.exec("rmdir empty && ls").stdout.split() == [b"full", b"onlyhidden", b"pems",
                                                          b"priv", b"privhost"]


def test_api_rmdir_of_hidden_entries(hidden: tuple[Sandbox, Path]) -> None:
    box, _ = hidden
    with pytest.raises(PermissionError):
        box.fs.rmdir("/tmp/w/onlyhidden")
    with pytest.raises(PermissionError):
        box.fs.rename("/tmp/w/empty", "/tmp/w/pems")


# --- the way to a private location that does not exist yet cannot be re-pointed ---


@pytest.fixture
def fresh_home(tmp_path: Path) -> Iterator[tuple[Sandbox, Path]]:
    """A home whose cache directory vshell will only create later (none yet)."""
    home = tmp_path / "home"
    (home / "evil").mkdir(parents=True)
    with Sandbox(mounts=[HostMount(str(home), "/home")], cwd="/home") as box:
        box.fs.protect(str(home / ".cache" / "vshell"))
        yield box, home


PLANTS = [
    "ln -s evil .cache",
    "ln -s /home/evil .cache",
    "mkdir -p x/vshell && mv -T x .cache",
    "mkdir .cache && ln -s ../evil .cache/vshell",
    "mkdir -p x && ln -s ../evil x/vshell && mv -T x .cache",
    "ln -s evil e && ln e .cache",
]


@pytest.mark.parametrize("script", PLANTS)
def test_no_link_or_tree_is_planted_on_the_way_to_the_cache(
    fresh_home: tuple[Sandbox, Path], script: str
) -> None:
    """Before: '.cache' could become a link (or a tree of the attacker's): the cache that
    vshell creates through it later, seal key and all, was then in reach."""
    box, home = fresh_home
    r = box.exec(script)
    assert r.exit_code == 1 and b"Permission denied" in r.stderr, (r.stdout, r.stderr)
    cache = home / ".cache"
    assert not cache.is_symlink()
    assert not (cache / "vshell").exists() and not (cache / "vshell").is_symlink()


def test_a_real_directory_on_the_way_is_fine(fresh_home: tuple[Sandbox, Path]) -> None:
    box, home = fresh_home
    r = box.exec("mkdir .cache && touch .cache/other && ls .cache")
    assert (r.exit_code, r.stdout) == (0, b"other\n"), r.stderr
    assert box.exec("mkdir .cache/vshell").exit_code == 1


def test_every_usual_cache_location_is_private(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: only this process's cache was private; a sandbox of a process with another
    VSHELL_CACHE_DIR could read the default cache's seal key and plant sealed files."""
    home = tmp_path / "home"
    (home / ".cache" / "vshell").mkdir(parents=True)
    (home / ".cache" / "vshell" / ".seal-key").write_bytes(b"k" * 32)
    (home / "xdg" / "vshell").mkdir(parents=True)
    monkeypatch.setenv("VSHELL_CACHE_DIR", str(tmp_path / "elsewhere"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "xdg"))
    monkeypatch.setenv("HOME", str(home))
    with Sandbox(mounts=[HostMount(str(home), "/home")], cwd="/home") as box:
        r = box.exec("cat .cache/vshell/.seal-key; ls -A .cache xdg; touch xdg/vshell/x")
        assert r.stdout == b".cache:\n\nxdg:\n", r.stdout  # both listed empty
        assert r.stderr.count(b"Permission denied") == 2, r.stderr


def test_cow_sync_never_plants_a_link_on_the_way_to_the_cache(tmp_path: Path) -> None:
    """Defence in depth: an upper link at a private location's ancestor (which the VFS
    refuses to make) is not synced to the host either."""
    home = tmp_path / "home"
    (home / "evil").mkdir(parents=True)
    with Sandbox(mounts=[HostMount(str(home), "/home", cow=True)], cwd="/home") as box:
        box.fs.protect(str(home / ".cache" / "vshell"))
        r = box.exec("ln -s evil .cache")
        assert b"Permission denied" in r.stderr
        from vshell.vfs import Ctx

        backend = box.fs.mount_for("/home")[0].backend
        backend.upper.symlink("evil", (".cache",), Ctx("/home", lambda p: None))
        box.exec("mkdir real && touch real/f")
        result = box.sync()
        assert "/home/.cache" in result.conflicts
    assert not (home / ".cache").is_symlink() and not (home / ".cache").exists()


def test_rename_and_link_through_an_alias_within_one_mount(sb: Sandbox, host: Path) -> None:
    """Before: EXDEV (mv fell back to copy and delete) although both paths are in /work/cow."""
    fs = sb.fs
    fs.rename("/work/d/cow/f", "/work/cow/g")
    fs.rename("/work/cow/g", "/work/d/cow/h")
    fs.link("/work/d/cow/h", "/work/cow/hl")
    assert fs.stat("/work/cow/h").st_ino == fs.stat("/work/cow/hl").st_ino
    assert sorted(fs.listdir("/work/cow")) == ["h", "hl", "sub"]
    assert (host / "cow" / "f").read_text() == "cow\n"  # copy-on-write: the host is untouched
    with pytest.raises(OSError) as exc:  # really two mounts: still EXDEV
        fs.rename("/work/d/cow/h", "/work/src/h")
    assert exc.value.errno == 18
    r = sb.exec("mv d/.git/config cow/c; mv cow/h d/.git/h")
    assert r.stderr.count(b"Read-only file system") == 2, r.stderr


# --- a link's target is not judged by what a denied directory holds ---


@pytest.mark.parametrize("cow", [False, True])
def test_ln_to_a_denied_target_answers_alike(tmp_path: Path, cow: bool) -> None:
    """Before: 'ln -s secrets/esc/x l' said 'Operation not permitted' only when the denied
    directory held an escaping link named esc (others made the link): a probe of names."""
    w = tmp_path / "w"
    (w / "secrets" / "prod").mkdir(parents=True)
    (w / "secrets" / "key").write_text("k")
    (w / "pub").mkdir()
    (tmp_path / "outside").mkdir()
    (w / "secrets" / "esc").symlink_to(tmp_path / "outside")
    mount = HostMount(str(w), "/tmp/w", cow=cow)
    with Sandbox(mounts=[mount], deny=["/tmp/w/secrets"], cwd="/tmp/w") as box:
        box.exec("ln -s . d")
        answers = set()
        for name in ("prod", "esc", "nope", "key"):
            for spelled in (f"../secrets/{name}/x", f"../secrets/{name}/y/z",
                            f"../d/secrets/{name}/x", f"/tmp/w/secrets/{name}/x"):
                r = box.exec(f"ln -s {spelled} pub/l")
                answers.add((r.exit_code, r.stderr))
        assert answers == {(1, b"ln: failed to create symbolic link 'pub/l': "
                               b"Permission denied\n")}
        # naming the denied path itself is allowed (using the link is refused)
        assert box.exec("ln -s ../secrets pub/ok && ls pub").stdout == b"ok\n"
        assert b"Permission denied" in box.exec("cat pub/ok/key").stderr
    assert sorted(os.listdir(w / "pub")) == ([] if cow else ["ok"])  # cow: in the overlay


def test_moving_a_tree_does_not_tell_whether_a_denied_name_exists(tmp_path: Path) -> None:
    """Before: 'mv a a2' was refused only when the denied a/sec existed."""
    w = tmp_path / "w"
    (w / "a" / "sec").mkdir(parents=True)
    (w / "b").mkdir()
    (w / "c").mkdir()
    deny = ["/tmp/w/a/sec", "/tmp/w/b/sec"]
    with Sandbox(mounts=[HostMount(str(w), "/tmp/w")], deny=deny, cwd="/tmp/w") as box:
        r = box.exec("ln -s . d; mv a a2; mv b b2; mv d/b d/b3; mv c c2; ls")
        lines = r.stderr.replace(b"d/b", b"b").replace(b"b3", b"b2").splitlines()
        assert lines == [b"mv: cannot move 'a' to 'a2': Permission denied"] + [
            b"mv: cannot move 'b' to 'b2': Permission denied"] * 2, r.stderr
        assert r.stdout == b"a\nb\nc2\nd\n"
