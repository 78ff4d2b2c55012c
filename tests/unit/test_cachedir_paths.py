"""The cache directory's string paths (the start-up path avoids pathlib) are the paths
``pathlib`` gives: the same private places, spelled the same way."""

from __future__ import annotations

from pathlib import Path

import pytest

from vshell import cachedir

TRICKY = ["/a//b/", "//a/b", "///a", "/a/./b/../c", "/", "//", "/a/b/.", "/.", "/a/..//b",
          "/x y/ü/", "/a/b//./"]


@pytest.mark.parametrize("path", TRICKY)
def test_clean_path_is_what_pathlib_prints(path: str) -> None:
    assert cachedir.clean_path(path) == str(Path(path))


@pytest.mark.parametrize("env", [
    {"VSHELL_CACHE_DIR": "/srv//cache/./v/"},
    {"VSHELL_CACHE_DIR": "relative", "XDG_CACHE_HOME": "/x//y/"},
    {"XDG_CACHE_HOME": "/x/../y", "HOME": "/home/other/"},
    {"HOME": "//h"},
])
def test_locations_match_the_pathlib_spelling(monkeypatch: pytest.MonkeyPatch,
                                             env: dict[str, str]) -> None:
    for name in ("VSHELL_CACHE_DIR", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    home = cachedir._home()
    explicit = env.get("VSHELL_CACHE_DIR", "")
    xdg = env.get("XDG_CACHE_HOME", "")
    if explicit.startswith("/"):
        want = Path(explicit)
    elif xdg.startswith("/"):
        want = Path(xdg) / "vshell"
    else:
        assert home is not None
        want = Path(home, ".cache") / "vshell"
    assert cachedir.cache_location() == want
    assert str(want) == cachedir.cache_paths()[0]
    assert cachedir.cache_locations() == [Path(p) for p in cachedir.cache_paths()]
    others = [Path(b) / "vshell" for b in [xdg, *(f"{h}/.cache" for h in (home, env.get("HOME")))]
              if b and b.startswith("/")]
    assert set(cachedir.cache_locations()) == {want, *others}
