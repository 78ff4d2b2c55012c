"""Simple commands: expansion, assignments, redirections, and finding what to run —
a function, a shell builtin, a vshell command, or a script on ``PATH`` in the VFS.
"""

from __future__ import annotations

import stat as _stat

from vshell.interp import fdscope
from vshell.interp.builtins import registry as builtins_registry
from vshell.interp.control import (
    PLAIN_CHARS,
    SHELL_NAMES,
    AbortLine,
    ExitShell,
    ReturnFromFunction,
    SigPipe,
)
from vshell.interp.limits import MemoryLimitError
from vshell.interp.lookup import (
    VSHELL_COMMAND,
    find_in_path,
    not_found,
    resolve_command,
    system_path_command,
)
from vshell.interp.state import TEMPENV_ATTR, CallEntry, Frame, ShellError, Var
from vshell.lazy import lazy_compile, lazy_function, lazy_module
from vshell.syntax import ast
from vshell.syntax.parser import BadSubst

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    from typing import Any

    from vshell.interp import redirect
    from vshell.interp.assign import assign
    from vshell.interp.quoting import xtrace_quote
    from vshell.interp.shell import Fds, Shell
else:  # imported at first use (start-up): a stand-in puts the real one in its place
    assign = lazy_function("vshell.interp.assign", "assign", globals())
    xtrace_quote = lazy_function("vshell.interp.quoting", "xtrace_quote", globals())

    redirect = lazy_module("vshell.interp.redirect")  # a command with a redirection asks


DECLARATION_BUILTINS = frozenset(("declare", "typeset", "local", "export", "readonly"))


def _plain_word(raw: str) -> bool:
    """A word of expand's PLAIN_CHARS expands to itself, and so does a lone bracket, no
    pattern (`[ -f x ]`)."""
    return raw in ("[", "]") or (raw != "" and PLAIN_CHARS.issuperset(raw))


_COMPOUND: Any = None  # vshell.interp.compound, imported on the first function call


def _load_compound() -> Any:
    global _COMPOUND
    from vshell.interp import compound

    _COMPOUND = compound
    return compound


def run(sh: Shell, cmd: ast.SimpleCommand) -> int:
    st = sh.state
    st.lineno = cmd.line
    if st.traps:
        sh.debug_trap()
    sh.last_cmdsub_status = None
    sh.ctx.last_not_found = False
    try:
        argv = _expand_argv(sh, cmd)
    except BadSubst as e:
        sh.err(str(e))

        raise ExitShell(1) from None
    except ShellError as e:
        return _fail(sh, e)
    if not argv:
        return _assign_only(sh, cmd)
    if st.options.get("xtrace") and not sh._in_ps4:
        _xtrace(sh, cmd, argv)
    opened: list = []
    start = fdscope.mark(sh)  # before the redirections: a {fd}> one stays open after
    try:
        try:
            fds = redirect.apply(sh, cmd.redirects, sh.fds, opened,
                                 in_shell=_runs_in_shell(sh, argv[0])) if cmd.redirects \
                else dict(sh.fds)
        except BadSubst as e:
            sh.err(str(e))
            return 1
        except ShellError as e:
            return _fail(sh, e)
        try:
            assigns = _prefix_assigns(sh, cmd.assigns) if cmd.assigns else {}
        except ShellError as e:
            return _fail(sh, e)
        saved = sh.fds
        sh.fds = fds  # what the shell says about this command goes to its own stderr
        try:
            status = exec_argv(sh, argv, assigns, fds)
        finally:
            sh.fds = fdscope.restore(sh, saved, fds, start)
        _set_last_arg(sh, argv[-1])
        d = sh.__dict__
        permanent = d.pop("permanent_fds", None) if "permanent_fds" in d else None
        if permanent is not None:
            fdscope.record(sh, sh.fds, permanent)
            sh.fds = permanent
            opened.clear()
        return status
    finally:
        if opened:
            redirect.close_all(opened)


def _runs_in_shell(sh: Shell, name: str) -> bool:
    """Whether bash would run ``name`` without forking: a function or a builtin."""
    return name in sh.state.functions or builtins_registry.lookup(
        name, builtins_registry.disabled_in(sh.state)) is not None


