"""The control-flow builtins: ``exit``, ``return``, ``break``/``continue``, ``shift``, ``eval``,
``source``, ``exec`` and ``caller``; they end in the exceptions of :mod:`vshell.interp.control`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from vshell.interp.builtins.base import out
from vshell.interp.control import AbortLine, ExitShell, LoopControl, ReturnFromFunction, ShellError
from vshell.interp.state import CallEntry

if TYPE_CHECKING:
    from vshell.interp.shell import Shell


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
        out(sh, f"{lines[0]} {files[1] if len(files) > 1 else 'NULL'}\n")
        return 0
    if n + 1 >= len(files) or n + 1 >= len(names) or n >= len(lines):
        return 1
    out(sh, f"{lines[n]} {names[n + 1]} {files[n + 1]}\n")
    return 0
