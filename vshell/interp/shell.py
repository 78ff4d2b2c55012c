"""The interpreter: runs vshell's AST the way bash runs its own.

One :class:`Shell` is one shell process as bash would have it: its state, its file
descriptors and its position in a run.  Subshells, pipeline stages and command
substitutions are new Shell objects over a copy of the state, sharing the run's
:class:`RunContext` (filesystem, cancel token, commands).
"""

from __future__ import annotations

import io
import threading
import time
from functools import partial

from vshell.command import (
    Cancelled,
    CancelToken,
    Command,
    GuardedOutput,
    Invocation,
    absolute,
)
from vshell.interp import io as sio
from vshell.interp.context import Fds, Job, RunContext, opened_by_redirections
from vshell.interp.control import (
    AbortLine,
    ExitShell,
    LoopControl,
    ReturnFromFunction,
    background_status,
    make_recursion_room,
)
from vshell.interp.state import ShellError, ShellState, Var
from vshell.interp.worker import pool_of
from vshell.lazy import lazy_compile, lazy_function, lazy_module
from vshell.syntax import ast
from vshell.syntax.parser import BadSubst

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import IO, Any

    from vshell.interp.dispatch import call_command
    from vshell.interp.expand import Expander, ExpansionError
    from vshell.interp.stages import Stages
else:  # imported at first use (start-up): a stand-in puts the real one in its place
    call_command = lazy_function("vshell.interp.dispatch", "call_command", globals())
    Stages = lazy_function("vshell.interp.stages", "Stages", globals())

    def __getattr__(name):  # ExpansionError, in __all__: from the expander, at first use
        if name == "ExpansionError":
            from vshell.interp.expand import ExpansionError

            return ExpansionError
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_VERBOSE_SET = lazy_compile(r"set\s+(-[a-zA-Z]*v|-o\s+verbose)")


# the modules below the shell it calls for every command, imported on first use (start-up
# stays lean); a stand-in keeps what it fetched, so a call costs a module attribute read,
# not a function-level `from … import` (a trip through the import system on every call)
_arith = lazy_module("vshell.interp.arith")  # the first arithmetic (every loop has some)
_simple = lazy_module("vshell.interp.simple")
_compound = lazy_module("vshell.interp.compound")
_commands = lazy_module("vshell.commands")  # the registry
_offload = lazy_module("vshell.interp.offload")  # a run on its caller's thread asks


_PLAIN_ARRAY = {"a"}  # the attributes of an indexed array with no other attribute

# compound commands whose own status never triggers errexit: their inner commands did
_SELF_CHECKING = (ast.Group, ast.If, ast.While, ast.For, ast.ArithFor, ast.Case, ast.Select)


class _ExpanderSlot:
    """``Shell.expander``, made at its first use and then an attribute of the shell: a
    script of plain words expands nothing, and vshell.interp.expand is a large import."""

    def __get__(self, sh: Shell | None, owner: type | None = None) -> Any:
        if sh is None:
            return self
        from vshell.interp.expand import Expander

        expander = sh.__dict__["expander"] = Expander(sh)
        return expander


