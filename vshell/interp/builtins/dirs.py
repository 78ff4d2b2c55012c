"""The directory builtins: ``cd``, ``pwd`` and the directory stack (``pushd``, ``popd``,
``dirs``)."""

from __future__ import annotations

import stat as _stat
from typing import TYPE_CHECKING

from vshell.interp.builtins.base import out
from vshell.interp.builtins.opts import OptionError, parse_options
from vshell.interp.control import ShellError

if TYPE_CHECKING:
    from vshell.interp.shell import Shell


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
            out(sh, full + "\n")
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
    out(sh, cwd + "\n")
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
            out(sh, (f"{i:2d}  " if "-v" in args else "") + show(d) + "\n")
    else:
        out(sh, " ".join(show(d) for d in items) + "\n")
    return 0
