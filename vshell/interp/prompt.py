"""Prompt-string expansion (``PS1`` escapes and ``${x@P}``)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from vshell.interp.shell import Shell


def expand_prompt(sh: Shell, s: str) -> str:
    st = sh.state
    out: list[str] = []
    i = 0
    while i < len(s):
        c = s[i]
        if c != "\\" or i + 1 >= len(s):
            out.append(c)
            i += 1
            continue
        e = s[i + 1]
        i += 2
        if e == "u":
            out.append(st.get("USER") or "user")
        elif e in "hH":
            host = st.get("HOSTNAME") or "vshell"
            out.append(host.split(".")[0] if e == "h" else host)
        elif e == "w":
            home = st.get("HOME") or ""
            cwd = st.cwd
            if home and home != "/" and (cwd == home or cwd.startswith(home + "/")):
                cwd = "~" + cwd[len(home):]
            out.append(cwd)
        elif e == "W":
            out.append(st.cwd.rsplit("/", 1)[-1] or "/")
        elif e == "$":
            out.append("$")
        elif e == "n":
            out.append("\n")
        elif e == "s":
            out.append("vshell")
        elif e == "t":
            out.append(time.strftime("%H:%M:%S"))
        elif e == "\\":
            out.append("\\")
        elif e in "[]":
            pass
        elif e == "e":
            out.append("\x1b")
        else:
            out.append("\\" + e)
    text = "".join(out)
    if "$" in text and st.shopt.get("promptvars"):
        try:
            text = sh.expander.word('"' + text.replace('"', '\\"') + '"')
        except Exception:  # noqa: BLE001 - a bad prompt must not break the shell
            pass
    return text
