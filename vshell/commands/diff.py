"""diff: compare files line by line (GNU diffutils output: normal, unified, context,
side-by-side and brief).

The change list comes from :mod:`vshell.commands._lib.diffcore` (GNU's algorithm), so hunks
match GNU diff's; directories are compared with ``-r`` the way GNU walks them.
"""

from __future__ import annotations

import datetime as _dt
import re
import stat as _stat
import time

from vshell.command import Exit, Invocation
from vshell.commands._lib import textio as tio
from vshell.commands._lib.diffcore import Change
from vshell.commands._lib.diffcore import diff as core_diff
from vshell.commands._lib.futil import child_name
from vshell.commands._lib.opts import switches
from vshell.records import record
from vshell.text import glob, regex

_LONG = ["side-by-side", "width=", "suppress-common-lines",
         "brief", "report-identical-files", "unified=?", "context=?", "normal", "ignore-case",
         "ignore-all-space", "ignore-space-change", "ignore-blank-lines", "text", "new-file",
         "recursive", "label=", "minimal", "strip-trailing-cr", "ignore-trailing-space",
         "ignore-tab-expansion", "ignore-matching-lines=", "exclude=", "unidirectional-new-file",
         "speed-large-files", "horizon-lines=", "no-dereference", "color=?"]

# the options that only turn a switch on, and the _Opts field each one sets
_SWITCHES = switches(brief="-q --brief", identical="-s --report-identical-files",
                     icase="-i --ignore-case", all_space="-w --ignore-all-space",
                     space_change="-b --ignore-space-change", trailing="-Z --ignore-trailing-space",
                     tabexp="-E --ignore-tab-expansion", blank="-B --ignore-blank-lines",
                     text="-a --text", new_file="-N --new-file", unidir="--unidirectional-new-file",
                     recursive="-r --recursive", minimal="-d --minimal",
                     strip_cr="--strip-trailing-cr", suppress_common="--suppress-common-lines")
# the options that choose the output format (-U/-C and --unified=N/--context=N set context too)
_FORMATS = {
    "-u": "unified", "--unified": "unified", "-U": "unified",
    "-c": "context", "--context": "context", "-C": "context",
    "--normal": "normal",
    "-y": "side", "--side-by-side": "side",
}


@record
class _Opts:
    fmt: str = "normal"
    context: int = 3
    brief: bool = False
    identical: bool = False
    icase: bool = False
    all_space: bool = False
    space_change: bool = False
    trailing: bool = False
    tabexp: bool = False
    blank: bool = False
    text: bool = False
    new_file: bool = False
    unidir: bool = False
    recursive: bool = False
    minimal: bool = False
    strip_cr: bool = False
    labels: tuple[str | None, str | None] = (None, None)
    ignore_re: list[regex.Regex] | None = None
    exclude: list[str] | None = None
    switches: str = ""
    width: int = 130
    suppress_common: bool = False


class _File:
    """One side of a comparison: its lines and whether the last one lacks a newline."""

    def __init__(self, data: bytes, strip_cr: bool) -> None:
        self.data = data
        lines = data.split(b"\n")
        self.noeol = lines[-1] != b""
        if not self.noeol:
            lines.pop()
        if strip_cr:
            lines = [x[:-1] if x.endswith(b"\r") else x for x in lines]
        self.lines = lines


