"""Compiling calls of awk's built-in functions and the getline forms."""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING, Any

from vshell.commands.awk import funcs
from vshell.commands.awk.parser import Node
from vshell.commands.awk.regex import compile_ere
from vshell.commands.awk.runtime import AwkFatal, Reader
from vshell.commands.awk.values import UNINIT, StrNum, num2str_fmt, str2num, to_num, to_str

if TYPE_CHECKING:
    from vshell.commands.awk.compiler import Compiler, Fn


def _math1(fn: Any) -> Any:
    def safe(x: float) -> float:
        try:
            return fn(x)
        except (ValueError, OverflowError):
            if fn is math.log:
                return -math.inf if x == 0 else -math.nan
            if fn is math.exp:
                return math.inf
            return -math.nan if fn is math.sqrt else math.nan

    return safe


_MATH1 = {
    "sin": _math1(math.sin), "cos": _math1(math.cos), "exp": _math1(math.exp),
    "log": _math1(math.log), "sqrt": _math1(math.sqrt),
}


def compile_builtin(c: Compiler, node: Node) -> Fn:
    _, name, args = node
    st = c.st
    n = len(args)

    def need(lo: int, hi: int) -> None:
        if not lo <= n <= hi:
            raise AwkFatal(f"{name}: called with {n} arguments")

    if name == "length":
        need(0, 1)
        if n == 0:
            return lambda F: float(len(st.get0()))
        arg = args[0]
        if arg[0] == "var" and (arg[1] in c.global_arrays or arg[1] in c.locals):
            ev = c.array(arg[1]) if arg[1] in c.global_arrays and arg[1] not in c.locals \
                else c.val(arg)

            def length_any(F: list) -> float:
                v = ev(F)
                if type(v) is dict:
                    return float(len(v))
                if v is None:
                    return 0.0
                return float(len(v if isinstance(v, str) else to_str(v, st.CONVFMT)))

            return length_any
        sv = c.str_(arg)
        return lambda F: float(len(sv(F)))
    if name in _MATH1:
        need(1, 1)
        fn = _MATH1[name]
        x = c.num(args[0])
        return lambda F: fn(x(F))
    if name == "int":
        need(1, 1)
        x = c.num(args[0])

        def int_(F: list) -> float:
            v = x(F)
            return float(math.trunc(v)) if v - v == 0 else v

        return int_
    if name == "atan2":
        need(2, 2)
        y, x = c.num(args[0]), c.num(args[1])
        return lambda F: math.atan2(y(F), x(F))
    if name == "rand":
        need(0, 0)
        return lambda F: st.rng.random()
    if name == "srand":
        need(0, 1)
        seed = c.num(args[0]) if n else None

        def srand(F: list) -> float:
            prev = st.srand_seed
            st.srand_seed = seed(F) if seed else float(int(time.time()))
            st.rng.seed(st.srand_seed)
            return prev

        return srand
    if name == "substr":
        need(2, 3)
        s, m = c.str_(args[0]), c.num(args[1])
        ln = c.num(args[2]) if n == 3 else None
        if ln is None:
            return lambda F: funcs.substr(s(F), m(F), None)
        return lambda F: funcs.substr(s(F), m(F), ln(F))
    if name == "index":
        need(2, 2)
        s, t = c.str_(args[0]), c.str_(args[1])

        def index(F: list) -> float:
            a, b = s(F), t(F)
            if st.IGNORECASE:
                return float(a.lower().find(b.lower()) + 1)
            return float(a.find(b) + 1)

        return index
    if name in ("tolower", "toupper"):
        need(1, 1)
        s = c.str_(args[0])
        if name == "tolower":
            return lambda F: s(F).lower()
        return lambda F: s(F).upper()
    if name == "sprintf":
        from vshell.commands.awk.format import NotEnoughArgs
        from vshell.commands.awk.values import sprintf

        if n == 0:
            raise AwkFatal("sprintf: no arguments")
        fmt = c.str_(args[0])
        rest = [c.val(a) for a in args[1:]]

        def sprintf_(F: list) -> str:
            f = fmt(F)
            try:
                return sprintf(f, [r(F) for r in rest], lambda: st.CONVFMT)
            except NotEnoughArgs as e:
                raise AwkFatal(e.message(f)) from None

        return sprintf_
    if name == "split" or name == "patsplit":
        return _split(c, name, args)
    if name in ("sub", "gsub"):
        need(2, 3)
        rx = c.regex_of(args[0])
        repl = c.str_(args[1])
        lvalue: Node = args[2] if n == 3 else ("field", ("num", 0.0))
        if lvalue[0] == "group":
            lvalue = lvalue[1]
        if lvalue[0] not in ("var", "elem", "field"):
            # gawk: a non-lvalue target is allowed, the result is discarded
            get = c.str_(lvalue)
            put = None
        else:
            get = c.str_(lvalue)
            put = c.store(lvalue)
        glob = name == "gsub"

        def sub(F: list) -> float:
            pat = rx(F)
            r = repl(F)
            text, count = funcs.substitute(pat, r, get(F), glob)
            if count and put is not None:
                put(F, text)
            return float(count)

        return sub
    if name == "gensub":
        need(3, 4)
        rx = c.regex_of(args[0])
        repl = c.str_(args[1])
        how = c.val(args[2])
        target = c.str_(args[3]) if n == 4 else (lambda F: st.get0())
        return lambda F: funcs.gensub(rx(F), repl(F), how(F), target(F))
    if name == "match":
        need(2, 3)
        s = c.str_(args[0])
        rx = c.regex_of(args[1])
        arr = c.array(args[2][1]) if n == 3 else None

        def match(F: list) -> float:
            text = s(F)
            m = rx(F).search(text)
            if arr is not None:
                d = arr(F)
                d.clear()
            if m is None:
                st.RSTART, st.RLENGTH = 0.0, -1.0
                return 0.0
            st.RSTART = float(m.start() + 1)
            st.RLENGTH = float(m.end() - m.start())
            if arr is not None:
                for g in range(0, (m.re.groups or 0) + 1):
                    if m.group(g) is None:
                        continue
                    d[str(g)] = StrNum(m.group(g))
                    d[f"{g}{st.SUBSEP}start"] = float(m.start(g) + 1)
                    d[f"{g}{st.SUBSEP}length"] = float(m.end(g) - m.start(g))
            return st.RSTART

        return match
    if name == "system":
        need(1, 1)
        cmd = c.str_(args[0])

        def system(F: list) -> float:
            st.flush_all()
            return float(st.run_shell(cmd(F), stdin=b""))

        return system
    if name == "close":
        need(1, 2)
        target = c.str_(args[0])
        return lambda F: st.close(target(F))
    if name == "fflush":
        need(0, 1)
        if n == 0:

            def fflush_all(F: list) -> float:
                st.flush_all()
                return 0.0

            return fflush_all
        target = c.str_(args[0])

        def fflush(F: list) -> float:
            name_ = target(F)
            out = st.outputs.get(name_)
            if out is None:
                if name_ in ("/dev/stdout", ""):
                    st.stdout.flush()
                    return 0.0
                return -1.0
            out.flush()
            return 0.0

        return fflush
    if name == "systime":
        need(0, 0)
        return lambda F: funcs.systime()
    if name == "strftime":
        need(0, 3)
        fmt = c.str_(args[0]) if n >= 1 else (lambda F: "%a %b %e %H:%M:%S %Z %Y")
        ts = c.num(args[1]) if n >= 2 else (lambda F: funcs.systime())
        utc = c.cond(args[2]) if n >= 3 else (lambda F: False)
        return lambda F: funcs.strftime(fmt(F), ts(F), utc(F), st.inv.env.get("TZ"))
    if name == "mktime":
        need(1, 2)
        spec = c.str_(args[0])
        return lambda F: funcs.mktime(spec(F), st.inv.env.get("TZ"))
    if name in ("asort", "asorti"):
        need(1, 3)
        src = c.array(args[0][1]) if args[0][0] == "var" else None
        if src is None:
            raise AwkFatal(f"{name}: first argument not an array")
        dest = c.array(args[1][1]) if n >= 2 and args[1][0] == "var" else None
        indices = name == "asorti"

        def asort(F: list) -> float:
            d = src(F)
            if indices:
                items: list[Any] = sorted(d.keys())
                values: list[Any] = [StrNum(k) for k in items]
            else:
                values = funcs.sort_values(list(d.values()), st.CONVFMT)
            target = dest(F) if dest is not None else d
            target.clear()
            for i, v in enumerate(values, 1):
                target[str(i)] = v
            return float(len(values))

        return asort
    if name in ("and", "or", "xor"):
        if n < 2:
            raise AwkFatal(f"{name}: called with less than two arguments")
        nums = [c.num(a) for a in args]
        import functools
        import operator

        op = {"and": operator.and_, "or": operator.or_, "xor": operator.xor}[name]
        return lambda F: float(functools.reduce(op, [int(x(F)) for x in nums]))
    if name in ("lshift", "rshift"):
        need(2, 2)
        a, b = c.num(args[0]), c.num(args[1])
        if name == "lshift":
            return lambda F: float((int(a(F)) << int(b(F))) & 0xFFFFFFFFFFFFFFFF)
        return lambda F: float(int(a(F)) >> int(b(F)))
    if name == "compl":
        need(1, 1)
        a = c.num(args[0])
        return lambda F: float(~int(a(F)) & 0x1FFFFFFFFFFFFF)
    if name == "typeof":
        need(1, 2)
        arg = args[0]
        if arg[0] == "var" and arg[1] in c.global_arrays and arg[1] not in c.locals:
            return lambda F: "array"
        ev = c.val(arg)

        def typeof(F: list) -> str:
            v = ev(F)
            if type(v) is dict:
                return "array"
            if v is UNINIT or v is None:
                return "untyped" if arg[0] == "var" else "unassigned"
            if type(v) is float:
                return "number"
            if type(v) is StrNum:
                from vshell.commands.awk.values import looks_numeric

                return "strnum" if looks_numeric(v) else "string"
            return "string"

        return typeof
    if name == "isarray":
        need(1, 1)
        arg = args[0]
        if arg[0] == "var" and (arg[1] in c.global_arrays or arg[1] in c.locals):
            ev = c.val(arg)
            return lambda F: 1.0 if type(ev(F)) is dict else 0.0
        return lambda F: 0.0
    raise AwkFatal(f"function `{name}' not supported")


