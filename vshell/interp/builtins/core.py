"""Core shell builtins: control flow, directories, eval/source/exec, command lookup,
traps, jobs and aliases."""

from __future__ import annotations

import os
import re
import stat as _stat
import time
from typing import TYPE_CHECKING

from vshell.interp.builtins.opts import OptionError, parse_options
from vshell.interp.control import AbortLine, ExitShell, LoopControl, ReturnFromFunction
from vshell.interp.lookup import VSHELL_COMMAND, not_found, resolve_command
from vshell.interp.state import CallEntry, ShellError

if TYPE_CHECKING:
    from vshell.interp.shell import Shell


def _is_builtin(sh: Shell, name: str) -> bool:
    """A builtin this shell has not turned off with ``enable -n``."""
    from vshell.interp.builtins import registry as builtins_registry

    return builtins_registry.is_builtin(name, builtins_registry.disabled_in(sh.state))


def _out(sh: Shell, text: str) -> None:
    sh.write_out(text.encode("utf-8", "surrogateescape"))


def b_true(sh: Shell, name: str, args: list[str]) -> int:
    return 0


def b_false(sh: Shell, name: str, args: list[str]) -> int:
    return 1


def b_echo(sh: Shell, name: str, args: list[str]) -> int:
    newline = True
    escapes = sh.state.shopt.get("xpg_echo", False)
    i = 0
    while i < len(args):
        a = args[i]
        if len(a) > 1 and a[0] == "-" and all(c in "neE" for c in a[1:]):
            for c in a[1:]:
                if c == "n":
                    newline = False
                elif c == "e":
                    escapes = True
                elif c == "E":
                    escapes = False
            i += 1
            continue
        break
    text = " ".join(args[i:])
    if escapes:
        from vshell.text import escapes as esc

        dec = esc.decode(text, esc.ECHO)
        text = dec.text
        if dec.stop:
            newline = False
    if newline:
        text += "\n"
    _out(sh, text)
    return 0


# --- directories ------------------------------------------------------------------------------
def _set_pwd(sh: Shell, new: str) -> None:
    st = sh.state
    old = st.get("PWD") or st.cwd
    st.cwd = new
    try:
        st.set("OLDPWD", old)
        st.set("PWD", new)
    except ShellError:
        pass


def b_cd(sh: Shell, name: str, args: list[str]) -> int:
    from vshell.command import normpath

    st = sh.state
    physical = False
    while args and args[0].startswith("-") and len(args[0]) > 1 and args[0] != "-":
        if args[0] == "--":
            args = args[1:]
            break
        if set(args[0][1:]) <= set("LPe@"):
            physical = "P" in args[0] or physical
            args = args[1:]
            continue
        sh.err(f"cd: {args[0]}: invalid option")
        sh.write_err("cd: usage: cd [-L|[-P [-e]] [-@]] [dir]\n")
        return 2
    if len(args) > 1:
        sh.err("cd: too many arguments")
        return 1
    print_dir = False
    if not args:
        target = st.get("HOME")
        if target is None:
            sh.err("cd: HOME not set")
            return 1
        if target == "":
            return 0
    else:
        target = args[0]
        if target == "-":
            target = st.get("OLDPWD") or ""
            if not target:
                sh.err("cd: OLDPWD not set")
                return 1
            print_dir = True
    if target == "":
        return 0
    candidates = []
    if not target.startswith("/") and not target.startswith(".") and st.get("CDPATH"):
        for d in (st.get("CDPATH") or "").split(":"):
            if d:
                candidates.append((d.rstrip("/") + "/" + target, True))
    cur = st.get("PWD") or st.cwd
    candidates.append((target, False))
    fs = sh.ctx.fs
    last_err: OSError | None = None
    for cand, from_cdpath in candidates:
        joined = cand if cand.startswith("/") else cur.rstrip("/") + "/" + cand
        if "/.." in "/" + cand and not _dotdot_prefixes_exist(sh, joined):
            last_err = FileNotFoundError(2, "No such file or directory")
            continue
        full = normpath(joined)
        try:
            info = fs.stat(full)
        except OSError as e:
            last_err = e
            continue
        if not _stat.S_ISDIR(info.st_mode):
            sh.err(f"cd: {target}: Not a directory")
            return 1
        if physical:
            try:
                full = fs.realpath(full)
            except OSError:
                pass
        _set_pwd(sh, full)
        if print_dir or from_cdpath:
            _out(sh, full + "\n")
        return 0
    msg = "No such file or directory"
    if last_err is not None and last_err.strerror:
        msg = last_err.strerror
    sh.err(f"cd: {target}: {msg}")
    return 1


def _dotdot_prefixes_exist(sh: Shell, path: str) -> bool:
    """bash refuses ``cd BAD/..``: every directory a ``..`` climbs out of must exist."""
    from vshell.command import normpath

    parts = path.split("/")
    for i, part in enumerate(parts):
        if part == ".." and i > 0:
            prefix = normpath("/".join(parts[:i]) or "/")
            if not sh.ctx.fs.isdir(prefix):
                return False
    return True


