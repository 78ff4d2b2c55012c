"""df: report the sandbox's mounts (GNU-style table; -h -T -k -P accepted).

The VFS does not expose host file-system statistics (they would leak host details), so
a host mount's size columns print ``-``, as GNU df does for a file system without numbers.
In-memory mounts show the sandbox's memory budget (``--memory-fs-limit``), which they all
share.  The "Filesystem" column names the backend kind (``host`` or ``memory``) and ``-T``
shows ``rw``/``ro``.
"""

from __future__ import annotations

from vshell.command import Invocation
from vshell.commands._lib.futil import enc, quotef
from vshell.commands._lib.futil import human as futil_human
from vshell.commands._lib.helptext import help_text
from vshell.commands._lib.opts import parse

HELP = help_text("df")


def _vpath(mount: object) -> str:
    return str(getattr(mount, "vpath", None) or getattr(mount, "path", "/"))


def _kind(mount: object) -> str:
    backend = type(getattr(mount, "backend", None)).__name__.lower()
    if "host" in backend:
        return "host"
    if "memory" in backend or "fake" in backend:
        return "memory"
    return "vshell"


def _sizes(mount: object, human: bool) -> list[str]:
    """Size, used, available and use% of a memory mount's budget; dashes otherwise."""
    budget = getattr(getattr(mount, "backend", None), "budget", None)
    capacity = getattr(budget, "capacity", None)
    if budget is None or capacity is None or _kind(mount) != "memory":
        return ["-", "-", "-", "-"]
    used = min(budget.used, capacity)
    pct = "-" if not capacity else f"{-(-used * 100 // capacity)}%"
    if human:
        return [futil_human(capacity), futil_human(used), futil_human(capacity - used), pct]
    size_k = capacity // 1024
    used_k = -(-used // 1024)
    return [str(size_k), str(used_k), str(max(size_k - used_k, 0)), pct]


def run(inv: Invocation) -> int:
    o = parse(inv, "ahkPT", ["all", "human-readable", "portability", "print-type"],
              help_text=HELP)
    human = o.has("-h", "--human-readable")
    types = o.has("-T", "--print-type")
    fs = inv.fs
    mounts = list(getattr(fs, "mounts", []))
    status = 0
    if o.operands:
        chosen = []
        for op in o.operands:
            try:
                inv.fs.stat(inv.abs(op))
                chosen.append(fs.mount_for(inv.abs(op))[0])
            except OSError as e:
                inv.error(f"{quotef(op)}: {e.strerror or 'No such file or directory'}")
                status = 1
        mounts = chosen
    else:
        mounts.sort(key=lambda m: _vpath(m))
    header = ["Filesystem"]
    if types:
        header.append("Type")
    header += ["Size", "Used", "Avail", "Use%"] if human else [
        "1K-blocks", "Used", "Available", "Use%"]
    header.append("Mounted on")
    rows = [header]
    for m in mounts:
        row = [_kind(m)]
        if types:
            row.append("ro" if getattr(m, "readonly", False) else "rw")
        row += _sizes(m, human) + [_vpath(m)]
        rows.append(row)
    if len(rows) == 1:
        return status
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    widths[0] = max(widths[0], 14)
    lines = []
    for r in rows:
        cells = [r[0].ljust(widths[0])]
        j = 1
        if types:
            cells.append(r[1].ljust(widths[1]))
            j = 2
        for i in range(j, len(r) - 1):
            cells.append(r[i].rjust(widths[i]))
        cells.append(r[-1])
        lines.append(" ".join(cells))
    inv.stdout.write(enc("\n".join(lines) + "\n"))
    return status