def _parse(inv: Invocation) -> tuple[_Opts, list[str]]:
    opts = tio.options(inv, "abBcC:dEiI:lNqrsStTuU:wW:x:yZ0123456789L:", _LONG + ["from-file=",
                                                                      "to-file="],
                       usage_status=2)
    o = _Opts()
    labels: list[str] = []
    digits = ""
    for k, v in opts.items:
        if len(k) == 2 and k[1].isdigit():
            digits += k[1]
            o.context = int(digits)
            continue
        digits = ""
        if k in _SWITCHES:
            setattr(o, _SWITCHES[k], True)
        elif k in _FORMATS:
            o.fmt = _FORMATS[k]
            if k in ("-U", "-C"):
                o.context = _ctx_num(inv, v or "")
            elif v is not None:  # --unified=N, --context=N
                o.context = _ctx_num(inv, v)
        elif k in ("-I", "--ignore-matching-lines"):
            try:  # GNU diff -I: a basic regular expression
                o.ignore_re = (o.ignore_re or []) + [regex.compile(v or "", "bre")]
            except regex.RegexError as e:
                raise Exit(2, str(e)) from None
        elif k in ("-L", "--label"):
            labels.append(v or "")
        elif k in ("-x", "--exclude"):
            o.exclude = (o.exclude or []) + [v or ""]
        elif k in ("-W", "--width"):
            if not (v or "").isdigit() or int(v or "0") == 0:
                raise _usage(inv, f"invalid width {_q(v or '')}")
            o.width = int(v or "0")
        elif k == "--color" and v in ("never", "auto"):
            pass  # output never goes to a terminal here, so auto means never
        elif k in ("-l", "-t", "-T", "-S", "--from-file", "--to-file", "--color"):
            raise Exit(2, f"option {k} is not supported by vshell")
    if len(labels) > 2:
        raise Exit(2, "too many file label options")
    o.labels = (labels[0] if labels else None, labels[1] if len(labels) > 1 else None)
    ops = opts.operands
    args = list(inv.args)
    o.switches = "".join(" " + _shq(a) for a in _option_args(args, ops))
    return o, ops


def _option_args(args: list[str], operands: list[str]) -> list[str]:
    """The option words as given (GNU prints them again in ``diff -r`` headers)."""
    rest = list(operands)
    out = []
    dd = False
    for a in args:
        if dd:
            continue
        if a == "--":
            dd = True
            continue
        if rest and a == rest[0] and not (a.startswith("-") and a != "-"):
            rest.pop(0)
            continue
        out.append(a)
    return out


def _ctx_num(inv: Invocation, v: str) -> int:
    if not v.isdigit():
        raise _usage(inv, f"invalid context length {_q(v)}")
    return int(v)


def _usage(inv: Invocation, message: str) -> Exit:
    """Report a usage error the GNU way (the message, then the --help hint): status 2."""
    inv.error(message)
    inv.stderr.write(b"diff: Try 'diff --help' for more information.\n")
    return Exit(2)


def _q(s: str) -> str:
    """diffutils' quoting in the C.UTF-8 locale: ASCII single quotes."""
    return "'" + s.replace("'", "'\\''") + "'"


_SAFE = re.compile(r"[A-Za-z0-9_%+,\-./:@]+\Z")


def _shq(s: str) -> str:
    """Shell quoting of an option word when it needs it (GNU's switch string)."""
    return s if _SAFE.match(s) else _q(s)


def run(inv: Invocation) -> int:
    """The command; a back-reference search inside it stops with the run's timeout."""
    with regex.cancellable(inv.cancel.check):
        return _run(inv)


def _run(inv: Invocation) -> int:
    o, ops = _parse(inv)
    if len(ops) < 2:
        after = _q(ops[-1]) if ops else "'diff'"
        _usage(inv, f"missing operand after {after}")
        return 2
    if len(ops) > 2:
        _usage(inv, f"extra operand {_q(ops[2])}")
        return 2
    a, b = ops
    return _compare_top(inv, o, a, b)


def _isdir(inv: Invocation, name: str) -> bool:
    return name != "-" and inv.fs.isdir(inv.abs(name))


def _compare_top(inv: Invocation, o: _Opts, a: str, b: str) -> int:
    da, db = _isdir(inv, a), _isdir(inv, b)
    if da and db:
        return _compare_dirs(inv, o, a, b, top=True)
    if da and not db:
        a = child_name(a, b.rstrip("/").rsplit("/", 1)[-1]) if b != "-" else a
        if b == "-":
            inv.error("cannot compare '-' to a directory")
            return 2
    elif db and not da:
        if a == "-":
            inv.error("cannot compare '-' to a directory")
            return 2
        b = child_name(b, a.rstrip("/").rsplit("/", 1)[-1])
    return _compare_files(inv, o, a, b, in_dir=False)


def _read(inv: Invocation, name: str) -> bytes:
    f = tio.open_input(inv, name)
    try:
        return b"".join(tio.chunks(inv, f))
    finally:
        tio.close_input(inv, f)