def _set_last_arg(sh: Shell, last: str) -> None:
    """``$_``: the last argument of the previous simple command."""
    if type(last) is not str:
        raw = getattr(last, "raw", None)
        if raw is not None and "=(" in raw:
            last = raw.split("=", 1)[0].rstrip("+")
        last = str(last)
    st = sh.state
    v = st.globals.get("_")
    if v is not None and v.owner is st.owner and v.hold is None and "r" not in v.attrs:
        v.value = last  # after every command: in place
        if "x" in v.attrs:
            st.env_changed()
        return
    if v is None or "r" not in v.attrs:
        # a new variable of this shell's own (the old one may be shared since a fork)
        nv = Var(last, set(v.attrs) if v is not None else set())
        nv.owner = st.owner
        st.globals["_"] = nv
        if "x" in nv.attrs:
            st.env_changed()


def _fail(sh: Shell, e: ShellError) -> int:
    sh.err(e.message, redirect.partial_fds(e))
    if e.fatal:
        from vshell.interp.fatal import exit_status

        raise ExitShell(exit_status(sh, e))
    if e.abort_line:

        raise AbortLine(e.status)
    sh.state.last_status = e.status
    return e.status


def _expand_argv(sh: Shell, cmd: ast.SimpleCommand) -> list[str]:
    words = cmd.words
    if not words:
        return []
    known = cmd.__dict__.get("plain_argv")
    if known is not None:  # words that expand to themselves, found so once for this node
        return list(known)
    first = words[0].raw
    if first in DECLARATION_BUILTINS or (first == "builtin" and len(words) > 1
                                         and words[1].raw in DECLARATION_BUILTINS):
        # declaration builtins: NAME=value arguments are expanded like assignments
        ex = sh.expander
        out = ex.words([first])
        for w in words[1:]:
            raw = w.raw
            eq = _assignment_split(raw)
            if eq is not None:
                value = raw[eq + 1:]
                # bash expands every argument before the builtin runs (so `a=1 b=$a` sees
                # the old a, and prefix bindings are not in place yet); a compound
                # `(…)` value is left to the builtin
                expanded = None if value.startswith("(") else ex.word(value, assign=True)
                out.append(_DeclArg(raw, eq, expanded))
            else:
                out.extend(ex.words([raw]))
        return out
    raws = [w.raw for w in words]
    if all(map(_plain_word, raws)):  # whatever the state: kept on the node
        cmd.__dict__["plain_argv"] = raws
        return list(raws)
    return sh.expander.words(raws)


class _DeclArg(str):
    """A ``name=value`` argument of declare/local/export: its raw text, where the ``=`` is,
    and the value already expanded (None for a compound ``(…)`` the builtin expands)."""

    raw: str
    eq: int
    expanded: str | None

    def __new__(cls, raw: str, eq: int, expanded: str | None = None) -> _DeclArg:
        obj = super().__new__(cls, raw)
        obj.raw = raw
        obj.eq = eq
        obj.expanded = expanded
        return obj


_ASSIGNMENT = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")


def _assignment_split(raw: str) -> int | None:
    m = _ASSIGNMENT.match(raw)
    if not m:
        return None
    return m.end() - 1


def _assign_only(sh: Shell, cmd: ast.SimpleCommand) -> int:
    st = sh.state
    _set_last_arg(sh, "")
    if st.options.get("xtrace"):
        _xtrace(sh, cmd, [])
    status = 0
    opened: list = []
    try:
        for a in cmd.assigns:
            try:
                assign(sh, a)
            except ShellError as e:
                sh.err(e.message)
                if e.fatal:
                    from vshell.interp.fatal import exit_status

                    raise ExitShell(exit_status(sh, e)) from None
                if e.abort_line or any(t in e.message for t in (
                        "readonly variable", "bad array subscript", "cannot assign list")):
                    # bash: a failed assignment abandons the rest of the line

                    raise AbortLine(1) from None
                return 1
        if cmd.redirects:
            start = fdscope.mark(sh)
            try:
                done = redirect.apply(sh, cmd.redirects, sh.fds, opened, in_shell=True)
            except ShellError as e:
                return _fail(sh, e)
            sh.fds = fdscope.restore(sh, sh.fds, done, start)
    finally:
        if opened:
            redirect.close_all(opened)
    if sh.last_cmdsub_status is not None:
        status = sh.last_cmdsub_status
    return status


