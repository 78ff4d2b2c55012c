"""The awk command line: ``awk [-F fs] [-v var=value] [-f progfile | 'prog'] [file ...]``."""

from __future__ import annotations

import sys
from collections.abc import Mapping

from vshell.command import Exit, Invocation
from vshell.commands._lib import opts as _opts
from vshell.commands._lib.helptext import help_text
from vshell.commands.awk.compiler import Compiler
from vshell.commands.awk.interp import Runner
from vshell.commands.awk.lexer import AwkSyntaxError, unescape
from vshell.commands.awk.parser import Parser, Program
from vshell.commands.awk.runtime import AwkFatal, State
from vshell.commands.awk.values import StrNum

USAGE = help_text("awk")
VERSION = "GNU Awk 5.2.1 (vshell awk: compiled to Python closures)\n"

if sys.getrecursionlimit() < 20000:
    # awk functions recurse through several Python frames per call
    sys.setrecursionlimit(20000)


def _utf8(env: Mapping[str, str]) -> bool:
    get = env.get
    for name in ("LC_ALL", "LC_CTYPE", "LANG"):
        value = get(name)
        if value:
            v = value.lower().replace("-", "")
            return "utf8" in v
    return True


def _syntax_error(inv: Invocation, src: str, where: str, e: AwkSyntaxError) -> Exit:
    lines = src.split("\n")
    line = lines[e.line - 1] if 0 < e.line <= len(lines) else ""
    prefix = f"awk: {where}:{e.line}: "
    msg = str(e)
    if msg in ("syntax error", "unexpected newline or end of string") or msg.startswith(
        ("unterminated", "invalid char")
    ):
        text = f"{prefix}{line}\n{prefix}{' ' * e.col}^ {msg}\n"
    else:
        text = f"{prefix}{msg}\n"
    inv.stderr.write(text.encode("utf-8", "surrogateescape"))
    return Exit(1)  # gawk's status for a program that does not parse


def run(inv: Invocation) -> int:
    o = _opts.parse(
        inv,
        "F:v:f:e:V",
        ["field-separator=", "assign=", "file=", "source=", "version", "csv"],
        permute=False,
        usage_status=1,
        help_text=USAGE,
    )
    if o.has("-V", "--version"):
        inv.stdout.write(VERSION.encode())
        return 0
    operands = list(o.operands)
    sources: list[tuple[str, str]] = []
    for key, value in o.items:
        if key in ("-f", "--file"):
            try:
                with inv.fs.open(inv.abs(value or ""), "rb") as f:
                    text = f.read().decode("utf-8", "surrogateescape")
            except OSError as e:
                inv.stderr.write(
                    f"awk: fatal: can't open source file `{value}' for reading: "
                    f"{e.strerror}\n".encode()
                )
                return 2
            sources.append((value or "", text))
        elif key in ("-e", "--source"):
            sources.append(("cmd. line", value or ""))
    if not sources:
        if not operands:
            inv.stderr.write(USAGE.encode())
            return 1
        sources.append(("cmd. line", operands.pop(0)))
    src = "\n".join(text for _, text in sources)
    where = sources[0][0] if len(sources) == 1 else "cmd. line"
    try:
        prog = _parsed(src)
    except AwkSyntaxError as e:
        raise _syntax_error(inv, src, where, e) from None
    st = State(inv, _utf8(inv.env))
    try:
        comp = Compiler(prog, st)
        G = st.G
        G[comp.slot("ARGC")] = float(len(operands) + 1)
        argv = G[comp.slot("ARGV")]
        argv["0"] = StrNum("awk")  # type: ignore[index]  # these globals are arrays: dicts
        for i, arg in enumerate(operands, 1):
            argv[str(i)] = StrNum(arg)  # type: ignore[index]  # these globals are arrays: dicts
        env = G[comp.slot("ENVIRON")]
        for k, v in inv.env.items():
            env[k] = StrNum(v)  # type: ignore[index]  # these globals are arrays: dicts
        procinfo = G[comp.slot("PROCINFO")]
        procinfo["version"] = "5.2.1"  # type: ignore[index]  # these globals are arrays: dicts
        procinfo["FS"] = "FS"  # type: ignore[index]  # these globals are arrays: dicts
        if o.has("--csv"):
            st.csv = True
            st.refresh_split()
        for key, value in o.items:
            if key in ("-F", "--field-separator"):
                st.set_FS(unescape(value or ""))
            elif key in ("-v", "--assign"):
                name, eq, val = (value or "").partition("=")
                if not eq or not name.replace("_", "a").isalnum() or name[0].isdigit():
                    inv.stderr.write(
                        f"awk: fatal: `{value}' is not a legal variable name\n".encode()
                    )
                    return 2
                comp.var_set(name)([], StrNum(unescape(val)))
        runner = Runner(prog, st, comp)
        status = runner.run()
    except AwkFatal as e:
        _fatal(inv, st, str(e))
        status = 2
    except RecursionError:
        _fatal(inv, st, "function call nesting too deep")
        status = 2
    finally:
        try:
            st.close_all()
        except AwkFatal as e:
            _fatal(inv, st, str(e))
            status = 2
    return status


_PROGRAMS: dict[str, Program] = {}


def _parsed(src: str) -> Program:
    """The program parsed once per text (a shell loop runs the same awk again and again).

    A parsed program is never changed by a run: the compiler builds each run's closures
    over that run's own state, so runs of one text, even at once, share it safely."""
    prog = _PROGRAMS.get(src)
    if prog is None:
        prog = Parser(src).program()
        if len(_PROGRAMS) >= 128:
            _PROGRAMS.clear()
        _PROGRAMS[src] = prog
    return prog


def _fatal(inv: Invocation, st: State, message: str) -> None:
    try:
        st.stdout.flush()
    except Exception:  # noqa: BLE001, S110 - the message matters more than the buffer
        pass
    where = ""
    if st.nr:
        where = f"(FILENAME={st.FILENAME or '-'} FNR={st.fnr}) "
    inv.stderr.write(f"awk: cmd. line:1: {where}fatal: {message}\n".encode())
