"""``vshell.toml``: the settings of a scope's session and of the harness hooks, layered.

Layers, lowest first: the built-in defaults, ``~/.config/vshell/vshell.toml`` (or
``$XDG_CONFIG_HOME/vshell/vshell.toml``), the repository root's ``vshell.toml``, the
worktree's ``vshell.toml``; command-line flags are applied by the caller on top.  A key
in a higher layer replaces the lower one, except ``deny``, which accumulates, and
``strict``, which once true stays true: a file in the (agent-writable) worktree can add
rules but never lift one set below it in the user's or the repository's file.

Read with the standard library's ``tomllib``; every fault is a :class:`ConfigError`
naming the file, the line and the key, so a typo is fixed in one look.
"""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path
from typing import Any

from vshell import limits
from vshell.records import field, record

MODES = ("rewrite", "tool", "off")
ISOLATIONS = ("worktree", "repo", "session")
MOUNT_MODES = ("rw", "ro", "cow")

# Programs that need the host (credentials, the real repository, daemons, package
# registries): a line that runs one of them is left to the host shell (or denied with
# ``strict = true``).  The config's ``passthrough`` list adds to these.
HOST_PROGRAMS = (
    "git", "gh", "ssh", "scp", "sftp", "rsync", "docker", "podman", "kubectl", "sudo",
    "apt", "apt-get", "dpkg", "brew", "npm", "npx", "pnpm", "yarn", "bun", "pip", "pip3",
    "pipx", "uv", "poetry", "cargo", "go", "gem", "bundle", "composer", "vshell",
)


class ConfigError(ValueError):
    """A ``vshell.toml`` that cannot be used: ``file:line: key: problem``."""

    def __init__(self, path: str, line: int | None, key: str | None, problem: str) -> None:
        where = f"{path}:{line}" if line else path
        super().__init__(f"{where}: {key + ': ' if key else ''}{problem}")
        self.path, self.line, self.key = path, line, key


@record
class MountEntry:
    host: str
    vpath: str
    mode: str = "rw"


@record
class Settings(limits.Limits):
    """Everything a scope's session and the hooks need, after layering."""

    mode: str = "rewrite"
    strict: bool = False
    passthrough: list[str] = field(default_factory=list)
    isolation: str = "worktree"
    worktree_mount: str = "rw"  # how the worktree itself is mounted: rw, ro or cow
    mounts: list[MountEntry] = field(default_factory=list)
    deny: list[str] = field(default_factory=list)
    allow_net: list[str] = field(default_factory=list)
    idle_timeout: float | None = 1800.0
    sources: list[str] = field(default_factory=list)  # the files that were read

    def host_programs(self) -> set[str]:
        return set(HOST_PROGRAMS) | set(self.passthrough)


def user_config_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME", "")
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "vshell" / "vshell.toml"


def layer_paths(worktree: str | None, repo_root: str | None) -> list[Path]:
    """The files to read, lowest layer first, each once."""
    paths = [user_config_path()]
    for root in (repo_root, worktree):
        if root:
            p = Path(root) / "vshell.toml"
            if p not in paths:
                paths.append(p)
    return paths


def load_settings(worktree: str | None = None, repo_root: str | None = None) -> Settings:
    """The layered settings for a worktree (files that do not exist are skipped)."""
    settings = Settings()
    for path in layer_paths(worktree, repo_root):
        if path.is_file():
            apply_file(settings, path)
    return settings


def apply_file(settings: Settings, path: Path) -> None:
    text = path.read_text(encoding="utf-8", errors="replace")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"at line (\d+)", str(e))
        raise ConfigError(str(path), int(m.group(1)) if m else None, None,
                          f"not valid TOML: {e}") from None
    _apply(settings, data, _Locator(str(path), text))
    settings.sources.append(str(path))


class _Locator:
    """Finds the line a key is written on (tomllib does not report positions)."""

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.lines = text.splitlines()

    def line(self, key: str, occurrence: int = 0) -> int | None:
        pat = re.compile(rf"""^\s*["']?{re.escape(key)}["']?\s*=""")
        seen = 0
        for n, line in enumerate(self.lines, 1):
            if pat.match(line):
                if seen == occurrence:
                    return n
                seen += 1
        return None

    def error(self, key: str, problem: str, occurrence: int = 0) -> ConfigError:
        return ConfigError(self.path, self.line(key.rsplit(".", 1)[-1], occurrence), key,
                           problem)