def _split(c: Compiler, name: str, args: list[Node]) -> Fn:
    st = c.st
    n = len(args)
    if not 2 <= n <= 4:
        raise AwkFatal(f"{name}: called with {n} arguments")
    s = c.str_(args[0])
    if args[1][0] != "var":
        raise AwkFatal(f"{name}: second argument is not an array")
    arr = c.array(args[1][1])
    seps_arr = c.array(args[3][1]) if n == 4 and args[3][0] == "var" else None
    if name == "patsplit":
        rx = c.regex_of(args[2]) if n >= 3 else None

        def patsplit(F: list) -> float:
            d = arr(F)
            d.clear()
            text = s(F)
            if rx is None:
                return 0.0
            parts = [m.group() for m in rx(F).finditer(text) if m.group()]
            for i, p in enumerate(parts, 1):
                d[str(i)] = StrNum(p)
            return float(len(parts))

        return patsplit
    fs_node = args[2] if n >= 3 else None
    if fs_node is not None and fs_node[0] == "ere" and fs_node[1] == "":
        fs_node = ("str", "")
    if fs_node is not None and fs_node[0] == "ere":
        rx = c.regex_of(fs_node)

        def get_split(F: list) -> tuple[str, Any]:
            return "\0re", rx(F).split
    elif fs_node is not None:
        fsv = c.str_(fs_node)

        def get_split(F: list) -> tuple[str, Any]:
            fs = fsv(F)
            if fs == " " or fs == "" or (len(fs) == 1 and fs != "\\"):
                if len(fs) == 1 and fs != " " and st.IGNORECASE and fs.isalpha():
                    return "\0re", compile_ere("[" + fs + "]", True).split
                return fs, None
            return "\0re", compile_ere(fs, bool(st.IGNORECASE)).split
    else:

        def get_split(F: list) -> tuple[str, Any]:
            fs = st.FS
            if fs == " " or fs == "" or len(fs) == 1:
                return fs, None
            return "\0re", compile_ere(fs, bool(st.IGNORECASE)).split

    def split(F: list) -> float:
        text = s(F)
        fs, splitter = get_split(F)
        seps: list[str] | None = [] if seps_arr is not None else None
        parts = funcs.split_string(text, fs, splitter, seps)
        d = arr(F)
        d.clear()
        for i, p in enumerate(parts, 1):
            d[str(i)] = StrNum(p)
        if seps_arr is not None and seps is not None:
            sd = seps_arr(F)
            sd.clear()
            start = 0 if fs == " " else 1
            for i, sep in enumerate(seps, start):
                sd[str(i)] = StrNum(sep)
        return float(len(parts))

    return split


