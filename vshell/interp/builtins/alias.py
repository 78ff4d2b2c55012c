"""The alias builtins: ``alias`` and ``unalias`` (the expansion itself is
:mod:`vshell.interp.aliases`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from vshell.interp.builtins.base import out

if TYPE_CHECKING:
    from vshell.interp.shell import Shell


# --- aliases -----------------------------------------------------------------------------------
def b_alias(sh: Shell, name: str, args: list[str]) -> int:
    st = sh.state
    if args and args[0] == "--":
        args = args[1:]
    if args and args[0] == "-p":
        args = args[1:]
        if not args:
            for k in sorted(st.aliases):
                out(sh, f"alias {k}='{st.aliases[k]}'\n")
            return 0
    if not args:
        for k in sorted(st.aliases):
            out(sh, f"alias {k}='{st.aliases[k]}'\n")
        return 0
    status = 0
    for a in args:
        if "=" in a:
            k, _, v = a.partition("=")
            st.aliases[k] = v
        elif a in st.aliases:
            v = st.aliases[a].replace("'", "'\\''")
            out(sh, f"alias {a}='{v}'\n")
        else:
            sh.err(f"alias: {a}: not found")
            status = 1
    return status


def b_unalias(sh: Shell, name: str, args: list[str]) -> int:
    st = sh.state
    if args and args[0] == "--":
        args = args[1:]
    if not args:
        sh.write_err("unalias: usage: unalias [-a] name [name ...]\n")
        return 2
    if args[0] == "-a":
        st.aliases.clear()
        return 0
    status = 0
    for a in args:
        if a in st.aliases:
            del st.aliases[a]
        else:
            sh.err(f"unalias: {a}: not found")
            status = 1
    return status
