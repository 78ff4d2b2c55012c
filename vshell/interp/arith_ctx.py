"""The shell side of arithmetic: how ``$(( ))`` reads and assigns shell variables."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from vshell.interp.fatal import UnboundError

if TYPE_CHECKING:
    from vshell.interp.shell import Shell


class ShellArithContext:
    """Implements :class:`vshell.interp.arith.ArithContext` over a shell's variables."""

    def __init__(self, sh: Shell) -> None:
        self.sh = sh
        self.state = sh.state  # a shell's state is never replaced

    def _is_assoc(self, name: str) -> bool:
        v = self.sh.state.lookup(name)
        return v is not None and "A" in v.attrs

    def _key(self, name: str, subscript: str) -> str | int:
        if self._is_assoc(name):
            return self.sh.expander.word(subscript) if "$" in subscript else subscript
        return self.sh.arith(self.sh.expander.arith_text(subscript), subscript)

    def get(self, name: str, subscript: str | None) -> str | None:
        st = self.state
        if subscript is None:
            if name.isdigit():
                k = int(name)
                return st.positional[k - 1] if 0 < k <= len(st.positional) else None
            return st.get(name)
        v = st.lookup(name)
        key = self._key(name, subscript)
        if v is None:
            return None
        val = v.value
        if isinstance(val, dict):
            if isinstance(key, int) and key < 0 and "A" not in v.attrs:
                top = max(val) + 1 if val else 0  # type: ignore[operator]  # Var.value is dict[int, str] | dict[str, str]; this branch holds one kind
                key = top + key
            elements = cast("dict[Any, str]", val)  # indexed (int keys) or associative (str)
            return elements.get(key if "A" not in v.attrs else str(key))
        if key == 0:
            return val
        return None

    def set(self, name: str, subscript: str | None, value: int) -> None:
        st = self.state
        if subscript is None:
            st.set(name, str(value))
            return
        key = self._key(name, subscript)
        st.set_element(name, key if isinstance(key, int) else str(key), str(value))

    def resolve_subscript(self, name: str, subscript: str) -> str:
        """Evaluate a subscript once (so ``a[i++]++`` increments i once)."""
        return str(self._key(name, subscript))

    def nounset_error(self, name: str) -> None:
        if self.sh.state.lookup(name) is not None:
            return
        if self.sh.state.options.get("nounset"):
            raise UnboundError(f"{name}: unbound variable")