class Shell:
    """One shell: state + descriptors, running AST nodes."""

    permanent_fds: Fds  # set by `exec >file` (no command): the run keeps those descriptors
    if TYPE_CHECKING:
        expander: Expander
    else:
        expander = _ExpanderSlot()

    def __init__(self, ctx: RunContext, state: ShellState, fds: Fds) -> None:
        self.ctx = ctx
        self.state = state
        self.fds = fds
        self.errexit_quiet = 0  # >0 while running a condition (if/while/&&/||/!)
        self.loop_depth = 0
        self.func_depth = 0
        self.is_subshell = False
        self.source_name = state.script_name
        self._trap_running = False
        self.procsub_fds: list[int] = []
        if state.arith_hook is None:
            state.arith_hook = self._arith_plain
        if state.word_hook is None:
            state.word_hook = self._word_hook
        if state.warn_hook is None:
            state.warn_hook = self.err

    # --- helpers -------------------------------------------------------------------
    def child(self, fds: Fds | None = None) -> Shell:
        """A subshell: a copy of the state, sharing the run."""
        sh = Shell(self.ctx, self.state.subshell(), dict(self.fds if fds is None else fds))
        sh.state.arith_hook = sh._arith_plain
        sh.state.word_hook = sh._word_hook
        sh.state.warn_hook = sh.err
        sh.is_subshell = True
        sh.loop_depth = self.loop_depth
        sh.func_depth = self.func_depth
        sh.source_name = self.source_name
        sh._in_ps4 = self._in_ps4
        sh.errexit_quiet = self.errexit_quiet if not self.state.shopt.get(
            "inherit_errexit") else 0
        return sh

    def abspath(self, path: str) -> str:
        """``path`` against the shell's directory; a trailing ``/`` is kept (it follows links)
        and ``..`` is physical, as the kernel resolves a redirection's or a test's path."""
        return absolute(self.state.cwd, path, self.ctx.fs)

    def new_process(self, state: ShellState, fds: Fds) -> Shell:
        """A new shell process in this run (``bash -c``, a script): its own state."""
        return Shell(self.ctx, state, fds)

    def set_var(self, target: str, value: str) -> None:
        """Assign to ``NAME`` or ``NAME[SUB]`` named by text (``printf -v``, ``read``): as in
        bash, an associative array's subscript is expanded (``a["k"]``, ``a[$key]``)."""
        if "[" in target and target.endswith("]"):
            base, _, sub = target[:-1].partition("[")
            v = self.state.lookup(base)
            if v is not None and "A" in v.attrs:
                self.state.set_element(base, self.expander.word(sub), value)
                return
        self.state.set(target, value)

    def err(self, message: str, fds: Fds | None = None) -> None:
        """``name: line N: message`` on stderr, as bash reports errors; ``fds`` is the
        table of the command the message is about (its ``2>`` catches the message)."""
        self.write_err(f"{self.error_label()}: line {self.state.lineno}: {message}\n", fds)

    def error_label(self) -> str:
        """Whom bash names in an error: the script, or inside a function the file that
        defined it — ``environment`` for a command string, ``main`` for a piped script."""
        stack = self.state.call_stack
        if stack and stack[-1].is_function:
            where = stack[-1].file
            if where == "environment" and (getattr(self.state, "stdin_script", None) is not None
                                           or "s" in self.extra_flags):
                return "main"
            return where
        return self.source_name

    def write_err(self, text: str, fds: Fds | None = None) -> None:
        try:
            (self.fds if fds is None else fds)[2].write(text.encode("utf-8", "surrogateescape"))
        except (OSError, ValueError, KeyError, AttributeError):
            pass

    def write_out(self, data: bytes) -> None:
        out = self.fds.get(1)
        if out is None:
            raise OSError(9, "Bad file descriptor")
        out.write(data)

    def xtrace_prefix(self) -> str:
        """PS4, expanded, its first character repeated for nesting (bash's rule)."""
        ps4 = self.state.get("PS4")
        if ps4 is None:
            return ""
        if self._in_ps4:
            return ps4
        if "$" in ps4 or "`" in ps4:
            self._in_ps4 = True
            try:
                ps4 = self.expander.word(ps4)
            except (ShellError, BadSubst) as e:
                self.err(str(e) if isinstance(e, BadSubst) else e.message)
            finally:
                self._in_ps4 = False
        return ps4

    _in_ps4 = False
    job_pid: int | None = None  # the pid of the background job this shell runs by itself

    is_main = False  # the shell `$$` names: it takes the signals `kill` sends to `$$`

    def become_main(self) -> None:
        """Make this the shell of a (virtual) process: ``kill -SIG $$`` reaches it."""
        self.is_main = True
        self.ctx.shells.add(self.state.get_plain("$$") or "")

    def check(self) -> None:
        ctx = self.ctx
        ctx.cancel.check()
        if ctx.signals and self.is_main and not self._trap_running:
            queue = ctx.signals.get(self.state.get_plain("$$") or "")
            if queue:
                self._take_signals(queue)

    def check_cancel(self) -> None:
        """Stop if the run is cancelled (no signal handling: for the inside of one step)."""
        self.ctx.cancel.check()

    def _take_signals(self, queue: list[str]) -> None:
        """Act on signals sent to ``$$``, between commands as bash does: run the trap, do
        nothing if ignored (by ``trap '' SIG`` or by default), else die of the signal."""
        from vshell.interp.builtins.jobs import IGNORED_BY_DEFAULT, SIGNALS

        while queue:
            sig = queue.pop(0)
            handler = self.state.traps.get(sig)
            if handler:
                self.run_trap(sig, self.state.last_status)
            elif handler is None and sig not in IGNORED_BY_DEFAULT:
                raise ExitShell(128 + SIGNALS.index(sig))

    # --- running source ----------------------------------------------------------------
    def run_source(
        self, source: str, *, name: str | None = None, top: bool = True, first_line: int = 1
    ) -> int:
        """Parse and run ``source`` one top-level command at a time, as bash does.

        ``first_line`` is the line ``source`` starts on: $LINENO and messages count from it."""
        from vshell.syntax.parser import parse_partial

        if self.state.aliases or "alias" in source or self.state.options.get("verbose") or (
                "set" in source and _VERBOSE_SET.search(source)):
            return self._run_source_by_line(source, name=name, top=top, first_line=first_line)
        script, error = parse_partial(source, first_line)
        status = self._run_items(script.items, source)
        if error is not None:
            self._parse_failed(error, source, name, top, first_line)
        return status

    def _run_items(self, items: list[ast.ListItem], text: str) -> int:
        """Run top-level items; an AbortLine error skips the rest of its line (bash)."""
        status = self.state.last_status
        i = 0
        while i < len(items):
            try:
                status = self.run_list(ast.CommandList([items[i]]))
                i += 1
            except (AbortLine, RecursionError) as e:
                if isinstance(e, RecursionError):  # the line is dropped, the script goes on
                    self.err(f"maximum {_what_nested(e)} level exceeded")
                    e = AbortLine(1)
                status = self.state.last_status = e.status
                if self.state.options.get("errexit") or self.state.options.get("posix"):
                    raise ExitShell(status) from None
                j = i + 1
                while j < len(items) and "\n" not in text[items[j - 1].end : items[j].start]:
                    j += 1
                i = j
        return status

    def _parse_failed(
        self, error: Any, source: str, name: str | None, top: bool, first_line: int = 1
    ) -> None:
        if top:
            self.ctx.parse_failed = True
            self.ctx.parse_error_message = error.message
        self.report_parse_error(error, source, name, first_line)
        self.state.last_status = 2
        raise ExitShell(2) if top else ShellError(error.message, status=2)

    def _run_source_by_line(
        self, source: str, *, name: str | None, top: bool, first_line: int = 1
    ) -> int:
        """Parse and run one line at a time, expanding aliases first (as bash's reader).

        The rest of the script is parsed again only when the alias table (or
        expand_aliases) changed since it was parsed: what a line means depends on the
        aliases in force when it is read, and on nothing else that a line can change.  (It
        was parsed again after every line: a long script that merely mentioned "alias"
        took time quadratic in its length.)"""
        from vshell.interp import aliases
        from vshell.syntax.parser import parse_partial

        rest = source
        line = first_line  # the line ``rest`` starts on
        status = self.state.last_status
        while rest.strip():
            in_force = self._aliases_in_force()
            if in_force:
                exp = aliases.expand(rest, in_force)
            else:
                exp = aliases.Expansion(rest, [])
            script, error = parse_partial(exp.text, line)
            items = script.items
            if not items:
                if error is not None:
                    self._parse_failed(error, exp.text, name, top, line)
                break
            k = 0  # the first item not run yet
            while k < len(items):
                group = [items[k]]
                for it in items[k + 1 :]:
                    if "\n" in exp.text[group[-1].end : it.start] and not \
                            exp.inside_substitution(it.start):
                        break
                    group.append(it)
                if top and self.state.options.get("verbose"):
                    self.write_err(exp.text[group[0].start : group[-1].end] + "\n")
                status = self._run_items(group, exp.text)
                k += len(group)
                if k < len(items) and self._aliases_in_force() != in_force:
                    break  # the lines after this one are read with the new aliases
            if k < len(items):
                cut = exp.to_original(items[k].start)
                line += rest.count("\n", 0, cut)
                rest = rest[cut:]
                continue
            if error is not None:
                # the error may go away once aliases defined above are in force
                nl = exp.text.find("\n", items[-1].end)
                if nl < 0 or not self.state.aliases:
                    self._parse_failed(error, exp.text, name, top, line)
                    break
                cut = exp.to_original(nl + 1)
                line += rest.count("\n", 0, cut)
                rest = rest[cut:]
                continue
            break
        return status

    def _aliases_in_force(self) -> dict[str, str]:
        """The aliases a line read now expands (a copy; empty when expand_aliases is off)."""
        if self.state.shopt.get("expand_aliases") and self.state.aliases:
            return dict(self.state.aliases)
        return {}

    def report_parse_error(
        self, error: Any, source: str, name: str | None, first_line: int = 1
    ) -> None:
        label = name if name is not None else self.source_name
        line = getattr(error, "line", 1) or 1
        self.write_err(f"{label}: line {line}: {error.message}\n")
        lines = source.split("\n")
        at = line - first_line  # the error's line within ``source``
        if 0 <= at < len(lines) and "unexpected end of file" not in error.message:
            self.write_err(f"{label}: line {line}: `{lines[at].strip()}'\n")

    def run_as_process(self, body: Callable[[], int]) -> int:
        """``body()``'s status, or the status with which ``exit``, an error that ends the
        line, a fatal error or runaway recursion ends it, as they end a shell process."""
        make_recursion_room()
        try:
            return body()
        except ExitShell as e:
            self.exited = True  # the REPL ends its session on `exit`
            return e.status
        except AbortLine as e:
            return e.status
        except ShellError as e:
            from vshell.interp.fatal import exit_status

            self.err(e.message)
            return exit_status(self, e)
        except RecursionError as e:
            # the interpreter's own depth ran out: in functions calling functions, or on
            # compound commands nested past it (bash has no limit for those)
            self.err(f"maximum {_what_nested(e)} level exceeded")
            return 1

    def run_toplevel(self, source: str, first_line: int = 1) -> int:
        """Run a whole script as a shell process: exit, traps and fatal errors handled."""

        def body() -> int:
            status = self.run_source(source, first_line=first_line)
            self.check()  # a signal that came during the last command runs its trap now
            return status

        status = self.run_as_process(body)
        if getattr(self.state, "stdin_script", False) and not getattr(self, "exited", False):
            return status  # more of the piped script is coming: its EXIT trap waits for the end
        status = self.run_exit_trap(status)
        return status

    def run_exit_trap(self, status: int) -> int:
        handler = self.state.traps.pop("EXIT", None)
        if handler:
            self.state.last_status = status
            try:
                self.run_source(handler, top=False)
            except ExitShell as e:
                status = e.status
            except ShellError as e:
                self.err(e.message)
        return status

    # --- lists ---------------------------------------------------------------------------
    def run_list(self, cl: ast.CommandList) -> int:
        status = self.state.last_status
        for item in cl.items:
            self.check()
            if item.background:
                status = self.run_background(item.command)
            else:
                status = self.run_andor(item.command)
        return status

    def run_background(self, andor: ast.AndOr) -> int:
        slots = self.ctx.job_slots
        if slots is not None and not slots.acquire():  # bash when fork fails: the job is
            from vshell.interp.limits import FORK_FAILED  # not started, the shell goes on

            self.err(f"{FORK_FAILED} ({slots.limit} background jobs running)")
            self.state.last_status = 254
            return 254
        try:
            return self._start_background(andor, slots)
        except BaseException:
            if slots is not None:
                slots.release()
            raise

    def _start_background(self, andor: ast.AndOr, slots: Any) -> int:
        sub = self.child()
        pid = next(self.ctx.pids)
        # the job's own token, so that `kill %1` / `kill $!` stops it alone (the run's
        # cancel and deadline still reach it); the context is the run's but for the token
        from vshell.records import replace

        opened_by_redirections(self.ctx)  # (made now: the job's context shares the set)
        token = self.ctx.cancel.child()
        sub.ctx = replace(self.ctx, cancel=token)
        job = Job(pid, threading.Thread(daemon=True), cancel=token, source=andor)
        sub.fds = dict(sub.fds)
        first = andor.first.commands
        if not andor.rest and len(first) == 1 and isinstance(first[0], ast.SimpleCommand):
            sub.state.traps.pop("ERR", None)  # bash runs `cmd &` itself: no ERR trap there
            sub.job_pid = pid  # `bash -c … &`: that shell's $$ is $! (kill -USR1 $! reaches it)
        if 0 in sub.fds and not self.state.options.get("monitor"):
            sub.fds[0] = sio.NullInput() if self.fds.get(0) is None else self.fds[0]

        def body() -> None:
            try:
                status = background_status(lambda: sub.run_andor(andor), sub.err,
                                           cancelled=130)
                job.status = 128 + job.killed if job.killed else status
            finally:
                if slots is not None:
                    slots.release()

        job.thread = threading.Thread(target=body, daemon=True, name=f"vshell-job-{pid}")
        away = _redirected_away(andor)
        for fd in (1, 2):  # a pipe's write end the job inherits stays open while it runs
            stream = sub.fds.get(fd)
            if isinstance(stream, sio.PipeWriter) and fd not in away:
                stream.pipe.holders.append(job.thread)
        with self.ctx.lock:
            self.ctx.jobs[pid] = job
        self.state.last_bg_pid = pid
        job.thread.start()
        self.state.last_status = 0
        return 0

    def run_andor(self, ao: ast.AndOr) -> int:
        if not ao.rest:  # one pipeline, the usual case: no list of them to build
            pl = ao.first
            status = self.run_pipeline(pl)
            if status != 0 and not pl.negated and not (
                len(pl.commands) == 1 and isinstance(pl.commands[0], _SELF_CHECKING)
            ):
                self.maybe_errexit(status, skipped_tail=False)
            return status
        pipelines = [("", ao.first)] + list(ao.rest)
        status = 0
        last_index = len(pipelines) - 1
        i = 0
        while i <= last_index:
            op, pl = pipelines[i]
            if i > 0:
                if (op == "&&" and status != 0) or (op == "||" and status == 0):
                    i += 1
                    continue
            is_last = i == last_index
            if not is_last:
                self.errexit_quiet += 1
                try:
                    status = self.run_pipeline(pl)
                finally:
                    self.errexit_quiet -= 1
            else:
                status = self.run_pipeline(pl)
                if status != 0 and not pl.negated and not (
                    len(pl.commands) == 1 and isinstance(pl.commands[0], _SELF_CHECKING)
                ):
                    self.maybe_errexit(status, skipped_tail=False)
            i += 1
        return status

    def maybe_errexit(self, status: int, skipped_tail: bool = False) -> None:
        st = self.state
        if status == 0:
            return
        if "ERR" in st.traps and self.errexit_quiet == 0 and not self._trap_running and (
            self.func_depth == 0 or st.options.get("errtrace")
        ):
            self.run_trap("ERR", status)
        if st.options.get("errexit") and self.errexit_quiet == 0:
            raise ExitShell(status)

    def run_trap(self, sig: str, status: int) -> None:
        """Run the handler for ``sig``; ``$?`` and ``$LINENO`` stay what they were."""
        handler = self.state.traps.get(sig)
        if not handler or self._trap_running:
            return
        self._trap_running = True
        st = self.state
        st.lineno_frozen += 1
        st.last_status = status
        try:
            self.run_source(handler, top=False)
        except ShellError as e:
            self.err(e.message)
        finally:
            st.lineno_frozen -= 1
            self._trap_running = False
            st.last_status = status

    def debug_trap(self) -> None:
        """The DEBUG trap, before each simple command (functions need ``set -T``)."""
        st = self.state
        if "DEBUG" in st.traps and not self._trap_running and (
            self.func_depth == 0 or st.options.get("functrace")
        ):
            self.run_trap("DEBUG", st.last_status)

    # --- pipelines --------------------------------------------------------------------------
    def run_pipeline(self, pl: ast.Pipeline) -> int:
        start = time.monotonic() if pl.timed else 0.0
        if pl.negated:
            self.errexit_quiet += 1
        try:
            if not pl.commands:  # a bare `time` or `!`
                status = 0
            elif len(pl.commands) == 1:
                status = self.run_command(pl.commands[0])
                if type(pl.commands[0]) is not ast.FunctionDef:
                    self._set_pipestatus(status)
            else:
                st = self.state
                if not st.lineno_frozen:
                    st.lineno = pl.line  # the stages run in their own shells
                if "_" in st.globals:  # _run_multi empties $_ in place: made this shell's own
                    if "x" in st.own(st.globals, "_", st.globals["_"]).attrs:
                        st.env_changed()
                status = self._run_multi(pl)
        finally:
            if pl.negated:
                self.errexit_quiet -= 1
        if pl.negated:
            status = 0 if status else 1
        self.state.last_status = status
        if pl.timed:
            self._report_time(time.monotonic() - start, pl.time_posix)
        return status

    def _set_pipestatus(self, status: int) -> None:
        """PIPESTATUS after a one-command pipeline: set after every command, so the usual
        case (a global plain array no function made local, no namerefs) is done in place."""
        st = self.state
        if not st.namerefs_used:
            for frame in st.frames:
                if "PIPESTATUS" in frame.locals:  # made local by a function: the general way
                    break
            else:
                v = st.globals.get("PIPESTATUS")
                if v is not None and v.attrs == _PLAIN_ARRAY and v.hold is None:
                    if v.owner is st.owner:
                        v.value = {0: str(status)}
                    else:  # shared since a fork: a new one of this shell's own, not a copy
                        v = Var({0: str(status)}, {"a"})
                        v.owner = st.owner
                        st.globals["PIPESTATUS"] = v
                    return
        st.set_array("PIPESTATUS", {0: str(status)})

    def _report_time(self, elapsed: float, posix: bool) -> None:
        if posix:
            self.write_err(f"real {elapsed:.2f}\nuser 0.00\nsys 0.00\n")
            return
        m, s = divmod(elapsed, 60)
        self.write_err(f"\nreal\t{int(m)}m{s:.3f}s\nuser\t0m0.000s\nsys\t0m0.000s\n")

    def _run_multi(self, pl: ast.Pipeline) -> int:
        """A pipeline of two or more stages: each in a subshell (the last one in this shell
        under lastpipe), run in order on this thread until one needs another running at
        the same time (see vshell.interp.stages); with a DEBUG trap, which bash runs in
        this shell before it starts each stage, every stage but the last on a thread at
        once, as bash starts them."""
        n = len(pl.commands)
        underscore = self.state.globals.get("_")
        if underscore is not None:
            underscore.value = ""  # bash: a pipeline's stages start with an empty $_
        cancel = self.ctx.cancel
        memory = self.state.memory
        pipes = [sio.Pipe(cancel, budget=memory) for _ in range(n - 1)]
        statuses: list[int] = [0] * n
        errors: list[BaseException | None] = [None] * n
        lastpipe = self.state.shopt.get("lastpipe") and not self.state.options.get("monitor")
        debug = "DEBUG" in self.state.traps

        def stage(i: int) -> None:
            sh = shells[i]
            try:  # (all of it: the pipes are closed below whatever happens)
                if i > 0:
                    pipes[i - 1].reader_running()
                if i < n - 1 and not debug and not stages.started(i + 1):
                    pipes[i].hold_reader(partial(stages.start, i + 1))
                statuses[i] = sh.run_command(pl.commands[i])
            except (ExitShell, AbortLine) as e:
                statuses[i] = e.status
                if i == n - 1 and lastpipe and isinstance(e, ExitShell):
                    errors[i] = e  # `exit` in this shell: it ends, after PIPESTATUS is set
            except ShellError as e:
                sh.err(e.message)
                statuses[i] = e.status
            except BrokenPipeError:
                statuses[i] = 141
            except BaseException as e:  # noqa: BLE001 - surfaced in the main thread
                errors[i] = e
                statuses[i] = 1
            else:
                if sh.is_subshell and "EXIT" in sh.state.traps:
                    statuses[i] = sh.run_exit_trap(statuses[i])
            finally:
                if i < n - 1:
                    # a >( ) the stage started holds its own copy of the pipe, as in bash
                    others = [*sh.__dict__.get("output_procsubs", ()), *pipes[i].holders]
                    if any(t.is_alive() for t in others):
                        cancel.start_held()
                    for t in others:
                        while t.is_alive() and cancel.reason is None:
                            t.join(0.05)
                    pipes[i].writer.close()
                if i > 0:
                    pipes[i - 1].reader.close()

        shells: list[Shell] = []
        for i in range(n):
            fds = dict(self.fds)
            if i > 0:
                fds[0] = pipes[i - 1].reader
            if i < n - 1:
                fds[1] = pipes[i].writer
                if i < len(pl.stderr_pipes) and pl.stderr_pipes[i]:
                    fds[2] = pipes[i].writer
            if i == n - 1 and lastpipe:
                sh = Shell(self.ctx, self.state, fds)
                sh.loop_depth = self.loop_depth
                sh.func_depth = self.func_depth
                sh.source_name = self.source_name
            else:
                sh = self.child(fds)
            shells.append(sh)

        def debug_before(i: int) -> None:
            """bash runs the DEBUG trap in the parent before it starts a simple command."""
            cmd = pl.commands[i]
            if isinstance(cmd, ast.SimpleCommand) and shells[i].state is not self.state:
                if not self.state.lineno_frozen:
                    self.state.lineno = cmd.line
                self.debug_trap()

        def close_all() -> None:
            for p in pipes:
                p.close_reader()
                p.close_writer()

        stages = Stages(n, stage, pool_of(self.ctx), cancel, hold=not debug)
        if debug:
            i = 0
            try:
                for i in range(n - 1):
                    debug_before(i)
                    stages.start(i)
                i = n - 1
                debug_before(i)
            except BaseException:
                if i:  # the trap ended this shell: stage i never starts (its writer meets a
                    pipes[i - 1].close_reader()  # closed pipe), and those started end alone
                raise
        stages.run(close_all)
        exits = None
        for e in errors:
            if isinstance(e, ExitShell):
                exits = e
            elif e is not None:
                raise e
        self.state.set_array("PIPESTATUS", {i: str(s) for i, s in enumerate(statuses)})
        if exits is not None:
            raise exits
        if self.state.options.get("pipefail"):
            for s in reversed(statuses):
                if s:
                    return s
            return 0
        return statuses[-1]

    # --- commands -----------------------------------------------------------------------------
    def run_command(self, cmd: ast.Command) -> int:
        self.check()
        if self.state.options.get("noexec"):
            return 0
        procsubs = self.procsub_fds
        mark = len(procsubs)
        try:
            if type(cmd) is ast.SimpleCommand:
                return _simple.run(self, cmd)
            return _compound.run(self, cmd)
        finally:
            if len(procsubs) > mark:
                self._close_procsubs(mark)

    def _close_procsubs(self, mark: int) -> None:
        """Close this shell's end of the process substitutions the command just used, as
        bash does when the command finishes: ``>(cmd)`` then sees end of input."""
        for fd in self.procsub_fds[mark:]:
            stream = self.fds.pop(fd, None)
            if stream is not None:
                try:
                    stream.close()
                except (OSError, ValueError):
                    pass
        del self.procsub_fds[mark:]

    def run_simple(self, cmd: ast.SimpleCommand) -> int:
        return _simple.run(self, cmd)

    # --- expansion hooks used by the expander -----------------------------------------------
    def _read_file_subst(self, source: str) -> str | None:
        """``$(< file)``: bash reads the file instead of running a command."""
        if not source.lstrip().startswith("<"):
            return None
        from vshell.syntax import ParseError, parse

        try:
            script = parse(source)
        except ParseError:
            return None
        if len(script.items) != 1:
            return None
        pl = script.items[0].command.first
        cmd = pl.commands[0] if len(pl.commands) == 1 else None
        if not isinstance(cmd, ast.SimpleCommand) or cmd.words or cmd.assigns or len(
                cmd.redirects) != 1 or cmd.redirects[0].op != "<":
            return None
        from vshell.interp import redirect

        opened: list[Any] = []
        try:
            fds = redirect.apply(self, cmd.redirects, self.fds, opened)
            data = self._read_all(fds[cmd.redirects[0].fd or 0])
        except ShellError as e:
            self.err(e.message)
            return self._file_subst_status(1, "")
        except IsADirectoryError:
            return self._file_subst_status(0, "")  # bash opens it; reading yields nothing
        except OSError as e:
            from vshell.command import describe_oserror

            self.err(describe_oserror(e))
            return self._file_subst_status(1, "")
        finally:
            redirect.close_all(opened)
        return self._file_subst_status(0, data.decode("utf-8", "surrogateescape").rstrip("\n"))

    def _file_subst_status(self, status: int, text: str) -> str:
        """Record ``$(< file)``'s status as a command substitution's: ``y=$(< /nope)``
        is then 1, as in bash (the assignment takes the last substitution's status)."""
        self.state.last_status = status
        self.last_cmdsub_status = status
        return text

    def _read_all(self, stream: Any) -> bytes:
        """All of ``stream`` (``$(< file)``), a MiB at a time: charged to the memory budget
        as it grows and stopped by a timeout, so ``$(< /dev/zero)`` ends with a message."""
        from vshell.interp import limits

        charge = limits.GrowingHold(self.state.memory)
        parts: list[bytes] = []
        size = 0
        while True:
            piece = stream.read(1 << 20)
            if not piece:
                return b"".join(parts)
            size += len(piece)
            self.check()
            if not charge.grow(size):
                raise limits.MemoryLimitError(size, self.state.memory)
            parts.append(piece)

    def command_substitution(self, source: str) -> str:
        text = self._read_file_subst(source)
        if text is not None:
            return text
        out = sio.Collector(self.state.memory)
        sub = self.child()
        sub.fds[1] = out
        try:
            sub.state.last_status = self.state.last_status
            # bash counts the body's lines on from the command's: $LINENO is a script line
            status = sub.run_source(source, top=False, first_line=self.state.lineno or 1)
        except ExitShell as e:
            status = e.status
        except ShellError as e:
            sub.err(e.message)
            status = e.status
        if "EXIT" in sub.state.traps:  # a trap set inside $( ) runs as that subshell ends
            status = sub.run_exit_trap(status)
        self.state.last_status = status
        self.last_cmdsub_status = status
        try:
            if out.failed:  # the capture passed the sandbox's memory limit: nothing is kept
                from vshell.interp.limits import MemoryLimitError

                raise MemoryLimitError(out.failed, self.state.memory)
            return out.text()
        finally:
            out.release()

    last_cmdsub_status: int | None = None

    def process_substitution(self, op: str, source: str) -> str:
        slots = self.ctx.job_slots
        if slots is not None and not slots.acquire():
            from vshell.interp.limits import FORK_FAILED

            raise ShellError(FORK_FAILED)
        pipe = sio.Pipe(self.ctx.cancel, budget=self.state.memory)
        sub = self.child()
        fd = 63
        while fd in self.fds:
            fd -= 1
        if op == "<":
            sub.fds[1] = pipe.writer
            self.fds[fd] = pipe.reader
        else:
            sub.fds[0] = pipe.reader
            self.fds[fd] = pipe.writer

        first_line = self.state.lineno or 1  # read now: this shell runs on meanwhile

        def body() -> None:
            try:
                sub.run_source(source, top=False, first_line=first_line)
            except (ExitShell, AbortLine, ShellError, BrokenPipeError, Cancelled):
                pass
            except BaseException:  # noqa: BLE001
                pass
            finally:
                if op == "<":
                    pipe.writer.close()
                else:
                    pipe.reader.close()
                if slots is not None:
                    slots.release()

        t = threading.Thread(target=body, daemon=True, name="vshell-procsub")
        t.start()
        if op == ">" and self.is_subshell:  # it writes to this stage's stdout: kept open
            self.__dict__.setdefault("output_procsubs", []).append(t)
        pid = next(self.ctx.pids)
        self.ctx.jobs[pid] = Job(pid, t)
        self.procsub_fds.append(fd)
        return f"/dev/fd/{fd}"

    def arith(self, text: str, raw: str | None = None) -> int:
        arith = _arith
        ctx = self.__dict__.get("_arith_ctx") or self.arith_ctx
        try:
            return arith.evaluate(text, ctx)
        except arith.ArithError as e:
            expr = getattr(e, "expr", None) or text
            # bash abandons the rest of the line (a function call, a loop …) and goes on
            raise ShellError(f"{expr}: {e}", status=1,
                             abort_line=not self._in_arith_command) from None
        except RecursionError:
            raise ShellError(f"{text}: expression recursion level exceeded", fatal=True) from None

    _in_arith_command = False

    def _arith_plain(self, text: str) -> int:
        return self.arith(self.expander.arith_text(text), text)

    def _word_hook(self, text: str) -> str:
        """The state's word_hook (a subscript's expansion) until its first call, which puts
        the expander's own ``word`` in its place (the expander is made at first use)."""
        word = self.expander.word
        if self.state.word_hook == self._word_hook:
            self.state.word_hook = word
        return word(text)

    @property
    def arith_ctx(self) -> Any:
        """The shell's arithmetic context: it holds nothing but the shell, so one serves
        every expression (made on first use: most subshells do no arithmetic)."""
        ctx = self.__dict__.get("_arith_ctx")
        if ctx is None:
            from vshell.interp.arith_ctx import ShellArithContext

            ctx = self.__dict__["_arith_ctx"] = ShellArithContext(self)
        return ctx

    def glob(self, pattern: str) -> list[str]:
        from vshell.text.pathglob import glob_expand, split_globignore

        st = self.state
        ignore = st.get("GLOBIGNORE")
        return glob_expand(
            self.ctx.fs,
            st.cwd,
            pattern,
            dotglob=st.shopt.get("dotglob", False) or bool(ignore),
            extglob=st.shopt.get("extglob", False),
            nocaseglob=st.shopt.get("nocaseglob", False),
            globstar=st.shopt.get("globstar", False),
            globignore=split_globignore(ignore) if ignore else None,
            check=self.ctx.cancel.check,
        )

    def dash_flags(self) -> str:
        from vshell.interp.state import SET_OPTIONS

        flags = "".join(f for name, f in SET_OPTIONS.items()
                        if f and self.state.options.get(name))
        order = "abefhkmnptuvxBCEHPT"
        flags = "".join(c for c in order if c in flags)
        if "h" not in flags and self.state.options.get("hashall"):
            pass
        extra = self.extra_flags
        if getattr(self.state, "stdin_script", None) is not None and "s" not in extra:
            extra += "s"  # the CLI's piped script: bash's -s
        return flags + extra + ("" if not self.interactive_c else "c")

    interactive_c = False
    extra_flags = ""  # "i" for `bash -i`, "s" for commands read from stdin

    def prompt_expand(self, s: str) -> str:
        from vshell.interp.prompt import expand_prompt

        return expand_prompt(self, s)

    def declare_line(self, name: str, var: Var) -> str:
        from vshell.interp.builtins.vars import declare_print_line

        return declare_print_line(name, var)

    # --- running commands by name ------------------------------------------------------------
    def invocation(self, name: str, args: list[str], env: dict[str, str], fds: Fds) -> Invocation:
        # the shell's streams provide the IO[bytes] methods commands use (not the class)
        stdin: Any = fds.get(0)
        if stdin is None:
            stdin = sio.ClosedStream()
        stderr: Any = fds.get(2) or sio.ClosedStream()
        ctx = self.ctx
        cancel = ctx.cancel
        return Invocation(
            name=name,
            args=args,
            dir=self.state.cwd,
            stdin=stdin,
            stdout=GuardedOutput(fds.get(1) or sio.ClosedStream()),  # type: ignore[arg-type]  # an IO[bytes] in all commands use
            stderr=stderr,
            env=env,
            fs=ctx.fs.bind(fds, umask=self.state.umask, check=cancel.waiting),
            cancel=cancel,
            http=ctx.http,
            python=ctx.python,
            run_command=self._run_command_api,
            nested=ctx.nested,
        )

    def _run_command_api(self, argv: list[str], stdin: Any = None, stdout: Any = None,
                         stderr: Any = None, env: dict[str, str] | None = None,
                         cwd: str | None = None, timeout: float | None = None,
                         cancel: CancelToken | None = None) -> int:
        """What ``inv.run_command`` does: run argv as a command of this sandbox.

        ``cancel``: a child token of this run's (``inv.cancel.child()``) that stops this
        command alone when cancelled (the Python guest's ``Popen.kill``); 124 then."""
        fds = dict(self.fds)
        if isinstance(stdin, (bytes, bytearray)):
            fds[0] = io.BytesIO(bytes(stdin))
        elif stdin is not None:
            fds[0] = stdin
        if stdout is not None:
            fds[1] = stdout
        if stderr is not None:
            fds[2] = stderr
        sub = self.child(fds)
        if cwd is not None:
            sub.state.cwd = cwd
        if env is not None:
            for k in list(sub.state.exported()):
                v = sub.state.writable(k)
                if v is not None:
                    v.attrs.discard("x")
            for k, value in env.items():
                try:
                    sub.state.set(k, value)
                    var = sub.state.writable(k)
                    if var is not None:
                        var.attrs.add("x")
                except ShellError:
                    pass
        from vshell.interp.simple import exec_argv

        token = cancel
        if timeout is not None or token is not None:
            from vshell.records import replace

            token = token if token is not None else self.ctx.cancel.child(timeout)
            sub.ctx = replace(self.ctx, cancel=token)
        try:
            return exec_argv(sub, argv, {}, fds)
        except (ExitShell, AbortLine) as e:
            return e.status
        except ShellError as e:
            sub.err(e.message)
            return e.status
        except Cancelled:
            if token is not None and token.own_timeout():  # type: ignore[attr-defined]  # a child token of a timeout has own_timeout; CancelToken does not declare it
                return 124
            raise

    def exec_argv(self, argv: list[str], assigns: dict[str, str], fds: Fds) -> int:
        """Run an expanded command line (function, builtin or command): the way down for the
        builtins that run one (``exec``, ``command``, ``builtin``), which sit below
        :mod:`vshell.interp.simple`."""
        return _simple.exec_argv(self, argv, assigns, fds)

    def run_script_file(self, path: str, name: str, args: list[str], env: dict[str, str],
                        fds: Fds) -> int:
        """Run the script at ``path`` by its ``#!`` line (``command -p`` reaches it here)."""
        return _simple.run_script_file(self, path, name, args, env, fds)

    def find_command(self, name: str) -> Command | None:
        cmd = self.ctx.commands.get(name)
        if cmd is not None:
            return cmd
        return _commands.lookup(name)

    def call(self, cmd: Command, name: str, args: list[str], env: dict[str, str], fds: Fds
             ) -> int:
        inv = self.invocation(name, args, env, fds)
        if self.ctx.on_caller and _offload.needs_thread(self.ctx, cmd):
            return _offload.call_offloaded(self.ctx, cmd, inv)
        return call_command(cmd, inv)


