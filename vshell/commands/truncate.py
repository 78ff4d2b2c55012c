"""truncate: shrink or extend the size of files (GNU coreutils: -c -o -r -s with the
``+ - < > / %`` prefixes and K/M/G… suffixes)."""

from __future__ import annotations

import re

from vshell.command import Exit, Invocation
from vshell.commands._lib.futil import enc, quote, quoteaf, strerror
from vshell.commands._lib.helptext import help_text
from vshell.commands._lib.opts import parse

HELP = help_text("truncate")

_SUFFIX = {"": 1}
for _i, _u in enumerate("KMGTPEZYRQ", 1):
    _SUFFIX[_u] = 1024**_i
    _SUFFIX[_u + "iB"] = 1024**_i
    _SUFFIX[_u + "B"] = 1000**_i
_SUFFIX["k"] = 1024
_SUFFIX["kB"] = 1000


_OFF_MAX = 2**63 - 1  # off_t


def parse_size(text: str) -> int:
    m = re.fullmatch(r"\s*([+-]?\d+)([A-Za-z]*)", text)
    if not m or m.group(2) not in _SUFFIX:
        raise ValueError(text)
    return int(m.group(1)) * _SUFFIX[m.group(2)]


def run(inv: Invocation) -> int:
    opts = parse(inv, "cor:s:", ["no-create", "io-blocks", "reference=", "size="],
                 help_text=HELP)
    no_create = opts.has("-c", "--no-create")
    size_text = opts.last("-s", "--size")
    ref = opts.last("-r", "--reference")

    def usage(msg: str) -> Exit:
        inv.stderr.write(enc(f"truncate: {msg}\nTry 'truncate --help' for more information.\n"))
        return Exit(1)

    if size_text is None and ref is None:
        raise usage("you must specify either \u2018--size\u2019 or \u2018--reference\u2019")
    op = ""
    amount = 0
    if size_text is not None:
        t = size_text.lstrip()
        if t[:1] in ("+", "-", "<", ">", "/", "%"):
            op, t = t[0], t[1:]
        try:
            amount = parse_size(t)
        except ValueError:
            raise Exit(1, f"Invalid number: {quote(size_text)}") from None
        if abs(amount) > _OFF_MAX:
            raise Exit(1, f"Invalid number: {quote(size_text)}: "
                          "Value too large for defined data type")
        if op in ("/", "%") and amount == 0:
            raise Exit(1, "division by zero")
        if op == "-" and t.lstrip().startswith("-"):
            raise Exit(1, f"Invalid number: {quote(size_text)}")
    ref_size = None
    if ref is not None:
        try:
            ref_size = inv.fs.stat(inv.abs(ref)).st_size
        except OSError as e:
            raise Exit(1, f"cannot stat {quoteaf(ref)}: {strerror(e)}") from None
    if not opts.operands:
        raise usage("missing file operand")
    status = 0
    fs = inv.fs
    for name in opts.operands:
        path = inv.abs(name)
        try:
            cur = fs.stat(path).st_size
        except FileNotFoundError:
            if no_create:
                continue
            try:
                with fs.open(path, "ab"):
                    pass
            except OSError as e:
                inv.error(f"cannot open {quoteaf(name)} for writing: {strerror(e)}")
                status = 1
                continue
            cur = 0
        except OSError as e:
            inv.error(f"cannot open {quoteaf(name)} for writing: {strerror(e)}")
            status = 1
            continue
        base = ref_size if ref_size is not None else cur
        if size_text is None:
            new = base
        elif op == "":
            new = amount
        elif op == "+":
            new = base + amount
        elif op == "-":
            new = base - amount
        elif op == "<":
            new = min(cur, amount)
        elif op == ">":
            new = max(cur, amount)
        elif op == "/":
            new = base // amount * amount
        else:
            new = -(-base // amount) * amount
        new = max(new, 0)
        try:
            fs.truncate(path, new)
        except OSError as e:
            inv.error(f"failed to truncate {quoteaf(name)} at {new} bytes: {strerror(e)}")
            status = 1
    return status
