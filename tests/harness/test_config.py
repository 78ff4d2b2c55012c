"""vshell.toml: layering (worktree > repository root > user > built-in; flags on top),
validation errors naming file, line and key."""

from __future__ import annotations

from pathlib import Path

import pytest
from gitlayout import make_repo

from vshell.cli.main import parse_args
from vshell.config import ConfigError, Settings, load_settings
from vshell.scope.cli import settings_for


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cfg = tmp_path / "cfg"
    (cfg / "vshell").mkdir(parents=True)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(cfg))
    return cfg / "vshell" / "vshell.toml"


def test_builtin_defaults(home: Path, tmp_path: Path) -> None:
    s = load_settings(str(tmp_path), None)
    assert s == Settings()
    assert s.mode == "rewrite" and s.isolation == "worktree" and s.timeout == 30.0
    assert "git" in s.host_programs() and "ls" not in s.host_programs()


def test_layers_worktree_over_repo_over_user(home: Path, tmp_path: Path) -> None:
    main, linked = make_repo(tmp_path)
    home.write_text('timeout = "5s"\nmode = "tool"\nidle_timeout = "2m"\n'
                    'deny = ["**/.env"]\nallow_net = ["a.example"]\n')
    (main / "vshell.toml").write_text('timeout = "10s"\nmode = "off"\ndeny = ["**/id_*"]\n')
    (linked / "vshell.toml").write_text('mode = "rewrite"\nallow_net = ["b.example"]\n'
                                        'passthrough = ["terraform"]\n')
    s = load_settings(str(linked), str(main))
    assert s.mode == "rewrite"  # the worktree's
    assert s.timeout == 10.0  # the repository root's
    assert s.idle_timeout == 120.0  # the user's
    assert s.allow_net == ["b.example"]  # replaced, not merged
    assert s.deny == ["**/.env", "**/id_*"]  # deny accumulates: never lifted from below
    assert "terraform" in s.host_programs() and "git" in s.host_programs()
    assert s.sources == [str(home), str(main / "vshell.toml"), str(linked / "vshell.toml")]
    main_only = load_settings(str(main), str(main))
    assert main_only.mode == "off" and main_only.sources.count(str(main / "vshell.toml")) == 1


def test_flags_win_over_files(home: Path, tmp_path: Path) -> None:
    main, _ = make_repo(tmp_path)
    (main / "vshell.toml").write_text('timeout = "10s"\noutput_limit = "1M"\n'
                                      'deny = ["**/.env"]\n')
    s, opts = settings_for(str(main / "src"), ["--timeout", "2s", "--deny-path", "*.key",
                                               "-c", "true"], parse_args, None)
    assert s.timeout == 2.0 and s.output_limit == 1 << 20
    assert s.deny == ["**/.env", "*.key"] and opts.command == "true"
    s, _ = settings_for(str(main), ["-c", "true"], parse_args, "repo")
    assert s.timeout == 10.0 and s.isolation == "repo"


def test_mounts_table(home: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (tmp_path / "vshell.toml").write_text(
        f'worktree_mount = "cow"\n[[mounts]]\nhost = "{data}"\npath = "/data"\nmode = "ro"\n')
    s = load_settings(str(tmp_path), None)
    assert s.worktree_mount == "cow"
    assert [(m.host, m.vpath, m.mode) for m in s.mounts] == [(str(data), "/data", "ro")]


@pytest.mark.parametrize("text, line, key, words", [
    ('mode = "rewrite"\n\ntimout = "5s"\n', 3, "timout", "unknown key"),
    ('mode = "fast"\n', 1, "mode", "rewrite, tool, off"),
    ('strict = "yes"\n', 1, "strict", "true or false"),
    ('# c\ntimeout = "soon"\n', 2, "timeout", "not a duration"),
    ('deny = "**/.env"\n', 1, "deny", "list of strings"),
    ('output_limit = "lots"\n', 1, "output_limit", "not a byte count"),
    ('[[mounts]]\nhost = "rel/dir"\n', 2, "mounts.host", "absolute"),
    ('[[mounts]]\nhost = "/tmp"\nmode = "wx"\n', 3, "mounts.mode", "rw, ro, cow"),
    ('[[mounts]]\nhost = "/tmp"\ncolour = 1\n', 3, "mounts.colour", "unknown key"),
    ('mode = \n', 1, None, "not valid TOML"),
])
def test_errors_name_file_line_and_key(home: Path, tmp_path: Path, text: str, line: int,
                                       key: str | None, words: str) -> None:
    path = tmp_path / "vshell.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_settings(str(tmp_path), None)
    e = info.value
    assert (e.path, e.line, e.key) == (str(path), line, key)
    assert str(e).startswith(f"{path}:{line}: ") and words in str(e)
    if key:
        assert f": {key}: " in str(e)


def test_config_error_from_the_command_line(home: Path, tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    (tmp_path / "vshell.toml").write_text('isolation = "galaxy"\n')
    env = {**os.environ, "XDG_CONFIG_HOME": str(home.parent.parent),
           "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    r = subprocess.run([sys.executable, "-m", "vshell", "run", "-c", "true"], cwd=tmp_path,
                       env=env, capture_output=True, timeout=60)
    assert r.returncode == 2
    assert r.stderr.decode() == (f"vshell: {tmp_path}/vshell.toml:1: isolation: want one of "
                                 "worktree, repo, session, not 'galaxy'\n")


def test_strict_once_set_stays(home: Path, tmp_path: Path) -> None:
    main, linked = make_repo(tmp_path)
    home.write_text("strict = true\n")
    (linked / "vshell.toml").write_text("strict = false\n")
    assert load_settings(str(linked), str(main)).strict is True
    home.write_text("strict = false\n")
    (main / "vshell.toml").write_text("strict = true\n")
    assert load_settings(str(linked), str(main)).strict is True
    (main / "vshell.toml").unlink()
    assert load_settings(str(linked), str(main)).strict is False
