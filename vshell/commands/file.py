"""file: determine file type from a small built-in magic table (a subset of file 5.x).

Recognised: empty, directory, symbolic links, text (ASCII / UTF-8 / ISO-8859, with the
line-terminator, long-line and escape notes), scripts by ``#!`` (file 5.44's magic for the
shells, python, perl, ruby, node, the awks, tcl, php, lua; ``a PROG script`` otherwise),
JSON, CSV (file's is_csv rule), makefiles, HTML, XML, C source, gzip (with header details),
tar, zip, PNG (size, depth, colour), JPEG, GIF, PDF, ELF (class, endianness, type,
machine).  Other binary content is ``data``.  ELF and JPEG descriptions are shorter than file's.
"""

from __future__ import annotations

import json
import os
import re
import stat as st
import struct

from vshell.command import Invocation
from vshell.commands._lib.futil import enc, strerror
from vshell.commands._lib.helptext import help_text
from vshell.commands._lib.opts import parse
from vshell.commands._lib.timefmt import localtime, strftime, zone

HELP = help_text("file")

HEAD = 1 << 20

# file 5.44's magic for "#!" lines, in its order.  Each pattern is matched against the line
# after "#!" (direct) or against the words after ".../env " (env); the description takes
# {t} (the text kind) and {n} (the notes).  Anything else is "a PROGRAM script".
_STD = "{d}, {t} executable{n}"
_SCRIPTS: list[tuple[re.Pattern[str], re.Pattern[str] | None, str, str]] = [
    (re.compile(r"/bin/sh$"), None, "POSIX shell script", "text/x-shellscript"),
    (re.compile(r"(/usr(/local)?)?/bin/bash$"), re.compile(r"bash$"),
     "Bourne-Again shell script", "text/x-shellscript"),
    (re.compile(r"(/usr(/local)?)?/bin/zsh$"), re.compile(r"zsh$"),
     "Paul Falstad's zsh script", "text/x-shellscript"),
    (re.compile(r"/bin/ksh$"), None, "Korn shell script", "text/x-shellscript"),
    (re.compile(r".*/ash$"), None, "Neil Brown's ash script", "text/x-shellscript"),
    (re.compile(r"/bin/csh$"), None, "C shell script", "text/x-shellscript"),
    (re.compile(r".*/tcsh$"), None, "Tenex C shell script", "text/x-shellscript"),
    (re.compile(r".*/fish$"), re.compile(r"fish$"), "fish shell script", "text/x-shellscript"),
    (re.compile(r".*/python[0-9.]*$"), re.compile(r"python[0-9.]*$"), "Python script",
     "text/x-script.python"),
    (re.compile(r"(/usr(/local)?)?/bin/perl$"), re.compile(r"perl[0-9.]*$"),
     "Perl script text executable", "text/x-perl"),
    (re.compile(r".*/ruby[0-9.]*$"), re.compile(r"ruby[0-9.]*$"), "Ruby script", "text/x-ruby"),
    (re.compile(r"(/usr)?/bin/node(js)?$"), re.compile(r"node(js)?$"),
     "Node.js script executable, {t}{n}", "application/javascript"),
    (re.compile(r"(/usr)?/bin/awk$"), None, "awk script", "text/x-awk"),
    (re.compile(r".*/gawk$"), None, "GNU awk script", "text/x-gawk"),
    (re.compile(r".*/nawk$"), None, "new awk script", "text/x-nawk"),
    (re.compile(r".*/(tclsh|wish)[0-9.]*$"), re.compile(r"wish[0-9.]*$"), "Tcl/Tk script",
     "text/x-tcl"),
    (re.compile(r"$^"), re.compile(r"tclsh[0-9.]*$"), "Tcl script", "text/x-tcl"),
    (re.compile(r".*/php[0-9.]*$"), None, "PHP script", "text/x-php"),
    (re.compile(r".*/lua[0-9.]*$"), re.compile(r"lua[0-9.]*$"), "Lua script", "text/x-lua"),
]
_MAKEFILE = [
    (re.compile(rb"^(CFLAGS|VPATH|LDFLAGS|all:|\.PRECIOUS)", re.M), "makefile script"),
    (re.compile(rb"^\.(BEGIN|include)", re.M), "BSD makefile script"),
    (re.compile(rb"^SUBDIRS", re.M), "automake makefile script"),
]


