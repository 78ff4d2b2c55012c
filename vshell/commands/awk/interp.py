"""Running a compiled awk program: BEGIN, the main input loop over ARGV, END."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import IO, Any

from vshell.commands.awk.compiler import Break, Compiler, Continue, Return
from vshell.commands.awk.lexer import unescape
from vshell.commands.awk.parser import Program
from vshell.commands.awk.runtime import AwkFatal, ExitProgram, Next, NextFile, Reader, State
from vshell.commands.awk.values import StrNum, to_num, to_str

_ASSIGN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=", re.S)


class MainInput:
    """The files named in ARGV (or stdin), read record by record."""

    def __init__(self, st: State, comp: Compiler, runner: Runner) -> None:
        self.st = st
        self.comp = comp
        self.runner = runner
        self.index = 1
        self.reader: Reader | None = None
        self.opened_any = False
        self.done = False

    def assign(self, text: str) -> None:
        name, _, value = text.partition("=")
        if name in self.comp.prog.functions:
            raise AwkFatal(f"cannot use function `{name}' as variable name")
        if name in self.comp.global_arrays:
            raise AwkFatal(f"cannot assign to array `{name}'")
        self.comp.var_set(name)([], StrNum(unescape(value)))

    def open_next(self) -> bool:
        st, G = self.st, self.st.G
        while True:
            argc = int(to_num(G[self.comp.slot("ARGC")]))
            argv = G[self.comp.slot("ARGV")]
            if self.index >= argc:
                break
            arg = argv.get(str(self.index))  # type: ignore[attr-defined]  # ARGV is an array: a dict
            self.index += 1
            if arg is None:
                continue
            arg = to_str(arg, st.CONVFMT)
            if arg == "":
                continue
            if _ASSIGN.match(arg):
                self.assign(arg)
                continue
            self.opened_any = True
            if arg in ("-", "/dev/stdin"):
                stream: IO[bytes] = st.inv.stdin
            else:
                try:
                    path = st.inv.abs(arg)
                    if st.inv.fs.isdir(path):
                        st.inv.stderr.write(
                            f"awk: warning: command line argument `{arg}' is a directory: "
                            "skipped\n".encode()
                        )
                        continue
                    stream = st.inv.fs.open(path, "rb")
                except OSError as e:
                    self.runner.open_failed = True
                    raise AwkFatal(
                        f"cannot open file `{arg}' for reading: {e.strerror}"
                    ) from None
            self.start_file(stream, arg)
            return True
        if not self.opened_any:
            self.opened_any = True
            self.start_file(st.inv.stdin, "")
            return True
        return False

    def start_file(self, stream: IO[bytes], name: str) -> None:
        st = self.st
        self.reader = Reader(st, stream, name)
        st.FILENAME = name
        st.fnr = 0
        self.runner.run_beginfile()

    def end_file(self) -> None:
        rd = self.reader
        self.reader = None
        if rd is not None:
            if rd.stream is not self.st.inv.stdin:
                rd.stream.close()
            self.runner.run_endfile()

    def current(self) -> Reader | None:
        """The reader of the current input file, opening the next one as needed."""
        if self.reader is None and not self.done:
            if not self.open_next():
                self.done = True
        return self.reader

    def next_record(self, for_getline: bool = False) -> str | None:
        st = self.st
        while True:
            if self.done:
                return None
            rd = self.reader
            if rd is None:
                if not self.open_next():
                    self.done = True
                    return None
                rd = self.reader
                assert rd is not None
            rec = rd.next_record()
            if rec is not None:
                st.nr += 1
                st.fnr += 1
                st.ws_safe = rd.safe
                return rec
            self.end_file()

    def skip_file(self) -> None:
        self.end_file()


class Runner:
    def __init__(self, prog: Program, st: State, comp: Compiler) -> None:
        self.prog = prog
        self.st = st
        self.comp = comp
        self.open_failed = False
        c = comp
        self.begin = [c.stmt(b) for b in prog.begin]
        self.end = [c.stmt(b) for b in prog.end]
        self.beginfile = [c.stmt(b) for b in prog.beginfile]
        self.endfile = [c.stmt(b) for b in prog.endfile]
        self.rules = self._compile_rules()
        comp.compile_functions()
        known = prog.memo.get("runner")
        if known is None:
            known = prog.memo["runner"] = (*_analyse(prog), _reads_nr(prog))
        flags: tuple[bool, bool, bool] = known  # type: ignore[assignment]  # stored just above
        self.simple: bool = flags[0]
        self.assigns_fields: bool = flags[1]
        self.reads_nr: bool = flags[2]

    def _compile_rules(self) -> Any:
        c, st = self.comp, self.st
        compiled = []
        for pattern, pattern2, action in self.prog.rules:
            act = c.stmt(action) if action is not None else None
            if act is None:
                out = st.stdout

                def act(F: list, out: Any = out) -> None:
                    out.write(st.get0() + st.ORS)

            if pattern2 is not None:
                p1, p2 = c.cond(pattern), c.cond(pattern2)  # type: ignore[arg-type]  # a range has both
                compiled.append(_range_rule(p1, p2, act))
            elif pattern is not None:
                compiled.append(_pattern_rule(c.cond(pattern), act))
            else:
                compiled.append(act)
        if len(compiled) == 1:
            return compiled[0]

        def all_rules(F: list) -> None:
            for r in compiled:
                r(F)

        return all_rules

    def main_loop(self, main: MainInput) -> None:
        st = self.st
        rules = self.rules
        frame: list = []
        cancel = st.inv.cancel
        while True:
            rd = main.current()
            if rd is None:
                return
            cancel.check()
            if st.RS != "\n" or st.csv:
                rec = main.next_record()
                if rec is None:
                    return
                if self.run_record(rec, rules, frame):
                    main.skip_file()
                continue
            if rd.bi >= len(rd.batch):
                batch = rd.take_batch()
                if batch is None:
                    main.end_file()
                    continue
                rd.batch = batch
                rd.bi = 0
            batch = rd.batch
            st.set_ws_safe(rd.safe)
            if self.simple:
                self.fast_batch(rd, batch, rules, frame)
                continue
            while rd.bi < len(batch):
                rec = batch[rd.bi]
                rd.bi += 1
                st.nr += 1
                st.fnr += 1
                if self.run_record(rec, rules, frame):
                    rd.batch = []
                    rd.bi = 0
                    main.skip_file()
                    break
                if st.RS != "\n" or rd.batch is not batch:
                    if rd.batch is batch:
                        rd.unbatch()
                    break

    def run_record(self, rec: str, rules: Any, frame: list) -> bool:
        """Make ``rec`` the record and run the rules on it; True when one ran ``nextfile``."""
        st = self.st
        st.record = rec
        st.fields = None
        st.rec_dirty = False
        try:
            rules(frame)
        except Next:
            pass
        except NextFile:
            return True
        return False

    def fast_batch(self, rd: Reader, batch: list[str], rules: Any, frame: list) -> None:
        """The record loop when no rule can read input, change RS/NR/FNR or skip a file."""
        st = self.st
        start = rd.bi
        rd.bi = len(batch)
        records = batch[start:] if start else batch
        for rx in self.comp.record_regexes:
            rx.prime(records)  # lets `/re/` answer most records without an engine call
        if not self.assigns_fields and not self.reads_nr:
            # NR/FNR are only read after the batch (END, BEGINFILE...): count at the end
            whole = getattr(rules, "batch", None)  # a rule that runs a batch at once
            if whole is not None and records:
                whole(records)
                st.record = records[-1]
                st.fields = None
                st.nr += len(records)
                st.fnr += len(records)
                return
            done = 0
            try:
                for rec in records:
                    done += 1
                    st.record = rec
                    st.fields = None
                    try:
                        rules(frame)
                    except Next:
                        pass
            finally:
                st.nr += done
                st.fnr += done
            return
        nr, fnr = st.nr, st.fnr
        dirty = self.assigns_fields
        for rec in records:
            nr += 1
            fnr += 1
            st.nr = nr
            st.fnr = fnr
            st.record = rec
            st.fields = None
            if dirty:
                st.rec_dirty = False
            try:
                rules(frame)
            except Next:
                pass

    def run_beginfile(self) -> None:
        for b in self.beginfile:
            b([])

    def run_endfile(self) -> None:
        for b in self.endfile:
            b([])

    def run(self) -> int:
        st = self.st
        status = 0
        exiting = False
        try:
            main = MainInput(st, self.comp, self)
            st.main = main
            try:
                for b in self.begin:
                    b([])
                if self.prog.rules or self.prog.end or self.prog.beginfile or self.prog.endfile:
                    self.main_loop(main)
            except ExitProgram as e:
                if e.status >= 0:
                    status = e.status
                exiting = True
            try:
                for b in self.end:
                    b([])
            except ExitProgram as e:
                if e.status >= 0:
                    status = e.status
            del exiting
        except (Break, Continue):
            raise AwkFatal("`break' or `continue' used outside a loop") from None
        except Return:
            raise AwkFatal("`return' used outside function context") from None
        except (Next, NextFile):
            raise AwkFatal("`next' used in BEGIN or END action") from None
        return status


def _nodes(prog: Program, parts: tuple[object, ...]) -> Iterator[tuple]:
    """Every node of ``parts`` and of the functions' bodies, a node before what it holds.

    A node is a non-empty tuple (its kind first); lists hold statements or rules.
    """
    stack: list[object] = [*parts, *(fn.body for fn in prog.functions.values())]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(reversed(node))
        elif isinstance(node, tuple) and node:
            yield node
            stack.extend(reversed(node[1:]))


def _analyse(prog: Program) -> tuple[bool, bool]:
    """(no rule reads main input / assigns RS, NR, FNR / uses nextfile, fields assigned)."""
    simple = True
    fields = False
    rules = [list(r) for r in prog.rules]
    for node in _nodes(prog, (prog.begin, prog.end, prog.beginfile, prog.endfile, rules)):
        kind = node[0]
        if kind == "getline" and node[1] == "simple":
            simple = False
        elif kind == "nextfile":
            simple = False
        elif kind in ("assign", "preinc", "postinc"):
            lv = node[2] if kind == "assign" else node[1]
            if lv[0] == "var" and lv[1] in ("RS", "NR", "FNR"):
                simple = False
            if lv[0] == "field" or (lv[0] == "var" and lv[1] == "NF"):
                fields = True
        elif kind == "builtin" and node[1] in ("sub", "gsub", "split"):
            fields = True
        elif kind == "getline" and node[2] is not None:
            lv = node[2]
            if lv[0] == "var" and lv[1] in ("RS", "NR", "FNR"):
                simple = False
            if lv[0] == "field" or (lv[0] == "var" and lv[1] == "NF"):
                fields = True
        elif kind == "forin" and node[1][0] == "var" and node[1][1] in ("RS", "NR", "FNR"):
            simple = False
    return simple, fields


def _reads_nr(prog: Program) -> bool:
    """Do the rules or functions read NR or FNR (or call anything that might)?"""
    rules = [list(r) for r in prog.rules]
    return any(node[0] == "var" and node[1] in ("NR", "FNR") for node in _nodes(prog, (rules,)))


def _pattern_rule(cond: Any, act: Any) -> Any:
    def rule(F: list) -> None:
        if cond(F):
            act(F)

    return rule


def _range_rule(p1: Any, p2: Any, act: Any) -> Any:
    active = [False]

    def rule(F: list) -> None:
        if active[0]:
            if p2(F):
                active[0] = False
            act(F)
        elif p1(F):
            if not p2(F):
                active[0] = True
            act(F)

    return rule