def _prefix_assigns(sh: Shell, assigns: list[ast.Assignment]) -> dict[str, str]:
    """``A=1 B=$A cmd``: each value sees the bindings before it (then all are undone)."""
    out: dict[str, str] = {}
    ex = sh.expander
    st = sh.state
    saved: list[tuple[str, Var | None]] = []
    try:
        for a in assigns:
            if a.index is not None:
                continue
            if a.array is not None:  # `B=(b c) cmd`: bash passes the text "(b c)"
                words = [ex.word(w.raw if hasattr(w, "raw") else str(w), assign=True)
                         for w in a.array]
                value = "(" + " ".join(words) + ")"
            else:
                value = ex.word(a.value.raw, assign=True) if a.value is not None else ""
            current = st.lookup(a.name)
            if current is not None and "r" in current.attrs:
                # bash: a message, no binding, and the command runs all the same
                sh.err(f"{a.name}: readonly variable")
                continue
            if a.append:
                value = (st.get(a.name) or "") + value
            out[a.name] = value
            if len(assigns) > 1:
                # the binding replaces the variable (never changes it), which comes back after
                var = st.globals.get(a.name)
                saved.append((a.name, var))
                st.new_var(st.globals, a.name, value, set(var.attrs) if var else None)
    finally:
        for name, old in reversed(saved):
            if old is None:
                st.globals.pop(name, None)
            else:
                st.globals[name] = old
        if saved:
            st.env_changed()
    return out


def _xtrace(sh: Shell, cmd: ast.SimpleCommand, argv: list[str]) -> None:
    prefix = sh.xtrace_prefix()
    lines = []
    for a in cmd.assigns:
        val = sh.expander.word(a.value.raw, assign=True) if a.value is not None else ""
        if a.array is not None:
            lines.append(f"{prefix}{a.name}=({' '.join(w.raw for w in a.array)})")
        else:
            lines.append(f"{prefix}{a.name}{'+' if a.append else ''}={xtrace_quote(val)}")
    if argv:
        shown = []
        for w in argv:
            raw = getattr(w, "raw", None)
            if raw is not None:
                k = w.eq + 1  # type: ignore[attr-defined]  # an assignment word (_DeclArg) carries eq, the index of its =
                value = raw[k:]
                if not value.startswith("("):
                    expanded = getattr(w, "expanded", None)
                    w = raw[:k] + (expanded if expanded is not None
                                   else sh.expander.word(value, assign=True))
            shown.append(xtrace_quote(str(w)))
        lines.append(prefix + " ".join(shown))
    sh.write_err("".join(line + "\n" for line in lines))


def exec_argv(sh: Shell, argv: list[str], assigns: dict[str, str], fds: Fds,
              env: dict[str, str] | None = None) -> int:
    """Run an expanded command line with prefix assignments on the given descriptors.

    ``env`` (when given) is the exported environment to use for a command, as already
    computed by a caller that resolved a path to one of vshell's commands.
    """
    name = argv[0]
    args = [a if type(a) is str or hasattr(a, "raw") else str(a) for a in argv[1:]]
    st = sh.state
    fn = st.functions.get(name)
    if fn is not None:
        if not assigns:
            return call_function(sh, fn, name, args, fds)
        return call_function(sh, fn, name, args, fds, tempenv=assigns)
    sb = builtins_registry.lookup(name, builtins_registry.disabled_in(st))
    if sb is not None:
        if not assigns:
            return _run_shell_builtin(sh, sb, name, args, fds)
        return _with_temp_env(sh, assigns, lambda: _run_shell_builtin(sh, sb, name, args, fds),
                              special=name in builtins_registry.SPECIAL)
    if env is None:
        env = st.exported()
        env.update(assigns)
    if "/" in name:
        return run_path_command(sh, name, args, env, fds)
    kind, path = resolve_command(sh, name)
    if kind == "vshell":
        cmd = sh.find_command(name)
        if cmd is None:  # a builtin's /usr/bin twin, remembered in the hash table
            return _run_twin(sh, name, args, assigns, fds)
        return sh.call(cmd, name, args, env, fds)
    if kind == "file":
        assert path is not None
        if not sh.ctx.fs.isfile(path):
            # bash runs the remembered path and fails; `hash -r` forgets it
            sh.err(f"{path}: No such file or directory")
            return 127
        return run_script_file(sh, path, name, args, env, fds)
    from vshell.interp.builtins.registry import COREUTILS_TWINS

    if name in COREUTILS_TWINS:  # `enable -n echo`: bash runs /usr/bin/echo, the same code
        sh.state.hash[name] = [VSHELL_COMMAND, 1]
        return _run_twin(sh, name, args, assigns, fds)
    return not_found(sh, name)


