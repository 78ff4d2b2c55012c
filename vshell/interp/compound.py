"""Compound commands: groups, subshells, if, loops, case, ``(( ))``, ``[[ ]]`` and
function definitions, each with its own redirections."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from vshell.interp import fdscope, redirect
from vshell.interp.builtins import registry as builtins_registry
from vshell.interp.context import Job
from vshell.interp.control import (
    PLAIN_CHARS,
    AbortLine,
    ExitShell,
    LoopControl,
    background_status,
)
from vshell.interp.state import ShellError
from vshell.syntax import ast

if TYPE_CHECKING:
    from vshell.interp.shell import Shell


def run(sh: Shell, cmd: ast.Command) -> int:
    if isinstance(cmd, ast.FunctionDef):
        if any(c in cmd.name for c in "$`'\"\\"):
            sh.err(f"`{cmd.name}': not a valid identifier")
            return 1
        if sh.state.options.get("posix") and cmd.name in builtins_registry.SPECIAL:
            raise ShellError(f"`{cmd.name}': is a special builtin", status=2, fatal=True)
        sh.state.functions[cmd.name] = cmd
        sh.state.function_files[cmd.name] = sh.state.current_file()
        return 0
    redirects = getattr(cmd, "redirects", None)
    if not redirects:
        return _dispatch(sh, cmd)
    opened: list = []
    start = fdscope.mark(sh)  # before the redirections: a {fd}> one stays open after
    try:
        fds = redirect.apply(sh, redirects, sh.fds, opened,
                             in_shell=not isinstance(cmd, ast.Subshell))
    except ShellError as e:
        sh.err(e.message, redirect.partial_fds(e))
        redirect.close_all(opened)
        sh.maybe_errexit(1)  # the compound never ran, so nothing inside checked
        return 1
    saved = sh.fds
    sh.fds = fds
    try:
        return _dispatch(sh, cmd)
    finally:
        sh.fds = fdscope.restore(sh, saved, fds, start)
        redirect.close_all(opened)


def _dispatch(sh: Shell, cmd: ast.Command) -> int:
    fn = _TABLE.get(type(cmd))
    if fn is None:
        if isinstance(cmd, ast.SimpleCommand):
            return sh.run_simple(cmd)
        raise ShellError(f"{type(cmd).__name__}: not supported")
    try:
        return fn(sh, cmd)
    except ShellError as e:
        # an expansion error in a compound command's own words ends that command only
        if e.fatal:
            raise
        sh.err(e.message)
        sh.state.last_status = e.status
        if e.abort_line:

            raise AbortLine(e.status) from None
        return e.status


def _group(sh: Shell, cmd: ast.Group) -> int:
    return sh.run_list(cmd.body)


def _subshell(sh: Shell, cmd: ast.Subshell) -> int:

    sub = sh.child()
    try:
        status = sub.run_list(cmd.body)
    except ExitShell as e:
        status = e.status
    except LoopControl:
        status = sub.state.last_status
    except AbortLine as e:
        status = e.status
    except ShellError as e:
        sub.err(e.message)
        status = e.status
    status = sub.run_exit_trap(status) if "EXIT" in sub.state.traps else status
    return status


def _cond_list(sh: Shell, cl: ast.CommandList) -> int:
    sh.errexit_quiet += 1
    try:
        return sh.run_list(cl)
    finally:
        sh.errexit_quiet -= 1


def _if(sh: Shell, cmd: ast.If) -> int:
    for clause in cmd.clauses:
        if _cond_list(sh, clause.condition) == 0:
            return sh.run_list(clause.body)
    if cmd.else_body is not None:
        return sh.run_list(cmd.else_body)
    return 0


@contextmanager
def _loop_level(sh: Shell) -> Iterator[None]:
    """One level deeper for ``break``/``continue`` while a loop runs."""
    sh.loop_depth += 1
    try:
        yield
    finally:
        sh.loop_depth -= 1


def _pass_outward(lc: LoopControl) -> None:
    """A ``break N``/``continue N`` for an outer loop: one level used here, raised on."""
    if lc.levels > 1:
        lc.levels -= 1
        raise lc


def _loop_body(sh: Shell, body: ast.CommandList) -> tuple[int, str | None]:
    """Run a loop body; returns (status, 'break'|'continue'|None) for this loop level."""

    try:
        return sh.run_list(body), None
    except LoopControl as lc:
        _pass_outward(lc)
        return sh.state.last_status if lc.kind == "continue" else 0, lc.kind


def _loop_items(sh: Shell, words: list[ast.Word] | None) -> list[str]:
    """The words a for/select header names, expanded; none written means ``"$@"``."""
    if words is None:
        return list(sh.state.positional)
    return sh.expander.words([w.raw for w in words])


def _while(sh: Shell, cmd: ast.While) -> int:

    status = 0
    with _loop_level(sh):
        while True:
            sh.check()
            try:
                c = _cond_list(sh, cmd.condition)
            except LoopControl as lc:
                _pass_outward(lc)
                if lc.kind == "break":
                    break
                continue
            if (c == 0) == cmd.until:
                break
            status, ctl = _loop_body(sh, cmd.body)
            if ctl == "break":
                break
    return status


def _for(sh: Shell, cmd: ast.For) -> int:
    st = sh.state
    st.lineno = cmd.line
    import re

    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", cmd.var):
        raise ShellError(f"`{cmd.var}': not a valid identifier")
    items = _loop_items(sh, cmd.words)
    status = 0
    with _loop_level(sh):
        for item in items:
            sh.check()
            st.lineno = cmd.line
            if st.traps:
                sh.debug_trap()
            if st.options.get("xtrace"):
                _trace_header(sh, "for", cmd.var, cmd.words)
            st.set(cmd.var, item)
            status, ctl = _loop_body(sh, cmd.body)
            if ctl == "break":
                break
    return status


def _trace_header(sh: Shell, keyword: str, var: str, words: list[ast.Word] | None) -> None:
    """``+ for x in a "$b"``: bash traces a for/select header as written, unexpanded."""
    tail = ' in "$@"' if words is None else " in " + " ".join(w.raw for w in words)
    sh.write_err(f"{sh.xtrace_prefix()}{keyword} {var}{tail}\n")


def _arith_eval(sh: Shell, text: str, trace: bool = False) -> int:
    if not text.strip():
        return 1
    st = sh.state
    if st.traps:
        sh.debug_trap()
    if trace and st.options.get("xtrace"):  # a for (( )) part: as bash shows it
        sh.write_err(f"{sh.xtrace_prefix()}(( {sh.expander.arith_text(text).lstrip()} ))\n")
    sh._in_arith_command = True
    try:
        return sh.arith(sh.expander.arith_text(text), text)
    finally:
        sh._in_arith_command = False


def _arith_for(sh: Shell, cmd: ast.ArithFor) -> int:
    status = 0
    st = sh.state
    line = cmd.line
    cond = cmd.cond if cmd.cond.strip() else None
    step = cmd.step if cmd.step.strip() else None
    try:
        with _loop_level(sh):
            st.lineno = line
            if cmd.init.strip():
                _arith_eval(sh, cmd.init, trace=True)
            while True:
                sh.check()
                st.lineno = line
                if cond is not None and _arith_eval(sh, cond, trace=True) == 0:
                    break
                status, ctl = _loop_body(sh, cmd.body)
                if ctl == "break":
                    break
                if step is not None:
                    st.lineno = line
                    _arith_eval(sh, step, trace=True)
    except ShellError as e:
        sh.err(e.message)
        return 1
    return status


def _select(sh: Shell, cmd: ast.Select) -> int:
    st = sh.state
    items = _loop_items(sh, cmd.words)
    if not items:
        return 0
    status = 0
    show_menu = True
    with _loop_level(sh):
        while True:
            sh.check()
            if st.options.get("xtrace"):
                _trace_header(sh, "select", cmd.var, cmd.words)
            if show_menu:  # at first, and again after an empty answer (bash)
                sh.write_err("".join(f"{i + 1}) {it}\n" for i, it in enumerate(items)))
            ps3 = st.get("PS3")
            sh.write_err("#? " if ps3 is None else ps3)
            stdin = sh.fds.get(0)
            line = stdin.readline() if stdin is not None else b""
            if not line:  # end of input: a newline, and the loop fails
                sh.write_out(b"\n")
                status = 1
                break
            reply = line.decode("utf-8", "surrogateescape").rstrip("\n")
            st.set("REPLY", reply)
            show_menu = reply == ""
            if show_menu:
                continue
            choice = reply.strip()
            st.set(cmd.var, items[int(choice) - 1] if choice.isdigit()
                   and 0 < int(choice) <= len(items) else "")
            status, ctl = _loop_body(sh, cmd.body)
            if ctl == "break":
                break
    return status


def _case(sh: Shell, cmd: ast.Case) -> int:
    import vshell.text.glob as P

    st = sh.state
    st.lineno = cmd.line
    if st.traps:
        sh.debug_trap()
    if st.options.get("xtrace"):
        sh.write_err(f"{sh.xtrace_prefix()}case {cmd.word.raw} in\n")
    word = sh.expander.word(cmd.word.raw)
    nocase = st.shopt.get("nocasematch", False)
    plain = PLAIN_CHARS.issuperset
    status = 0
    i = 0
    matched_fallthrough = False
    items = cmd.items
    while i < len(items):
        item = items[i]
        hit = matched_fallthrough
        if not hit:
            for pw in item.patterns:
                raw = pw.raw
                if not nocase and plain(raw):  # `0)`, `start)`: a literal, no expansion
                    if raw == word:
                        hit = True
                        break
                    continue
                pat = sh.expander.pattern(raw)
                if P.match(pat, word, extglob=True, nocase=nocase):
                    hit = True
                    break
        if hit:
            status = sh.run_list(item.body)
            if item.terminator == ";&":
                matched_fallthrough = True
                i += 1
                continue
            if item.terminator == ";;&":
                matched_fallthrough = False
                i += 1
                continue
            return status
        i += 1
    return status


def _arith_cmd(sh: Shell, cmd: ast.ArithCommand) -> int:
    st = sh.state
    st.lineno = cmd.line
    if st.options.get("xtrace"):
        sh.write_err(f"{sh.xtrace_prefix()}(( {sh.expander.arith_text(cmd.expr)} ))\n")
    if not cmd.expr.strip():  # "(( ))" is false (an empty for-loop condition is true)
        return 1
    try:
        val = _arith_eval(sh, cmd.expr)
    except ShellError as e:
        sh.err(e.message if not e.message.startswith(cmd.expr) else f"((: {e.message}")
        return 1
    return 0 if val != 0 else 1


def _cond_cmd(sh: Shell, cmd: ast.CondCommand) -> int:
    from vshell.interp.cond import eval_dbracket

    st = sh.state
    st.lineno = cmd.line
    if st.traps:
        sh.debug_trap()
    try:
        return eval_dbracket(sh, [w.raw for w in cmd.words])
    except ShellError as e:
        if e.message:
            sh.err(e.message)
        if e.fatal or e.status == 2:
            # bash finds these when it parses the line: the script ends with status 2
            from vshell.interp.fatal import exit_status

            raise ExitShell(2 if e.status == 2 else exit_status(sh, e)) from None
        return e.status or 2


def _coproc(sh: Shell, cmd: ast.Coproc) -> int:
    """``coproc [NAME] command``: the command runs in the background on two pipes; NAME[0]
    reads its output, NAME[1] writes its input, NAME_PID is its pid (``wait`` takes it)."""
    import re
    import threading

    from vshell.interp import io as sio

    name = cmd.name or "COPROC"
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        sh.err(f"`{name}': not a valid identifier")
        return 1
    to_cop, from_cop = sio.Pipe(sh.ctx.cancel), sio.Pipe(sh.ctx.cancel)
    sub = sh.child()
    sub.fds[0] = to_cop.reader
    sub.fds[1] = from_cop.writer
    read_fd = _free_fd(sh, 63)
    sh.fds[read_fd] = from_cop.reader
    write_fd = _free_fd(sh, 60)
    sh.fds[write_fd] = to_cop.writer
    pid = next(sh.ctx.pids)
    job = Job(pid, threading.Thread(daemon=True))

    def body() -> None:
        try:
            job.status = background_status(lambda: sub.run_command(cmd.body), sub.err)
        finally:
            from_cop.writer.close()
            to_cop.reader.close()

    job.thread = threading.Thread(target=body, daemon=True, name=f"vshell-coproc-{pid}")
    with sh.ctx.lock:
        sh.ctx.jobs[pid] = job
    st = sh.state
    st.set_array(name, {0: str(read_fd), 1: str(write_fd)})
    st.set(f"{name}_PID", str(pid))
    st.last_bg_pid = pid
    job.thread.start()
    return 0


def _free_fd(sh: Shell, top: int) -> int:
    fd = top
    while fd in sh.fds and fd > 10:
        fd -= 1
    return fd


_TABLE: dict[type, Callable[[Shell, Any], int]] = {
    ast.Group: _group,
    ast.Subshell: _subshell,
    ast.If: _if,
    ast.While: _while,
    ast.For: _for,
    ast.ArithFor: _arith_for,
    ast.Select: _select,
    ast.Case: _case,
    ast.ArithCommand: _arith_cmd,
    ast.CondCommand: _cond_cmd,
    ast.Coproc: _coproc,
}