def b_pwd(sh: Shell, name: str, args: list[str]) -> int:
    try:
        opts, _ = parse_options(sh, "pwd", args, "LP", "pwd [-LP]")
    except OptionError as e:
        return e.status
    physical = False
    for flag, _value in opts:
        physical = flag == "-P"  # the last of -L / -P wins
    cwd = sh.state.cwd
    if physical:
        try:
            cwd = sh.ctx.fs.realpath(cwd)
        except OSError:
            pass
    _out(sh, cwd + "\n")
    return 0


_DIR_USAGE = {
    "pushd": "pushd [-n] [+N | -N | dir]",
    "popd": "popd [-n] [+N | -N]",
    "dirs": "dirs [-clpv] [+N] [-N]",
}


def _dir_args(sh: Shell, name: str, args: list[str], flags: str
              ) -> tuple[set[str], int | None, str | None] | int:
    """Parse pushd/popd/dirs arguments: (flags, stack index of +N/-N, other operand), or
    the status of a usage error (bash's messages)."""
    seen: set[str] = set()
    index: int | None = None
    operand: str | None = None
    items = 1 + len(sh.state.dir_stack)
    rest = list(args)
    while rest:
        a = rest.pop(0)
        if a == "--":
            if rest:
                operand = rest.pop(0)
            break
        if len(a) > 1 and a[0] in "+-" and a[1:].isdigit():
            n = int(a[1:])
            index = n if a[0] == "+" else items - 1 - n
            if not 0 <= index < items:
                sh.err(f"{name}: {a}: directory stack index out of range")
                return 1
            continue
        if a.startswith("-") and len(a) > 1:
            if all(c in flags for c in a[1:]):
                seen |= set(a[1:])
                continue
            sh.err(f"{name}: {a}: invalid number")
            sh.write_err(f"{name}: usage: {_DIR_USAGE[name]}\n")
            return 2
        if name != "pushd":
            sh.err(f"{name}: {a}: invalid argument")
            sh.write_err(f"{name}: usage: {_DIR_USAGE[name]}\n")
            return 2
        operand = a
    return seen, index, operand


def b_pushd(sh: Shell, name: str, args: list[str]) -> int:
    st = sh.state
    parsed = _dir_args(sh, "pushd", args, "n")
    if isinstance(parsed, int):
        return parsed
    flags, index, operand = parsed
    items = [st.cwd] + st.dir_stack
    if index is not None:  # rotate so that entry N is on top
        rotated = items[index:] + items[:index]
        if "n" not in flags and b_cd(sh, "cd", [rotated[0]]) != 0:
            return 1
        st.dir_stack[:] = rotated[1:]
    elif operand is None:
        if not st.dir_stack:
            sh.err("pushd: no other directory")
            return 1
        top = st.dir_stack[0]
        if "n" in flags:
            st.dir_stack[0:1] = []
            st.dir_stack.insert(0, top)
        else:
            st.dir_stack[0] = st.cwd
            if b_cd(sh, "cd", [top]) != 0:
                return 1
    elif "n" in flags:
        st.dir_stack.insert(0, sh.abspath(operand))
    else:
        old = st.cwd
        if b_cd(sh, "cd", [operand]) != 0:
            return 1
        st.dir_stack.insert(0, old)
    return b_dirs(sh, "dirs", [])


def b_popd(sh: Shell, name: str, args: list[str]) -> int:
    st = sh.state
    parsed = _dir_args(sh, "popd", args, "n")
    if isinstance(parsed, int):
        return parsed
    flags, index, _ = parsed
    if not st.dir_stack:
        sh.err("popd: directory stack empty")
        return 1
    if index is None:
        index = 1 if "n" in flags else 0
    if index == 0:
        if b_cd(sh, "cd", [st.dir_stack[0]]) != 0:
            return 1
        st.dir_stack.pop(0)
    else:
        del st.dir_stack[index - 1]
    return b_dirs(sh, "dirs", [])


def b_dirs(sh: Shell, name: str, args: list[str]) -> int:
    st = sh.state
    home = st.get("HOME") or ""
    items = [st.cwd] + st.dir_stack
    parsed = _dir_args(sh, "dirs", args, "clpv")
    if isinstance(parsed, int):
        return parsed
    flags, index, _ = parsed
    args = [f"-{c}" for c in flags]
    if "-c" in args:
        st.dir_stack.clear()
        return 0
    long = "-l" in args
    if index is not None:
        items = [items[index]]

    def show(d: str) -> str:
        if not long and home not in ("", "/") and (d == home or d.startswith(home + "/")):
            return "~" + d[len(home):]
        return d

    if "-v" in args or "-p" in args:
        for i, d in enumerate(items):
            _out(sh, (f"{i:2d}  " if "-v" in args else "") + show(d) + "\n")
    else:
        _out(sh, " ".join(show(d) for d in items) + "\n")
    return 0


# --- control flow --------------------------------------------------------------------------
def _int_arg(sh: Shell, name: str, a: str) -> int | None:
    try:
        return int(a.strip())
    except ValueError:
        sh.err(f"{name}: {a}: numeric argument required")
        return None


def b_exit(sh: Shell, name: str, args: list[str]) -> int:

    status = sh.state.last_status
    if args:
        if len(args) > 1:
            sh.err("exit: too many arguments")
            return 1
        v = _int_arg(sh, name, args[0])
        status = 2 if v is None else v & 0xFF
    raise ExitShell(status)