def _run_twin(sh: Shell, name: str, args: list[str], assigns: dict[str, str], fds: Fds
              ) -> int:
    from vshell.interp.builtins import registry as builtins_registry

    twin = builtins_registry.lookup(name)
    if twin is None:
        return not_found(sh, name)
    return _with_temp_env(sh, assigns, lambda: _run_shell_builtin(sh, twin, name, args, fds))


def _run_shell_builtin(sh: Shell, fn, name: str, args: list[str], fds: Fds) -> int:
    saved = sh.fds
    start = fdscope.mark(sh)
    sh.fds = fds
    try:
        status = None
        if args and args[0] == "--help":
            from vshell.interp.builtins.misc import builtin_help_option

            status = builtin_help_option(sh, name, args)
        if status is None:
            status = fn(sh, name, args)
        out = fds.get(1)
        if out is not None and hasattr(out, "flush"):
            try:
                out.flush()
            except (OSError, ValueError):
                pass
        return status
    except BrokenPipeError:
        if sh.state.traps.get("PIPE") == "":  # SIGPIPE ignored: the write fails, bash goes on
            sh.err(f"{name}: write error: Broken pipe")
            return 1

        raise SigPipe() from None
    except MemoryLimitError as e:  # a builtin's value passed the sandbox's memory limit
        sh.err(e.message)
        return 1
    except OSError as e:
        from vshell.command import describe_oserror

        sh.err(f"{name}: write error: {e.strerror}" if e.errno in (9, 28, 5)
               else f"{name}: {describe_oserror(e)}")
        return 1
    except (ValueError, TypeError, KeyError, IndexError, OverflowError) as e:
        # a builtin's own bug or an argument it did not expect: a message, never a traceback
        sh.err(f"{name}: {e}")
        return 2
    finally:
        sh.fds = fdscope.restore(sh, saved, fds, start)


def _with_temp_env(sh: Shell, assigns: dict[str, str], fn, special: bool = False) -> int:
    if not assigns:
        return fn()
    st = sh.state
    saved: list[tuple[str, object]] = []
    for k, v in assigns.items():
        var = st.lookup(k)
        saved.append((k, None if var is None else var.copy()))
        try:
            st.set(k, v)
        except ShellError as e:
            sh.err(e.message)
            return 1
        nv = st.writable(k)
        if nv is not None:
            nv.attrs |= {"x", TEMPENV_ATTR}
    try:
        return fn()
    finally:
        if not (special and st.options.get("posix")):
            st.env_changed()
            for k, old in saved:
                scope, cur = st._find(k)
                if scope is None:
                    continue
                if old is None:
                    del scope[k]
                else:
                    scope[k] = old  # type: ignore[assignment]  # saved holds (name, Var | None); old is a Var here


MAX_FUNCTION_DEPTH = 1000  # vshell's own cap (bash has none unless FUNCNEST says)


def _funcnest(value: str | None) -> int:
    """The function nesting limit: FUNCNEST when it is a positive number, capped at ours."""
    if value and value.strip().isdigit() and int(value) > 0:
        return min(int(value), MAX_FUNCTION_DEPTH)
    return MAX_FUNCTION_DEPTH


