"""Operand handling shared by cp, mv and ln: SOURCE DEST, SOURCE... DIR, -t DIR, -T."""

from __future__ import annotations

from vshell.command import Exit, Invocation
from vshell.commands._lib.copy import basename
from vshell.commands._lib.futil import child_name, enc, quoteaf


def pairs(
    inv: Invocation, operands: list[str], target_dir: str | None, no_target_dir: bool,
    single_ok: bool = False,
) -> list[tuple[str, str]]:
    """(source, destination) operand pairs, or Exit with GNU's usage complaint."""
    name = inv.name
    fs = inv.fs

    def usage(msg: str) -> Exit:
        inv.stderr.write(enc(f"{name}: {msg}\nTry '{name} --help' for more information.\n"))
        return Exit(1)

    if target_dir is not None:
        if no_target_dir:
            raise usage("cannot combine --target-directory (-t) and --no-target-directory (-T)")
        if not fs.isdir(inv.abs(target_dir)):
            if fs.exists(inv.abs(target_dir)):
                raise Exit(1, f"target directory {quoteaf(target_dir)}: Not a directory")
            raise Exit(1, f"target directory {quoteaf(target_dir)}: No such file or directory")
        if not operands:
            raise usage("missing file operand")
        return [(s, child_name(target_dir, basename(s))) for s in operands]
    if not operands:
        raise usage("missing file operand")
    if len(operands) == 1:
        if single_ok:
            return [(operands[0], basename(operands[0]))]
        raise usage(f"missing destination file operand after {quoteaf(operands[0])}")
    if no_target_dir:
        if len(operands) > 2:
            raise usage(f"extra operand {quoteaf(operands[2])}")
        return [(operands[0], operands[1])]
    *sources, dest = operands
    dest_abs = inv.abs(dest)
    if fs.isdir(dest_abs):
        return [(s, child_name(dest, basename(s))) for s in sources]
    if len(sources) > 1:
        if fs.exists(dest_abs):
            raise Exit(1, f"target {quoteaf(dest)}: Not a directory")
        raise Exit(1, f"target {quoteaf(dest)}: No such file or directory")
    return [(sources[0], dest)]
