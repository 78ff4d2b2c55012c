"""Compile the awk syntax tree into Python closures.

Every expression becomes a function of the local frame ``F`` (a list: a user function's
parameters and locals); globals live in ``st.G``.  Expressions are compiled for the
context they are used in -- ``val`` (an awk value), ``num`` (a float), ``str_`` (a
string) or ``cond`` (a bool) -- so ``s += $3`` turns the third field straight into a float
without building an intermediate value.  Control flow that leaves a block (break,
continue, next, exit, return) is an exception, which costs nothing until it is raised.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any

from vshell.commands.awk import funcs
from vshell.commands.awk.parser import Function, Node, Program
from vshell.commands.awk.regex import AwkRegexError, compile_ere
from vshell.commands.awk.runtime import AwkFatal, ExitProgram, Next, NextFile, State
from vshell.commands.awk.values import (
    UNINIT,
    StrNum,
    compare,
    num2str_fmt,
    str2num,
    to_bool,
    to_num,
    to_str,
)

Fn = Callable[[list], Any]

SPECIAL_STR = {"FS", "OFS", "ORS", "RS", "SUBSEP", "CONVFMT", "OFMT", "FILENAME", "RT"}
SPECIAL_NUM = {"RSTART", "RLENGTH", "IGNORECASE"}
SPECIAL = SPECIAL_STR | SPECIAL_NUM | {"NR", "NF", "FNR"}
ARRAY_BUILTINS = {"ENVIRON", "ARGV", "PROCINFO", "SYMTAB", "FUNCTAB"}


class Break(Exception):
    pass


class Continue(Exception):
    pass


class Return(Exception):
    def __init__(self, value: object) -> None:
        self.value = value


_CMP = {
    "<": operator.lt, "<=": operator.le, "==": operator.eq, "!=": operator.ne,
    ">": operator.gt, ">=": operator.ge,
}


def _walk(node: object, visit: Callable[[tuple], None]) -> None:
    if isinstance(node, tuple):
        visit(node)
        for child in node[1:]:
            _walk(child, visit)
    elif isinstance(node, list):
        for child in node:
            _walk(child, visit)


class Compiler:
    def __init__(self, prog: Program, st: State) -> None:
        self.prog = prog
        self.st = st
        self.slots: dict[str, int] = {}
        self.global_arrays: set[str] = set(ARRAY_BUILTINS)
        self.array_params: dict[str, set[int]] = {name: set() for name in prog.functions}
        self.fn: Function | None = None
        self.locals: dict[str, int] = {}
        self.record_regexes: list[Any] = []  # static /re/ tested on $0: primed per batch
        self.func_cells: dict[str, list[Callable[..., Any] | None]] = {
            name: [None] for name in prog.functions
        }
        known = prog.memo.get("arrays")
        if known is None:
            self._analyse()
            prog.memo["arrays"] = (set(self.global_arrays),
                                   {k: set(v) for k, v in self.array_params.items()})
        else:  # this program's analysis, from an earlier run of the same text
            arrays: set[str]
            params: dict[str, set[int]]
            arrays, params = known  # type: ignore[misc]  # the pair stored above
            self.global_arrays = set(arrays)
            self.array_params = {k: set(v) for k, v in params.items()}

    # ------------------------------------------------------------ analysis
    def _analyse(self) -> None:
        """Which names are arrays: by use, then through calls until nothing changes."""
        edges: list[tuple[str | None, str, int, str]] = []

        def scan(body: object, fn: Function | None) -> None:
            params = {p: i for i, p in enumerate(fn.params)} if fn else {}

            def mark(name: str) -> None:
                if name in params:
                    self.array_params[fn.name].add(params[name])  # type: ignore[union-attr]  # mark runs for a function only
                else:
                    self.global_arrays.add(name)

            def visit(node: tuple) -> None:
                kind = node[0]
                if kind == "elem":
                    mark(node[1])
                elif kind == "in":
                    mark(node[2])
                elif kind == "forin":
                    mark(node[2])
                elif kind == "delete":
                    mark(node[1])
                elif kind == "builtin":
                    name, args = node[1], node[2]
                    idx = {"split": [1, 3], "patsplit": [1, 3], "asort": [0, 1],
                           "asorti": [0, 1], "match": [2]}.get(name, [])
                    for i in idx:
                        if i < len(args) and args[i][0] == "var":
                            mark(args[i][1])
                elif kind == "call":
                    for i, arg in enumerate(node[2]):
                        if arg[0] == "var":
                            edges.append((fn.name if fn else None, node[1], i, arg[1]))

            _walk(body, visit)

        prog = self.prog
        for body in prog.begin + prog.end + prog.beginfile + prog.endfile:
            scan(body, None)
        for rule in prog.rules:
            scan(list(rule), None)
        for fn in prog.functions.values():
            scan(fn.body, fn)
        changed = True
        while changed:
            changed = False
            for caller, callee, i, name in edges:
                target = prog.functions.get(callee)
                if target is None:
                    continue
                callee_arr = i in self.array_params[callee]
                caller_params = prog.functions[caller].params if caller else []
                if name in caller_params:
                    j = caller_params.index(name)
                    caller_arr = j in self.array_params[caller]  # type: ignore[index]  # caller is a function name here
                    if callee_arr and not caller_arr:
                        self.array_params[caller].add(j)  # type: ignore[index]  # caller is a function name here
                        changed = True
                    elif caller_arr and not callee_arr and i < len(target.params):
                        self.array_params[callee].add(i)
                        changed = True
                else:
                    if callee_arr and name not in self.global_arrays:
                        self.global_arrays.add(name)
                        changed = True
                    elif name in self.global_arrays and not callee_arr and i < len(
                        target.params
                    ):
                        self.array_params[callee].add(i)
                        changed = True
        for name in self.global_arrays & (SPECIAL | set(prog.functions)):
            if name in SPECIAL:
                raise AwkFatal(f"attempt to use scalar `{name}' as an array")

    def slot(self, name: str) -> int:
        s = self.slots.get(name)
        if s is None:
            s = len(self.st.G)
            self.slots[name] = s
            self.st.G.append({} if name in self.global_arrays else UNINIT)
        return s

    # ------------------------------------------------------------ variables
    def is_local(self, name: str) -> bool:
        return name in self.locals

    def var_get(self, name: str) -> Fn:
        st = self.st
        if name in self.locals:
            i = self.locals[name]
            return lambda F: F[i]
        if name == "NR":
            return lambda F: float(st.nr)
        if name == "FNR":
            return lambda F: float(st.fnr)
        if name == "NF":
            return lambda F: st.get_nf()
        if name in SPECIAL_STR or name in SPECIAL_NUM:
            getter = operator.attrgetter(name)
            return lambda F: getter(st)
        if name in self.prog.functions:
            raise AwkFatal(f"function `{name}' called with space between name and `(',")
        s = self.slot(name)
        G = st.G
        return lambda F: G[s]

    def var_set(self, name: str) -> Callable[[list, object], None]:
        st = self.st
        if name in self.locals:
            i = self.locals[name]

            def set_local(F: list, v: object) -> None:
                F[i] = v

            return set_local
        if name in ("NR", "FNR"):
            attr = name.lower()

            def set_nr(F: list, v: object) -> None:
                setattr(st, attr, int(to_num(v)))

            return set_nr
        if name == "NF":
            return lambda F, v: st.set_nf(v)
        if name == "FS":
            return lambda F, v: st.set_FS(to_str(v, st.CONVFMT))
        if name == "RS":
            return lambda F, v: st.set_RS(to_str(v, st.CONVFMT))
        if name == "IGNORECASE":

            def set_ic(F: list, v: object) -> None:
                st.IGNORECASE = to_num(v)
                st.set_FS(st.FS)

            return set_ic
        if name in SPECIAL_STR:

            def set_str(F: list, v: object) -> None:
                setattr(st, name, to_str(v, st.CONVFMT))

            return set_str
        if name in SPECIAL_NUM:

            def set_num(F: list, v: object) -> None:
                setattr(st, name, to_num(v))

            return set_num
        if name in self.global_arrays:
            raise AwkFatal(f"attempt to use array `{name}' in a scalar context")
        s = self.slot(name)
        G = st.G

        def set_global(F: list, v: object) -> None:
            G[s] = v

        return set_global

    def array(self, name: str) -> Fn:
        """A closure returning the dict for array ``name`` (created on first use)."""
        if name in self.locals:
            i = self.locals[name]

            def local_array(F: list) -> dict:
                a = F[i]
                if type(a) is dict:
                    return a
                if a is None or a is UNINIT:
                    a = F[i] = {}
                    return a
                raise AwkFatal(f"attempt to use scalar parameter `{name}' as an array")

            return local_array
        if name in SPECIAL:
            raise AwkFatal(f"attempt to use scalar `{name}' as an array")
        s = self.slot(name)
        G = self.st.G
        return lambda F: G[s]

    def subscript(self, subs: list[Node]) -> Fn:
        st = self.st
        if len(subs) == 1:
            node = subs[0]
            if node[0] == "num" and float(node[1]).is_integer():
                key = str(int(node[1]))
                return lambda F: key
            if node[0] == "str":
                key = node[1]
                return lambda F: key
            return self.str_(node)
        parts = [self.str_(s) for s in subs]

        def keyn(F: list) -> str:
            return st.SUBSEP.join([p(F) for p in parts])

        return keyn

    # ------------------------------------------------------------ expressions
    def val(self, node: Node) -> Fn:
        return getattr(self, "v_" + node[0])(node)

    def num(self, node: Node) -> Fn:
        m = getattr(self, "n_" + node[0], None)
        if m is not None:
            return m(node)
        ev = self.val(node)

        def to_number(F: list) -> float:
            v = ev(F)
            return v if type(v) is float else str2num(v)

        return to_number

    def str_(self, node: Node) -> Fn:
        """String conversion: numbers through CONVFMT (integers as integers)."""
        return self.as_string(node, "CONVFMT")

    def print_str(self, node: Node) -> Fn:
        """Output conversion: numbers through OFMT (integers as integers)."""
        return self.as_string(node, "OFMT")

    def as_string(self, node: Node, fmt_var: str) -> Fn:
        """``node`` as a string, a non-integral number formatted by the variable ``fmt_var``.

        The variable is read at each conversion (a script may assign it); integers never
        read it.
        """
        kind = node[0]
        if kind == "str":
            s = node[1]
            return lambda F: s
        if kind == "field":
            return self.field_str(node)
        if kind == "concat":
            return self.v_concat(node)
        st = self.st
        ev = self.val(node)

        def to_string(F: list) -> str:
            v = ev(F)
            if type(v) is float:
                if v.is_integer():
                    return str(int(v))
                return num2str_fmt(v, getattr(st, fmt_var))
            return v

        return to_string

    def cond(self, node: Node) -> Fn:
        kind = node[0]
        if kind == "cmp":
            return self.cmp_bool(node)
        if kind == "match":
            return self.match_bool(node)
        if kind == "ere":
            return self.match_bool(("match", False, ("field", ("num", 0.0)), node))
        if kind == "and":
            a, b = self.cond(node[1]), self.cond(node[2])
            return lambda F: a(F) and b(F)
        if kind == "or":
            a, b = self.cond(node[1]), self.cond(node[2])
            return lambda F: a(F) or b(F)
        if kind == "not":
            a = self.cond(node[1])
            return lambda F: not a(F)
        if kind == "group":
            return self.cond(node[1])
        if kind == "in":
            return self.in_bool(node)
        if kind in ("num",):
            value = node[1] != 0
            return lambda F: value
        if kind in ("binop", "neg", "postinc", "preinc"):
            n = self.num(node)
            return lambda F: n(F) != 0.0
        ev = self.val(node)
        return lambda F: to_bool(ev(F))

    # constants
    def v_num(self, node: Node) -> Fn:
        x = float(node[1])
        return lambda F: x

    def v_str(self, node: Node) -> Fn:
        s = node[1]
        return lambda F: s

    def v_group(self, node: Node) -> Fn:
        return self.val(node[1])

    def n_group(self, node: Node) -> Fn:
        return self.num(node[1])

    def v_grouping(self, node: Node) -> Fn:
        raise AwkFatal("syntax error")

    def v_ere(self, node: Node) -> Fn:
        c = self.match_bool(("match", False, ("field", ("num", 0.0)), node))
        return lambda F: 1.0 if c(F) else 0.0

    # variables
    def v_var(self, node: Node) -> Fn:
        name = node[1]
        if name in self.global_arrays and name not in self.locals:
            arr = self.array(name)
            return arr
        return self.var_get(name)

    def v_elem(self, node: Node) -> Fn:
        arr = self.array(node[1])
        key = self.subscript(node[2])

        def elem(F: list) -> object:
            return arr(F).setdefault(key(F), UNINIT)

        return elem

    # fields
    def v_field(self, node: Node) -> Fn:
        st = self.st
        idx = node[1]
        if idx[0] == "num":
            n = int(idx[1])
            if n == 0:
                return lambda F: StrNum(st.get0())
            if n < 0:
                raise AwkFatal(f"attempt to access field {n}")

            def field_n(F: list) -> object:
                f = st.fields
                if f is None:
                    f = st.fields = st.rsplit(st.record)
                return StrNum(f[n - 1]) if n <= len(f) else ""

            return field_n
        ix = self.num(idx)
        return lambda F: st.get_field(int(ix(F)))

    def _add_field_to_global(self, s: int, n: int) -> Fn:
        """``total += $N``, the column sum agents write most: one closure, not two."""
        st = self.st
        G = st.G

        def add_field(F: list) -> float:
            f = st.fields
            if f is None:
                f = st.fields = st.rsplit(st.record)
            x = _field_number(f[n - 1]) if n <= len(f) else 0.0
            v = G[s]
            new = (v if type(v) is float else str2num(v)) + x  # type: ignore[arg-type]  # not a float: a str
            G[s] = new
            return new

        def add_batch(records: list[str]) -> None:
            """``add_field`` over a batch of records when it is the whole program's main
            rule (the record loop's ``batch``): the same additions in the same order, in
            one frame; the caller leaves the last record as ``$0``."""
            rsplit = st.rsplit
            v = G[s]
            total = v if type(v) is float else str2num(v)  # type: ignore[arg-type]  # not a float: a str
            for rec in records:
                f = rsplit(rec)
                if n <= len(f):
                    total += _field_number(f[n - 1])
            G[s] = total

        add_field.batch = add_batch  # type: ignore[attr-defined]  # read by Runner.fast_batch
        return add_field

    def n_field(self, node: Node) -> Fn:
        st = self.st
        idx = node[1]
        if idx[0] == "num":
            n = int(idx[1])
            if n > 0:

                def field_num(F: list) -> float:
                    f = st.fields
                    if f is None:
                        f = st.fields = st.rsplit(st.record)
                    return _field_number(f[n - 1]) if n <= len(f) else 0.0

                return field_num
        sv = self.field_str(node)
        return lambda F: str2num(sv(F))

    def field_str(self, node: Node) -> Fn:
        st = self.st
        idx = node[1]
        if idx[0] == "num":
            n = int(idx[1])
            if n == 0:
                return lambda F: st.get0()
            if n > 0:

                def field_s(F: list) -> str:
                    f = st.fields
                    if f is None:
                        f = st.fields = st.rsplit(st.record)
                    return f[n - 1] if n <= len(f) else ""

                return field_s
        ix = self.num(idx)
        return lambda F: st.get_field_str(int(ix(F)))

    # assignment
    def v_assign(self, node: Node) -> Fn:
        _, op, lv, rhs = node
        st = self.st
        if op == "=":
            ev = self.val(rhs)
            kind = lv[0]
            if kind == "var":
                name = lv[1]
                if name in self.locals:
                    i = self.locals[name]

                    def assign_local(F: list) -> object:
                        v = ev(F)
                        F[i] = v
                        return v

                    return assign_local
                if name not in SPECIAL:
                    if name in self.global_arrays:
                        raise AwkFatal(f"attempt to use array `{name}' in a scalar context")
                    s = self.slot(name)
                    G = st.G

                    def assign_global(F: list) -> object:
                        v = ev(F)
                        G[s] = v
                        return v

                    return assign_global
                setter = self.var_set(name)

                def assign_special(F: list) -> object:
                    v = ev(F)
                    setter(F, v)
                    return v

                return assign_special
            if kind == "elem":
                arr = self.array(lv[1])
                key = self.subscript(lv[2])

                def assign_elem(F: list) -> object:
                    v = ev(F)
                    arr(F)[key(F)] = v
                    return v

                return assign_elem
            ix = self.num(lv[1])

            def assign_field(F: list) -> object:
                v = ev(F)
                st.set_field(int(ix(F)), v)
                return v

            return assign_field
        # compound: op= on numbers
        fn = _arith(op[:-1])
        rv = self.num(rhs)
        if (
            op in ("+=", "-=")
            and lv[0] == "var"
            and lv[1] not in SPECIAL
            and lv[1] not in self.locals
            and lv[1] not in self.global_arrays
        ):
            s = self.slot(lv[1])
            G = st.G
            if op == "+=" and rhs[0] == "field" and rhs[1][0] == "num" and int(rhs[1][1]) > 0:
                return self._add_field_to_global(s, int(rhs[1][1]))
            if op == "+=":

                def add_global(F: list) -> float:
                    v = G[s]
                    new = (v if type(v) is float else str2num(v)) + rv(F)  # type: ignore[arg-type]  # not a float: a str
                    G[s] = new
                    return new

                return add_global

            def sub_global(F: list) -> float:
                v = G[s]
                new = (v if type(v) is float else str2num(v)) - rv(F)  # type: ignore[arg-type]  # not a float: a str
                G[s] = new
                return new

            return sub_global
        if op == "+=" and lv[0] == "elem":
            arr = self.array(lv[1])
            key = self.subscript(lv[2])

            def add_elem(F: list) -> float:
                d = arr(F)
                k = key(F)
                v = d.get(k, 0.0)
                new = (v if type(v) is float else str2num(v)) + rv(F)
                d[k] = new
                return new

            return add_elem
        return self.update(lv, lambda old, F: fn(old, rv(F)), post=False)

    def update(self, lv: Node, compute: Callable[[float, list], float], post: bool) -> Fn:
        """Read-modify-write of an lvalue; returns the new (or, with post, the old) value."""
        st = self.st
        kind = lv[0]
        if kind == "var" and lv[1] not in SPECIAL and lv[1] not in self.locals:
            if lv[1] in self.global_arrays:
                raise AwkFatal(f"attempt to use array `{lv[1]}' in a scalar context")
            s = self.slot(lv[1])
            G = st.G

            def upd_global(F: list) -> float:
                v = G[s]
                old = v if type(v) is float else str2num(v)  # type: ignore[arg-type]  # not a float: a str
                new = compute(old, F)
                G[s] = new
                return old if post else new

            return upd_global
        if kind == "var":
            get = self.var_get(lv[1])
            put = self.var_set(lv[1])

            def upd_var(F: list) -> float:
                v = get(F)
                old = v if type(v) is float else str2num(v)
                new = compute(old, F)
                put(F, new)
                return old if post else new

            return upd_var
        if kind == "elem":
            arr = self.array(lv[1])
            key = self.subscript(lv[2])

            def upd_elem(F: list) -> float:
                d = arr(F)
                k = key(F)
                v = d.get(k, 0.0)
                old = v if type(v) is float else str2num(v)
                new = compute(old, F)
                d[k] = new
                return old if post else new

            return upd_elem
        ix = self.num(lv[1])

        def upd_field(F: list) -> float:
            i = int(ix(F))
            old = to_num(st.get_field(i))
            new = compute(old, F)
            st.set_field(i, new)
            return old if post else new

        return upd_field

    def v_preinc(self, node: Node) -> Fn:
        d = node[2]
        return self.update(node[1], lambda old, F: old + d, post=False)

    def v_postinc(self, node: Node) -> Fn:
        d = node[2]
        return self.update(node[1], lambda old, F: old + d, post=True)

    def v_cond(self, node: Node) -> Fn:
        c, a, b = self.cond(node[1]), self.val(node[2]), self.val(node[3])
        return lambda F: a(F) if c(F) else b(F)

    def v_and(self, node: Node) -> Fn:
        c = self.cond(node)
        return lambda F: 1.0 if c(F) else 0.0

    v_or = v_and
    v_not = v_and
    v_in = v_and

    def v_cmp(self, node: Node) -> Fn:
        c = self.cmp_bool(node)
        return lambda F: 1.0 if c(F) else 0.0

    def v_match(self, node: Node) -> Fn:
        c = self.match_bool(node)
        return lambda F: 1.0 if c(F) else 0.0

    def cmp_bool(self, node: Node) -> Fn:
        _, op, a, b = node
        st = self.st
        pyop = _CMP[op]
        if a[0] == "num" and b[0] == "num":
            r = pyop(a[1], b[1])
            return lambda F: r
        ea, eb = self.val(a), self.val(b)
        if _is_numeric(a) and _is_numeric(b):
            na, nb = self.num(a), self.num(b)
            return lambda F: pyop(na(F), nb(F))

        def cmp(F: list) -> bool:
            x, y = ea(F), eb(F)
            if type(x) is float and type(y) is float:
                return pyop(x, y)
            return pyop(compare(x, y, st.CONVFMT), 0)

        return cmp

    def regex_of(self, node: Node) -> Callable[[list], Any]:
        """A closure returning the compiled pattern (static for literals)."""
        st = self.st
        if node[0] == "ere":
            src = node[1]
            try:
                pat = compile_ere(src)
            except AwkRegexError as e:
                raise AwkFatal(f"invalid regexp /{src}/: {e}") from None

            def static(F: list) -> Any:
                if st.IGNORECASE:
                    return compile_ere(src, True)
                return pat

            return static
        sv = self.str_(node)

        def dynamic(F: list) -> Any:
            src = sv(F)
            try:
                return compile_ere(src, bool(st.IGNORECASE))
            except AwkRegexError as e:
                raise AwkFatal(f"invalid regexp /{src}/: {e}") from None

        return dynamic

    def match_bool(self, node: Node) -> Fn:
        _, neg, subject, renode = node
        sv = self.str_(subject)
        rx0 = self.regex_of(renode)
        st = self.st
        if renode[0] == "ere":
            # a yes/no match needs no leftmost-longest extension
            src = renode[1]
            p0 = rx0([])
            fast = getattr(p0, "fast", p0)
            test = fast.test
            if subject == ("field", ("num", 0.0)):
                if fast not in self.record_regexes:
                    self.record_regexes.append(fast)  # primed per batch of records
                # `/re/` on each record, the per-record hot path: $0 read inline (st.get0
                # only when fields were changed), no frame between the rule and the test
                if neg:
                    return lambda F: not (
                        test(st.get0() if st.rec_dirty else st.record) if not st.IGNORECASE
                        else _fast(compile_ere(src, True)).test(st.get0()))
                return lambda F: (
                    test(st.get0() if st.rec_dirty else st.record) if not st.IGNORECASE
                    else _fast(compile_ere(src, True)).test(st.get0()))
            if neg:
                return lambda F: not (
                    test if not st.IGNORECASE else _fast(compile_ere(src, True)).test
                )(sv(F))
            return lambda F: (
                test if not st.IGNORECASE else _fast(compile_ere(src, True)).test
            )(sv(F))

        def rx(F: list) -> Any:
            return _fast(rx0(F))

        if neg:
            return lambda F: not rx(F).test(sv(F))
        return lambda F: rx(F).test(sv(F))

    def in_bool(self, node: Node) -> Fn:
        _, subs, name = node
        arr = self.array(name)
        key = self.subscript(subs)
        return lambda F: key(F) in arr(F)

    def v_concat(self, node: Node) -> Fn:
        parts = [self.str_(p) for p in node[1]]
        if len(parts) == 2:
            a, b = parts
            return lambda F: a(F) + b(F)
        return lambda F: "".join([p(F) for p in parts])

    # arithmetic
    def v_binop(self, node: Node) -> Fn:
        return self.n_binop(node)

    def n_binop(self, node: Node) -> Fn:
        _, op, a, b = node
        na, nb = self.num(a), self.num(b)
        if op == "+":
            return lambda F: na(F) + nb(F)
        if op == "-":
            return lambda F: na(F) - nb(F)
        if op == "*":
            return lambda F: na(F) * nb(F)
        fn = _arith(op)
        return lambda F: fn(na(F), nb(F))

    def v_neg(self, node: Node) -> Fn:
        return self.n_neg(node)

    def n_neg(self, node: Node) -> Fn:
        a = self.num(node[1])
        return lambda F: -a(F)

    def v_plus(self, node: Node) -> Fn:
        return self.num(node[1])

    def n_plus(self, node: Node) -> Fn:
        return self.num(node[1])

    # calls
    def v_call(self, node: Node) -> Fn:
        _, name, args, _line = node
        fn = self.prog.functions.get(name)
        if fn is None:
            raise AwkFatal(f"function `{name}' not defined")
        if len(args) > len(fn.params):
            self.st.inv.stderr.write(
                f"awk: cmd. line:1: warning: function `{name}' called with more arguments "
                "than declared\n".encode()
            )
            args = args[: len(fn.params)]
        arr_params = self.array_params[name]
        arg_fns: list[Fn] = []
        for i, arg in enumerate(args):
            if arg[0] == "var" and (
                i in arr_params
                or (arg[1] in self.global_arrays and arg[1] not in self.locals)
                or (arg[1] in self.locals and self.fn is not None
                    and self.locals[arg[1]] in self.array_params[self.fn.name])
            ):
                arg_fns.append(self.array(arg[1]))
            else:
                arg_fns.append(self.val(arg))
        nparams = len(fn.params)
        template: list[object] = [
            None if i in arr_params else UNINIT for i in range(nparams)
        ]
        cell = self.func_cells[name]
        nargs = len(arg_fns)

        def call(F: list) -> object:
            frame = template.copy()
            for i in range(nargs):
                frame[i] = arg_fns[i](F)
            body = cell[0]
            try:
                body(frame)  # type: ignore[misc]  # the cell holds the body once compiled
            except Return as r:
                return r.value
            return UNINIT

        return call

    def v_builtin(self, node: Node) -> Fn:
        from vshell.commands.awk.funcs_compile import compile_builtin

        return compile_builtin(self, node)

    def v_getline(self, node: Node) -> Fn:
        from vshell.commands.awk.funcs_compile import compile_getline

        return compile_getline(self, node)

    # ------------------------------------------------------------ lvalue store
    def store(self, lv: Node) -> Callable[[list, object], None]:
        kind = lv[0]
        st = self.st
        if kind == "var":
            return self.var_set(lv[1])
        if kind == "elem":
            arr = self.array(lv[1])
            key = self.subscript(lv[2])

            def store_elem(F: list, v: object) -> None:
                arr(F)[key(F)] = v

            return store_elem
        if kind == "group":
            return self.store(lv[1])
        ix = self.num(lv[1])

        def store_field(F: list, v: object) -> None:
            st.set_field(int(ix(F)), v)

        return store_field

    # ------------------------------------------------------------ statements
    def stmt(self, node: Node) -> Fn:
        return getattr(self, "s_" + node[0])(node)

    def s_block(self, node: Node) -> Fn:
        stmts = [self.stmt(s) for s in node[1]]
        if not stmts:
            return lambda F: None
        if len(stmts) == 1:
            return stmts[0]
        if len(stmts) == 2:
            a, b = stmts

            def block2(F: list) -> None:
                a(F)
                b(F)

            return block2
        if len(stmts) == 3:
            a, b, c = stmts

            def block3(F: list) -> None:
                a(F)
                b(F)
                c(F)

            return block3

        def block(F: list) -> None:
            for s in stmts:
                s(F)

        return block

    def s_expr(self, node: Node) -> Fn:
        e = node[1]
        if e[0] in ("postinc", "preinc"):
            return self.v_preinc(("preinc", e[1], e[2]))
        return self.val(e)

    def s_print(self, node: Node) -> Fn:
        _, args, redir = node
        st = self.st
        out_fn = self.output_of(redir)
        if not args:
            def print0(F: list) -> None:
                out_fn(F).write(st.get0() + st.ORS)

            return print0
        parts = [self.print_str(a) for a in args]
        if len(parts) == 1:
            p = parts[0]
            if redir is None:
                out = st.stdout

                def print1(F: list) -> None:
                    out.write(p(F) + st.ORS)

                return print1

            def print1r(F: list) -> None:
                text = p(F) + st.ORS
                out_fn(F).write(text)

            return print1r

        def printn(F: list) -> None:
            text = st.OFS.join([p(F) for p in parts]) + st.ORS
            out_fn(F).write(text)

        return printn

    def output_of(self, redir: tuple | None) -> Fn:
        st = self.st
        if redir is None:
            out = st.stdout
            return lambda F: out
        op, target = redir
        tv = self.val(target)
        return lambda F: st.output(op, tv(F))

    def s_printf(self, node: Node) -> Fn:
        from vshell.commands.awk.format import NotEnoughArgs
        from vshell.commands.awk.values import sprintf

        _, args, redir = node
        st = self.st
        out_fn = self.output_of(redir)
        fmt = self.str_(args[0])
        rest = [self.val(a) for a in args[1:]]
        conv = operator.attrgetter("CONVFMT")

        def printf(F: list) -> None:
            f = fmt(F)
            try:
                text = sprintf(f, [r(F) for r in rest], lambda: conv(st))
            except NotEnoughArgs as e:
                raise AwkFatal(e.message(f)) from None
            out_fn(F).write(text)

        return printf

    def s_if(self, node: Node) -> Fn:
        _, c, then, other = node
        cf = self.cond(c)
        tf = self.stmt(then)
        if other is None:

            def if_(F: list) -> None:
                if cf(F):
                    tf(F)

            return if_
        ef = self.stmt(other)

        def if_else(F: list) -> None:
            if cf(F):
                tf(F)
            else:
                ef(F)

        return if_else

    def s_while(self, node: Node) -> Fn:
        cf = self.cond(node[1])
        body = self.stmt(node[2])
        cancel = self.st.inv.cancel
        if not _has_jump(node[2]):

            def while_plain(F: list) -> None:
                n = 0
                while cf(F):
                    body(F)
                    n += 1
                    if n & 0xFFF == 0:
                        cancel.check()

            return while_plain

        return lambda F: _iterate(F, cf, body, True, None, True, cancel)

    def s_do(self, node: Node) -> Fn:
        body = self.stmt(node[1])
        cf = self.cond(node[2])
        cancel = self.st.inv.cancel
        jumps = _has_jump(node[1])
        return lambda F: _iterate(F, cf, body, jumps, None, False, cancel)

    def s_for(self, node: Node) -> Fn:
        _, init, c, incr, body_node = node
        initf = self.stmt(init) if init else None
        cf = self.cond(c) if c else (lambda F: True)
        incf = self.stmt(incr) if incr else None
        body = self.stmt(body_node)
        cancel = self.st.inv.cancel
        jumps = _has_jump(body_node)

        def for_(F: list) -> None:
            if initf is not None:
                initf(F)
            _iterate(F, cf, body, jumps, incf, True, cancel)

        return for_

    def s_forin(self, node: Node) -> Fn:
        _, var, name, body_node = node
        arr = self.array(name)
        put = self.store(var)
        body = self.stmt(body_node)
        cancel = self.st.inv.cancel
        jumps = _has_jump(body_node)

        def forin(F: list) -> None:
            d = arr(F)
            keys = iter(funcs.onetrue_order(list(d)))

            def next_key(F: list) -> bool:
                for k in keys:
                    if k in d:  # the body may delete the keys still to come
                        put(F, StrNum(k))
                        return True
                return False

            _iterate(F, next_key, body, jumps, None, True, cancel)

        return forin

    def s_break(self, node: Node) -> Fn:
        return _raising(Break)

    def s_continue(self, node: Node) -> Fn:
        return _raising(Continue)

    def s_next(self, node: Node) -> Fn:
        return _raising(Next)

    def s_nextfile(self, node: Node) -> Fn:
        return _raising(NextFile)

    def s_exit(self, node: Node) -> Fn:
        ev = self.num(node[1]) if node[1] is not None else None

        def exit_(F: list) -> None:
            raise ExitProgram(int(ev(F)) & 0xFF if ev is not None else -1)

        return exit_

    def s_return(self, node: Node) -> Fn:
        ev = self.val(node[1]) if node[1] is not None else None

        def return_(F: list) -> None:
            raise Return(ev(F) if ev is not None else UNINIT)

        return return_

    def s_delete(self, node: Node) -> Fn:
        _, name, subs = node
        arr = self.array(name)
        if subs is None:
            return lambda F: arr(F).clear()
        key = self.subscript(subs)
        return lambda F: arr(F).pop(key(F), None)

    # ------------------------------------------------------------ functions
    def compile_functions(self) -> None:
        for name, fn in self.prog.functions.items():
            self.fn = fn
            self.locals = {p: i for i, p in enumerate(fn.params)}
            self.func_cells[name][0] = self.stmt(fn.body)
        self.fn = None
        self.locals = {}


def _fast(p: Any) -> Any:
    return getattr(p, "fast", p)


def _is_numeric(node: Node) -> bool:
    """Is the expression's value certainly a number?"""
    kind = node[0]
    if kind in ("num", "binop", "neg", "plus", "preinc", "postinc", "cmp", "match", "and",
                "or", "not", "in"):
        return True
    if kind == "assign":
        return node[1] != "=" or _is_numeric(node[3])
    if kind == "group":
        return _is_numeric(node[1])
    if kind == "var":
        return node[1] in ("NR", "NF", "FNR", "RSTART", "RLENGTH")
    if kind == "builtin":
        return node[1] in (
            "length", "index", "int", "sqrt", "exp", "log", "sin", "cos", "atan2", "rand",
            "srand", "split", "sub", "gsub", "match", "system", "close", "and", "or", "xor",
            "lshift", "rshift", "compl", "systime", "mktime", "asort", "asorti",
        )
    return False


def _has_jump(node: object) -> bool:
    """Does a loop body contain break/continue for this loop (not an inner one)?"""
    found = False

    def visit(n: object) -> None:
        nonlocal found
        if found or not isinstance(n, (tuple, list)):
            return
        if isinstance(n, list):
            for c in n:
                visit(c)
            return
        kind = n[0] if n else None
        if kind in ("break", "continue"):
            found = True
            return
        if kind in ("while", "do", "for", "forin"):
            return
        for c in n[1:]:
            visit(c)

    visit(node)
    return found


def _iterate(F: list, cf: Fn, body: Fn, jumps: bool, step: Fn | None, test_first: bool,
             cancel: Any) -> None:
    """The one loop of awk's while, do, for and for-in: ``cf`` decides each pass (a do loop
    skips it the first time), ``step`` follows the body (a for loop's increment, run after a
    ``continue`` too), and the cancel token is looked at every 4096 passes.  ``jumps`` says
    whether the body can break or continue: without, no ``try`` is set up per pass."""
    n = 0
    first = not test_first
    while first or cf(F):
        first = False
        if jumps:
            try:
                body(F)
            except Continue:
                pass
            except Break:
                break
        else:
            body(F)
        if step is not None:
            step(F)
        n += 1
        if n & 0xFFF == 0:
            cancel.check()


def _raising(jump: type[Exception]) -> Fn:
    """A statement that only jumps: break, continue, next and nextfile raise their exception."""

    def raise_jump(F: list) -> None:
        raise jump

    return raise_jump


def _div(a: float, b: float) -> float:
    if b == 0.0:
        raise AwkFatal("division by zero attempted")
    return a / b


def _mod(a: float, b: float) -> float:
    if b == 0.0:
        raise AwkFatal("division by zero attempted in `%'")
    return math.fmod(a, b)


def _pow(a: float, b: float) -> float:
    try:
        if b.is_integer() and abs(b) < 1024:
            return a ** int(b) if (a != 0.0 or b >= 0) else math.inf
        return math.pow(a, b)
    except OverflowError:
        return math.inf if a > 0 or b % 2 == 0 else -math.inf
    except (ValueError, ZeroDivisionError):
        return math.nan if a < 0 else math.inf


def _arith(op: str) -> Callable[[float, float], float]:
    return {
        "+": operator.add, "-": operator.sub, "*": operator.mul, "/": _div, "%": _mod,
        "^": _pow, "**": _pow,
    }[op]


def _field_number(text: str) -> float:
    """A field's value as a number, as ``str2num`` gives it: ``float()`` first (the usual
    field), str2num for what float() reads otherwise than awk (inf, nan, ``1_0``) or not."""
    try:
        x = float(text)
    except ValueError:
        return str2num(text)
    if x - x != 0 or "_" in text:
        return str2num(text)
    return x