def call_function(sh: Shell, fn: ast.FunctionDef, name: str, args: list[str], fds: Fds,
                  tempenv: dict[str, str] | None = None) -> int:
    """Run a shell function.  ``tempenv`` (``x=1 f``) becomes the call's own scope, exported
    and marked as temporary bindings, the way bash pushes it as the function's context."""
    st = sh.state
    limit = _funcnest(st.get("FUNCNEST"))
    if sh.func_depth >= limit:
        # bash drops the rest of the line and goes on with the next one
        raise ShellError(f"{name}: maximum function nesting level exceeded ({limit})",
                         abort_line=True)
    saved_fds = sh.fds
    start = fdscope.mark(sh)
    saved_pos = st.positional
    saved_line = st.lineno
    bindings: dict[str, Var] = {}
    if tempenv:
        for k, v in tempenv.items():
            st.new_var(bindings, k, v, {"x", TEMPENV_ATTR})
    st.frames.append(Frame(name, bindings, list(args)))
    st.call_stack.append(CallEntry(name, st.function_files.get(name, "environment"), st.lineno))
    st.positional = list(args)
    sh.fds = fds
    sh.func_depth += 1
    saved_loop = sh.loop_depth
    sh.loop_depth = 0
    # without set -T a function does not inherit the RETURN trap; one it sets stays set
    traced = bool(st.options.get("functrace"))
    hidden_return = None if traced else st.traps.pop("RETURN", None)
    try:
        status = (_COMPOUND or _load_compound()).run(sh, fn.body)
    except ReturnFromFunction as r:
        status = r.status
    finally:
        sh.loop_depth = saved_loop
        sh.func_depth -= 1
        sh.fds = fdscope.restore(sh, saved_fds, fds, start)
        if st.frames.pop().locals:
            st.env_changed()  # its locals (exported or hiding exported ones) are gone
        st.call_stack.pop()
        st.positional = saved_pos
        st.lineno = saved_line
    if st.traps.get("RETURN"):
        sh.run_trap("RETURN", status)
    elif hidden_return is not None and "RETURN" not in st.traps:
        st.traps["RETURN"] = hidden_return
    return status


def run_path_command(sh: Shell, name: str, args: list[str], env: dict[str, str], fds: Fds
                     ) -> int:
    """A command that is not built in: a script file in the VFS, else "command not found"."""
    fs = sh.ctx.fs
    path: str | None = None
    if "/" in name:
        path = sh.abspath(name)
        try:
            info = fs.stat(path)
        except FileNotFoundError as e:
            mapped = system_path_command(sh, path)
            if mapped is not None:
                return _run_own_command(sh, mapped, args, env, fds)
            from vshell.command import describe_oserror

            e.filename = name
            sh.err(describe_oserror(e))
            return 127
        except OSError as e:
            from vshell.command import describe_oserror

            e.filename = name
            sh.err(describe_oserror(e))
            return 127 if isinstance(e, FileNotFoundError) else 126
        if _stat.S_ISDIR(info.st_mode):
            sh.err(f"{name}: Is a directory")
            return 126
        if not info.st_mode & 0o111:
            sh.err(f"{name}: Permission denied")
            return 126
        own = fs.own_command(path)
        if own is not None:  # /usr/bin/ls: vshell's ls, as the file stands for it
            return _run_own_command(sh, own, args, env, fds)
    else:
        path = find_in_path(sh, name)
        if path is None:
            return not_found(sh, name)
    return run_script_file(sh, path, name, args, env, fds)


def _run_own_command(sh: Shell, name: str, args: list[str], env: dict[str, str], fds: Fds
                     ) -> int:
    """``/usr/bin/NAME``: vshell's command NAME, or the builtin whose program twin it is
    (echo, test, sh …); never a function called NAME."""
    cmd = sh.find_command(name)
    if cmd is None:
        return _run_twin(sh, name, args, {}, fds)
    return sh.call(cmd, name, args, env, fds)


def read_shebang(sh: Shell, path: str) -> tuple[str, list[str]] | None:
    try:
        with sh.ctx.fs.open(path, "rb") as f:
            head = f.read(256)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    line = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").strip()
    parts = line.split()
    if not parts:
        return None
    interp = parts[0].rsplit("/", 1)[-1]
    rest = parts[1:]
    if interp == "env" and rest:
        while rest and rest[0].startswith("-"):
            rest = rest[1:]
        if not rest:
            return None
        interp = rest[0].rsplit("/", 1)[-1]
        rest = rest[1:]
    return interp, rest


def run_script_file(sh: Shell, path: str, name: str, args: list[str], env: dict[str, str],
                    fds: Fds) -> int:

    sb = read_shebang(sh, path)
    interp = sb[0] if sb else "sh"
    extra = sb[1] if sb else []
    if interp in SHELL_NAMES:
        from vshell.interp.nested import run_shell_command

        return run_shell_command(sh, interp, extra + [path] + args, env, fds)
    base = interp
    for prefix in ("python3", "python"):
        if base.startswith(prefix):
            base = prefix
            break
    cmd = sh.find_command(base) if base in ("python", "python3") else None
    if cmd is None:
        sh.err(f"{name}: {interp}: bad interpreter: No such file or directory")
        return 126
    return sh.call(cmd, base, extra + [path] + args, env, fds)
