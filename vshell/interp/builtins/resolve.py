"""The builtins about what a name runs: ``command``, ``builtin``, ``type`` and ``hash``."""

from __future__ import annotations

import os
import stat as _stat

from vshell.interp.builtins.base import is_enabled_builtin, out
from vshell.interp.builtins.opts import OptionError, parse_flags, parse_options
from vshell.interp.builtins.registry import COREUTILS_TWINS
from vshell.interp.lookup import VSHELL_COMMAND, not_found, resolve_command
from vshell.syntax.reserved import KEYWORDS

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    from vshell.interp.shell import Shell


def b_command(sh: Shell, name: str, args: list[str]) -> int:
    try:
        flags, args = parse_flags(sh, "command", args, "pVv", "command [-pVv] command [arg ...]")
    except OptionError as e:
        return e.status
    verbose = "V" if "V" in flags else "v" if "v" in flags else None
    default_path = "p" in flags
    if not args:
        return 0
    if verbose:
        status = 0
        for a in args:
            if _describe(sh, a, short=verbose == "v", allow_funcs=True) != 0:
                if verbose == "V":
                    sh.err(f"command: {a}: not found")
                status = 1
        return status
    if default_path:
        kind, path = resolve_command(sh, args[0], default_path=True)
        if kind == "none" and not is_enabled_builtin(sh, args[0]):
            return not_found(sh, args[0])
        if kind == "file" and not is_enabled_builtin(sh, args[0]):
            assert path is not None
            return sh.run_script_file(path, args[0], args[1:], sh.state.exported(), sh.fds)
        if kind == "vshell" and not is_enabled_builtin(sh, args[0]):
            cmd = sh.find_command(args[0])
            assert cmd is not None
            return sh.call(cmd, args[0], args[1:], sh.state.exported(), sh.fds)
    # bypass functions
    name0 = args[0]
    fn = sh.state.functions.pop(name0, None)
    try:
        if is_enabled_builtin(sh, name0) or sh.find_command(name0) is not None:
            return sh.exec_argv(args, {}, sh.fds)
        return sh.exec_argv(args, {}, sh.fds)
    finally:
        if fn is not None:
            sh.state.functions[name0] = fn


def b_builtin(sh: Shell, name: str, args: list[str]) -> int:
    from vshell.interp.builtins import registry as builtins_registry

    if not args:
        return 0
    fn = builtins_registry.lookup(args[0], builtins_registry.disabled_in(sh.state))
    if fn is None:
        sh.err(f"builtin: {args[0]}: not a shell builtin")
        return 1
    return fn(sh, args[0], args[1:])


COMMAND_DIR = "/usr/bin"


COMMAND_DIRS = frozenset(("/usr/bin", "/bin"))  # where a merged-/usr system has coreutils




def path_matches(sh: Shell, name: str) -> list[str]:
    """Executable files called ``name`` along PATH, shown as PATH spells them."""
    out: list[str] = []
    own = sh.find_command(name) is not None or name in COREUTILS_TWINS
    for d in (sh.state.get("PATH") or "").split(":"):
        shown = (d or ".").rstrip("/") + "/" + name if d != "/" else "/" + name
        full = sh.abspath(shown)
        try:
            info = sh.ctx.fs.stat(full)
        except OSError:
            if own and full.rpartition("/")[0] in COMMAND_DIRS and shown not in out:
                out.append(shown)  # vshell's own command, where bash finds coreutils
            continue
        if _stat.S_ISREG(info.st_mode) and info.st_mode & 0o111:
            out.append(shown)
    if own and not any(p.rpartition("/")[0] in COMMAND_DIRS for p in out):
        # vshell's own commands present themselves as bash sees coreutils: files on PATH
        out.append(COMMAND_DIR + "/" + name)
    return out