def b_return(sh: Shell, name: str, args: list[str]) -> int:

    if sh.func_depth == 0 and not sh.state.source_stack:
        sh.err("return: can only `return' from a function or sourced script")
        return 2
    status = sh.state.last_status
    if args:
        v = _int_arg(sh, name, args[0])
        status = 2 if v is None else v & 0xFF
        if len(args) > 1:
            sh.err("return: too many arguments")
            return 1
    raise ReturnFromFunction(status)


def b_break(sh: Shell, name: str, args: list[str]) -> int:

    n = 1
    if len(args) > 1:
        sh.err(f"{name}: too many arguments")
        raise AbortLine(1)
    if args:
        v = _int_arg(sh, name, args[0])
        if v is None:
            raise AbortLine(128)
        if v < 1:
            sh.err(f"{name}: {args[0]}: loop count out of range")
            return 1
        n = v
    if sh.loop_depth == 0:
        sh.err(f"{name}: only meaningful in a `for', `while', or `until' loop")
        return 0
    raise LoopControl(name, min(n, sh.loop_depth))


def b_shift(sh: Shell, name: str, args: list[str]) -> int:
    n = 1
    if args:
        v = _int_arg(sh, name, args[0])
        if v is None:
            return 1
        n = v
    st = sh.state
    if n < 0:
        sh.err(f"shift: {n}: shift count out of range")
        return 1
    if n > len(st.positional):
        if st.shopt.get("shift_verbose"):
            sh.err(f"shift: {n}: shift count out of range")
        return 1
    st.positional = st.positional[n:]
    if st.frames:
        st.frames[-1].positional = st.positional
    return 0


def b_eval(sh: Shell, name: str, args: list[str]) -> int:
    if args and args[0] == "--":
        args = args[1:]
    elif args and args[0].startswith("-") and len(args[0]) > 1:
        sh.err(f"eval: {args[0]}: invalid option")
        sh.write_err("eval: usage: eval [arg ...]\n")
        return 2
    src = " ".join(args)
    if not src.strip():
        return 0
    try:
        return sh.run_source(src, top=False, name=f"{sh.source_name}: eval",
                             first_line=sh.state.lineno or 1)
    except ShellError as e:
        if e.status == 2:
            return 2
        raise


def b_source(sh: Shell, name: str, args: list[str]) -> int:
    if args and args[0] == "--":
        args = args[1:]
    if not args:
        sh.err(f"{name}: filename argument required")
        sh.write_err(f"{name}: usage: {name} filename [arguments]\n")
        return 2
    fname = args[0]
    path: str | None
    if "/" in fname:
        path = sh.abspath(fname)
    else:
        path = None
        if sh.state.shopt.get("sourcepath"):
            for d in (sh.state.get("PATH") or "").split(":"):
                cand = sh.abspath((d or ".") + "/" + fname)
                if sh.ctx.fs.isfile(cand):
                    path = cand
                    break
        if path is None:
            path = sh.abspath(fname)
    try:
        with sh.ctx.fs.bind(sh.fds).open(path, "rb") as f:
            src = f.read().decode("utf-8", "surrogateescape")
    except IsADirectoryError:
        sh.err(f"{fname}: is a directory")
        return 1
    except OSError as e:
        sh.err(f"{fname}: {e.strerror or 'No such file or directory'}")
        return 1
    st = sh.state
    saved_pos = None
    if len(args) > 1:
        saved_pos = st.positional
        st.positional = list(args[1:])
    st.source_stack.append(fname)
    st.call_stack.append(CallEntry("source", fname, st.lineno, is_function=False))
    saved_name = sh.source_name
    saved_line = st.lineno
    sh.source_name = fname
    try:
        status = sh.run_source(src, top=False, name=fname)
    except ReturnFromFunction as r:
        status = r.status
    except ShellError as e:
        if e.status == 2:
            return 2
        raise
    finally:
        sh.source_name = saved_name
        st.lineno = saved_line  # $LINENO is the caller's again
        st.source_stack.pop()
        st.call_stack.pop()
        if saved_pos is not None:
            st.positional = saved_pos
    if st.traps.get("RETURN"):  # bash runs RETURN when a sourced file finishes
        sh.run_trap("RETURN", status)
    return status


def b_exec(sh: Shell, name: str, args: list[str]) -> int:
    while args and args[0].startswith("-") and args[0] != "-":
        if args[0] == "--":
            args = args[1:]
            break
        args = args[1:]  # -c -l -a NAME: accepted, no effect in-process
    if not args:
        # `exec >file`: the redirections (already applied to sh.fds) become permanent
        sh.permanent_fds = dict(sh.fds)
        return 0
    status = sh.exec_argv(args, {}, sh.fds)
    raise ExitShell(status)