def new_shell(ctx: RunContext, state: ShellState, stdin: IO[bytes] | None, stdout: Any,
              stderr: Any) -> Shell:
    fds: Fds = {0: stdin if stdin is not None else sio.NullInput(), 1: stdout, 2: stderr}
    sh = Shell(ctx, state, fds)
    return sh


__all__ = [
    "Shell", "RunContext", "ExitShell", "ReturnFromFunction", "LoopControl", "ShellError",
    "ExpansionError", "BadSubst", "new_shell",
]


def _redirected_away(andor: ast.AndOr) -> set[int]:
    """Descriptors a lone ``cmd >file &`` sends elsewhere: that job does not hold the pipe
    end it would otherwise inherit (``{ server >/dev/null & } | cat`` ends at once)."""
    cmds = andor.first.commands
    if andor.rest or len(cmds) != 1:
        return set()
    away: set[int] = set()
    for r in getattr(cmds[0], "redirects", ()):
        if r.op in ("&>", "&>>"):
            away |= {1, 2}
        elif r.op in (">", ">>", ">|", ">&"):
            away.add(1 if r.fd is None else r.fd)
    return away


def _what_nested(err: RecursionError) -> str:
    """"function nesting" when shell functions were on the stack that ran out, else
    "nesting" (the frames are gone by the time the error is caught; its traceback has them)."""
    tb = err.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_name == "call_function":
            return "function nesting"
        tb = tb.tb_next
    return "nesting"