def _stamp(inv: Invocation, name: str, absent: bool = False) -> str:
    try:
        if absent:
            ns = 0
        elif name == "-":
            ns = time.time_ns()
        else:
            st = inv.fs.stat(inv.abs(name))
            ns = getattr(st, "st_mtime_ns", None) or int(st.st_mtime * 1e9)
    except OSError:
        ns = 0
    tz = _tz(inv.env.get("TZ", "UTC"))
    t = _dt.datetime.fromtimestamp(ns // 1_000_000_000, tz)
    return t.strftime("%Y-%m-%d %H:%M:%S") + f".{ns % 1_000_000_000:09d} " + t.strftime("%z")


def _tz(name: str) -> _dt.tzinfo:
    if name in ("", "UTC", "UTC0", "GMT", "Etc/UTC", ":UTC"):
        return _dt.UTC
    try:
        from zoneinfo import ZoneInfo

        return ZoneInfo(name.lstrip(":"))
    except Exception:  # an unknown zone falls back to UTC, as glibc does
        return _dt.UTC


def _compare_files(inv: Invocation, o: _Opts, a: str, b: str, in_dir: bool,
                   missing: int | None = None) -> int:
    datas: list[bytes] = []
    for idx, name in enumerate((a, b)):
        if missing == idx:
            datas.append(b"")
            continue
        try:
            datas.append(_read(inv, name))
        except IsADirectoryError:
            datas.append(b"")
        except FileNotFoundError as e:
            if (o.new_file or (o.unidir and idx == 0)) and name != "-":
                other = b if idx == 0 else a
                if other == "-" or inv.fs.exists(inv.abs(other)):
                    datas.append(b"")
                    missing = idx
                    continue
            inv.error(f"{name}: {tio.strerror(e)}")
            return 2
        except OSError as e:
            inv.error(f"{name}: {tio.strerror(e)}")
            return 2
    da, db = datas
    na = o.labels[0] if o.labels[0] is not None else a
    nb = o.labels[1] if o.labels[1] is not None else b
    if da == db and not (o.strip_cr):
        if o.fmt == "side" and not o.brief and not (b"\0" in da[:65536] and not o.text):
            same_file = _File(da, False)
            out_s: list[bytes] = []
            _side_by_side(out_s, same_file, same_file, [], o)
            inv.stdout.write(b"".join(out_s))
        if o.identical:
            inv.stdout.write(f"Files {na} and {nb} are identical\n".encode(
                "utf-8", "surrogateescape"))
        return 0
    binary = not o.text and (b"\0" in da[:65536] or b"\0" in db[:65536])
    if binary or o.brief:
        if binary and not o.brief:
            inv.stdout.write(f"Binary files {na} and {nb} differ\n".encode(
                "utf-8", "surrogateescape"))
            return 1
        fa, fb = _File(da, o.strip_cr), _File(db, o.strip_cr)
        if not binary and not _changes(o, fa, fb)[1]:
            return 0
        inv.stdout.write(f"Files {na} and {nb} differ\n".encode("utf-8", "surrogateescape"))
        return 1
    fa, fb = _File(da, o.strip_cr), _File(db, o.strip_cr)
    changes, real = _changes(o, fa, fb)
    if not real:
        if o.fmt == "side":
            out_s = []
            _side_by_side(out_s, fa, fb, changes, o)
            inv.stdout.write(b"".join(out_s))
        if o.identical and not changes:
            inv.stdout.write(f"Files {na} and {nb} are identical\n".encode())
        return 0
    out: list[bytes] = []
    if in_dir:
        out.append(f"diff{o.switches} {na} {nb}\n".encode("utf-8", "surrogateescape"))
    if o.fmt == "normal":
        _normal(out, fa, fb, changes)
    elif o.fmt == "side":
        _side_by_side(out, fa, fb, changes, o)
    else:
        la = o.labels[0] if o.labels[0] is not None else f"{a}\t{_stamp(inv, a, missing == 0)}"
        lb = o.labels[1] if o.labels[1] is not None else f"{b}\t{_stamp(inv, b, missing == 1)}"
        if o.fmt == "unified":
            out.append(f"--- {la}\n+++ {lb}\n".encode("utf-8", "surrogateescape"))
            _hunks(out, fa, fb, changes, o.context, _unified_hunk)
        else:
            out.append(f"*** {la}\n--- {lb}\n".encode("utf-8", "surrogateescape"))
            _hunks(out, fa, fb, changes, o.context, _context_hunk)
    inv.stdout.write(b"".join(out))
    return 1


def _key_fn(o: _Opts):
    def key(line: bytes) -> bytes:
        if o.tabexp and b"\t" in line:
            line = line.expandtabs(8)
        if o.all_space:
            line = re.sub(rb"[ \t\v\f\r]+", b"", line)
        elif o.space_change:
            line = re.sub(rb"[ \t\v\f\r]+", b" ", line).rstrip(b" ")
        elif o.trailing:
            line = line.rstrip(b" \t\v\f\r")
        if o.icase:
            line = line.lower()
        return line

    plain = not (o.tabexp or o.all_space or o.space_change or o.trailing or o.icase)
    return None if plain else key


def _changes(o: _Opts, fa: _File, fb: _File) -> tuple[list[tuple[Change, bool]], bool]:
    """The changes with an 'ignorable' flag, and whether any is not ignorable."""
    key = _key_fn(o)

    def keys(f: _File) -> list[object]:
        ks: list[object] = list(f.lines) if key is None else [key(x) for x in f.lines]
        if f.noeol and ks:
            ks[-1] = (ks[-1], "noeol")
        return ks

    changes = core_diff(keys(fa), keys(fb), minimal=o.minimal,
                        horizon=o.context if o.fmt in ("unified", "context") else 0)
    out = []
    real = False
    for c in changes:
        ign = False
        if o.blank or o.ignore_re:
            lines = fa.lines[c.line0:c.line0 + c.deleted] + fb.lines[c.line1:c.line1 + c.inserted]
            ign = all(_ignorable(o, x) for x in lines)
        out.append((c, ign))
        real = real or not ign
    return out, real


def _ignorable(o: _Opts, line: bytes) -> bool:
    if o.blank and not line.strip(b" \t\v\f\r" if (o.all_space or o.space_change or o.trailing)
                                  else b""):
        return True
    if o.ignore_re:
        try:
            return any(r.search(line) for r in o.ignore_re)
        except regex.TooComplex:
            raise Exit(2, regex.TOO_COMPLEX) from None
    return False


def _lines(out: list[bytes], f: _File, start: int, end: int, prefix: bytes) -> None:
    for i in range(start, end):
        out.append(prefix + f.lines[i] + b"\n")
        if f.noeol and i == len(f.lines) - 1:
            out.append(b"\\ No newline at end of file\n")


def _rng(a: int, b: int) -> str:
    """Normal-format range of 1-based lines a..b."""
    return str(a) if a >= b else f"{a},{b}"


def _normal(out: list[bytes], fa: _File, fb: _File, changes: list[tuple[Change, bool]]) -> None:
    for c, ign in changes:
        if ign:
            continue
        if c.deleted and c.inserted:
            left = _rng(c.line0 + 1, c.line0 + c.deleted)
            head = f"{left}c{_rng(c.line1 + 1, c.line1 + c.inserted)}"
        elif c.deleted:
            head = f"{_rng(c.line0 + 1, c.line0 + c.deleted)}d{c.line1}"
        else:
            head = f"{c.line0}a{_rng(c.line1 + 1, c.line1 + c.inserted)}"
        out.append(head.encode() + b"\n")
        _lines(out, fa, c.line0, c.line0 + c.deleted, b"< ")
        if c.deleted and c.inserted:
            out.append(b"---\n")
        _lines(out, fb, c.line1, c.line1 + c.inserted, b"> ")


def _hunks(out, fa: _File, fb: _File, changes: list[tuple[Change, bool]], ctx: int, printer):
    i = 0
    n = len(changes)
    while i < n:
        j = i
        while j + 1 < n:
            cur = changes[j][0]
            nxt, nign = changes[j + 1]
            thresh = ctx if nign else 2 * ctx + 1
            if nxt.line0 - (cur.line0 + cur.deleted) < thresh:
                j += 1
            else:
                break
        hunk = changes[i:j + 1]
        i = j + 1
        if all(ign for _, ign in hunk):
            continue
        printer(out, fa, fb, [c for c, _ in hunk], ctx)


def _bounds(fa: _File, fb: _File, hunk: list[Change], ctx: int) -> tuple[int, int, int, int]:
    first, last = hunk[0], hunk[-1]
    f0 = max(0, first.line0 - ctx)
    f1 = first.line1 - (first.line0 - f0)
    e0 = last.line0 + last.deleted  # exclusive end of the changes in file 0
    e1 = last.line1 + last.inserted
    l0 = min(len(fa.lines), e0 + ctx)
    l1 = e1 + (l0 - e0)
    return f0, l0, f1, l1


def _uni_range(start: int, end: int) -> str:
    count = end - start
    if count == 0:
        return f"{start},0"
    if count == 1:
        return str(start + 1)
    return f"{start + 1},{count}"


def _unified_hunk(out, fa: _File, fb: _File, hunk: list[Change], ctx: int) -> None:
    f0, l0, f1, l1 = _bounds(fa, fb, hunk, ctx)
    out.append(f"@@ -{_uni_range(f0, l0)} +{_uni_range(f1, l1)} @@\n".encode())
    i0 = f0
    for c in hunk:
        _lines(out, fa, i0, c.line0, b" ")
        _lines(out, fa, c.line0, c.line0 + c.deleted, b"-")
        _lines(out, fb, c.line1, c.line1 + c.inserted, b"+")
        i0 = c.line0 + c.deleted
    _lines(out, fa, i0, l0, b" ")


def _ctx_range(start: int, end: int) -> str:
    a, b = start + 1, end
    if b <= a:
        return str(b)
    return f"{a},{b}"


def _context_hunk(out, fa: _File, fb: _File, hunk: list[Change], ctx: int) -> None:
    f0, l0, f1, l1 = _bounds(fa, fb, hunk, ctx)
    out.append(b"***************\n")
    out.append(f"*** {_ctx_range(f0, l0)} ****\n".encode())
    if any(c.deleted for c in hunk):
        _context_side(out, fa, f0, l0, [(c.line0, c.deleted, c.inserted) for c in hunk], b"- ")
    out.append(f"--- {_ctx_range(f1, l1)} ----\n".encode())
    if any(c.inserted for c in hunk):
        _context_side(out, fb, f1, l1, [(c.line1, c.inserted, c.deleted) for c in hunk], b"+ ")


def _context_side(out: list[bytes], f: _File, first: int, last: int,
                  spans: list[tuple[int, int, int]], mark: bytes) -> None:
    """One side of a context hunk: each span (start, own lines, other side's lines) marked
    ``mark``, or ``! `` where the other side changed too; the lines between as context."""
    i = first
    for start, count, other in spans:
        _lines(out, f, i, start, b"  ")
        _lines(out, f, start, start + count, b"! " if other else mark)
        i = start + count
    _lines(out, f, i, last, b"  ")


def _half_line(out: list[str], text: str, indent: int, bound: int) -> int:
    """GNU print_half_line: copy ``text`` clipped to column ``bound``; tabs kept if they fit."""
    in_pos = out_pos = indent
    for ch in text:
        if ch == "\t":
            spaces = 8 - in_pos % 8
            if in_pos == out_pos:
                stop = out_pos + spaces
                if stop < bound:
                    out_pos = stop
                    out.append(ch)
            in_pos += spaces
        elif ch == "\r":
            out.append(ch)
            in_pos = out_pos = 0
        elif ch == "\b":
            if in_pos != 0:
                in_pos -= 1
                if in_pos < out_pos:
                    out_pos = in_pos
                    out.append(ch)
        else:
            from vshell.commands._lib.width import char_width

            w = char_width(ch)
            if w < 0:
                w = 0 if ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0 else 1
            if in_pos + w <= bound:
                out.append(ch)
                out_pos = in_pos + w
            in_pos += w
    return out_pos


def _tab_to(out: list[str], frm: int, to: int) -> int:
    tab = frm + 8 - frm % 8
    while tab <= to:
        out.append("\t")
        frm = tab
        tab += 8
    if frm < to:
        out.append(" " * (to - frm))
    return to


def _side_by_side(out: list[bytes], fa: _File, fb: _File, changes, o: _Opts) -> None:
    width = o.width
    off = (width + 8 + 3) // 16 * 8
    hw = max(0, min(off - 3, width - off))
    c2o = off if hw else width

    def text(f: _File, i: int) -> tuple[str, bool]:
        nl = not (f.noeol and i == len(f.lines) - 1)
        return f.lines[i].decode("utf-8", "surrogateescape"), nl

    def line(left: int | None, sep: str, right: int | None) -> None:
        parts: list[str] = []
        col = 0
        put_nl = False
        if left is not None:
            lt, lnl = text(fa, left)
            put_nl = put_nl or lnl
            col = _half_line(parts, lt, 0, hw)
        if sep != " ":
            col = _tab_to(parts, col, (hw + c2o - 1) // 2) + 1
            if sep == "|" and right is not None and put_nl != text(fb, right)[1]:
                sep = "/" if put_nl else "\\"
            parts.append(sep)
        if right is not None:
            rt, rnl = text(fb, right)
            put_nl = put_nl or rnl
            if rt:
                col = _tab_to(parts, col, c2o)
                _half_line(parts, rt, col, hw + c2o)
        if put_nl:
            parts.append("\n")
        out.append("".join(parts).encode("utf-8", "surrogateescape"))

    i0 = i1 = 0
    for c, ign in changes + [(Change(len(fa.lines), len(fb.lines), 0, 0), False)]:
        while i0 < c.line0:
            if not o.suppress_common:
                line(i0, " ", i1)
            i0 += 1
            i1 += 1
        if ign and not (c.deleted or c.inserted):
            continue
        k = min(c.deleted, c.inserted)
        for j in range(k):
            line(c.line0 + j, "|", c.line1 + j)
        for j in range(k, c.deleted):
            line(c.line0 + j, "<", None)
        for j in range(k, c.inserted):
            line(None, ">", c.line1 + j)
        i0 = c.line0 + c.deleted
        i1 = c.line1 + c.inserted


def _kind(inv: Invocation, path: str) -> str | None:
    try:
        st = inv.fs.stat(inv.abs(path))
    except OSError:
        return None
    if _stat.S_ISDIR(st.st_mode):
        return "directory"
    if _stat.S_ISREG(st.st_mode):
        return "regular empty file" if st.st_size == 0 else "regular file"
    if _stat.S_ISFIFO(st.st_mode):
        return "fifo"
    if _stat.S_ISCHR(st.st_mode):
        return "character special file"
    return "file"


def _subdirs(inv: Invocation, o: _Opts, pa: str, pb: str) -> int:
    """Two subdirectories met in a walk: compared with -r, else only named (status 0)."""
    if o.recursive:
        return _compare_dirs(inv, o, pa, pb)
    inv.stdout.write(f"Common subdirectories: {pa} and {pb}\n".encode("utf-8", "surrogateescape"))
    return 0


def _compare_dirs(inv: Invocation, o: _Opts, a: str, b: str, top: bool = False) -> int:
    inv.cancel.check()
    names: list[set[str]] = []
    for d in (a, b):
        try:
            names.append(set(inv.fs.listdir(inv.abs(d))))
        except FileNotFoundError:
            names.append(set())
        except OSError as e:
            inv.error(f"{d}: {tio.strerror(e)}")
            return 2
    if o.exclude:
        names = [{n for n in s if not any(glob.fnmatch(p, n) for p in o.exclude)}
                 for s in names]
    status = 0
    for name in sorted(names[0] | names[1], key=lambda s: s.encode("utf-8", "surrogateescape")):
        pa, pb = child_name(a, name), child_name(b, name)
        ina, inb = name in names[0], name in names[1]
        if not (ina and inb):
            present, d = (pa, a) if ina else (pb, b)
            kind = _kind(inv, present)
            if (o.new_file or (o.unidir and inb)) and kind is not None:
                if kind == "directory":
                    status = max(status, _subdirs(inv, o, pa, pb))
                    continue
                else:
                    status = max(status, _compare_files(inv, o, pa, pb, True,
                                                        missing=1 if ina else 0))
                    continue
            inv.stdout.write(f"Only in {d}: {name}\n".encode("utf-8", "surrogateescape"))
            status = max(status, 1)
            continue
        ka, kb = _kind(inv, pa), _kind(inv, pb)
        if ka == "directory" and kb == "directory":
            status = max(status, _subdirs(inv, o, pa, pb))
            continue
        if ka == "directory" or kb == "directory":
            la = o.labels[0] if o.labels[0] is not None else pa
            lb = o.labels[1] if o.labels[1] is not None else pb
            inv.stdout.write(f"File {la} is a {ka} while file {lb} is a {kb}\n".encode(
                "utf-8", "surrogateescape"))
            status = max(status, 1)
            continue
        status = max(status, _compare_files(inv, o, pa, pb, True))
    return status
