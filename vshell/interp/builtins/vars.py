"""Builtins over variables and options: set, unset, export, readonly, local, declare,
let, shopt, getopts."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, cast

from vshell.interp.assign import assign_array
from vshell.interp.assoc_order import bash_order
from vshell.interp.quoting import declare_quote
from vshell.interp.state import FLAG_TO_OPTION, SET_OPTIONS, TEMPENV_ATTR, ShellError, Var

if TYPE_CHECKING:
    from vshell.interp.shell import Shell

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_DECL = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(\[(?:[^\]]*)\])?(\+?)=")  # NAME[SUB]+=VALUE


def _out(sh: Shell, text: str) -> None:
    sh.write_out(text.encode("utf-8", "surrogateescape"))


def _assoc_key(k: str) -> str:
    if re.fullmatch(r"[A-Za-z0-9_./@%+-]+", k):
        return k
    return declare_quote(k)


def declare_print_line(name: str, v: Var) -> str:
    order = "aAilnrtux"
    flags = "".join(c for c in order if c in v.attrs) or "-"
    val = v.value
    if val is None:
        return f"declare -{flags} {name}"
    if isinstance(val, dict):
        if "A" in v.attrs:
            assoc = cast("dict[str, str]", val)
            body = "".join(f"[{_assoc_key(str(k))}]={declare_quote(assoc[k])} "
                           for k in bash_order(assoc))
            return f"declare -{flags} {name}=({body})"
        body = " ".join(f"[{k}]={declare_quote(x)}" for k, x in sorted(val.items()))
        return f"declare -{flags} {name}=({body})"
    return f"declare -{flags} {name}={declare_quote(val)}"


# --- set -------------------------------------------------------------------------------------
def _print_vars(sh: Shell) -> None:
    st = sh.state
    for name in st.all_names():
        v = st.lookup(name)
        if v is None or v.value is None:
            continue
        if isinstance(v.value, dict):
            line = declare_print_line(name, v).split(" ", 2)[2]
            _out(sh, line + "\n")
        else:
            from vshell.interp.quoting import xtrace_quote

            _out(sh, f"{name}={xtrace_quote(v.value)}\n")


def b_set(sh: Shell, name: str, args: list[str]) -> int:
    st = sh.state
    if not args:
        _print_vars(sh)
        return 0
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("--", "-"):
            i += 1
            if a == "-":
                st.options["xtrace"] = False
                st.options["verbose"] = False
                if i == len(args):  # a lone "-" leaves the positional parameters alone
                    return 0
            st.positional = list(args[i:])
            if st.frames:
                st.frames[-1].positional = st.positional
            return 0
        if a == "+":  # an option word with no flags
            i += 1
            continue
        if a and a[0] in "-+" and len(a) > 1:
            on = a[0] == "-"
            i += 1
            for c in a[1:]:
                if c == "o":  # each o of a group takes the next word: set -euo pipefail
                    if i >= len(args):
                        _show_options(sh, on)
                        continue
                    opt = args[i]
                    i += 1
                    if opt not in SET_OPTIONS:
                        sh.err(f"set: {opt}: invalid option name")
                        return 2
                    st.options[opt] = on
                    if on and opt in ("vi", "emacs"):
                        st.options["emacs" if opt == "vi" else "vi"] = False
                    continue
                flag_opt = FLAG_TO_OPTION.get(c)
                if flag_opt is None:
                    sh.err(f"set: {a[0]}{c}: invalid option")
                    sh.write_err("set: usage: set [-abefhkmnptuvxBCEHPT] [-o option-name] "
                                 "[--] [-] [arg ...]\n")
                    return 2
                st.options[flag_opt] = on
            continue
        st.positional = list(args[i:])
        if st.frames:
            st.frames[-1].positional = st.positional
        return 0
    return 0


def _show_options(sh: Shell, minus: bool) -> None:
    st = sh.state
    for opt in sorted(SET_OPTIONS):
        if minus:
            _out(sh, f"{opt:<15}\t{'on' if st.options.get(opt) else 'off'}\n")
        else:
            _out(sh, f"set {'-' if st.options.get(opt) else '+'}o {opt}\n")


# --- unset ------------------------------------------------------------------------------------
def b_unset(sh: Shell, name: str, args: list[str]) -> int:
    from vshell.interp.builtins.opts import OptionError, parse_flags

    st = sh.state
    try:
        flags, args = parse_flags(sh, "unset", args, "fvn", "unset [-f] [-v] [-n] [name ...]")
    except OptionError as e:
        return e.status
    if {"f", "v"} <= flags:
        sh.err("unset: cannot simultaneously unset a function and a variable")
        return 1
    mode = "f" if "f" in flags else "n" if "n" in flags else "v" if "v" in flags else ""
    status = 0
    for a in args:
        if mode == "f":
            st.functions.pop(a, None)
            continue
        m = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)\[(.*)\]", a, re.S)
        if m:
            base, sub = m.group(1), m.group(2)
            v = st.lookup(base)
            if v is None:
                continue
            if "r" in v.attrs:
                sh.err(f"unset: {base}: cannot unset: readonly variable")
                status = 1
                continue
            if sub in ("@", "*"):
                st.unset(base)
                continue
            if isinstance(v.value, dict) and "A" in v.attrs:
                key = sh.expander.word(sub)
                mine = st.writable(base)  # this shell's own (the key's expansion ran meanwhile)
                if mine is not None and isinstance(mine.value, dict):
                    mine.value.pop(key, None)  # type: ignore[call-overload]  # Var.value is dict[int, str] | dict[str, str]; this branch holds one kind
                continue
            try:
                idx = sh.arith(sh.expander.arith_text(sub), sub)
            except ShellError as e:
                sh.err(e.message)
                status = 1
                continue
            if isinstance(v.value, dict):
                if idx < 0:
                    top = max(v.value) + 1 if v.value else 0  # type: ignore[operator]  # Var.value is dict[int, str] | dict[str, str]; this branch holds one kind
                    if top + idx < 0:
                        sh.err(f"unset: [{idx}]: bad array subscript")
                        status = 1
                        continue
                    idx += top
                mine = st.writable(base)
                if mine is not None and isinstance(mine.value, dict):
                    mine.value.pop(idx, None)  # type: ignore[call-overload]  # Var.value is dict[int, str] | dict[str, str]; this branch holds one kind
            elif idx == 0:  # a scalar is element 0 of itself; any other index is an error
                st.unset(base)
            else:
                sh.err(f"unset: {base}: not an array variable")
                status = 1
            continue
        if not _NAME.match(a):
            sh.err(f"unset: `{a}': not a valid identifier")
            status = 1
            continue
        if mode == "n":
            scope, v = st._find(a)
            if v is not None and scope is not None:
                del scope[a]
                st.env_changed()
            continue
        try:
            target = st.resolve_name(a)
            if target in st.globals or st.lookup(target) is not None:
                st.unset(target)
            elif mode != "v":
                st.functions.pop(a, None)
        except ShellError as e:
            sh.err(e.message)
            status = 1
    return status


# --- declare / local / export / readonly -------------------------------------------------------
def _split_decl(arg: object) -> tuple[str, str | None, bool, str | None]:
    """(name, raw value or None, append, index) of a declaration argument."""
    raw = getattr(arg, "raw", None)
    text = raw if raw is not None else str(arg)
    m = _DECL.match(text)
    if not m:
        return text, None, False, None
    index = m.group(2)[1:-1] if m.group(2) else None
    value = text[m.end():]
    return m.group(1), value, bool(m.group(3)), index if index is not None else None


def _expand_value(sh: Shell, arg: object, value: str) -> str:
    """The value of a ``name=value`` argument: as the command line expanded it, when it was
    a word of the command (see ``interp.simple._DeclArg``)."""
    expanded = getattr(arg, "expanded", None)
    if expanded is not None:
        return expanded
    if getattr(arg, "raw", None) is not None:
        return sh.expander.word(value, assign=True)
    return value


def b_declare(sh: Shell, name: str, args: list[str]) -> int:
    return _declare(sh, name, args, local=name == "local" or (
        sh.func_depth > 0 and name in ("declare", "typeset")))


def b_local(sh: Shell, name: str, args: list[str]) -> int:
    if not sh.state.frames:
        sh.err("local: can only be used in a function")
        return 1
    return _declare(sh, "local", args, local=True)


def b_export(sh: Shell, name: str, args: list[str]) -> int:
    st = sh.state
    unexport = False
    print_ = False
    funcs = False
    while args and str(args[0]).startswith("-") and len(str(args[0])) > 1:
        a = str(args[0])
        if a == "--":
            args = args[1:]
            break
        for c in a[1:]:
            if c == "n":
                unexport = True
            elif c == "p":
                print_ = True
            elif c == "f":
                funcs = True
            else:
                sh.err(f"export: -{c}: invalid option")
                sh.write_err("export: usage: export [-fn] [name[=value] ...] or export -p\n")
                return 2
        args = args[1:]
    if not args or print_ and not args:
        for n in st.all_names():
            v = st.lookup(n)
            if v is not None and "x" in v.attrs:
                _out(sh, declare_print_line(n, v).replace("declare", "declare", 1) + "\n")
        return 0
    status = 0
    for arg in args:
        nm, value, append, index = _split_decl(arg)
        if not _NAME.match(nm) or index is not None:  # bash exports no array elements
            shown = arg if index is None else f"{nm}[{index}]"
            sh.err(f"export: `{shown}': not a valid identifier")
            status = 1
            continue
        if funcs:
            continue
        try:
            if value is not None:
                if value.startswith("(") and getattr(arg, "raw", None) is not None:
                    _assign_compound(sh, nm, value, append=append, local=False, assoc=None)
                else:
                    st.set(nm, _expand_value(sh, arg, value), append=append)
            v = st.writable(nm)
            if v is None:
                v = st.new_var(st.globals, st.resolve_name(nm))
            if unexport:
                v.attrs.discard("x")
            else:
                v.attrs.add("x")
        except ShellError as e:
            sh.err(e.message)
            status = 1
    return status


def b_readonly(sh: Shell, name: str, args: list[str]) -> int:
    opts = [a for a in args if str(a).startswith("-") and len(str(a)) > 1]
    rest = [a for a in args if not (str(a).startswith("-") and len(str(a)) > 1)]
    flags = "r"
    for o in opts:
        if "a" in str(o):
            flags += "a"
        if "A" in str(o):
            flags += "A"
    if not rest:
        st = sh.state
        for n in st.all_names():
            v = st.lookup(n)
            if v is not None and "r" in v.attrs:
                _out(sh, declare_print_line(n, v) + "\n")
        return 0
    return _declare(sh, "readonly", ["-" + flags] + rest, local=False)


def _assign_compound(sh: Shell, nm: str, value: str, *, append: bool, local: bool,
                     assoc: bool | None) -> None:
    from vshell.syntax.words import find_close_array

    end = find_close_array(value, 1)
    inner = value[1:end]
    words = _split_array_words(inner)
    assign_array(sh, nm, words, append=append, local=local, assoc=assoc)


def _split_array_words(inner: str) -> list[str]:
    """Split the inside of ``( … )`` into raw words (quote aware)."""
    from vshell.syntax.words import skip_dollar, skip_quote

    out: list[str] = []
    i = 0
    n = len(inner)
    cur_start = -1
    while i < n:
        c = inner[i]
        if c in " \t\n":
            if cur_start >= 0:
                out.append(inner[cur_start:i])
                cur_start = -1
            i += 1
            continue
        if cur_start < 0:
            if c == "#":
                k = inner.find("\n", i)
                i = n if k < 0 else k
                continue
            cur_start = i
        if c == "\\":
            i += 2
            continue
        if c in "'\"":
            i = skip_quote(inner, i)
            continue
        if c == "$" and i + 1 < n and inner[i + 1] in "({[":
            i = skip_dollar(inner, i)
            continue
        if c == "$" and i + 1 < n and inner[i + 1] == "'":
            j = i + 2
            while j < n and inner[j] != "'":
                j += 2 if inner[j] == "\\" else 1
            i = j + 1
            continue
        i += 1
    if cur_start >= 0:
        out.append(inner[cur_start:])
    return out


def _declare(sh: Shell, name: str, args: list[str], *, local: bool) -> int:
    st = sh.state
    add: set[str] = set()
    remove: set[str] = set()
    print_ = False
    funcs = ""
    global_ = False
    rest: list = []
    for arg in args:
        a = str(arg)
        if rest or not (a[:1] in "-+" and len(a) > 1) or getattr(arg, "raw", None) is not None \
                and "=" in a:
            rest.append(arg)
            continue
        if a == "--":
            rest.append(None)
            continue
        on = a[0] == "-"
        for c in a[1:]:
            if c == "p":
                print_ = True
            elif c in "fF":
                funcs = c
            elif c == "g":
                global_ = True
            elif c in "aAilnrtuxI":
                (add if on else remove).add(c)
            else:
                sh.err(f"{name}: {a[0]}{c}: invalid option")
                sh.write_err(f"{name}: usage: {name} [-aAfFgiIlnrtux] [name[=value] ...] or "
                             f"{name} -p [-aAfFilnrtux] [name ...]\n")
                return 2
    rest = [r for r in rest if r is not None]
    if global_:
        local = False
    if funcs:
        return _declare_funcs(sh, funcs, rest)
    if not print_ and not rest and not add and not remove:
        if name == "local" and st.frames:
            for n, v in st.frames[-1].locals.items():
                _out(sh, declare_print_line(n, v) + "\n")
            return 0
        _print_vars(sh)  # bare `declare`: like `set`, variables then functions
        from vshell.interp.printer import print_function

        for fname in sorted(st.functions):
            _out(sh, print_function(fname, st.functions[fname]) + "\n")
        return 0
    if print_ or (not rest and not add and not remove):
        return _declare_print(sh, rest, add)
    if not rest:
        # declare -x with no names: list matching
        for n in st.all_names():
            found = st.lookup(n)
            if found is not None and add <= found.attrs:
                _out(sh, declare_print_line(n, found) + "\n")
        return 0
    status = 0
    for arg in rest:
        nm, value, append, index = _split_decl(arg)
        if not _NAME.match(nm):
            sh.err(f"{name}: `{arg}': not a valid identifier")
            status = 1
            continue
        try:
            _declare_one(sh, name, arg, nm, value, append, index, add, remove, local)
        except ShellError as e:
            sh.err(f"{name}: {e.message}")
            status = 1
    return status


def _declare_one(sh: Shell, name: str, arg: object, nm: str, value: str | None, append: bool,
                 index: str | None, add: set[str], remove: set[str], local: bool) -> None:
    st = sh.state
    st.env_changed()  # attributes change below, exported or not
    # every change below is made to a variable of this shell's own (see state.Owner)
    if local and st.frames:
        scope = st.frames[-1].locals
        v = scope.get(nm)
        if v is not None:
            v = st.own(scope, nm, v)
            v.attrs.discard(TEMPENV_ATTR)  # ``local`` makes a prefix binding a real local
        if v is None:
            outer = st.lookup(nm)
            if outer is not None and "r" in outer.attrs:  # bash: no local copy of a readonly
                raise ShellError(f"{nm}: readonly variable")
            if outer is not None and TEMPENV_ATTR in outer.attrs:
                # bash: a local over a prefix binding starts with its value
                v = st.new_var(scope, nm, outer.value)
            elif outer is not None and st.shopt.get("localvar_inherit"):
                v = st.new_var(scope, nm, outer.copy().value, set(outer.attrs))
            else:
                # bash: a local over an exported variable is exported too (`local PATH=…`,
                # `local LANG=C` reach the commands the function runs)
                v = st.new_var(scope, nm, None,
                               {"x"} if outer is not None and "x" in outer.attrs else None)
    else:
        v = st.writable_here(nm) if ("n" in add or "n" in remove) else st.writable(nm)
        if v is None:
            v = st.new_var(st.globals, nm)
    if "r" in v.attrs and (value is not None or remove - {"r"}):
        raise ShellError(f"{nm}: readonly variable")
    if "r" in remove and "r" in v.attrs:
        raise ShellError(f"{nm}: readonly variable")
    if "a" in add and "A" in v.attrs:
        raise ShellError(f"{nm}: cannot convert associative to indexed array")
    if "A" in add and "a" in v.attrs and isinstance(v.value, dict) and v.value:
        raise ShellError(f"{nm}: cannot convert indexed to associative array")
    if "A" in add and not isinstance(v.value, dict):
        v.value = {} if v.value is None else {"0": v.value}
    if "a" in add and not isinstance(v.value, dict):
        v.value = {} if v.value is None else {0: v.value}
    ref_target: str | None = None
    if "n" in add:
        st.namerefs_used = True
        ref_target = _expand_value(sh, arg, value) if value is not None else (
            v.value if isinstance(v.value, str) else None)
        if ref_target and not _NAMEREF_TARGET.fullmatch(ref_target):
            raise ShellError(f"`{ref_target}': invalid variable name for name reference")
        add = add - {"r"}  # bash ignores -r on a nameref
        v = st.own_var(v, nm)  # the expansion may have forked: v is shared again
    if "u" in add:
        v.attrs.discard("l")
    if "l" in add:
        v.attrs.discard("u")
    v.attrs |= add - {"r"}
    v.attrs -= remove
    if value is not None:
        if "n" in v.attrs:
            target = ref_target if ref_target is not None else _expand_value(sh, arg, value)
            st.own_var(v, nm).value = target
        elif value.startswith("(") and index is None and (
                getattr(arg, "raw", None) is not None
                or ({"a", "A"} & add and value.endswith(")"))):  # bash: `declare -a 'x=(1 2)'`
            _assign_compound(sh, nm, value, append=append, local=local,
                             assoc="A" in v.attrs)
        elif index is not None:
            sub: str | int = index
            if "A" not in v.attrs:
                sub = sh.arith(sh.expander.arith_text(index), index)
            st.set_element(nm, sub, _expand_value(sh, arg, value), append=append, local=local)
        else:
            st.set(nm, _expand_value(sh, arg, value), append=append, local=local)
    if "r" in add:
        found = st.writable(nm)
        (found if found is not None else st.own_var(v, nm)).attrs.add("r")
    st.env_changed()


_NAMEREF_TARGET = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[.+\])?")


def _declare_print(sh: Shell, names: list, attrs: set[str]) -> int:
    st = sh.state
    status = 0
    if not names:
        for n in st.all_names():
            v = st._find(n)[1]  # the variable itself: -pn lists the namerefs
            if v is None:
                continue
            if attrs and not attrs <= v.attrs:
                continue
            _out(sh, declare_print_line(n, v) + "\n")
        return 0
    for n in names:
        nm = str(n)
        _, v = st._find(nm)
        if v is None:
            sh.err(f"declare: {nm}: not found")
            status = 1
            continue
        _out(sh, declare_print_line(nm, v) + "\n")
    return status


def _declare_funcs(sh: Shell, mode: str, names: list) -> int:
    from vshell.interp.printer import print_function

    st = sh.state
    targets = [str(n) for n in names] or sorted(st.functions)
    status = 0
    for n in targets:
        fn = st.functions.get(n)
        if fn is None:
            status = 1
            continue
        if mode == "F":
            _out(sh, f"declare -f {n}\n" if not names else f"{n}\n")
        else:
            _out(sh, print_function(n, fn) + "\n")
    return status


# --- let / shopt / getopts -------------------------------------------------------------------
def b_let(sh: Shell, name: str, args: list[str]) -> int:
    if not args:
        sh.err("let: expression expected")
        return 1
    val = 0
    for a in args:
        try:
            val = sh.arith(a, a)
        except ShellError as e:
            sh.err(f"let: {e.message}")
            return 1
    return 0 if val != 0 else 1


def b_shopt(sh: Shell, name: str, args: list[str]) -> int:
    st = sh.state
    mode = ""  # "s" or "u": set or unset the names (no names: list those set / unset)
    reusable = False  # -p: list as commands that restore the settings
    quiet = False
    use_set_o = False
    names: list[str] = []
    for a in args:
        if a.startswith("-") and len(a) > 1 and not names:
            for c in a[1:]:
                if c in "su":
                    mode = c
                elif c == "q":
                    quiet = True
                elif c == "o":
                    use_set_o = True
                elif c == "p":
                    reusable = True
                else:
                    sh.err(f"shopt: -{c}: invalid option")
                    sh.write_err("shopt: usage: shopt [-pqsu] [-o] [optname ...]\n")
                    return 2
            continue
        names.append(a)
    table = st.options if use_set_o else st.shopt
    if not names:
        # shopt's own names in bash's table order (SHOPT_DEFAULTS keeps it), set -o's sorted
        for k in sorted(table) if use_set_o else table:
            if k.startswith("__"):
                continue
            on = table[k]
            if mode == "s" and not on or mode == "u" and on:
                continue
            if reusable:
                flag = "-s" if on else "-u"
                _out(sh, f"shopt {flag} {k}\n" if not use_set_o
                     else f"set {'-' if on else '+'}o {k}\n")
            else:
                _out(sh, f"{k:<15}\t{'on' if on else 'off'}\n")
        return 0
    status = 0
    for n in names:
        if n not in table:
            sh.err(f"shopt: {n}: invalid shell option name")
            status = 1
            continue
        if mode in ("s", "u"):
            table[n] = mode == "s"
        else:
            if not table[n]:
                status = 1
            if not quiet:
                if reusable and use_set_o:
                    _out(sh, f"set {'-' if table[n] else '+'}o {n}\n")
                elif reusable:
                    _out(sh, f"shopt {'-s' if table[n] else '-u'} {n}\n")
                else:
                    _out(sh, f"{n:<15}\t{'on' if table[n] else 'off'}\n")
    return status


def b_getopts(sh: Shell, name: str, args: list[str]) -> int:
    st = sh.state
    if args and args[0].startswith("-") and len(args[0]) > 1 and args[0] != "--":
        sh.err(f"getopts: {args[0][:2]}: invalid option")
        sh.write_err("getopts: usage: getopts optstring name [arg ...]\n")
        return 2
    if args and args[0] == "--":
        args = args[1:]
    if len(args) < 2:
        sh.write_err("getopts: usage: getopts optstring name [arg ...]\n")
        return 2
    spec, var = args[0], args[1]
    argv = args[2:] if len(args) > 2 else list(st.positional)
    if not _NAME.match(var):
        # bash still consumes the option, then fails to assign the name
        _getopts_step(sh, spec, "__vshell_getopts_sink", argv)
        st.unset("__vshell_getopts_sink")
        sh.err(f"getopts: `{var}': not a valid identifier")
        return 1
    return _getopts_step(sh, spec, var, argv)


def _getopts_step(sh: Shell, spec: str, var: str, argv: list[str]) -> int:
    st = sh.state
    silent = spec.startswith(":")
    if silent:
        spec = spec[1:]
    if st.get("OPTERR") == "0":
        silent_err = True
    else:
        silent_err = silent
    try:
        optind = int(st.get("OPTIND") or "1")
    except ValueError:
        optind = 1
    sub = getattr(sh.state, "_getopts_sub", 0)
    if getattr(sh.state, "_getopts_ind", None) != optind:
        sub = 0
    if optind < 1:
        optind = 1

    def done() -> int:
        st.unset("OPTARG")
        st.set(var, "?")
        st.set("OPTIND", str(min(optind, len(argv) + 1)))
        st._getopts_sub = 0
        st._getopts_ind = None
        return 1

    if optind > len(argv):
        return done()
    cur = argv[optind - 1]
    if sub == 0:
        if cur == "--":
            optind += 1
            return done()
        if not cur.startswith("-") or cur == "-":
            return done()
        sub = 1
    ch = cur[sub]
    sub += 1
    if sub >= len(cur):
        optind += 1
        sub = 0
    if ch not in spec or ch == ":":
        if silent:
            st.set("OPTARG", ch)
        else:
            st.unset("OPTARG")
            if not silent_err:
                sh.write_err(f"{sh.source_name}: illegal option -- {ch}\n")
        st.set(var, "?")
    elif spec[spec.index(ch) + 1 : spec.index(ch) + 2] == ":":
        if sub:
            st.set("OPTARG", cur[sub:])
            optind += 1
            sub = 0
        elif optind <= len(argv):
            st.set("OPTARG", argv[optind - 1])
            optind += 1
        else:
            if silent:
                st.set(var, ":")
                st.set("OPTARG", ch)
            else:
                st.set(var, "?")
                st.unset("OPTARG")
                if not silent_err:
                    sh.write_err(f"{sh.source_name}: option requires an argument -- {ch}\n")
            st.set("OPTIND", str(optind))
            st._getopts_sub = sub
            st._getopts_ind = optind
            return 0
        st.set(var, ch)
    else:
        st.set(var, ch)
        st.unset("OPTARG")
    st.set("OPTIND", str(optind))
    st._getopts_sub = sub
    st._getopts_ind = optind
    return 0
