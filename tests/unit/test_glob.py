"""Pathname expansion tests against bash 5.2 run in a real directory tree.

The same tree is seen three ways: bash on the host, a minimal fake fs over the host
directory (the interface glob needs: scandir/isdir/exists/lexists), and vshell's own VFS
with the directory mounted through a HostBackend (and a MemoryBackend for a copy).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from vshell.text.glob import has_magic, unescape
from vshell.text.pathglob import glob_expand


def _random_cases(seed: int, n: int) -> list[tuple[str, str, str]]:
    """Random multi-component patterns and option sets (fixed seed: reproducible)."""
    import random

    rnd = random.Random(seed)
    comps = ["*", "a*", "?", "[ab]*", ".*", "**", "b", "x", "*.c", "@(a|B)", "!(a)", "*x",
             ".", "[[:upper:]]", "?(a)*", "+([a-z])", ".h*", "a-b", "*[!c]"]
    out = []
    for _ in range(n):
        pat = "/".join(rnd.choice(comps) for _ in range(rnd.randint(1, 3)))
        pat += rnd.choice(["", "", "/"])
        opts = " ".join(o for o in ("globstar", "dotglob", "nocaseglob") if rnd.random() < 0.3)
        out.append((opts, "", pat))
    return out


# (shopt flags, GLOBIGNORE, pattern)
CASES: list[tuple[str, str, str]] = [
    ("", "", "*"), ("", "", "*/x"), ("", "", "*/"), ("", "", ".*"), ("", "", "*/*"),
    ("", "", "a/../*.c"), ("", "", "b*"), ("", "", "[ab]*"), ("", "", "*.c"), ("", "", "a/*"),
    ("", "", "a/.*"), ("", "", ".h*/*"), ("", "", "sp\\ *"), ("", "", "a//*"), ("", "", "./a*"),
    ("", "", "*/f"), ("", "", "a/b/*/*.c"), ("", "", "*/*/"), ("", "", "nothere/*"),
    ("", "", "a\\*"), ("", "", "\\**"), ("", "", "[*]*"), ("", "", "st\\ar*"), ("", "", "?"),
    ("", "", "??"), ("", "", "*[!c]"), ("", "", "a/b/c/*"), ("", "", "**"), ("", "", "**/*.c"),
    ("", "", "*/b/"), ("", "", "lnk/*"), ("", "", "*/*.c"), ("", "", "[[:upper:]]*"),
    ("", "", "@(a|B)"), ("", "", "!(a*)"), ("", "", "*.@(c|txt)"), ("", "", "+([a-z])"),
    ("", "", "a/!(x)"), ("", "", "é*"), ("", "", "*/"), ("", "", "a-b/*/"), ("", "", "a/b"),
    ("", "", "*x/y"), ("", "", "a*/x"),
    ("globstar", "", "**"), ("globstar", "", "**/"), ("globstar", "", "**/*.c"),
    ("globstar", "", "a/**"), ("globstar", "", "a/**/"), ("globstar", "", "**/b"),
    ("globstar", "", "lnk/**"), ("globstar", "", "x**"), ("globstar", "", "**/**/*.c"),
    ("globstar", "", "**/x"), ("globstar", "", "a/**/*.c"), ("globstar", "", "nothere/**"),
    ("globstar", "", "*/**/d.c"), ("globstar dotglob", "", "**/*.c"),
    ("globstar", "", "./**/b"), ("globstar", "", "./**/x"), ("globstar", "", "./**"),
    ("globstar", "", "*/**/x"), ("globstar", "", "**/*/"), ("globstar", "", "[ab]*/**"),
    ("globstar", "", "*/x/**"), ("globstar", "", "[a]/**/"), ("globstar", "", "**/b/**"),
    ("globstar dotglob", "", "**"),
    ("nocaseglob", "", "b*"), ("nocaseglob", "", "A/X"), ("nocaseglob", "", "[b]/q"),
    ("nocaseglob", "", "[b]/*"), ("nocaseglob", "", "*.C"),
    ("dotglob", "", "*"), ("dotglob", "", "a/*"), ("dotglob", "", "*/*"),
    ("", "*.c", "*"), ("", "a*", "*/*"), ("", "*", "a/*"), ("", "a/*", "*/*"),
    ("", "*.c:B*", "*"), ("", "@(a|lnk)", "*"),
    *_random_cases(7, 150),
]


def _make_tree(root: Path) -> None:
    for d in ["a/b/c", "a-b/x", "B", ".hid/sub"]:
        (root / d).mkdir(parents=True, exist_ok=True)
    for f in ["a/x", "a-b/x/y", "a/b/c/d.c", "a/b/e.c", "top.c", ".dot.c", "B/Q", ".hid/h.c",
              "a/.in.c", "sp ace", "star*", "é.txt", "n.txt", "x", "B/f"]:
        (root / f).write_text("")
    (root / "lnk").symlink_to("a")
    (root / "broken").symlink_to("nowhere")


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("globtree")
    _make_tree(root)
    return root


@pytest.fixture(scope="module")
def bash_results(tree: Path) -> list[list[str]]:
    if shutil.which("bash") is None:
        pytest.skip("bash not available")
    lines = ["shopt -s nullglob extglob"]
    for opts, ignore, pat in CASES:
        sets = f"shopt -s {opts}; " if opts else ""
        unsets = f"shopt -u {opts}; " if opts else ""
        # unsetting GLOBIGNORE turns dotglob off, so it goes first
        gi = f"GLOBIGNORE='{ignore}'; " if ignore else "unset GLOBIGNORE; "
        lines.append(f"{gi}{sets}eval 'r=( {pat} )'; printf '%s\\x1f' \"${{r[@]}}\"; "
                     f"printf '\\n@@\\n'; {unsets}")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C.UTF-8"}
    out = subprocess.run(
        ["bash", "-c", "\n".join(lines)], cwd=tree, check=False, capture_output=True,
        text=True, env=env, timeout=60,
    ).stdout
    blocks = out.split("\n@@\n")[: len(CASES)]
    return [[x for x in b.split("\x1f") if x] for b in blocks]


class _HostFS:
    """The few VFS methods glob needs, over host paths (tests only)."""

    def scandir(self, path: str) -> list[Any]:
        with os.scandir(path) as it:
            return list(it)

    def isdir(self, path: str) -> bool:
        return os.path.isdir(path)

    def exists(self, path: str) -> bool:
        return os.path.exists(path)

    def lexists(self, path: str) -> bool:
        return os.path.lexists(path)


def _ours(fs: Any, cwd: str, case: tuple[str, str, str]) -> list[str]:
    opts, ignore, pat = case
    flags = set(opts.split())
    if not has_magic(pat):
        return [unescape(pat)]  # the interpreter never globs such a word
    return glob_expand(
        fs, cwd, pat,
        dotglob="dotglob" in flags or bool(ignore),
        extglob=True,
        nocaseglob="nocaseglob" in flags,
        globstar="globstar" in flags,
        globignore=[g for g in ignore.split(":") if g] if ignore else None,
    )


@pytest.mark.parametrize("i", range(len(CASES)), ids=[" ".join(c) for c in CASES])
def test_fake_fs(i: int, tree: Path, bash_results: list[list[str]]) -> None:
    assert _ours(_HostFS(), str(tree), CASES[i]) == bash_results[i]


def _vfs(tree: Path) -> Any:
    vfs_mod = pytest.importorskip("vshell.vfs")
    return vfs_mod.VFS(mounts=[vfs_mod.Mount("/w", vfs_mod.HostBackend(str(tree)))])


@pytest.mark.parametrize("i", range(len(CASES)), ids=[" ".join(c) for c in CASES])
def test_real_vfs(i: int, tree: Path, bash_results: list[list[str]]) -> None:
    if "a/../" in CASES[i][2]:
        pytest.skip("the VFS resolves .. lexically; bash asks the kernel")
    assert _ours(_vfs(tree), "/w", CASES[i]) == bash_results[i]


def test_absolute_pattern(tree: Path) -> None:
    vfs = _vfs(tree)
    assert glob_expand(vfs, "/", "/w/a/*") == ["/w/a/b", "/w/a/x"]
    assert glob_expand(vfs, "/w/a", "../a-*") == ["../a-b"]
    assert glob_expand(vfs, "/w/a", "/w/*.c") == ["/w/top.c"]


def test_memory_backend() -> None:
    vfs_mod = pytest.importorskip("vshell.vfs")
    mem = vfs_mod.MemoryBackend({"src/a.py": "", "src/b.py": "", "src/sub/c.py": "",
                                 "README": "", ".git/config": ""})
    vfs = vfs_mod.VFS(mounts=[vfs_mod.Mount("/m", mem)])
    assert glob_expand(vfs, "/m", "src/*.py") == ["src/a.py", "src/b.py"]
    assert glob_expand(vfs, "/m", "*") == ["README", "src"]
    assert glob_expand(vfs, "/m", "**/*.py", globstar=True) == [
        "src/a.py", "src/b.py", "src/sub/c.py"]
    assert glob_expand(vfs, "/m", "*/", dotglob=True) == [".git/", "src/"]
    assert glob_expand(vfs, "/m", "nothing*") == []


def test_denied_entries_are_invisible(tree: Path) -> None:
    vfs_mod = pytest.importorskip("vshell.vfs")
    vfs = vfs_mod.VFS(mounts=[vfs_mod.Mount("/w", vfs_mod.HostBackend(str(tree)))],
                      deny=["**/*.c"])
    assert glob_expand(vfs, "/w", "*.c") == []
    assert glob_expand(vfs, "/w", "a/b/*") == ["a/b/c"]


def test_unreadable_dir_is_skipped() -> None:
    class Denying(_HostFS):
        def scandir(self, path: str) -> list[Any]:
            raise PermissionError(13, "Permission denied", path)

    assert glob_expand(Denying(), "/", "*") == []
