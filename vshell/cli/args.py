"""The sandbox flags of ``vshell`` and ``vshell mcp``, and the Sandbox they describe.

One parser for both front ends, so the shell and the MCP server can never disagree on what
``--mount`` or ``--deny-path`` means.  Nothing here prints: faults are ``UsageError``s the
caller words.
"""

from __future__ import annotations

import os

from vshell import __version__, limits
from vshell.lazy import re
from vshell.records import field, record

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    from typing import Any

    from vshell.cli.shellflags import ShellFlags
    from vshell.sandbox import Sandbox


class UsageError(Exception):
    """A malformed command line: printed with the ``Try 'vshell --help'`` hint."""


class ConfigError(UsageError):
    """A well-formed option naming something that is not there (no --help hint)."""


@record
class Options(limits.Limits):
    """What the command line asked for; the limits and their defaults are shared with
    ``vshell.toml`` through :class:`~vshell.limits.Limits`."""

    mounts: list[tuple[str, str, str]] = field(default_factory=list)
    deny: list[str] = field(default_factory=list)
    allow_net: list[str] = field(default_factory=list)
    max_jobs: int | None = limits.DEFAULT_MAX_JOBS
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    command: str | None = None
    file: str | None = None
    args: list[str] = field(default_factory=list)
    action: str = "run"
    history_file: str | None = None
    overlay: str | None = None
    try_mode: bool = False
    shell_prelude: str | None = None  # bash's -euo pipefail and kin, as set/shopt commands
    stdin_script: bool = False  # bash's -s: commands from stdin, the rest positionals


def info_text(opts: Options, help_text: str) -> str | None:
    """What ``--help`` or ``--version`` prints (None for a run): one answer for both front
    ends, each with its own help text."""
    if opts.action == "help":
        return help_text
    if opts.action == "version":
        return f"vshell {__version__}\n"
    return None


def parse_duration(text: str) -> float | None:
    """Go-style durations ("500ms", "1m30s", "0"); a bare number means seconds."""
    try:
        return limits.parse_duration(text)
    except ValueError:
        raise UsageError(f"invalid duration {text!r} (use e.g. 500ms, 30s, 1m)") from None


def parse_size(text: str) -> int:
    try:
        return limits.parse_size(text)
    except ValueError:
        raise UsageError(f"invalid byte count {text!r}") from None


def parse_args(argv: list[str]) -> Options:
    o = Options()
    specs: list[str] = []  # the --mount texts, for messages naming an earlier one
    flags: ShellFlags | None = None  # bash's own option words, once one is seen
    i = 0

    def value(flag: str) -> str:
        nonlocal i
        if "=" in argv[i] and argv[i].startswith("--"):
            return argv[i].split("=", 1)[1]
        if i + 1 >= len(argv) or (argv[i + 1].startswith("-") and len(argv[i + 1]) > 1):
            raise UsageError(f"option {flag} requires an argument")
        i += 1
        return argv[i]

    while i < len(argv):
        a = argv[i]
        name = a.split("=", 1)[0] if a.startswith("--") else a
        if name in ("-h", "--help"):
            o.action = "help"
            return o
        if name in ("-v", "--version"):
            o.action = "version"
            return o
        if name == "--mount":
            spec = value(name)
            mount = parse_mount(spec)
            _check_host(spec, mount[0])
            for earlier, (_, vpath, _) in zip(specs, o.mounts, strict=True):
                if vpath.rstrip("/") == mount[1].rstrip("/"):
                    raise UsageError(f"--mount {spec}: {vpath} is already mounted by "
                                     f"--mount {earlier}")
            specs.append(spec)
            o.mounts.append(mount)
        elif name == "--deny-path":
            o.deny.append(value(name))
        elif name == "--allow-net":
            o.allow_net.append(value(name))
        elif name == "--timeout":
            o.timeout = parse_duration(value(name))
        elif name == "--output-limit":
            o.output_limit = parse_size(value(name))
        elif name == "--memory-fs-limit":
            o.memory_fs_limit = parse_size(value(name)) or None
        elif name == "--memory-limit":
            o.memory_limit = parse_size(value(name)) or None
        elif name == "--max-jobs":
            o.max_jobs = _parse_count(name, value(name)) or None
        elif name == "--env":
            entry = value(name)
            k, eq, v = entry.partition("=")
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", k):
                raise UsageError(f"invalid --env entry {entry!r}")
            if eq:
                o.env[k] = v
            elif k in os.environ:
                o.env[k] = os.environ[k]
        elif name == "--cwd":
            o.cwd = value(name)
            if not o.cwd.startswith("/"):
                raise UsageError(f"--cwd {o.cwd}: must be an absolute path in the sandbox"
                                 " (a mount point such as /work, or a directory under one)")
        elif name == "--history-file":
            o.history_file = value(name)
        elif name == "--overlay":
            o.overlay = value(name)
        elif name == "--try":
            o.try_mode = True
        elif a == "-c":
            if i + 1 >= len(argv):
                raise UsageError("option -c requires an argument")
            o.command = argv[i + 1]
            o.args = argv[i + 2 :]
            return o
        elif a == "--":
            if i + 1 < len(argv):
                o.file = argv[i + 1]
                o.args = argv[i + 2 :]
            return o
        elif _is_shell_flag_word(a):
            from vshell.cli.shellflags import FlagError, ShellFlags

            flags = flags or ShellFlags()
            try:
                i = flags.take(argv, i)
            except FlagError as e:
                raise UsageError(str(e)) from None
            o.shell_prelude = flags.prelude()
            if flags.command:
                if i >= len(argv):
                    raise UsageError("option -c requires an argument")
                o.command = argv[i]
                o.args = argv[i + 1 :]
                return o
            if flags.stdin:
                o.stdin_script = True
                o.args = argv[i:]
                return o
            continue
        elif a.startswith("-") and a != "-":
            raise UsageError(f"unknown option {a}")
        else:
            o.file = a
            o.args = argv[i + 1 :]
            return o
        i += 1
    return o