def parse_duration(value: object) -> float | None:
    """``"30s"``, ``"1m30s"``, ``"500ms"`` or a number of seconds; 0 means none."""
    if isinstance(value, bool):
        raise ValueError("want a duration such as 30s")
    if isinstance(value, int | float):
        if value < 0:
            raise ValueError("must not be negative")
        return float(value) or None
    if not isinstance(value, str):
        raise ValueError("want a duration such as 30s")
    try:
        return limits.parse_duration(value)
    except ValueError:
        raise ValueError(f"{value!r} is not a duration (use e.g. 500ms, 30s, 10m)") from None


def parse_size(value: object) -> int:
    """A byte count: a number, or a string such as ``"4M"`` or ``"1GiB"``."""
    if isinstance(value, bool):
        raise ValueError("want a byte count such as 512M")
    if isinstance(value, int):
        if value < 0:
            raise ValueError("must not be negative")
        return value
    fault = ValueError(f"{value!r} is not a byte count (use e.g. 4M, 1G)")
    if not isinstance(value, str):
        raise fault
    try:
        return limits.parse_size(value)
    except ValueError:
        raise fault from None


def _strings(value: object) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError("want a list of strings")
    return list(value)


def _choice(options: tuple[str, ...]) -> Any:
    def check(value: object) -> str:
        if value not in options:
            raise ValueError(f"want one of {', '.join(options)}, not {value!r}")
        return str(value)
    return check


def _boolean(value: object) -> bool:
    if not isinstance(value, bool):
        raise ValueError("want true or false")
    return value


def _optional_size(value: object) -> int | None:
    return parse_size(value) or None


# key -> (Settings attribute, converter)
_KEYS: dict[str, tuple[str, Any]] = {
    "mode": ("mode", _choice(MODES)),
    "strict": ("strict", _boolean),
    "passthrough": ("passthrough", _strings),
    "isolation": ("isolation", _choice(ISOLATIONS)),
    "worktree_mount": ("worktree_mount", _choice(MOUNT_MODES)),
    "deny": ("deny", _strings),
    "allow_net": ("allow_net", _strings),
    "timeout": ("timeout", parse_duration),
    "output_limit": ("output_limit", parse_size),
    "memory_fs_limit": ("memory_fs_limit", _optional_size),
    "memory_limit": ("memory_limit", _optional_size),
    "idle_timeout": ("idle_timeout", parse_duration),
}


def _apply(settings: Settings, data: dict[str, Any], where: _Locator) -> None:
    for key, value in data.items():
        if key == "mounts":
            settings.mounts = _mounts(value, where)
            continue
        if key not in _KEYS:
            known = ", ".join(sorted([*_KEYS, "mounts"]))
            raise where.error(key, f"unknown key (known: {known})")
        attr, convert = _KEYS[key]
        try:
            converted = convert(value)
        except ValueError as e:
            raise where.error(key, str(e)) from None
        if key == "deny":
            converted = [*settings.deny, *[p for p in converted if p not in settings.deny]]
        elif key == "strict":
            converted = settings.strict or converted  # a layer above cannot lift it
        setattr(settings, attr, converted)


def _mounts(value: object, where: _Locator) -> list[MountEntry]:
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise where.error("mounts", "want [[mounts]] tables with host, path and mode")
    entries = []
    for n, table in enumerate(value):
        for key in table:
            if key not in ("host", "path", "mode"):
                raise where.error(f"mounts.{key}", "unknown key (known: host, path, mode)")
        host, vpath = table.get("host"), table.get("path", table.get("host"))
        mode = table.get("mode", "rw")
        if not isinstance(host, str) or not os.path.isabs(os.path.expanduser(host)):
            raise where.error("mounts.host", "want an absolute host directory", n)
        if not isinstance(vpath, str) or not vpath.startswith("/"):
            raise where.error("mounts.path", "want an absolute path in the sandbox", n)
        if mode not in MOUNT_MODES:
            raise where.error("mounts.mode", f"want one of rw, ro, cow, not {mode!r}", n)
        entries.append(MountEntry(os.path.expanduser(host), vpath, mode))
    return entries