def _describe(sh: Shell, word: str, *, short: bool, allow_funcs: bool = True,
              type_flag: bool = False, path_only: bool = False, force_path: bool = False,
              all_: bool = False) -> int:
    """What ``type`` / ``command -v`` say about ``word``; returns 0 when found."""

    st = sh.state
    found = False

    def say(kind: str, long: str, brief: str) -> None:
        out(sh, kind + "\n" if type_flag else (brief + "\n" if short else long + "\n"))

    if not force_path:
        if word in st.aliases:
            found = True
            if not path_only:
                say("alias", f"{word} is aliased to `{st.aliases[word]}'",
                    f"alias {word}='{st.aliases[word]}'")
            if not all_:
                return 0 if not path_only else 1
        if word in KEYWORDS:
            found = True
            if not path_only:
                say("keyword", f"{word} is a shell keyword", word)
            if not all_:
                return 0
        if allow_funcs and word in st.functions:
            found = True
            if not path_only:
                from vshell.interp.printer import print_function

                say("function", f"{word} is a function\n"
                    f"{print_function(word, st.functions[word])}", word)
            if not all_:
                return 0
        if is_enabled_builtin(sh, word):
            found = True
            if not path_only:
                say("builtin", f"{word} is a shell builtin", word)
            if not all_:
                return 0
    if "/" in word:
        paths = [word] if sh.ctx.fs.isfile(sh.abspath(word)) and sh.ctx.fs.access(
            sh.abspath(word), os.X_OK) else []
    else:
        paths = path_matches(sh, word)
    hashed = word in st.hash and not all_
    for p in paths if all_ else paths[:1]:
        found = True
        say("file", f"{word} is hashed ({p})" if hashed else f"{word} is {p}", p)
    return 0 if found else 1


def b_type(sh: Shell, name: str, args: list[str]) -> int:
    try:
        flags, words = parse_flags(sh, "type", args, "afptP", "type [-afptP] name [name ...]")
    except OptionError as e:
        return e.status
    status = 0
    for w in words:
        rc = _describe(sh, w, short="p" in flags or "P" in flags, type_flag="t" in flags,
                       allow_funcs="f" not in flags, path_only="p" in flags,
                       force_path="P" in flags, all_="a" in flags)
        if rc != 0:
            if not flags & {"t", "p", "P"}:
                sh.err(f"type: {w}: not found")
            status = 1
    return status


def b_hash(sh: Shell, name: str, args: list[str]) -> int:
    """bash's table of remembered command locations (vshell's commands show as /usr/bin)."""
    table: dict[str, list] = sh.state.hash

    def shown(path: str, name: str) -> str:
        return COMMAND_DIR + "/" + name if path == VSHELL_COMMAND else path

    try:
        opts, args = parse_options(sh, "hash", args, "rp:dtl",
                                   "hash [-lr] [-p pathname] [-dt] [name ...]")
    except OptionError as e:
        return e.status
    flags = {f[1]: v for f, v in opts}
    if "r" in flags:
        table.clear()
        if not args:
            return 0
    if "p" in flags:
        for a in args:
            table[a] = [flags["p"] or "", 0]
        return 0
    if ("d" in flags or "t" in flags) and not args:
        sh.err(f"hash: -{'d' if 'd' in flags else 't'}: option requires an argument")
        return 1
    if "d" in flags or "t" in flags:
        status = 0
        for a in args:
            if a not in table:
                sh.err(f"hash: {a}: not found")
                status = 1
            elif "d" in flags:
                del table[a]
            else:
                path = shown(table[a][0], a)
                out(sh, f"{a}\t{path}\n" if len(args) > 1 else path + "\n")
        return status
    if "l" in flags and not args:
        for n, (path, _hits) in table.items():
            out(sh, f"builtin hash -p {shown(path, n)} {n}\n")
        return 0
    if not args:
        if not table:
            out(sh, "hash: hash table empty\n")  # bash 5.2 says it on stdout
            return 0
        out(sh, "hits\tcommand\n")
        for n, (path, hits) in table.items():
            out(sh, f"{hits:4d}\t{shown(path, n)}\n")
        return 0
    status = 0
    for a in args:
        if a.startswith("-"):
            continue

        if is_enabled_builtin(sh, a) or a in sh.state.functions:
            continue
        kind, _ = resolve_command(sh, a)
        if kind == "none":
            sh.err(f"hash: {a}: not found")
            status = 1
        else:
            table[a] = [table[a][0], 0]  # replaced: a subshell's copy shares entries
    return status
