"""What a hook does with one shell command line: the mode, the host-program rule, and the
rewrite into ``vshell run``.

A line runs on the host unchanged when any program it runs needs the host (``git``,
``gh``, ``ssh``, ``docker``, package managers, the config's ``passthrough``), matched by
name after ``VAR=value`` prefixes and any directory, in every part of a ``&&``, ``||``,
``;``, ``|`` list, in ``$(…)`` and in function bodies; with ``strict = true`` such a line
is denied instead.  Every other line is rewritten (or, in ``tool`` mode, denied).
"""

from __future__ import annotations

import os
import re
import shlex
import sys
from typing import Any

from vshell.config import Settings
from vshell.records import fields, is_record, record

TOOL_REASON = (
    "Shell commands run in the vshell sandbox here: use the `bash` tool of the vshell MCP "
    "server (`vshell mcp`; in Claude Code mcp__vshell__bash) instead of this shell tool."
)


@record
class Decision:
    action: str  # "rewrite", "host" (leave it alone), "deny", or "none" (mode off)
    command: str = ""  # the command to run instead (rewrite)
    reason: str = ""


def launcher() -> str:
    """How to call this vshell from a shell: its console script, else this interpreter."""
    argv0 = sys.argv[0] if sys.argv else ""
    if os.path.basename(argv0) == "vshell" and os.path.isfile(argv0):
        return shlex.quote(os.path.abspath(argv0))
    return f"{shlex.quote(sys.executable)} -m vshell"


def rewrite(command: str, settings: Settings, session_id: str | None) -> str:
    """``vshell run -c '<command>'``: quoted so any text (quotes, newlines, here-documents)
    reaches vshell exactly as written."""
    scope = ""
    if settings.isolation == "session" and session_id:
        scope = f"--isolation session --session {shlex.quote(session_id)} "
    return f"{launcher()} run {scope}-c {shlex.quote(command)}"


def decide(command: str, settings: Settings, session_id: str | None = None) -> Decision:
    if settings.mode == "off":
        return Decision("none")
    host = sorted(programs(command) & settings.host_programs())
    if host:
        if settings.strict:
            return Decision("deny", reason=(
                f"vshell (strict): {', '.join(host)} would run on the host, which this "
                "project's vshell.toml forbids; do it another way or ask the user."))
        return Decision("host", reason=f"{', '.join(host)} runs on the host")
    if settings.mode == "tool":
        return Decision("deny", reason=TOOL_REASON)
    return Decision("rewrite", command=rewrite(command, settings, session_id),
                    reason="vshell: runs in the sandboxed session of this worktree")


_SUBST = re.compile(r"(?:\$\(|`|<\(|>\()\s*(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*([^\s;|&()`'\"]+)")
_PREFIXES = {"env", "command", "exec", "nohup", "time", "sudo", "xargs", "nice", "timeout",
             "builtin", "stdbuf"}


def programs(command: str) -> set[str]:
    """The names of the programs a command line runs (basenames; best effort on a line
    that does not parse: its words' first tokens)."""
    from vshell.syntax import ParseError, parse

    try:
        tree = parse(command)
    except (ParseError, RecursionError, ValueError):
        return _fallback_programs(command)
    names: set[str] = set()
    _walk(tree, names)
    for m in _SUBST.finditer(command):
        names.add(_name(m.group(1)))
    return {n for n in names if n}


def _walk(node: Any, names: set[str]) -> None:
    if isinstance(node, list | tuple):
        for item in node:
            _walk(item, names)
        return
    if not is_record(node):
        return
    if type(node).__name__ == "SimpleCommand":
        words = [w.raw for w in node.words]
        while words:
            name = _name(words[0])
            names.add(name)
            if name not in _PREFIXES:
                break
            words = [w for w in words[1:] if not w.startswith("-")
                     and not re.match(r"[A-Za-z_][A-Za-z0-9_]*=", w)]
            if name == "timeout" and words:
                words = words[1:]  # the duration
    for f in fields(node):
        _walk(getattr(node, f.name), names)


def _name(word: str) -> str:
    try:
        parts = shlex.split(word)
    except ValueError:
        parts = [word]
    return os.path.basename(parts[0]) if parts else ""


def _fallback_programs(command: str) -> set[str]:
    names = set()
    for part in re.split(r"&&|\|\||[;|&\n()]", command):
        words = [w for w in part.split() if not re.match(r"[A-Za-z_][A-Za-z0-9_]*=", w)]
        if words:
            names.add(_name(words[0]))
    return names | {_name(m.group(1)) for m in _SUBST.finditer(command)}