def b_command(sh: Shell, name: str, args: list[str]) -> int:
    try:
        opts, args = parse_options(sh, "command", args, "pVv", "command [-pVv] command [arg ...]")
    except OptionError as e:
        return e.status
    flags = {f[1] for f, _ in opts}
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
        if kind == "none" and not _is_builtin(sh, args[0]):
            return not_found(sh, args[0])
        if kind == "file" and not _is_builtin(sh, args[0]):
            assert path is not None
            return sh.run_script_file(path, args[0], args[1:], sh.state.exported(), sh.fds)
        if kind == "vshell" and not _is_builtin(sh, args[0]):
            cmd = sh.find_command(args[0])
            assert cmd is not None
            return sh.call(cmd, args[0], args[1:], sh.state.exported(), sh.fds)
    # bypass functions
    name0 = args[0]
    fn = sh.state.functions.pop(name0, None)
    try:
        if _is_builtin(sh, name0) or sh.find_command(name0) is not None:
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
# builtins that also exist as programs there: `type -a echo` lists both, as bash does
COREUTILS_TWINS = frozenset(("echo", "printf", "test", "[", "kill", "pwd", "true", "false"))

KEYWORDS = frozenset(
    "if then else elif fi case esac for select while until do done in function time { } ! [[ ]] "
    "coproc".split()
)


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
        _out(sh, kind + "\n" if type_flag else (brief + "\n" if short else long + "\n"))

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
        if _is_builtin(sh, word):
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
    hashed = word in st.__dict__.get("hash", {}) and not all_
    for p in paths if all_ else paths[:1]:
        found = True
        say("file", f"{word} is hashed ({p})" if hashed else f"{word} is {p}", p)
    return 0 if found else 1


def b_type(sh: Shell, name: str, args: list[str]) -> int:
    try:
        opts, words = parse_options(sh, "type", args, "afptP", "type [-afptP] name [name ...]")
    except OptionError as e:
        return e.status
    flags = {f[1] for f, _ in opts}
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


# --- aliases -----------------------------------------------------------------------------------
def b_alias(sh: Shell, name: str, args: list[str]) -> int:
    st = sh.state
    if args and args[0] == "--":
        args = args[1:]
    if args and args[0] == "-p":
        args = args[1:]
        if not args:
            for k in sorted(st.aliases):
                _out(sh, f"alias {k}='{st.aliases[k]}'\n")
            return 0
    if not args:
        for k in sorted(st.aliases):
            _out(sh, f"alias {k}='{st.aliases[k]}'\n")
        return 0
    status = 0
    for a in args:
        if "=" in a:
            k, _, v = a.partition("=")
            st.aliases[k] = v
        elif a in st.aliases:
            v = st.aliases[a].replace("'", "'\\''")
            _out(sh, f"alias {a}='{v}'\n")
        else:
            sh.err(f"alias: {a}: not found")
            status = 1
    return status


def b_unalias(sh: Shell, name: str, args: list[str]) -> int:
    st = sh.state
    if args and args[0] == "--":
        args = args[1:]
    if not args:
        sh.write_err("unalias: usage: unalias [-a] name [name ...]\n")
        return 2
    if args[0] == "-a":
        st.aliases.clear()
        return 0
    status = 0
    for a in args:
        if a in st.aliases:
            del st.aliases[a]
        else:
            sh.err(f"unalias: {a}: not found")
            status = 1
    return status


# --- traps, jobs, misc ---------------------------------------------------------------------------
SIGNALS = ["EXIT", "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE", "KILL", "USR1",
           "SEGV", "USR2", "PIPE", "ALRM", "TERM", "STKFLT", "CHLD", "CONT", "STOP", "TSTP",
           "TTIN", "TTOU", "URG", "XCPU", "XFSZ", "VTALRM", "PROF", "WINCH", "IO", "PWR", "SYS"]


def _sig_name(spec: str) -> str | None:
    s = spec.upper()
    if s.isdigit():
        n = int(s)
        return SIGNALS[n] if 0 <= n < len(SIGNALS) else None
    if s.startswith("SIG"):
        s = s[3:]
    if s in ("ERR", "DEBUG", "RETURN") or s in SIGNALS:
        return s
    return None


def signal_table() -> str:
    """``kill -l`` / ``trap -l`` as bash prints them: five ``NN) SIGNAME`` a line."""
    entries = [(i, s) for i, s in enumerate(SIGNALS) if i]
    entries.append((34, "RTMIN"))
    entries += [(34 + k, f"RTMIN+{k}") for k in range(1, 16)]
    entries += [(64 - k, f"RTMAX-{k}") for k in range(14, 0, -1)]
    entries.append((64, "RTMAX"))
    out = []
    for n, (num, sig) in enumerate(entries, 1):
        out.append(f"{num:2d}) SIG{sig}" + ("\n" if n % 5 == 0 else "\t"))
    return "".join(out) + ("" if len(entries) % 5 == 0 else "\n")


def _trap_line(sig: str, handler: str) -> str:
    q = handler.replace("'", "'\\''")
    label = sig if sig in ("EXIT", "ERR", "DEBUG", "RETURN") else "SIG" + sig
    return f"trap -- '{q}' {label}\n"


