"""patch: apply unified (or normal) diffs the way GNU patch 2.7.6 reports them.

Hunks apply at their position or at the nearest offset, searching outward as GNU does,
then with up to ``-F`` (default 2) lines of outer context ignored; failures go to
``FILE.rej``.  File names from the patch are
untrusted: a leading ``/`` is dropped and any ``..`` component refuses the name.
"""

from __future__ import annotations

import re

from vshell.command import Exit, Invocation
from vshell.commands._lib import textio as tio
from vshell.commands._lib.futil import last_switch
from vshell.records import field, record

_HUNK = re.compile(rb"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_NORMAL = re.compile(rb"(\d+)(?:,(\d+))?([acd])(\d+)(?:,(\d+))?\Z")
_CTX_OLD = re.compile(rb"\*\*\* (\d+)(?:,(\d+))? \*\*\*\*\Z")
_CTX_NEW = re.compile(rb"--- (\d+)(?:,(\d+))? ----\Z")


@record
class Hunk:
    old_start: int
    old_count: int
    new_start: int
    new_count: int
    lines: list[tuple[str, bytes]]  # (tag, line with its newline or without at EOF)
    header: bytes = b""
    normal: bool = False
    context: bool = False

    def old(self) -> list[bytes]:
        return [t for tag, t in self.lines if tag in " -"]

    def new(self) -> list[bytes]:
        return [t for tag, t in self.lines if tag in " +"]

    def reversed(self) -> Hunk:
        sw = {"-": "+", "+": "-", " ": " "}
        lines = [(sw[t], x) for t, x in self.lines]
        # keep deletions before insertions in each run
        return Hunk(self.new_start, self.new_count, self.old_start, self.old_count,
                    _reorder(lines), self.header, self.normal, self.context)


def _reorder(lines: list[tuple[str, bytes]]) -> list[tuple[str, bytes]]:
    out: list[tuple[str, bytes]] = []
    run: list[tuple[str, bytes]] = []
    for item in lines + [(" ", b"")]:
        if item[0] == " ":
            out += [x for x in run if x[0] == "-"] + [x for x in run if x[0] == "+"]
            run = []
            out.append(item)
        else:
            run.append(item)
    return out[:-1]


@record
class FilePatch:
    old: bytes | None = None
    new: bytes | None = None
    old_rest: bytes = b""
    new_rest: bytes = b""
    index: bytes | None = None
    leading: list[bytes] = field(default_factory=list)
    hunks: list[Hunk] = field(default_factory=list)
    first_hunk_line: int = 0

    def add_hunk(self, hunk: Hunk, line: int) -> None:
        """Append a hunk; the first one's input line is where "can't find file" points."""
        if not self.hunks:
            self.first_hunk_line = line
        self.hunks.append(hunk)


def parse(data: bytes) -> list[FilePatch]:
    lines = data.splitlines(keepends=True)
    patches: list[FilePatch] = []
    cur = FilePatch()
    i = 0
    n = len(lines)
    while i < n:
        line = lines[i]
        body = line.rstrip(b"\r\n")
        if body.startswith(b"*** ") and not body.startswith(b"***************") \
                and i + 1 < n and lines[i + 1].startswith(b"--- ") \
                and not _CTX_OLD.match(body):
            cur = _file_header(patches, cur, line, lines[i + 1], body)
            i += 2
            continue
        if body == b"***************" and i + 1 < n and (cur.old is not None
                                                        or cur.new is not None):
            mo = _CTX_OLD.match(lines[i + 1].rstrip(b"\r\n"))
            if mo:
                h, j = _read_context(lines, i + 1, mo)
                if h is not None:
                    cur.add_hunk(h, i + 2)
                    i = j
                    continue
        if body.startswith(b"--- ") and i + 1 < n and lines[i + 1].startswith(b"+++ "):
            cur = _file_header(patches, cur, line, lines[i + 1], body)
            i += 2
            continue
        m = _HUNK.match(body)
        if m and (cur.old is not None or cur.new is not None):
            h, i = _read_unified(lines, i, m)
            cur.add_hunk(h, i - len(h.lines) - 1 + 1)
            continue
        mn = _NORMAL.match(body)
        if mn:
            h, j = _read_normal(lines, i, mn)
            if h is not None:
                cur.add_hunk(h, i + 1)
                i = j
                continue
        if body.startswith(b"Index: "):
            cur.index = body[7:].strip()
        if cur.hunks:
            patches.append(cur)
            cur = FilePatch()
        cur.leading.append(line)
        i += 1
    if cur.hunks:
        patches.append(cur)
    return patches


def _name(text: bytes) -> tuple[bytes, bytes]:
    tab = text.find(b"\t")
    if tab >= 0:
        return text[:tab], text[tab:]
    m = re.search(rb"  +\d{4}-\d\d-\d\d ", text)
    if m:
        return text[:m.start()], text[m.start():]
    return text.rstrip(b" "), b""


def _read_unified(lines: list[bytes], i: int, m: re.Match[bytes]) -> tuple[Hunk, int]:
    os_, oc = int(m.group(1)), int(m.group(2)) if m.group(2) is not None else 1
    ns, nc = int(m.group(3)), int(m.group(4)) if m.group(4) is not None else 1
    h = Hunk(os_, oc, ns, nc, [], lines[i].rstrip(b"\r\n"))
    i += 1
    o_left, n_left = oc, nc
    while i < len(lines) and (o_left > 0 or n_left > 0):
        line = lines[i]
        tag = line[:1]
        if tag == b"\\":
            _strip_last(h)
            i += 1
            continue
        if tag in (b"\n", b"\r") or line == b"":
            h.lines.append((" ", b"\n"))
            o_left -= 1
            n_left -= 1
        elif tag == b" ":
            h.lines.append((" ", line[1:]))
            o_left -= 1
            n_left -= 1
        elif tag == b"-":
            h.lines.append(("-", line[1:]))
            o_left -= 1
        elif tag == b"+":
            h.lines.append(("+", line[1:]))
            n_left -= 1
        else:
            break
        i += 1
    if i < len(lines) and lines[i][:1] == b"\\":
        _strip_last(h)
        i += 1
    return h, i


def _read_context(lines: list[bytes], i: int, mo: re.Match[bytes]) -> tuple[Hunk | None, int]:
    """A context-format hunk (``*** a,b ****`` ... ``--- c,d ----`` ...) as unified lines."""
    def part(j: int, stop) -> tuple[list[tuple[str, bytes]], int]:
        got: list[tuple[str, bytes]] = []
        while j < len(lines) and not stop(lines[j]):
            line = lines[j]
            if line.startswith(b"\\"):
                if got:
                    tag, text = got[-1]
                    got[-1] = (tag, text[:-1] if text.endswith(b"\n") else text)
                j += 1
                continue
            if len(line) < 2 or line[:2] not in (b"  ", b"! ", b"- ", b"+ "):
                break
            got.append((line[:1].decode(), line[2:]))
            j += 1
        return got, j

    j = i + 1
    old, j = part(j, lambda x: _CTX_NEW.match(x.rstrip(b"\r\n")) is not None)
    if j >= len(lines):
        return None, i
    mn = _CTX_NEW.match(lines[j].rstrip(b"\r\n"))
    if not mn:
        return None, i
    new, j = part(j + 1, lambda x: x.rstrip(b"\r\n") == b"***************")
    if not old:
        old = [(" ", x) for t, x in new if t == " "]
    if not new:
        new = [(" ", x) for t, x in old if t == " "]
    merged: list[tuple[str, bytes]] = []
    a = b = 0
    while a < len(old) or b < len(new):
        if a < len(old) and b < len(new) and old[a][0] == " " and new[b][0] == " ":
            merged.append((" ", old[a][1]))
            a += 1
            b += 1
            continue
        while a < len(old) and old[a][0] != " ":
            merged.append(("-", old[a][1]))
            a += 1
        while b < len(new) and new[b][0] != " ":
            merged.append(("+", new[b][1]))
            b += 1
        if (a < len(old) and old[a][0] == " ") != (b < len(new) and new[b][0] == " "):
            return None, i  # the two halves disagree about the context
    oc = sum(1 for t, _ in merged if t in " -")
    nc = sum(1 for t, _ in merged if t in " +")
    os_ = int(mo.group(1))
    ns = int(mn.group(1))
    header = b"@@ -%d,%d +%d,%d @@" % (os_, oc, ns, nc)
    return Hunk(os_, oc, ns, nc, merged, header, context=True), j


def _strip_last(h: Hunk) -> None:
    if h.lines:
        tag, text = h.lines[-1]
        if text.endswith(b"\n"):
            text = text[:-1]
            if text.endswith(b"\r"):
                pass
        h.lines[-1] = (tag, text)


def _read_normal(lines: list[bytes], i: int, m: re.Match[bytes]) -> tuple[Hunk | None, int]:
    a1 = int(m.group(1))
    a2 = int(m.group(2)) if m.group(2) else a1
    kind = m.group(3)
    b1 = int(m.group(4))
    b2 = int(m.group(5)) if m.group(5) else b1
    h_lines: list[tuple[str, bytes]] = []
    j = i + 1
    if kind in (b"c", b"d"):
        taken = _normal_side(lines, j, a2 - a1 + 1, b"< ", "-", h_lines)
        if taken is None:
            return None, i
        j = taken
    if kind == b"c":
        if j >= len(lines) or lines[j].rstrip(b"\r\n") != b"---":
            return None, i
        j += 1
    if kind in (b"c", b"a"):
        taken = _normal_side(lines, j, b2 - b1 + 1, b"> ", "+", h_lines)
        if taken is None:
            return None, i
        j = taken
    oc = 0 if kind == b"a" else a2 - a1 + 1
    nc = 0 if kind == b"d" else b2 - b1 + 1
    os_ = a1 if kind != b"a" else a1
    ns = b1 if kind != b"d" else b1
    return Hunk(os_, oc, ns, nc, h_lines, lines[i].rstrip(b"\r\n"), normal=True), j


def _file_header(patches: list[FilePatch], cur: FilePatch, line: bytes, nxt: bytes,
                 body: bytes) -> FilePatch:
    """A header pair (``*** old``/``--- new`` or ``--- old``/``+++ new``) read into the file
    patch it starts: a new one once the current one has hunks."""
    if cur.hunks:
        patches.append(cur)
        cur = FilePatch()
    cur.leading += [line, nxt]
    cur.old, cur.old_rest = _name(body[4:])
    cur.new, cur.new_rest = _name(nxt.rstrip(b"\r\n")[4:])
    return cur


def _normal_side(lines: list[bytes], j: int, count: int, mark: bytes, sign: str,
                 h_lines: list[tuple[str, bytes]]) -> int | None:
    """Take ``count`` lines marked ``mark`` ("< " or "> ") of a normal diff's hunk from
    line ``j`` on as ``sign`` lines; the index after them, or None if the hunk is short."""
    for _ in range(count):
        if j >= len(lines) or not lines[j].startswith(mark):
            return None
        h_lines.append((sign, lines[j][2:]))
        j += 1
        if j < len(lines) and lines[j].startswith(b"\\"):
            _strip_tail(h_lines)
            j += 1
    return j


def _strip_tail(h_lines: list[tuple[str, bytes]]) -> None:
    tag, text = h_lines[-1]
    h_lines[-1] = (tag, text[:-1] if text.endswith(b"\n") else text)


def _strip(name: bytes, p: int | None) -> bytes:
    if p is None:
        return name
    parts = name.split(b"/")
    # strip the smallest prefix containing p slashes
    if p > len(parts) - 1:
        return b""
    return b"/".join(parts[p:])


def _safe(name: bytes) -> bytes | None:
    """The name as a relative path, or None when it may escape (a ``..`` component)."""
    while name.startswith(b"/"):
        name = name[1:]
    if not name or any(part == b".." for part in name.split(b"/")):
        return None
    return name


class _Run:
    def __init__(self, inv: Invocation) -> None:
        self.inv = inv
        self.out: list[bytes] = []

    def say(self, text: str) -> None:
        self.inv.stdout.write(text.encode("utf-8", "surrogateescape"))


def run(inv: Invocation) -> int:
    opts = tio.options(inv, "p:i:Rd:o:NsfteEbBuncz:F:r:lvV:x:Y:", [
        "strip=", "input=", "reverse", "directory=", "output=", "forward", "silent", "quiet",
        "force", "batch", "dry-run", "remove-empty-files", "backup", "no-backup-if-mismatch",
        "backup-if-mismatch", "unified", "normal", "context", "reject-file=", "ignore-whitespace",
        "posix", "binary", "suffix=", "fuzz=", "verbose", "follow-symlinks", "merge=?"],
        usage_status=2)
    strip: int | None = None
    patchfile = opts.last("-i", "--input")
    reverse = opts.has("-R", "--reverse")
    dry = opts.has("--dry-run")
    forward = opts.has("-N", "--forward")
    silent = opts.has("-s", "--silent", "--quiet")
    remove_empty = opts.has("-E", "--remove-empty-files")
    backup = opts.has("-b", "--backup")
    no_backup_mismatch = last_switch(opts.items, ("--no-backup-if-mismatch",),
                                     ("--backup-if-mismatch",), "POSIXLY_CORRECT" in inv.env)
    outfile = opts.last("-o", "--output")
    reject = opts.last("-r", "--reject-file")
    directory = opts.last("-d", "--directory")
    suffix = ".orig"
    maxfuzz = 2
    for k, v in opts.items:  # the options whose values are checked, in command-line order
        if k in ("-p", "--strip"):
            if not (v or "").isdigit():
                raise Exit(2, f"**** strip count {v} is not a number")
            strip = int(v or "0")
        elif k in ("-z", "--suffix"):
            suffix = v or ".orig"
        elif k in ("-F", "--fuzz"):
            if not (v or "").isdigit():
                raise Exit(2, f"**** fuzz factor {v} is not a number")
            maxfuzz = int(v or "0")
        elif k in ("--merge", "-x", "-Y", "-V", "-B"):
            raise Exit(2, f"**** option {k} is not supported by vshell")
    ops = opts.operands
    target_override = ops[0] if ops else None
    if len(ops) > 1 and patchfile is None:
        patchfile = ops[1]
    base = inv.abs(directory) if directory else inv.dir
    try:
        src = inv.stdin if patchfile in (None, "-") else inv.fs.open(inv.abs(patchfile), "rb")
    except OSError as e:
        raise Exit(2, f"**** Can't open patch file {patchfile} : {tio.strerror(e)}") from None
    data = b"".join(tio.chunks(inv, src))
    if src is not inv.stdin:
        src.close()
    patches = parse(data)
    if not patches:
        inv.stderr.write(b"patch: **** Only garbage was found in the patch input.\n")
        return 2
    status = 0
    for fp in patches:
        st = _apply_one(inv, fp, base, strip, reverse, dry, forward, silent, outfile, reject,
                        remove_empty, backup, no_backup_mismatch, suffix, target_override,
                        maxfuzz)
        status = max(status, st)
    return status


def _path(base: str, name: str) -> str:
    return name if name.startswith("/") else base.rstrip("/") + "/" + name


def _choose(
    inv: Invocation, fp: FilePatch, base: str, strip: int | None
) -> tuple[str | None, bool]:
    """The file to patch (relative name) and whether it is being created."""
    names: list[bytes | None] = []
    for raw in (fp.old, fp.new, fp.index):
        if raw is None or raw == b"/dev/null":
            names.append(None)
            continue
        if strip is None:
            # GNU: the whole name if its directories exist, else the basename
            d = raw.rsplit(b"/", 1)[0] if b"/" in raw else b""
            stripped = raw if (not raw.startswith(b"/") and (not d or inv.fs.isdir(
                _path(base, d.decode("utf-8", "surrogateescape"))))) else raw.rsplit(b"/", 1)[-1]
        else:
            stripped = _strip(raw, strip)
        names.append(_safe(stripped))
    creating = fp.old == b"/dev/null" or (fp.old is not None and all(
        h.old_count == 0 and h.old_start == 0 for h in fp.hunks) and not any(
        n is not None and inv.fs.exists(_path(base, n.decode("utf-8", "surrogateescape")))
        for n in names))
    for n in names:
        if n is not None and inv.fs.exists(_path(base, n.decode("utf-8", "surrogateescape"))):
            return n.decode("utf-8", "surrogateescape"), False
    if creating:
        n = names[1] or names[0]
        if n is not None:
            return n.decode("utf-8", "surrogateescape"), True
    return None, False


def _apply_one(inv: Invocation, fp: FilePatch, base: str, strip: int | None, reverse: bool,
               dry: bool, forward: bool, silent: bool, outfile: str | None,
               reject: str | None, remove_empty: bool, backup: bool, no_bm: bool,
               suffix: str, override: str | None, maxfuzz: int = 2) -> int:
    say = (lambda t: None) if silent else (
        lambda t: inv.stdout.write(t.encode("utf-8", "surrogateescape")))
    nh = len(fp.hunks)
    hunks_s = "hunk" if nh == 1 else "hunks"
    name: str | None
    if override is not None:
        name, creating = override, not inv.fs.exists(_path(base, override))
    else:
        name, creating = _choose(inv, fp, base, strip)
        if reverse and fp.new == b"/dev/null":
            creating = True
    if name is None:
        inv.stdout.write(f"can't find file to patch at input line {fp.first_hunk_line}\n"
                         "Perhaps you should have used the -p or --strip option?\n"
                         "The text leading up to this was:\n"
                         "--------------------------\n".encode())
        inv.stdout.write(b"".join(b"|" + x.rstrip(b"\n") + b"\n" for x in fp.leading))
        inv.stdout.write(b"--------------------------\nFile to patch: \nSkip this patch? [y] \n"
                         b"Skipping patch.\n")
        inv.stdout.write(f"{nh} out of {nh} {hunks_s} ignored\n".encode())
        return 1
    path = _path(base, name)
    try:
        with inv.fs.open(path, "rb") as f:
            original = b"".join(tio.chunks(inv, f))
    except FileNotFoundError:
        original = b""
    except OSError as e:
        inv.stderr.write(f"patch: **** Can't open file {name} : {tio.strerror(e)}\n".encode())
        return 2
    shown = f"{outfile} (read from {name})" if outfile else name
    say(f"{'checking' if dry else 'patching'} file {shown}\n")
    src = original.splitlines(keepends=True)
    hunks = [h.reversed() if reverse else h for h in fp.hunks]
    in_offset = 0
    out_offset = 0
    copied = 0
    out: list[bytes] = []
    failed: list[tuple[Hunk, int]] = []
    mismatch = False
    for num, h in enumerate(hunks, 1):
        pos = _locate(src, h, in_offset, copied)
        fuzz = 0
        if pos is None:
            pre, post = _context(h)
            context = max(pre, post)
            mymax = min(maxfuzz, context)
            for fz in range(1, mymax + 1):
                pos = _locate(src, h, in_offset, copied, max(0, fz + pre - context),
                              max(0, fz + post - context))
                if pos is not None:
                    fuzz = fz
                    break
        if pos is None and num == 1 and _locate(src, h.reversed(), 0, 0) is not None \
                and not (h.old_count == 0 and not src):
            if forward:
                say("Reversed (or previously applied) patch detected!  Skipping patch.\n")
            else:
                if reverse:
                    inv.stdout.write(b"Unreversed patch detected!  Ignore -R? [n] \n")
                else:
                    inv.stdout.write(b"Reversed (or previously applied) patch detected!  "
                                     b"Assume -R? [n] \n")
                inv.stdout.write(b"Apply anyway? [n] \n")
                say("Skipping patch.\n")
            inv.stdout.write(f"{nh} out of {nh} {hunks_s} ignored -- saving rejects to file "
                             f"{reject or name + '.rej'}\n".encode("utf-8", "surrogateescape"))
            if not dry:
                _write_rej(inv, base, reject or name + ".rej", fp, name,
                           [(x, 0) for x in hunks])
            return 1
        if pos is None:
            failed.append((h, out_offset))
            mismatch = True
            say(f"Hunk #{num} FAILED at {h.old_start + out_offset}.\n")
            continue
        guess = _expected(h) + in_offset
        in_offset += pos - guess
        old_len = len(h.old())
        new = h.new()
        out.extend(src[copied:pos])
        if out and not out[-1].endswith(b"\n"):
            out[-1] += b"\n"
        if fuzz:
            # context lines come from the file, as GNU keeps them
            k = pos
            for tag, text in h.lines:
                if tag == " ":
                    out.append(src[k])
                    k += 1
                elif tag == "-":
                    k += 1
                else:
                    out.append(text)
        else:
            out.extend(new)
        copied = pos + old_len
        if in_offset or fuzz:
            mismatch = True
            at = pos + 1 + out_offset if old_len else pos + out_offset
            msg = f"Hunk #{num} succeeded at {at}"
            if fuzz:
                msg += f" with fuzz {fuzz}"
            if in_offset:
                plural = "line" if abs(in_offset) == 1 else "lines"
                msg += f" (offset {in_offset} {plural})"
            say(msg + ".\n")
        out_offset += len(new) - old_len
    rest = src[copied:]
    if rest and out and not out[-1].endswith(b"\n"):
        out[-1] += b"\n"
    out.extend(rest)
    lines = out
    result = b"".join(lines)
    if failed:
        inv.stdout.write(f"{len(failed)} out of {nh} {hunks_s} FAILED -- saving rejects to file "
                         f"{reject or name + '.rej'}\n".encode("utf-8", "surrogateescape"))
    if dry:
        return 1 if failed else 0
    if (backup or (mismatch and not no_bm)) and not creating and outfile is None:
        with inv.fs.open(path + suffix, "wb") as f:
            f.write(original)
    target = _path(inv.dir, outfile) if outfile else path
    deleting = (fp.new == b"/dev/null" and not reverse) or (reverse and fp.old == b"/dev/null")
    if outfile is None and not result and (deleting or remove_empty):
        try:
            inv.fs.unlink(path)
        except OSError:
            pass
    else:
        parent = target.rsplit("/", 1)[0] or "/"
        if not inv.fs.isdir(parent):
            inv.fs.makedirs(parent, exist_ok=True)
        with inv.fs.open(target, "wb") as f:
            f.write(result)
    if failed:
        _write_rej(inv, base, reject or name + ".rej", fp, name, failed)
        return 1
    return 0


def _expected(h: Hunk) -> int:
    if h.old_count == 0:
        return h.old_start
    return h.old_start - 1


def _strip_nl(x: bytes) -> bytes:
    return x[:-1] if x.endswith(b"\n") else x


def _context(h: Hunk) -> tuple[int, int]:
    """Leading and trailing context line counts of a hunk."""
    pre = 0
    for tag, _ in h.lines:
        if tag != " ":
            break
        pre += 1
    post = 0
    for tag, _ in reversed(h.lines):
        if tag != " ":
            break
        post += 1
    if pre == len(h.lines):
        post = 0
    return pre, post


def _match(lines: list[bytes], pos: int, old: list[bytes], pre: int = 0, post: int = 0) -> bool:
    if pos < 0 or pos + len(old) > len(lines):
        return False
    for k in range(pre, len(old) - post):
        if _strip_nl(lines[pos + k]) != _strip_nl(old[k]):
            return False
    return True


def _locate(lines: list[bytes], h: Hunk, offset: int, floor: int, pre: int = 0,
            post: int = 0) -> int | None:
    old = h.old()
    guess = _expected(h) + offset
    if not old:
        # a pure insertion: GNU checks the position exists
        return guess if floor <= guess <= len(lines) else None
    max_after = len(lines) - len(old) - guess
    max_before = guess - floor
    off = 0
    while True:
        after = off <= max_after
        before = off <= max_before
        if after and _match(lines, guess + off, old, pre, post):
            return guess + off
        if before and off and _match(lines, guess - off, old, pre, post):
            return guess - off
        if not after and not before:
            return None
        off += 1


def _context_rej(h: Hunk, off: int) -> list[bytes]:
    """One rejected hunk in context format (GNU writes rejects in the input's format)."""
    marks: list[str] = []
    run: list[int] = []
    lines = h.lines
    for idx, (tag, _) in enumerate(lines + [(" ", b"")]):
        if tag == " ":
            kinds = {lines[k][0] for k in run}
            for _k in run:
                marks.append("!" if len(kinds) == 2 else lines[_k][0])
            run = []
            marks.append(" ")
        else:
            run.append(idx)
    marks = marks[:-1]

    def rng(start: int, count: int) -> bytes:
        a, b = start, start + count - 1
        return str(b).encode() if b <= a else b"%d,%d" % (a, b)

    def line(mark: str, text: bytes) -> bytes:
        return (mark + " ").encode() + text

    out = [b"***************\n", b"*** " + rng(h.old_start + off, h.old_count) + b" ****\n"]
    if any(t == "-" for t, _ in lines):
        out += [line(m, x) for m, (t, x) in zip(marks, lines, strict=True) if t in " -"]
    out.append(b"--- " + rng(h.new_start + off, h.new_count) + b" ----\n")
    if any(t == "+" for t, _ in lines):
        out += [line(m, x) for m, (t, x) in zip(marks, lines, strict=True) if t in " +"]
    return out


def _range(start: int, count: int) -> str:
    return str(start) if count == 1 else f"{start},{count}"


def _write_rej(inv: Invocation, base: str, rej: str, fp: FilePatch, name: str,
               hunks: list[tuple[Hunk, int]]) -> None:
    bname = name.encode("utf-8", "surrogateescape")
    if hunks and hunks[0][0].context:
        out = [b"*** " + bname + fp.old_rest + b"\n", b"--- " + bname + fp.new_rest + b"\n"]
        for h, off in hunks:
            out += _context_rej(h, off)
        with inv.fs.open(_path(base, rej), "wb") as f:
            f.write(b"".join(out))
        return
    out = [b"--- " + bname + fp.old_rest + b"\n", b"+++ " + bname + fp.new_rest + b"\n"]
    for h, off in hunks:
        out.append(f"@@ -{_range(h.old_start + off, h.old_count)} "
                   f"+{_range(h.new_start + off, h.new_count)} @@\n".encode())
        for tag, text in h.lines:
            out.append(tag.encode() + text)
            if not text.endswith(b"\n"):
                out.append(b"\n\\ No newline at end of file\n")
    path = _path(base, rej)
    with inv.fs.open(path, "wb") as f:
        f.write(b"".join(out))


