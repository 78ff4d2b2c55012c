"""The trivial builtins: ``:``, ``true``, ``false`` and ``echo``."""

from __future__ import annotations

from vshell.interp.builtins.base import out

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    from vshell.interp.shell import Shell


def b_true(sh: Shell, name: str, args: list[str]) -> int:
    return 0


def b_false(sh: Shell, name: str, args: list[str]) -> int:
    return 1


def b_echo(sh: Shell, name: str, args: list[str]) -> int:
    newline = True
    escapes = sh.state.shopt.get("xpg_echo", False)
    i = 0
    while i < len(args):
        a = args[i]
        if len(a) > 1 and a[0] == "-" and all(c in "neE" for c in a[1:]):
            for c in a[1:]:
                if c == "n":
                    newline = False
                elif c == "e":
                    escapes = True
                elif c == "E":
                    escapes = False
            i += 1
            continue
        break
    text = " ".join(args[i:])
    if escapes:
        import vshell.text.escapes as esc

        dec = esc.decode(text, esc.ECHO)
        text = dec.text
        if dec.stop:
            newline = False
    if newline:
        text += "\n"
    out(sh, text)
    return 0