def b_trap(sh: Shell, name: str, args: list[str]) -> int:
    st = sh.state
    try:
        opts, args = parse_options(sh, "trap", args, "lp", "trap [-lp] [[arg] signal_spec ...]")
    except OptionError as e:
        return e.status
    flags = {f for f, _ in opts}
    if "-l" in flags:
        _out(sh, signal_table())
        return 0
    if not args or "-p" in flags:
        status = 0
        if not args:
            for sig, handler in st.traps.items():
                _out(sh, _trap_line(sig, handler))
            return 0
        for spec in args:
            sig = _sig_name(spec)
            if sig is None:
                sh.err(f"trap: {spec}: invalid signal specification")
                status = 1
            elif sig in st.traps:
                _out(sh, _trap_line(sig, st.traps[sig]))
        return status
    if len(args) == 1 and _sig_name(args[0]) is None:
        sh.err(f"trap: {args[0]}: invalid signal specification")
        sh.write_err("trap: usage: trap [-lp] [[arg] signal_spec ...]\n")
        return 2
    if len(args) == 1 or (args[0].isdigit() and _sig_name(args[0])):
        action = "-"
        specs = args if len(args) == 1 or args[0].isdigit() else args[1:]
    else:
        action = args[0]
        specs = args[1:]
    status = 0
    for spec in specs:
        sig = _sig_name(spec)
        if sig is None:
            sh.err(f"trap: {spec}: invalid signal specification")
            status = 1
            continue
        if sig in getattr(st, "ignored_at_entry", ()) and "i" not in sh.extra_flags:
            continue  # ignored when this shell started: it stays ignored
        if action == "-":
            st.traps.pop(sig, None)
        else:
            st.traps[sig] = action
    return status


def _job_pid(sh: Shell, spec: str) -> int | None:
    """A pid or job spec (``%N``, ``%+``, ``%%``, ``%-``) as a pid; None if unknown."""
    jobs = sorted(sh.ctx.jobs)
    if spec.startswith("%"):
        rest = spec[1:]
        if rest in ("", "+", "%"):
            return jobs[-1] if jobs else None
        if rest == "-":
            return jobs[-2] if len(jobs) > 1 else (jobs[-1] if jobs else None)
        if rest.isdigit():
            k = int(rest)
            return jobs[k - 1] if 0 < k <= len(jobs) else None
        return None
    try:
        return int(spec)
    except ValueError:
        return None


def b_wait(sh: Shell, name: str, args: list[str]) -> int:
    jobs = sh.ctx.jobs
    flags = [a for a in args if a.startswith("-") and a != "-"]
    rest = [a for a in args if not (a.startswith("-") and a != "-")]
    if "-n" in flags:
        pending = [p for p in rest] or None
        pids = sorted(jobs) if pending is None else [
            p for p in (_job_pid(sh, x) for x in pending) if p is not None and p in jobs]
        if not pids:
            return 127
        while True:
            sh.check()
            for pid in pids:
                job = jobs[pid]
                if not job.thread.is_alive():
                    jobs.pop(pid, None)
                    return job.status if job.status is not None else 0
            jobs[pids[0]].thread.join(0.02)
    status = 0
    if rest:
        for a in rest:
            pid = _job_pid(sh, a)
            if pid is None and not a.startswith("%") and not a.lstrip("-").isdigit():
                sh.err(f"wait: `{a}': not a pid or valid job spec")
                status = 2
                continue
            job = jobs.get(pid) if pid is not None else None
            if job is None:
                if a.startswith("%"):
                    sh.err(f"wait: {a}: no such job")
                else:
                    sh.err(f"wait: pid {a} is not a child of this shell")
                status = 127
                continue
            while job.thread.is_alive():
                sh.check()
                job.thread.join(0.05)
            status = job.status if job.status is not None else 0
            jobs.pop(pid, None)
        return status
    for pid in sorted(jobs):
        job = jobs[pid]
        while job.thread.is_alive():
            sh.check()
            job.thread.join(0.05)
    jobs.clear()
    return 0


IGNORED_BY_DEFAULT = frozenset(("CHLD", "CONT", "URG", "WINCH"))
_TERMINATING = frozenset(SIGNALS[1:]) - IGNORED_BY_DEFAULT - {"STOP", "TSTP", "TTIN", "TTOU"}


KILL_USAGE = ("kill: usage: kill [-s sigspec | -n signum | -sigspec] pid | jobspec ... "
              "or kill -l [sigspec]\n")


def b_kill(sh: Shell, name: str, args: list[str]) -> int:
    if not args or args == ["--"]:
        sh.write_err(KILL_USAGE)
        return 2
    if args == ["-l"] or args == ["-L"]:
        _out(sh, signal_table())
        return 0
    if args[0] in ("-s", "-n") and len(args) == 1:
        sh.err(f"kill: {args[0]}: option requires an argument")
        return 1
    if args[0].startswith(("-s", "-n")) and len(args[0]) > 2 and not args[0][1:].isupper():
        args = [args[0][:2], args[0][2:], *args[1:]]  # -sTERM: grouped, as bash's getopt
    if len(args) == 2 and args[0] in ("-s", "-n") or (
            len(args) == 1 and args[0].startswith("-") and args[0] != "--"):
        sh.write_err(KILL_USAGE)  # a signal but no pid
        return 2
    sig = "TERM"
    if args and args[0] in ("-s", "-n") and len(args) > 1:
        spec, args = args[1], args[2:]
    elif args and args[0].startswith("-") and args[0] != "--" and len(args[0]) > 1:
        spec, args = args[0][1:], args[1:]
    else:
        spec = ""
    if spec:
        found = _sig_name(spec)
        if found is None or found in ("EXIT", "ERR", "DEBUG", "RETURN"):
            sh.err(f"kill: {spec}: invalid signal specification")
            return 1
        sig = found
    pids = [a for a in args if a != "--"]
    status = 0
    for p in pids:
        if p in sh.ctx.shells:  # a shell of this run (its $$): it acts between commands
            sh.ctx.signals.setdefault(p, []).append(sig)
            continue
        try:
            pid = int(p.lstrip("%"))
        except ValueError:
            sh.err(f"kill: {p}: arguments must be process or job IDs")
            status = 1
            continue
        job = sh.ctx.jobs.get(pid)
        if job is None:
            sh.err(f"kill: ({pid}) - No such process")
            status = 1
            continue
        if job.cancel is not None and sig in _TERMINATING:
            job.cancel.cancel("killed")
    return status