def _is_shell_flag_word(word: str) -> bool:
    """:func:`vshell.cli.shellflags.is_shell_flag_word`, imported only for a word that gets
    this far (it reads the shell's option tables, which ``-c SCRIPT`` never needs)."""
    from vshell.cli.shellflags import is_shell_flag_word

    return is_shell_flag_word(word)


_MODES = ("ro", "rw", "cow")


def parse_mount(spec: str) -> tuple[str, str, str]:
    """``HOST:VPATH[:MODE]`` as (host, vpath, mode); each fault named in its own words."""
    parts = spec.split(":")
    mode = "rw"
    if len(parts) >= 3 and not parts[-1].startswith("/"):
        mode = parts.pop()
        if mode not in _MODES:
            raise UsageError(f"--mount {spec}: unknown mode {mode!r} (use ro or cow)")
        if len(parts) >= 3 and parts[-1] in _MODES:
            raise UsageError(f"--mount {spec}: more than one mode ({parts[-1]} and {mode});"
                             " give one of ro or cow")
    host, vpath = ":".join(parts[:-1]), parts[-1]
    if len(parts) < 2 or not host or not vpath:
        raise UsageError(f"--mount {spec}: want HOST:VPATH[:ro|:cow], e.g. --mount .:/work")
    if not vpath.startswith("/"):
        raise UsageError(f"--mount {spec}: VPATH {vpath!r} must be an absolute path in the"
                         " sandbox, e.g. /work")
    if any(p in (".", "..") for p in vpath.split("/")):
        raise UsageError(f"--mount {spec}: VPATH {vpath!r} must not contain '.' or '..'")
    return host, vpath, mode


def _check_host(spec: str, host: str) -> None:
    """A mount's host side must be an existing directory (said before any sandbox starts)."""
    if not os.path.exists(host):
        raise ConfigError(f"--mount {spec}: no such directory: {host}")
    if not os.path.isdir(host):
        raise ConfigError(f"--mount {spec}: not a directory: {host}")


def _parse_count(flag: str, text: str) -> int:
    if not text.isdigit() or len(text) > 9:
        raise UsageError(f"invalid {flag} value {text!r} (a whole number)")
    return int(text)


def build_sandbox(opts: Options) -> Sandbox:
    """The Sandbox the sandbox flags describe (shared by the shell and ``vshell mcp``)."""
    from vshell.sandbox import Sandbox

    return Sandbox(**sandbox_options(opts))


def sandbox_options(opts: Options) -> dict[str, Any]:
    """The flags as Sandbox keyword arguments: plain data, so a pool's workers can take
    them too (``vshell mcp --workers``)."""
    from vshell.sandbox import HostMount

    return dict(
        mounts=[HostMount(h, v, readonly=m == "ro", cow=m == "cow") for h, v, m in opts.mounts],
        deny=list(opts.deny),
        allow_net=list(opts.allow_net),
        env=dict(opts.env),
        timeout=opts.timeout,
        output_limit=opts.output_limit,
        memory_fs_limit=opts.memory_fs_limit,
        memory_limit=opts.memory_limit,
        max_jobs=opts.max_jobs,
        cwd=opts.cwd,
        overlay_dir=opts.overlay,
    )

