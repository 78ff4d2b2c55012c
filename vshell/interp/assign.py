"""Variable assignment: ``x=1``, ``a[i]=v``, ``x+=y`` and ``a=( … )`` with its ``[k]=v`` keys.

Its own module, below :mod:`vshell.interp.simple` (prefix assignments) and the declaration
builtins (``declare -a a=(…)``), which both import it.
"""

from __future__ import annotations

from vshell.interp.control import ShellError
from vshell.lazy import lazy_compile
from vshell.records import cast

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    from vshell.interp.shell import Shell
    from vshell.syntax import ast


_KEYED = lazy_compile(r"(?s)\[((?:[^\]\\]|\\.)*)\](\+?)=")  # `[k]=v` in `a=( … )`


def assign(sh: Shell, a: ast.Assignment, *, local: bool = False) -> None:
    """Perform one assignment in the shell (``x=1``, ``a[i]=v``, ``a=(…)``, ``x+=y``)."""
    st = sh.state
    ex = sh.expander
    if a.index is not None and not a.index.strip():
        raise ShellError(f"{a.name}[{a.index}]: bad array subscript")
    if a.array is not None:
        if a.index is not None:
            raise ShellError(f"{a.name}[{a.index}]: cannot assign list to array member")
        assign_array(sh, a.name, [w.raw for w in a.array], append=a.append, local=local)
        return
    value = ex.word(a.value.raw, assign=True) if a.value is not None else ""
    if a.index is not None:
        v = st.lookup(a.name)
        if v is not None and "A" in v.attrs:
            key = ex.word(a.index)
            st.set_element(a.name, key, value, append=a.append)
        else:
            idx = sh.arith(ex.arith_text(a.index), a.index)
            st.set_element(a.name, idx, value, append=a.append)
        return
    st.set(a.name, value, append=a.append, local=local)


def assign_array(sh: Shell, name: str, raws: list[str], *, append: bool = False,
                 local: bool = False, assoc: bool | None = None) -> None:
    """``name=( … )``: elements expanded as words; ``[k]=v`` sets explicit keys."""
    st = sh.state
    ex = sh.expander
    v = st.lookup(name)
    is_assoc = assoc if assoc is not None else (v is not None and "A" in v.attrs)
    if is_assoc:
        items: dict = {}
        pending_key: str | None = None
        for raw in raws:
            m = _KEYED.match(raw)
            if m:
                key = ex.word(m.group(1))
                val = ex.word(raw[m.end():], assign=True)
                if m.group(2) and key in items:
                    val = items[key] + val
                items[key] = val
            else:
                # bash 5.1+: a plain list of alternating keys and values
                for w in ex.words([raw]):
                    if pending_key is None:
                        pending_key = w
                    else:
                        items[pending_key] = w
                        pending_key = None
        if pending_key is not None:
            items[pending_key] = ""
        st.set_array(name, items, assoc=True, local=local, append=append)
        return
    out: dict[int, str] = {}
    idx = 0
    if append:
        cur = v.value if v is not None else None
        if isinstance(cur, dict) and cur:
            idx = max(cur) + 1  # type: ignore[operator]  # Var.value is dict[int, str] | dict[str, str]; this branch holds one kind
        elif isinstance(cur, str):
            idx = 1
    for raw in raws:
        m = _KEYED.match(raw)
        if m:
            k = sh.arith(ex.arith_text(m.group(1)), m.group(1))
            val = ex.word(raw[m.end():], assign=True)
            if m.group(2):
                val = out.get(k, "") + val
            out[k] = val
            idx = k + 1
            continue
        for w in ex.words([raw]):
            out[idx] = w
            idx += 1
    if append:
        scope_v = st.lookup(name)
        base: dict[int, str] = {}
        if scope_v is not None:
            if isinstance(scope_v.value, dict):
                base = dict(cast("dict[int, str]", scope_v.value))  # an indexed array
            elif isinstance(scope_v.value, str):
                base = {0: scope_v.value}
        base.update(out)
        st.set_array(name, base, local=local)
        return
    st.set_array(name, out, local=local)
