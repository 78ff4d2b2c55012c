"""md5sum and the sha*sum family: print or check digests (GNU formats and messages)."""

from __future__ import annotations

import hashlib
import re

from vshell.command import Invocation
from vshell.commands._lib import textio as tio

_ALGOS = {"md5sum": ("md5", "MD5"), "sha1sum": ("sha1", "SHA1"),
          "sha224sum": ("sha224", "SHA224"), "sha256sum": ("sha256", "SHA256"),
          "sha384sum": ("sha384", "SHA384"), "sha512sum": ("sha512", "SHA512")}


def _escape(name: str) -> tuple[str, bool]:
    if "\\" in name or "\n" in name or "\r" in name:
        return name.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r"), True
    return name, False


# what _escape writes, undone
_UNESCAPES = {"\\": "\\", "n": "\n", "r": "\r"}


def _unescape(name: str) -> str | None:
    """The name a checksum line spells with _escape's escapes; None for another escape."""
    out = []
    i = 0
    while i < len(name):
        c = name[i]
        if c == "\\":
            got = _UNESCAPES.get(name[i + 1:i + 2])
            if got is None:
                return None
            out.append(got)
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _digest(inv: Invocation, algo: str, name: str) -> str:
    h = hashlib.new(algo)
    f = tio.open_input(inv, name)
    try:
        for data in tio.chunks(inv, f, 1 << 18):
            h.update(data)
    finally:
        tio.close_input(inv, f)
    return h.hexdigest()


def run(inv: Invocation) -> int:
    algo, tag = _ALGOS[inv.name]
    opts = tio.options(inv, "bctwz", ["binary", "check", "tag", "text", "zero", "ignore-missing",
                                      "quiet", "status", "strict", "warn"])
    binary = opts.has("-b", "--binary")
    text = opts.has("-t", "--text")
    check = opts.has("-c", "--check")
    bsd = opts.has("--tag")
    zero = opts.has("-z", "--zero")
    files = opts.operands or ["-"]
    if check and (binary or text):
        raise tio.usage_error(
            inv, "the --binary and --text options are meaningless when verifying checksums")
    if bsd and text:
        raise tio.usage_error(inv, "--tag does not support --text mode")
    if check and bsd:
        raise tio.usage_error(inv, "the --tag option is meaningless when verifying checksums")
    if check and zero:
        raise tio.usage_error(inv, "the --zero option is not supported when verifying checksums")
    if not check:
        for opt, word in (("--ignore-missing", "ignore-missing"), ("--status", "status"),
                          ("--warn", "warn"), ("-w", "warn"), ("--quiet", "quiet"),
                          ("--strict", "strict")):
            if opts.has(opt):
                raise tio.usage_error(
                    inv, f"the --{word} option is meaningful only when verifying checksums")
        return _compute(inv, algo, tag, files, binary, bsd, zero)
    return _check_all(inv, algo, tag, files, opts)


def _compute(inv: Invocation, algo: str, tag: str, files: list[str], binary: bool, bsd: bool,
             zero: bool) -> int:
    status = 0
    end = b"\0" if zero else b"\n"
    for name in files:
        try:
            d = _digest(inv, algo, name)
        except OSError as e:
            inv.error(f"{tio.squote(name)}: {tio.strerror(e)}")
            status = 1
            continue
        shown, esc = (name, False) if zero else _escape(name)
        prefix = "\\" if esc else ""
        if bsd:
            line = f"{prefix}{tag} ({shown}) = {d}"
        else:
            line = f"{prefix}{d} {'*' if binary else ' '}{shown}"
        inv.stdout.write(line.encode("utf-8", "surrogateescape") + end)
    return status


_TAGGED = re.compile(r"\s*(\\?)([A-Z0-9-]+) \((.*)\) = ([0-9a-fA-F]+)\Z", re.S)