def _script(line: str, base: str, notes: str) -> tuple[str, str]:
    """(description, mime type) of a file whose first line is ``#!`` + ``line``."""
    words = line.split()
    prog = words[0] if words else ""
    env = prog.endswith("/env") and len(words) > 1
    for direct, via_env, desc, mime in _SCRIPTS:
        pattern = via_env if env else direct
        if pattern is not None and pattern.match(words[1] if env else prog):
            template = desc if "{t}" in desc or desc.endswith("executable") else _STD
            return template.format(d=desc, t=base, n=notes), mime
    shown = line.split(None, 1)[1] if env else line
    return f"a {shown} script, {base} executable{notes}", "text/plain"


_ELF_MACHINES = {3: "Intel 80386", 40: "ARM", 62: "x86-64", 183: "ARM aarch64", 243: "UCB RISC-V"}


def _text_kind(data: bytes) -> tuple[str, str] | None:
    """('ASCII'|'Unicode text, UTF-8'|'ISO-8859', charset) or None for binary data."""
    if re.search(rb"[\x00-\x06\x0e-\x1a\x1c-\x1f\x7f]", data):
        return None
    if not re.search(rb"[\x80-\xff]", data):
        return "ASCII", "us-ascii"
    try:
        data.decode("utf-8")
        return "Unicode text, UTF-8", "utf-8"
    except UnicodeDecodeError as e:
        if e.start >= len(data) - 3 and len(data) == HEAD:
            return "Unicode text, UTF-8", "utf-8"
    if re.search(rb"[\x80-\x9f]", data):
        return None
    return "ISO-8859", "iso-8859-1"


def _text_notes(data: bytes) -> str:
    notes = []
    crlf = data.count(b"\r\n")
    lf = data.count(b"\n") - crlf
    cr = data.count(b"\r") - crlf
    terms = []
    if crlf:
        terms.append("CRLF")
    if cr:
        terms.append("CR")
    if lf and terms:
        terms.append("LF")
    longest = max((len(x) for x in re.split(rb"\r\n|\n|\r", data)), default=0)
    if longest > 300:
        notes.append(f"with very long lines ({longest})")
    if terms:
        notes.append(f"with {', '.join(terms)} line terminators")
    if not crlf and not lf and not cr:
        notes.append("with no line terminators")
    if b"\x1b" in data:
        notes.append("with escape sequences")
    return "".join(", " + n for n in notes)


def _gzip(data: bytes, inv: Invocation) -> str:
    out = "gzip compressed data"
    if len(data) < 10:
        return out
    flags = data[3]
    mtime = struct.unpack("<I", data[4:8])[0]
    pos = 10
    if flags & 4 and len(data) >= 12:
        pos += 2 + struct.unpack("<H", data[10:12])[0]
    if flags & 8:
        end = data.find(b"\0", pos)
        if end > 0:
            out += ', was "' + data[pos:end].decode("latin-1") + '"'
            pos = end + 1
    if mtime:
        d = localtime(mtime, zone(inv.env))
        out += ", last modified: " + strftime("%a %b %e %H:%M:%S %Y", d)
    if data[8] == 2:
        out += ", max compression"
    elif data[8] == 4:
        out += ", max speed"
    os_names = {0: "FAT filesystem (MS-DOS, OS/2, NT)", 3: "Unix", 7: "Macintosh",
                11: "NTFS filesystem (NT)"}
    if data[9] in os_names:
        out += ", from " + os_names[data[9]]
    return out


def _png(data: bytes) -> str:
    out = "PNG image data"
    if len(data) >= 29 and data[12:16] == b"IHDR":
        w, h = struct.unpack(">II", data[16:24])
        depth, color, interlace = data[24], data[25], data[28]
        kinds = {0: "grayscale", 2: "/color RGB", 3: "colormap", 4: "gray+alpha",
                 6: "/color RGBA"}
        kind = kinds.get(color, "")
        sep = "" if kind.startswith("/") else " "
        out += f", {w} x {h}, {depth}-bit{sep}{kind}, " + (
            "interlaced" if interlace else "non-interlaced")
    return out


