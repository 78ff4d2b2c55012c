"""mktemp: create a temporary file or directory (GNU coreutils: -d -u -q -p -t --tmpdir
--suffix).  The default directory is ``$TMPDIR`` or ``/tmp`` of the sandbox."""

from __future__ import annotations

import errno
import secrets
import string

from vshell.command import Exit, Invocation
from vshell.commands._lib.futil import enc, quote, strerror
from vshell.commands._lib.helptext import help_text
from vshell.commands._lib.opts import parse

HELP = help_text("mktemp")

_CHARS = string.ascii_letters + string.digits


def run(inv: Invocation) -> int:
    opts = parse(inv, "dup:qt", ["directory", "dry-run", "quiet", "suffix=", "tmpdir=?"],
                 help_text=HELP)
    make_dir = opts.has("-d", "--directory")
    dry = opts.has("-u", "--dry-run")
    quiet = opts.has("-q", "--quiet")
    suffix = opts.last("--suffix")
    use_t = opts.has("-t")
    tmpdir: str | None = None
    for key, val in opts.items:
        if key in ("-p", "--tmpdir"):
            tmpdir = val if val else ""
    if len(opts.operands) > 1:
        inv.stderr.write(enc("mktemp: too many templates\n"
                             "Try 'mktemp --help' for more information.\n"))
        return 1
    if opts.operands:
        template = opts.operands[0]
    else:
        template = "tmp.XXXXXXXXXX"
        if tmpdir is None:
            tmpdir = ""
    if suffix is not None:
        if "/" in suffix:
            raise Exit(1, f"invalid suffix {quote(suffix)}, contains directory separator")
        if not template.endswith("X"):
            raise Exit(1, f"with --suffix, template {quote(template)} must end in X")
        template += suffix
        suff_len = len(suffix)
    else:
        last_x = template.rfind("X")
        suff_len = len(template) - last_x - 1 if last_x >= 0 else 0
    if use_t and "/" in template:
        raise Exit(1, f"invalid template, {quote(template)}, contains directory separator")
    if use_t or tmpdir is not None:
        if use_t:
            tmpdir = inv.env.get("TMPDIR") or tmpdir or "/tmp"
        elif not tmpdir:
            tmpdir = inv.env.get("TMPDIR") or "/tmp"
        if template.startswith("/"):
            raise Exit(1, f"invalid template, {quote(template)}; with --tmpdir, "
                          "it may not be absolute")
        full = tmpdir.rstrip("/") + "/" + template
    else:
        full = template
    body = full[: len(full) - suff_len] if suff_len else full
    xs = len(body) - len(body.rstrip("X"))
    if xs < 3:
        raise Exit(1, f"too few X's in template {quote(template)}")
    prefix = body[:-xs]
    tail = full[len(body):]
    for _ in range(100):
        inv.cancel.check()
        name = prefix + "".join(secrets.choice(_CHARS) for _ in range(xs)) + tail
        if dry:
            inv.stdout.write(enc(name) + b"\n")
            return 0
        path = inv.abs(name)
        try:
            if make_dir:
                inv.fs.mkdir(path, 0o700)
                inv.fs.chmod(path, 0o700)
            else:
                with inv.fs.open(path, "xb"):
                    pass
                inv.fs.chmod(path, 0o600)
        except FileExistsError:
            continue
        except OSError as e:
            if not quiet:
                what = "directory" if make_dir else "file"
                inv.error(f"failed to create {what} via template {quote(full)}: {strerror(e)}")
            return 1
        inv.stdout.write(enc(name) + b"\n")
        return 0
    if not quiet:
        inv.error(f"failed to create file via template {quote(full)}: "
                  f"{strerror(OSError(errno.EEXIST, ''))}")
    return 1