def b_jobs(sh: Shell, name: str, args: list[str]) -> int:
    for i, (pid, job) in enumerate(sorted(sh.ctx.jobs.items()), 1):
        state = "Running" if job.thread.is_alive() else "Done"
        if "-p" in args:
            _out(sh, f"{pid}\n")
        else:
            _out(sh, f"[{i}]  {state}\t{job.command}\n")
    return 0


def b_hash(sh: Shell, name: str, args: list[str]) -> int:
    """bash's table of remembered command locations (vshell's commands show as /usr/bin)."""
    table: dict[str, list] = sh.state.__dict__.setdefault("hash", {})

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
                _out(sh, f"{a}\t{path}\n" if len(args) > 1 else path + "\n")
        return status
    if "l" in flags and not args:
        for n, (path, _hits) in table.items():
            _out(sh, f"builtin hash -p {shown(path, n)} {n}\n")
        return 0
    if not args:
        if not table:
            _out(sh, "hash: hash table empty\n")  # bash 5.2 says it on stdout
            return 0
        _out(sh, "hits\tcommand\n")
        for n, (path, hits) in table.items():
            _out(sh, f"{hits:4d}\t{shown(path, n)}\n")
        return 0
    status = 0
    for a in args:
        if a.startswith("-"):
            continue

        if _is_builtin(sh, a) or a in sh.state.functions:
            continue
        kind, _ = resolve_command(sh, a)
        if kind == "none":
            sh.err(f"hash: {a}: not found")
            status = 1
        else:
            table[a][1] = 0
    return status


def b_umask(sh: Shell, name: str, args: list[str]) -> int:
    st = sh.state
    sym = "-S" in args
    rest = [a for a in args if a not in ("-S", "-p")]
    if not rest:
        if sym:
            m = ~st.umask & 0o777
            parts = []
            for who, shift in (("u", 6), ("g", 3), ("o", 0)):
                bits = (m >> shift) & 7
                parts.append(who + "=" + "".join(c for c, b in (("r", 4), ("w", 2), ("x", 1))
                                                 if bits & b))
            _out(sh, ",".join(parts) + "\n")
        else:
            _out(sh, ("umask " if "-p" in args else "") + f"{st.umask:04o}\n")
        return 0
    spec = rest[0]
    if spec[:1].isdigit():
        try:
            value = int(spec, 8)
        except ValueError:
            value = -1
        if not 0 <= value <= 0o777:
            sh.err(f"umask: {spec}: octal number out of range")
            return 1
        st.umask = value
        return 0
    try:
        st.umask = _symbolic_umask(spec, st.umask)
    except ValueError as e:
        sh.err(f"umask: `{e}': invalid symbolic mode character")
        return 1
    return 0


def _symbolic_umask(spec: str, umask: int) -> int:
    """``umask u=rwx,g-w``: the clauses edit the bits files may have; ValueError names the
    first character bash would refuse (one operator per clause, r w x only)."""
    from vshell.commands._lib import modes as _modes

    allowed = ~umask & 0o777
    for clause in spec.split(","):
        m = re.fullmatch(r"([ugoa]*)([-+=])([rwx]*)(.*)", clause, re.S)
        if m is None:
            bad = next((c for c in clause if c not in "ugoa"), clause[:1] or ",")
            raise ValueError(bad)
        if m.group(4):
            raise ValueError(m.group(4)[0])
        allowed = _modes.apply(clause, allowed, False, umask=0) & 0o777
    return ~allowed & 0o777


def b_times(sh: Shell, name: str, args: list[str]) -> int:
    el = time.monotonic() - sh.state.start_time
    m, s = divmod(el, 60)
    _out(sh, f"{int(m)}m{s:.3f}s 0m0.000s\n0m0.000s 0m0.000s\n")
    return 0


def b_caller(sh: Shell, name: str, args: list[str]) -> int:
    st = sh.state
    n = 0
    if args:
        try:
            n = int(args[0])
        except ValueError:
            sh.err(f"caller: {args[0]}: invalid number")
            return 2
    names, files, lines = st.call_stack_arrays()
    if not any(e.is_function for e in st.call_stack):
        names = []  # FUNCNAME is unset outside functions
    if not lines or not files:
        return 1
    # bash: frame N is the call at BASH_LINENO[N] made from FUNCNAME[N+1] in BASH_SOURCE[N+1]
    if not args:
        _out(sh, f"{lines[0]} {files[1] if len(files) > 1 else 'NULL'}\n")
        return 0
    if n + 1 >= len(files) or n + 1 >= len(names) or n >= len(lines):
        return 1
    _out(sh, f"{lines[n]} {names[n + 1]} {files[n + 1]}\n")
    return 0