def _elf(data: bytes) -> tuple[str, str]:
    bits = {1: "32-bit", 2: "64-bit"}.get(data[4], "")
    order = "<" if data[5] == 1 else ">"
    endian = "LSB" if data[5] == 1 else "MSB"
    etype, machine = struct.unpack(order + "HH", data[16:20])
    mime = "application/x-executable"
    kind = {1: "relocatable", 2: "executable", 3: "shared object", 4: "core file"}.get(
        etype, "unknown")
    if etype == 3:
        mime = "application/x-sharedlib"
        if b"\0" in data and _has_interp(data, order):
            kind, mime = "pie executable", "application/x-pie-executable"
    elif etype == 1:
        mime = "application/x-object"
    arch = _ELF_MACHINES.get(machine, f"*unknown arch {machine:#x}*")
    return f"ELF {bits} {endian} {kind}, {arch}, version {data[6]} (SYSV)", mime


def _has_interp(data: bytes, order: str) -> bool:
    """Whether the program headers include PT_INTERP (a PIE rather than a library)."""
    try:
        if data[4] == 2:
            phoff = struct.unpack(order + "Q", data[32:40])[0]
            phentsize, phnum = struct.unpack(order + "HH", data[54:58])
        else:
            phoff = struct.unpack(order + "I", data[28:32])[0]
            phentsize, phnum = struct.unpack(order + "HH", data[42:46])
        for i in range(phnum):
            off = phoff + i * phentsize
            if struct.unpack(order + "I", data[off : off + 4])[0] == 3:
                return True
    except struct.error:
        return False
    return False


def describe(data: bytes, mode: int, inv: Invocation) -> tuple[str, str, str]:
    """(description, mime type, charset) for the first bytes of a regular file."""
    if not data:
        return "empty", "inode/x-empty", "binary"
    if data[:2] == b"\x1f\x8b":
        return _gzip(data, inv), "application/gzip", "binary"
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return _png(data), "image/png", "binary"
    if data[:3] == b"\xff\xd8\xff":
        return "JPEG image data", "image/jpeg", "binary"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        w, h = struct.unpack("<HH", data[6:10]) if len(data) >= 10 else (0, 0)
        return f"GIF image data, version {data[3:6].decode()}, {w} x {h}", "image/gif", "binary"
    if data[:4] == b"\x7fELF" and len(data) >= 20:
        desc, mime = _elf(data)
        return desc, mime, "binary"
    if data[:4] == b"PK\x03\x04" and len(data) >= 30:
        ver = data[4]
        method = {0: "store", 8: "deflate"}.get(data[8], str(data[8]))
        return (f"Zip archive data, at least v{ver // 10}.{ver % 10} to extract, "
                f"compression method={method}"), "application/zip", "binary"
    if len(data) >= 263 and data[257:262] == b"ustar":
        gnu = data[257:265] == b"ustar  \0"
        return "POSIX tar archive" + (" (GNU)" if gnu else ""), "application/x-tar", "binary"
    if data[:5] == b"%PDF-":
        m = re.match(rb"%PDF-(\d+\.\d+)", data)
        pdf_version = m.group(1).decode() if m else "?"
        return f"PDF document, version {pdf_version}", "application/pdf", "binary"
    text = _text_kind(data)
    if text is None:
        return "data", "application/octet-stream", "binary"
    kind, charset = text
    base = f"{kind} text"
    notes = _text_notes(data)
    stripped = data.lstrip()
    if stripped[:1] in (b"{", b"[") and len(data) < HEAD:
        try:
            json.loads(data)
            return "JSON text data", "application/json", charset
        except ValueError:
            pass
    if _is_csv(data):
        return "CSV text", "text/csv", charset
    if data[:2] == b"#!":
        line = data.split(b"\n", 1)[0][2:].decode("latin-1").strip()
        desc, mime = _script(line, base, notes)
        return desc, mime, charset
    low = stripped[:256].lower()
    if low.startswith(b"<?xml"):
        m = re.match(rb'<\?xml\s+version\s*=\s*["\']([\d.]+)', low)
        xml_version = m.group(1).decode() if m else "1.0"
        return f"XML {xml_version} document, {base}{notes}", "text/xml", charset
    if low.startswith((b"<!doctype html", b"<html")):
        return f"HTML document, {base}{notes}", "text/html", charset
    for pattern, kind_of_make in _MAKEFILE:
        if pattern.search(b"\n".join(data.split(b"\n", 100)[:100])):
            return f"{kind_of_make}, {base}{notes}", "text/x-makefile", charset
    if re.match(rb"#\s*include\s*[<\"]", stripped):
        return f"C source, {base}{notes}", "text/x-c", charset
    return f"{base}{notes}", "text/plain", charset


CSV_LINES = 10