def compile_getline(c: Compiler, node: Node) -> Fn:
    _, kind, var, src = node
    st = c.st
    put = c.store(var) if var is not None else None

    def took(F: list, rec: str) -> float:
        """Where a record read lands: $0 (and NF) or the named variable; getline's 1."""
        if put is None:
            st.set0(rec)
        else:
            put(F, StrNum(rec))
        return 1.0

    def next_from(F: list, rd: Reader) -> float:
        rec = rd.next_record()
        return 0.0 if rec is None else took(F, rec)

    if kind == "simple":

        def getline_main(F: list) -> float:
            main = st.main
            if main is None:
                return 0.0
            try:
                rec = main.next_record(for_getline=True)
            except OSError:
                return -1.0
            if rec is None:
                return 0.0
            return took(F, rec)

        return getline_main
    source = c.str_(src)
    if kind == "file":

        def getline_file(F: list) -> float:
            name = source(F)
            rd: Reader | None = st.file_reader(name)
            if rd is None:
                return -1.0
            return next_from(F, rd)

        return getline_file

    def getline_cmd(F: list) -> float:
        return next_from(F, st.cmd_reader(source(F)))

    return getline_cmd


__all__ = ["compile_builtin", "compile_getline", "num2str_fmt", "str2num", "to_num"]
