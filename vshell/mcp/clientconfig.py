"""``vshell mcp --print-config CLIENT``: the JSON block an MCP client needs to start vshell.

A GUI client (Claude Desktop, Cursor, VS Code) does not start from the user's shell, so a
virtual environment's ``bin`` is not on its PATH and ``"command": "vshell"`` fails there.
The block printed here names vshell by absolute path: the console script that is running,
or else this interpreter with ``-m vshell`` (not resolved through symlinks: a venv's
``python`` is a link, and resolving it would leave the venv).  The other arguments given
with ``--print-config`` become the server's arguments, with relative host paths made
absolute, since the client starts the server in a directory of its own.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

# client -> (top-level key, extra fields of the entry, where the block goes)
CLIENTS: dict[str, tuple[str, dict[str, str], str]] = {
    "claude-desktop": ("mcpServers", {}, "claude_desktop_config.json: ~/Library/Application "
                       "Support/Claude/ (macOS), %APPDATA%\\Claude\\ (Windows), "
                       "~/.config/Claude/ (Linux)"),
    "cursor": ("mcpServers", {}, "~/.cursor/mcp.json, or .cursor/mcp.json in a project"),
    "vscode": ("servers", {"type": "stdio"}, ".vscode/mcp.json in a workspace"),
    "claude-code": ("mcpServers", {}, ".mcp.json in a project (or: claude mcp add-json "
                    "vshell '<the inner object>')"),
    "windsurf": ("mcpServers", {}, "~/.codeium/windsurf/mcp_config.json"),
}
OPTION = "--print-config"
_PATH_FLAGS = ("--mount", "--overlay")  # flags whose value names a host path


class ConfigError(ValueError):
    """A --print-config request that cannot be answered (the front end prints it)."""


def split_print_config(argv: list[str]) -> tuple[str | None, list[str]]:
    """Take ``--print-config CLIENT`` (or ``=CLIENT``) out of ``argv``: (client, rest)."""
    client: str | None = None
    rest: list[str] = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == OPTION or a.startswith(OPTION + "="):
            if "=" in a:
                value = a.partition("=")[2]
            elif i + 1 < len(argv):
                i += 1
                value = argv[i]
            else:
                raise ConfigError(f"option {OPTION} requires a client: {', '.join(CLIENTS)}")
            if value not in CLIENTS:
                raise ConfigError(f"{OPTION}: unknown client {value!r} (known: "
                                  f"{', '.join(CLIENTS)})")
            client = value
        else:
            rest.append(a)
        i += 1
    return client, rest


def launcher() -> tuple[str, list[str], dict[str, str]]:
    """(command, leading args, env) that start this vshell from anywhere."""
    argv0 = sys.argv[0] if sys.argv else ""
    name = os.path.basename(argv0).lower()
    if name in ("vshell", "vshell.exe") and os.path.isfile(argv0):
        return os.path.abspath(argv0), [], {}
    env: dict[str, str] = {}
    root = _package_root()
    if root is not None and not _importable_without_path(root):
        env["PYTHONPATH"] = root  # a source checkout: the client's python must find it
    return os.path.abspath(sys.executable), ["-m", "vshell"], env


def _package_root() -> str | None:
    import vshell

    where = getattr(vshell, "__file__", None)
    return os.path.dirname(os.path.dirname(os.path.abspath(where))) if where else None


def _importable_without_path(root: str) -> bool:
    import site

    dirs = [*site.getsitepackages(), site.getusersitepackages()]
    return any(os.path.abspath(d) == root for d in dirs)


def _absolute_paths(args: list[str]) -> list[str]:
    """``args`` with the host side of --mount and --overlay made absolute."""
    out: list[str] = []
    take = False
    for a in args:
        flag, eq, value = a.partition("=") if a.startswith("--") else (a, "", "")
        if take:
            out.append(_absolute_value(out[-1], a))
            take = False
        elif flag in _PATH_FLAGS and eq:
            out.append(f"{flag}={_absolute_value(flag, value)}")
        else:
            take = a in _PATH_FLAGS
            out.append(a)
    return out


def _absolute_value(flag: str, value: str) -> str:
    if flag == "--overlay":
        return os.path.abspath(os.path.expanduser(value))
    host, sep, rest = value.partition(":")
    if not host or "${" in host:  # a client variable such as ${workspaceFolder}
        return value
    return os.path.abspath(os.path.expanduser(host)) + sep + rest


def config_block(client: str, server_args: list[str]) -> dict[str, Any]:
    """The JSON object ``client`` reads, starting ``vshell mcp SERVER_ARGS``."""
    if client not in CLIENTS:
        raise ConfigError(f"unknown client {client!r} (known: {', '.join(CLIENTS)})")
    key, extra, _ = CLIENTS[client]
    command, lead, env = launcher()
    entry: dict[str, Any] = {**extra, "command": command,
                             "args": [*lead, "mcp", *_absolute_paths(server_args)]}
    if env:
        entry["env"] = env
    return {key: {"vshell": entry}}


def print_config(client: str, server_args: list[str]) -> int:
    """Print the block on stdout (pure JSON, to pipe into a file); where it goes on stderr."""
    block = config_block(client, server_args)
    sys.stdout.write(json.dumps(block, indent=2) + "\n")
    sys.stderr.write(f"vshell mcp: put this in {CLIENTS[client][2]}\n")
    return 0