def _is_csv(data: bytes) -> bool:
    """file's is_csv: the first lines (at least three, at most ten) have the same number
    of commas outside double quotes, and that number is not zero."""
    nf = tf = nl = 0
    i, n = 0, len(data)
    while i < n:
        c = data[i]
        i += 1
        if c == 0x22:  # a quoted field, where "" is a quote: skip to its end
            quote = False
            while i < n:
                c = data[i]
                i += 1
                if c != 0x22:
                    if quote:
                        i -= 1
                        break
                    continue
                quote = not quote
            continue
        if c == 0x2C:
            nf += 1
        elif c == 0x0A:
            nl += 1
            if nl == CSV_LINES:
                return tf != 0 and tf == nf
            if tf == 0:
                if nf == 0:
                    return False
                tf = nf
            elif tf != nf:
                return False
            nf = 0
    return tf != 0 and nl > 2


def run(inv: Invocation) -> int:
    o = parse(inv, "bihLsz", ["brief", "mime", "mime-type", "mime-encoding",
                               "dereference", "no-dereference", "special-files",
                               "uncompress"], help_text=HELP)
    brief = o.has("-b", "--brief")
    mime = o.has("-i", "--mime")
    mime_type = o.has("--mime-type")
    mime_enc = o.has("--mime-encoding")
    follow = False
    for key, _ in o.items:
        if key in ("-L", "--dereference"):
            follow = True
        elif key in ("-h", "--no-dereference"):
            follow = False
    if not o.operands:
        inv.stderr.write(b"Usage: file [-bcCdEhikLlNnprsSvzZ0] [--apple] [--extension] "
                         b"[--mime-encoding]\n"
                         b"            [--mime-type] [-e <testname>] [-F <separator>] "
                         b" [-f <namefile>]\n"
                         b"            [-m <magicfiles>] [-P <parameter=value>] [--exclude-quiet]\n"
                         b"            <file> ...\n"
                         b"       file -C [-m <magicfiles>]\n"
                         b"       file [--help]\n")
        return 1
    names = ["/dev/stdin" if n == "-" else n for n in o.operands]
    width = max(len(n) for n in names) + 1
    out = []
    for op, shown in zip(o.operands, names, strict=True):
        inv.cancel.check()
        desc, mtype, charset = _examine(inv, op, follow)
        if mime or mime_type or mime_enc:
            if mime_type:
                desc = mtype
            elif mime_enc:
                desc = charset
            else:
                desc = f"{mtype}; charset={charset}"
        if brief:
            out.append(desc)
        else:
            out.append((shown + ":").ljust(width) + " " + desc)
    inv.stdout.write(enc("\n".join(out) + "\n"))
    return 0


def _examine(inv: Invocation, op: str, follow: bool) -> tuple[str, str, str]:
    fs = inv.fs
    if op == "-":
        data = inv.stdin.read(HEAD)
        return describe(data, 0o100644, inv)
    path = inv.abs(op)
    try:
        s = fs.stat(path) if follow else fs.lstat(path)
    except OSError as e:
        return f"cannot open `{op}' ({strerror(e)})", "", ""
    if st.S_ISDIR(s.st_mode):
        return "directory", "inode/directory", "binary"
    if st.S_ISLNK(s.st_mode):
        target = fs.readlink(path)
        if fs.exists(path):
            return f"symbolic link to {target}", "inode/symlink", "binary"
        return f"broken symbolic link to {target}", "inode/symlink", "binary"
    if st.S_ISFIFO(s.st_mode):
        return "fifo (named pipe)", "inode/fifo", "binary"
    if st.S_ISCHR(s.st_mode):
        rdev = int(getattr(s, "st_rdev", 0) or 0)
        return (f"character special ({os.major(rdev)}/{os.minor(rdev)})", "inode/chardevice",
                "binary")
    if st.S_ISBLK(s.st_mode):
        return "block special", "inode/blockdevice", "binary"
    if st.S_ISSOCK(s.st_mode):
        return "socket", "inode/socket", "binary"
    try:
        with fs.open(path, "rb") as f:
            data = f.read(HEAD)
    except OSError as e:
        return f"cannot open `{op}' ({strerror(e)})", "", ""
    desc, mime, charset = describe(data, s.st_mode, inv)
    if mime == "application/gzip" and s.st_size >= 18:
        try:
            with fs.open(path, "rb") as f:
                f.seek(s.st_size - 4)
                size = struct.unpack("<I", f.read(4))[0]
            desc += f", original size modulo 2^32 {size}"
        except (OSError, struct.error):
            pass
    return desc, mime, charset
