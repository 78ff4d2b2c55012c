"""``vshell hook|install|uninstall|doctor``: the command-line side of the harness hooks.

vshell hook HARNESS                         (the event on stdin, the answer on stdout)
vshell install HARNESS [--project | --user]
vshell uninstall HARNESS [--project | --user]
vshell doctor
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from typing import Any

from vshell.harness.base import EventError, Harness

NAMES = ("claude", "codex", "gemini", "copilot", "cursor")

USAGE = """\
usage: vshell hook HARNESS
       vshell install HARNESS [--project | --user]
       vshell uninstall HARNESS [--project | --user]
       vshell doctor
HARNESS: claude (Claude Code), codex (OpenAI Codex CLI), gemini (Gemini CLI),
         copilot (GitHub Copilot CLI), cursor (Cursor)
"""

HELP = USAGE + """
`vshell hook HARNESS` reads the harness's pre-tool hook event on stdin and answers in its
format: in mode rewrite (vshell.toml `mode`, the default) the shell command becomes
`vshell run -c '…'`, which runs it in this worktree's persistent vshell session; in mode
tool it is denied with a pointer to the `vshell mcp` bash tool (Cursor, which cannot
rewrite, always works so); mode off leaves it alone.  Lines that run git, gh, ssh,
docker, package managers or the config's `passthrough` programs stay on the host, or
are denied with `strict = true`.  A hook that fails denies the command, saying why.
`vshell install` writes the hook into the harness's project settings (default; the
worktree's .claude/settings.json, .codex/hooks.json, .gemini/settings.json,
.github/hooks/vshell.json, .cursor/hooks.json) or the user's (--user), keeping everything
else; `vshell uninstall` removes exactly that; `vshell doctor` shows what is set up.
"""


def harness(name: str) -> Harness:
    import importlib

    if name not in NAMES:
        raise KeyError(name)
    module = importlib.import_module(f"vshell.harness.{name}")
    found: Harness = module.HARNESS
    return found


def harness_main(command: str, argv: list[str]) -> int:
    if argv[:1] in (["-h"], ["--help"]):
        sys.stdout.write(HELP)
        return 0
    if command == "doctor":
        if argv:
            return _usage(f"vshell doctor: unexpected argument {argv[0]}")
        return doctor()
    if not argv:
        return _usage(f"vshell {command}: which harness? ({', '.join(NAMES)})")
    try:
        chosen = harness(argv[0])
    except KeyError:
        return _usage(f"vshell {command}: unknown harness {argv[0]!r} ({', '.join(NAMES)})")
    if command == "hook":
        if argv[1:]:
            return _usage(f"vshell hook: unexpected argument {argv[1]}")
        return hook(chosen, sys.stdin.buffer.read())
    scope = "project"
    for flag in argv[1:]:
        if flag not in ("--project", "--user"):
            return _usage(f"vshell {command}: unknown option {flag}")
        scope = flag[2:]
    try:
        return install(chosen, scope) if command == "install" else uninstall(chosen, scope)
    except (OSError, ValueError) as e:
        sys.stderr.write(f"vshell {command}: {e}\n")
        return 1


def _usage(message: str) -> int:
    # exit 2 also blocks the tool call in the harnesses that read it (no silent pass)
    sys.stderr.write(f"{message}\n{USAGE}")
    return 2


# --- the hook ------------------------------------------------------------------------

def answer_event(chosen: Harness, raw: bytes) -> dict[str, Any] | None:
    """The answer to one event: a decision, or the deny form for any failure at all."""
    from vshell.config import load_settings
    from vshell.harness.policy import decide

    try:
        event = json.loads(raw.decode("utf-8"))
        if not isinstance(event, dict):
            raise EventError("the event is not a JSON object")
        call = chosen.read(event)
        if call.command is None:
            return None  # not a shell tool call: no opinion
        settings = load_settings(*_roots(call.cwd))
        return chosen.answer(decide(call.command, settings, call.session_id), call)
    except Exception as e:  # noqa: BLE001 - a hook must never fail open
        problem = f"{type(e).__name__}: {e}" if not isinstance(e, EventError | ValueError) else e
        return chosen.deny(f"vshell hook failed, so the command was not run: {problem}")


def hook(chosen: Harness, raw: bytes) -> int:
    answer = answer_event(chosen, raw)
    if answer is not None:
        sys.stdout.write(json.dumps(answer) + "\n")
    return 0


def _roots(cwd: str) -> tuple[str, str | None]:
    from vshell.scope.resolve import find_worktree, repo_root_of

    worktree, gitdir = find_worktree(cwd)
    return worktree, repo_root_of(gitdir) if gitdir else None


# --- install / uninstall ---------------------------------------------------------------

def hook_command(name: str) -> str:
    from vshell.harness.policy import launcher

    return f"{launcher()} hook {name}"


def _settings_file(chosen: Harness, scope: str) -> str:
    return chosen.settings_path(scope, _roots(os.getcwd())[0])


def read_settings(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        return {}
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except ValueError as e:
        raise ValueError(f"{path} is not valid JSON ({e}); not touching it") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path} does not hold a JSON object; not touching it")
    return data


def write_settings(path: str, data: dict[str, Any]) -> None:
    """Write atomically (a crash leaves the old file or the new one, never half)."""
    folder = os.path.dirname(path)
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".vshell-", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        if os.path.exists(path):
            os.chmod(tmp, os.stat(path).st_mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def install(chosen: Harness, scope: str) -> int:
    path = _settings_file(chosen, scope)
    data = read_settings(path)
    if not chosen.add_hook(data, hook_command(chosen.name)):
        sys.stdout.write(f"vshell: the {chosen.title} hook is already in {path}\n")
        return 0
    write_settings(path, data)
    sys.stdout.write(f"vshell: installed the {chosen.title} hook in {path}"
                     f"{'' if chosen.can_rewrite else ' (tool mode: it cannot rewrite)'}\n"
                     f"        turn it off with `vshell uninstall {chosen.name}`"
                     f"{' --user' if scope == 'user' else ''} or mode = \"off\" in "
                     "vshell.toml\n")
    return 0


def uninstall(chosen: Harness, scope: str) -> int:
    path = _settings_file(chosen, scope)
    data = read_settings(path)
    if not chosen.remove_hook(data):
        sys.stdout.write(f"vshell: no {chosen.title} hook of vshell in {path}\n")
        return 0
    if data:
        write_settings(path, data)
    else:
        os.unlink(path)  # it held nothing but the hook
    sys.stdout.write(f"vshell: removed the {chosen.title} hook from {path}\n")
    return 0


# --- doctor ------------------------------------------------------------------------------

def doctor() -> int:
    """Which harnesses have the hook, and whether the hook answers each one's event."""
    from vshell.config import ConfigError, load_settings
    from vshell.scope.runtime import RuntimeDirError, runtime_dir

    cwd = os.getcwd()
    failed = False
    try:
        settings = load_settings(*_roots(cwd))
        sources = ", ".join(settings.sources) or "built-in defaults only"
        print(f"config: mode {settings.mode}, isolation {settings.isolation}"
              f"{', strict' if settings.strict else ''} (from {sources})")
    except ConfigError as e:
        print(f"config: ERROR {e}")
        failed = True
    try:
        print(f"runtime directory: {runtime_dir()} (private)")
    except RuntimeDirError as e:
        print(f"runtime directory: ERROR {e}")
        failed = True
    for name in NAMES:
        chosen = harness(name)
        places = []
        for scope in ("project", "user"):
            try:
                path = _settings_file(chosen, scope)
            except ValueError:
                continue  # no such place for this harness
            try:
                data = read_settings(path)
                if chosen.has_hook(data):
                    places.append(f"{scope} ({path})")
                    for missing in _missing_programs(data):
                        places.append(f"but its program {missing} is gone (reinstall)")
                        failed = True
            except (OSError, ValueError) as e:
                places.append(f"{scope}: ERROR {e}")
                failed = True
        works = _self_test(chosen, cwd)
        failed = failed or not works
        print(f"{chosen.title} ({name}): "
              f"{'installed in ' + ', '.join(places) if places else 'not installed'}; "
              f"hook {'answers' if works else 'FAILS'}")
    return 1 if failed else 0