def b_help(sh: Shell, name: str, args: list[str]) -> int:
    """``help [-dms] [pattern ...]`` with bash's text for the builtins vshell has."""
    from vshell import commands as builtins
    from vshell.interp.builtins import registry as builtins_registry
    from vshell.interp.builtins.help import HELP
    from vshell.text.glob import fnmatch

    try:
        opts, topics = parse_options(sh, "help", args, "dms", "help [-dms] [pattern ...]")
    except OptionError as e:
        return e.status
    flags = {f[1] for f, _ in opts}
    if not topics:
        _out(sh, "vshell: a bash-compatible virtual shell. Shell builtins "
                 "(`help NAME' for one):\n")
        _out(sh, " ".join(builtins_registry.names()) + "\n")
        return 0
    status = 0
    for t in topics:
        glob = any(c in t for c in "*?[")
        # bash matches a topic as a pattern, or as the start of builtin names
        hits = [t] if t in HELP and not glob else sorted(
            n for n in HELP if (fnmatch(t, n) if glob else n.startswith(t)))
        if hits and glob and not flags:
            _out(sh, f"Shell commands matching keyword `{t}'\n\n")
        if hits:
            for n in hits:
                text = HELP[n]
                synopsis, _, rest = text.partition("\n")
                if "s" in flags:
                    _out(sh, synopsis + "\n")
                elif "d" in flags:
                    _out(sh, f"{n} - {rest.partition(chr(10))[0].strip()}\n")
                else:
                    _out(sh, text)
        elif builtins.lookup(t) is not None:
            _out(sh, f"{t}: a vshell command: run `{t} --help' for its options.\n")
        else:
            sh.err(f"help: no help topics match `{t}'.  Try `help help' or `man -k {t}' "
                   f"or `info {t}'.")
            status = 1
    return status


# builtins that take --help as an ordinary argument, as in bash
NO_HELP_OPTION = frozenset(("echo", "test", "[", "true", "false", ":", "exec"))


def builtin_help_option(sh: Shell, name: str, args: list[str]) -> int | None:
    """``cd --help``: bash prints the builtin's help and returns 2; None when not asked."""
    if not args or args[0] != "--help" or name in NO_HELP_OPTION:
        return None
    from vshell.interp.builtins.help import HELP

    text = HELP.get(name)
    if text is None:
        return None
    _out(sh, text)
    return 2


def b_enable(sh: Shell, name: str, args: list[str]) -> int:
    """``enable [-n] [name ...]``: turns builtins off and on in this shell only."""
    from vshell.interp.builtins import registry as builtins_registry

    try:
        opts, names = parse_options(sh, "enable", args, "apnsfd:",
                                    "enable [-a] [-dnps] [-f filename] [name ...]")
    except OptionError as e:
        return e.status
    flags = {f[1] for f, _ in opts}
    if "f" in flags or "d" in flags:
        sh.err("enable: cannot load or delete builtins: vshell has no loadable builtins")
        return 1
    disabled = builtins_registry.disabled_in(sh.state)
    if not names:
        for b in builtins_registry.names():
            off = b in disabled
            if "a" in flags or ("n" in flags) == off:
                _out(sh, f"enable {'-n ' if off else ''}{b}\n")
        return 0
    status = 0
    for b in names:
        if b not in builtins_registry.TABLE:
            sh.err(f"enable: {b}: not a shell builtin")
            status = 1
    known = {b for b in names if b in builtins_registry.TABLE}
    sh.state.disabled_builtins = disabled | known if "n" in flags else disabled - known
    return status


# bash's table: option -> (description, unit, soft, hard); the values a fresh Linux shell has
_ULIMITS: dict[str, tuple[str, str, str, str]] = {
    "R": ("real-time non-blocking time", "microseconds", "unlimited", "unlimited"),
    "c": ("core file size", "blocks", "0", "unlimited"),
    "d": ("data seg size", "kbytes", "unlimited", "unlimited"),
    "e": ("scheduling priority", "", "0", "0"),
    "f": ("file size", "blocks", "unlimited", "unlimited"),
    "i": ("pending signals", "", "63704", "63704"),
    "l": ("max locked memory", "kbytes", "8192", "8192"),
    "m": ("max memory size", "kbytes", "unlimited", "unlimited"),
    "n": ("open files", "", "1024", "1048576"),
    "p": ("pipe size", "512 bytes", "8", "8"),
    "q": ("POSIX message queues", "bytes", "819200", "819200"),
    "r": ("real-time priority", "", "0", "0"),
    "s": ("stack size", "kbytes", "8192", "unlimited"),
    "t": ("cpu time", "seconds", "unlimited", "unlimited"),
    "u": ("max user processes", "", "63704", "63704"),
    "v": ("virtual memory", "kbytes", "unlimited", "unlimited"),
    "x": ("file locks", "", "unlimited", "unlimited"),
}
_ULIMIT_SCALE = {"c": 512, "d": 1024, "f": 512, "l": 1024, "m": 1024, "p": 512, "s": 1024,
                 "v": 1024, "R": 1, "q": 1, "t": 1}