def _parse_line(line: str, tag: str, hexlen: int) -> tuple[str, str] | None:
    m = _TAGGED.match(line)
    if m:
        if m.group(2) != tag or len(m.group(4)) != hexlen:
            return None
        name = m.group(3)
        if m.group(1):
            u = _unescape(name)
            if u is None:
                return None
            name = u
        return m.group(4).lower(), name
    s = line.lstrip(" \t")
    esc = s.startswith("\\")
    if esc:
        s = s[1:]
    h = s[:hexlen]
    if len(h) != hexlen or not re.fullmatch(r"[0-9a-fA-F]+", h):
        return None
    rest = s[hexlen:]
    if len(rest) < 2 or rest[0] != " " or rest[1] not in " *":
        if rest[:1] == " " and len(rest) > 1:
            name = rest[1:]
        else:
            return None
    else:
        name = rest[2:]
    if not name:
        return None
    if esc:
        u = _unescape(name)
        if u is None:
            return None
        name = u
    return h.lower(), name


def _check_all(inv: Invocation, algo: str, tag: str, files: list[str], opts) -> int:
    quiet = opts.has("--quiet")
    status_only = opts.has("--status")
    strict = opts.has("--strict")
    warn = opts.has("-w", "--warn")
    ignore_missing = opts.has("--ignore-missing")
    hexlen = hashlib.new(algo).digest_size * 2
    status = 0
    for listname in files:
        try:
            f = tio.open_input(inv, listname)
        except OSError as e:
            inv.error(f"{tio.squote(listname)}: {tio.strerror(e)}")
            status = 1
            continue
        bad_format = mismatched = unreadable = matched_lines = 0
        properly = False
        try:
            for n, raw in enumerate(tio.records(inv, f), 1):
                text = raw.decode("utf-8", "surrogateescape")
                if text.endswith("\n"):
                    text = text[:-1]
                if text.endswith("\r"):
                    text = text[:-1]
                if text.startswith("#"):
                    continue
                parsed = _parse_line(text, tag, hexlen)
                if parsed is None:
                    bad_format += 1
                    if warn:
                        shown = "standard input" if listname == "-" else listname
                        inv.error(f"{tio.squote(shown)}: {n}: improperly formatted {tag} "
                                  "checksum line")
                    continue
                properly = True
                want, name = parsed
                shown_name = name
                if "\n" in name or "\r" in name:
                    shown_name = "\\" + _escape(name)[0]
                try:
                    got = _digest(inv, algo, name)
                except OSError as e:
                    if ignore_missing and isinstance(e, FileNotFoundError):
                        continue
                    inv.error(f"{tio.squote(name)}: {tio.strerror(e)}")
                    unreadable += 1
                    if not status_only:
                        inv.stdout.write(f"{shown_name}: FAILED open or read\n".encode(
                            "utf-8", "surrogateescape"))
                    continue
                matched_lines += 1
                if got != want:
                    mismatched += 1
                    if not status_only:
                        inv.stdout.write(f"{shown_name}: FAILED\n".encode(
                            "utf-8", "surrogateescape"))
                elif not (quiet or status_only):
                    inv.stdout.write(f"{shown_name}: OK\n".encode("utf-8", "surrogateescape"))
        except OSError as e:
            inv.error(f"{tio.squote(listname)}: {tio.strerror(e)}")
            status = 1
            continue
        finally:
            tio.close_input(inv, f)
        shown_list = "standard input" if listname == "-" else listname
        if not properly:
            inv.error(f"{tio.squote(shown_list)}: no properly formatted checksum lines found")
            status = 1
            continue
        if ignore_missing and matched_lines == 0 and not mismatched:
            inv.error(f"{tio.squote(shown_list)}: no file was verified")
            status = 1
        if not status_only:
            if bad_format:
                s = "" if bad_format == 1 else "s"
                verb = "is" if bad_format == 1 else "are"
                inv.error(f"WARNING: {bad_format} line{s} {verb} improperly formatted")
            if unreadable:
                s = "" if unreadable == 1 else "s"
                inv.error(f"WARNING: {unreadable} listed file{s} could not be read")
            if mismatched:
                s = "" if mismatched == 1 else "s"
                inv.error(f"WARNING: {mismatched} computed checksum{s} did NOT match")
        if mismatched or unreadable or (strict and bad_format):
            status = 1
    return status