def _missing_programs(data: object) -> list[str]:
    """The programs of our hook commands in a settings file that no longer exist."""
    import shlex
    import shutil

    from vshell.harness.base import is_ours

    found: list[str] = []
    if isinstance(data, dict):
        for value in data.values():
            found += _missing_programs(value)
    elif isinstance(data, list):
        for value in data:
            found += _missing_programs(value)
    elif is_ours(data):
        assert isinstance(data, str)
        program = shlex.split(data)[0]
        if not (os.path.isfile(program) if os.sep in program else shutil.which(program)):
            found.append(program)
    return found


def _self_test(chosen: Harness, cwd: str) -> bool:
    """The hook's answer to a documented event for ``echo`` is the expected rewrite (or,
    for a harness that cannot rewrite, a denial); a malformed event is denied."""
    answer = answer_event(chosen, json.dumps(chosen.sample_event("echo ok", cwd)).encode())
    broken = answer_event(chosen, b"{not json")
    deny_prefix = json.dumps(chosen.deny("\x00")).split("\\u0000")[0]
    if broken is None or not json.dumps(broken).startswith(deny_prefix):
        return False
    if not chosen.can_rewrite:
        return answer is not None
    command = chosen.rewritten_command(answer)
    return command is None or (" run " in command and command.endswith("'echo ok'"))