_RLIM_MAX = (1 << 63) - 1


def _limit_le(a: str, b: str) -> bool:
    return b == "unlimited" or (a != "unlimited" and int(a) <= int(b))


def b_ulimit(sh: Shell, name: str, args: list[str]) -> int:
    """Resource limits as numbers the shell keeps (vshell has no processes to limit), parsed
    as bash does: each resource option takes the next word as its value unless that word is
    an option; ``-S``/``-H`` choose the soft or hard limit; a hard one is never raised."""
    st = sh.state
    limits: dict[tuple[str, str], str] = getattr(st, "ulimits", None) or {}
    st.ulimits = limits  # type: ignore[attr-defined]
    usage = "ulimit [-SHabcdefiklmnpqrstuvxPRT] [limit]"

    def current(kind: str, c: str) -> str:
        soft, hard = _ULIMITS[c][2:]
        return limits.get((kind, c), soft if kind == "S" else hard)

    which = ""
    show_all = False
    commands: list[tuple[str, str | None]] = []
    i = 0
    while i < len(args):
        a = args[i]
        i += 1
        if a == "--":
            break
        if not (a.startswith("-") and len(a) > 1):
            i -= 1
            break
        for k, c in enumerate(a[1:]):
            if c in "SH":
                which = which + c if c not in which else which
            elif c == "a":
                show_all = True
            elif c in _ULIMITS:
                value = None
                if k == len(a) - 2 and i < len(args) and not args[i].startswith("-"):
                    value = args[i]
                    i += 1
                commands.append((c, value))
            else:
                sh.err(f"ulimit: -{c}: invalid option")
                sh.write_err(f"ulimit: usage: {usage}\n")
                return 2
    rest = args[i:]
    if rest:
        if len(rest) > 1 or (commands and commands[-1][1] is not None):
            sh.err("ulimit: too many arguments")
            return 2
        if commands:
            commands[-1] = (commands[-1][0], rest[0])
        else:
            commands.append(("f", rest[0]))
    kind_shown = "H" if which == "H" else "S"
    labelled = show_all or len(commands) > 1

    def show(c: str) -> None:
        desc, unit = _ULIMITS[c][:2]
        label = f"({unit}, -{c}) " if unit else f"(-{c}) "
        _out(sh, (f"{desc:<20} {label:>20}" if labelled else "") + current(kind_shown, c) + "\n")

    if show_all:
        for c in _ULIMITS:
            show(c)
    if not commands and not show_all:
        commands.append(("f", None))
    status = 0
    for c, value in commands:
        if value is None:
            if not show_all:  # -a already listed it
                show(c)
            continue
        desc = _ULIMITS[c][0]
        if value in ("hard", "soft", "unlimited"):
            new = current("H" if value == "hard" else "S", c) if value != "unlimited" \
                else "unlimited"
        elif value.isdigit():
            if int(value) * _ULIMIT_SCALE.get(c, 1) > _RLIM_MAX:
                sh.err(f"ulimit: {value}: limit out of range")
                status = 1
                continue
            new = str(int(value))
        else:
            sh.err(f"ulimit: {value}: invalid number")
            status = 1
            continue
        kinds = ("S", "H") if which in ("", "SH", "HS") else (which,)
        hard = new if "H" in kinds else current("H", c)
        if "H" in kinds and not _limit_le(new, current("H", c)):
            sh.err(f"ulimit: {desc}: cannot modify limit: Operation not permitted")
            status = 1
            continue
        if "S" in kinds and not _limit_le(new, hard):
            sh.err(f"ulimit: {desc}: cannot modify limit: Invalid argument")
            status = 1
            continue
        for kind in kinds:
            limits[(kind, c)] = new
    return status


def b_history(sh: Shell, name: str, args: list[str]) -> int:
    """A script's shell keeps no history (as bash with history off): only usage is checked."""
    if not args:
        return 0
    a = args[0]
    if a.startswith("-") and len(a) > 1 and a[1:] not in ("c", "w", "r", "a", "n"):
        sh.err(f"history: {a}: invalid option")
        sh.write_err("history: usage: history [-c] [-d offset] [n] or history -anrw [filename]"
                     " or history -ps arg [arg...]\n")
        return 2
    if len(args) > 1 and not a.startswith("-"):
        sh.err("history: too many arguments")
        return 1
    if not a.startswith("-") and not a.lstrip("+").isdigit():
        sh.err(f"history: {a}: numeric argument required")
        return 1
    if a in ("-w", "-r"):
        return _history_file(sh, a, args[1] if len(args) > 1 else None)
    return 0


def _history_file(sh: Shell, flag: str, name: str | None) -> int:
    """``-w`` writes the (empty) history to FILE, ``-r`` reads it; like bash, a file that
    cannot be written or read fails with status 1, silently."""
    from vshell.command import normpath

    name = name if name is not None else sh.state.get("HISTFILE")
    if not name:
        return 0
    path = normpath(name if name.startswith("/") else sh.state.cwd.rstrip("/") + "/" + name)
    try:
        with sh.ctx.fs.open(path, "wb" if flag == "-w" else "rb"):
            pass
    except OSError:
        return 1
    return 0
