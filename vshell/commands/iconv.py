"""iconv: convert text between character encodings, as glibc 2.36's iconv program does.

The common charsets only (see ``iconv -l``): UTF-8, UTF-16/32 (with BOM handling and the
LE/BE forms), UCS-2/4, ASCII, ISO-8859-1/2/15, CP1250/1251/1252, KOI8-R, CP437/850.  Errors
match glibc: the converted prefix is written, then ``illegal input sequence at position N``
(N a byte offset) and status 1; ``-c`` drops what cannot be converted; ``//TRANSLIT``
substitutes a close ASCII spelling (or ``?``); ``//IGNORE`` drops it but still fails.
"""

from __future__ import annotations

import codecs
import unicodedata
from dataclasses import dataclass
from functools import partial

from vshell.command import Exit, Invocation
from vshell.commands._lib.argwalk import ArgWalk
from vshell.commands._lib.futil import enc, strerror
from vshell.commands._lib.helptext import help_text

# canonical name -> (Python codec, BOM handling: "" none, "16"/"32" detect on input)
_CHARSETS: dict[str, tuple[str, str]] = {
    "UTF-8": ("utf-8", ""), "UTF-16": ("utf-16", "16"), "UTF-16LE": ("utf-16-le", ""),
    "UTF-16BE": ("utf-16-be", ""), "UTF-32": ("utf-32", "32"), "UTF-32LE": ("utf-32-le", ""),
    "UTF-32BE": ("utf-32-be", ""), "UCS-2": ("utf-16-le", ""), "UCS-2LE": ("utf-16-le", ""),
    "UCS-2BE": ("utf-16-be", ""), "UCS-4": ("utf-32-be", ""), "UCS-4LE": ("utf-32-le", ""),
    "UCS-4BE": ("utf-32-be", ""), "ANSI_X3.4-1968": ("ascii", ""),
    "ISO-8859-1": ("latin-1", ""), "ISO-8859-2": ("iso8859-2", ""),
    "ISO-8859-15": ("iso8859-15", ""), "CP1250": ("cp1250", ""), "CP1251": ("cp1251", ""),
    "CP1252": ("cp1252", ""), "KOI8-R": ("koi8-r", ""), "IBM437": ("cp437", ""),
    "IBM850": ("cp850", ""),
}
_ALIASES = {
    "UTF8": "UTF-8", "UTF16": "UTF-16", "UTF16LE": "UTF-16LE", "UTF16BE": "UTF-16BE",
    "UTF32": "UTF-32", "UTF32LE": "UTF-32LE", "UTF32BE": "UTF-32BE", "UCS2": "UCS-2",
    "UCS4": "UCS-4", "ASCII": "ANSI_X3.4-1968", "USASCII": "ANSI_X3.4-1968",
    "ANSIX3.41968": "ANSI_X3.4-1968", "646": "ANSI_X3.4-1968", "US": "ANSI_X3.4-1968",
    "ISO88591": "ISO-8859-1", "LATIN1": "ISO-8859-1", "L1": "ISO-8859-1",
    "ISO885911987": "ISO-8859-1", "CP819": "ISO-8859-1", "IBM819": "ISO-8859-1",
    "ISO88592": "ISO-8859-2", "LATIN2": "ISO-8859-2", "L2": "ISO-8859-2",
    "ISO885915": "ISO-8859-15", "LATIN9": "ISO-8859-15", "LATIN0": "ISO-8859-15",
    "CP1250": "CP1250", "WINDOWS1250": "CP1250", "CP1251": "CP1251", "WINDOWS1251": "CP1251",
    "CP1252": "CP1252", "WINDOWS1252": "CP1252", "MSANSI": "CP1252", "KOI8R": "KOI8-R",
    "CP437": "IBM437", "IBM437": "IBM437", "437": "IBM437", "CP850": "IBM850",
    "IBM850": "IBM850", "850": "IBM850", "UCS2LE": "UCS-2LE", "UCS2BE": "UCS-2BE",
    "UCS4LE": "UCS-4LE", "UCS4BE": "UCS-4BE",
}

# glibc's C.UTF-8 transliterations for the characters agents meet most
_TRANSLIT = {
    "€": "EUR", "£": "GBP", "¥": "JPY", "¢": "c", "“": '"', "”": '"', "„": '"', "‟": '"',
    "‘": "'", "’": "'", "‚": "'", "‛": "'", "–": "-", "—": "--", "‐": "-", "‑": "-",
    "−": "-", "…": "...", "©": "(C)", "®": "(R)", "™": "(TM)", "ß": "ss", "æ": "ae",
    "Æ": "AE", "ø": "o", "Ø": "O", "œ": "oe", "Œ": "OE", "→": "->", "←": "<-", "×": "x",
    "÷": "/", "½": " 1/2 ", "¼": " 1/4 ", "¾": " 3/4 ", "µ": "u", "¡": "!", "«": "<<",
    "»": ">>", "•": "o", "·": ".", "ﬁ": "fi", "ﬂ": "fl", "ﬀ": "ff", "ﬃ": "ffi", "ﬄ": "ffl",
    "Ł": "L", "ł": "l", "đ": "d", "Đ": "D", "ð": "d", "Ð": "D", "þ": "th", "Þ": "TH",
    "¹": "1", "²": "2", "³": "3", "\u00a0": " ", "\u2002": " ", "\u2003": " ", "\u2009": " ",
    "\u200b": "", "‹": "<", "›": ">", "′": "'", "″": '"', "≤": "<=", "≥": ">=", "≠": "!=",
    "±": "+-",
}

HELP = help_text("iconv")

USAGE = help_text("iconv-usage")


class _Stop(Exception):
    """A conversion error glibc stops at (its message is already written)."""


@dataclass
class _Target:
    name: str
    codec: str
    bom: str
    translit: bool = False
    ignore: bool = False


def _lookup(spec: str) -> _Target | None:
    name, *flags = spec.split("//")
    flags = [f.upper() for f in flags if f]
    key = name.upper()
    canonical = key if key in _CHARSETS else _ALIASES.get(key.replace("-", "").replace("_", ""))
    if not name:
        canonical = "UTF-8"  # the locale's charset (C.UTF-8)
    if canonical is None:
        return None
    codec, bom = _CHARSETS[canonical]
    translit = any("TRANSLIT" in f for f in flags)
    ignore = any("IGNORE" in f for f in flags)
    return _Target(canonical, codec, bom, translit, ignore)


def _usage(inv: Invocation, message: str) -> Exit:
    inv.stderr.write(enc(f"iconv: {message}\nTry `iconv --help' or `iconv --usage' "
                         "for more information.\n"))
    return Exit(64)


def _parse(inv: Invocation) -> tuple[dict[str, str | bool], list[str]]:
    opts: dict[str, str | bool] = {}
    walk = ArgWalk(inv.args)
    files = walk.files
    usage = partial(_usage, inv)
    valued = {"f": "from", "t": "to", "o": "output"}
    longs = {"from-code": "f", "to-code": "t", "output": "o", "list": "l", "silent": "s",
             "help": "?", "usage": "usage", "version": "V"}
    for a in walk:
        if a.startswith("--"):
            name, eq, value = a[2:].partition("=")
            matches = [k for k in longs if k.startswith(name)] if name else []
            if name in longs:
                matches = [name]
            if len(matches) != 1:
                raise _usage(inv, f"unrecognized option '{a}'" if not matches
                             else f"option '{a}' is ambiguous")
            letter = longs[matches[0]]
            if letter in valued:
                if not eq:
                    value = walk.need(usage, f"option '--{matches[0]}' requires an argument")
                opts[valued[letter]] = value
            else:
                opts[letter] = True
            continue
        if not a.startswith("-") or a == "-":
            files.append(a)
            continue
        for ch, rest in walk.letters(a):
            if ch in valued:
                message = f"option requires an argument -- '{ch}'"
                opts[valued[ch]] = walk.value(rest, usage, message)
                break
            if ch not in "lcs?V":
                raise _usage(inv, f"invalid option -- '{ch}'")
            opts[ch] = True
    return opts, files


def run(inv: Invocation) -> int:
    opts, files = _parse(inv)
    if opts.get("?"):
        inv.stdout.write(HELP.encode())
        return 0
    if opts.get("usage"):
        inv.stdout.write(USAGE.encode())
        return 0
    if opts.get("V"):
        inv.stdout.write(b"iconv (vshell) 2.36\n")
        return 0
    if opts.get("l"):
        names = sorted(set(_CHARSETS) | set(_ALIASES))
        inv.stdout.write("".join(f"{n}//\n" for n in names).encode())
        return 0
    source = _lookup(str(opts.get("from", "")))
    target = _lookup(str(opts.get("to", "")))
    if source is None or target is None:
        raise Exit(1, "failed to start conversion processing: No such file or directory")
    omit = bool(opts.get("c"))
    out = bytearray()
    status = 0
    try:
        for name in files or ["-"]:
            try:
                data = _read(inv, name)
            except OSError as e:
                inv.error(f"cannot open input file `{name}': {strerror(e)}")
                status = 1
                continue
            status |= _convert(inv, data, source, target, omit, out)
            _flush(inv, opts, out)
    except _Stop:
        _flush(inv, opts, out)
        return 1
    if "output" in opts:
        _write_output(inv, str(opts["output"]), bytes(out))
    return status


def _read(inv: Invocation, name: str) -> bytes:
    if name == "-":
        return inv.stdin.read()
    with inv.fs.open(inv.abs(name), "rb") as f:
        return f.read()


def _flush(inv: Invocation, opts: dict[str, str | bool], out: bytearray) -> None:
    """Without -o the output streams as it is made; with -o it waits for success."""
    if "output" not in opts:
        inv.stdout.write(bytes(out))
        out.clear()


def _write_output(inv: Invocation, name: str, data: bytes) -> None:
    try:
        with inv.fs.open(inv.abs(name), "wb") as f:
            f.write(data)
    except OSError as e:
        raise Exit(1, f"cannot open output file: {strerror(e)}") from None


def _convert(inv: Invocation, data: bytes, source: _Target, target: _Target, omit: bool,
             out: bytearray) -> int:
    """Convert one file's bytes into ``out``; raise _Stop after reporting a hard error."""
    codec, start = _input_codec(data, source)
    encoder = _Encoder(inv, target, omit)
    out += encoder.bom()
    inv.cancel.check()
    if omit or target.ignore:  # drop what cannot be read or written, in one linear pass
        decoder = codecs.getincrementaldecoder(codec)("ignore")
        out += encoder.encode(decoder.decode(data[start:], final=False), start, codec)
        if decoder.getstate()[0]:
            inv.error("incomplete character or shift sequence at end of buffer")
            raise _Stop
        if not omit and (encoder.dropped or not _decodes(data[start:], codec)):
            inv.error(f"illegal input sequence at position {len(data)}")  # glibc's //IGNORE
            raise _Stop
        return 0
    try:
        text = data[start:].decode(codec)
    except UnicodeDecodeError as e:
        text = data[start : start + e.start].decode(codec)
        _emit(encoder, out, text, start, codec)
        if e.end >= len(data) - start and str(e.reason) in _TRUNCATED:
            inv.error("incomplete character or shift sequence at end of buffer")
        else:
            inv.error(f"illegal input sequence at position {start + e.start}")
        raise _Stop from None
    _emit(encoder, out, text, start, codec)
    return 0


_TRUNCATED = ("unexpected end of data", "truncated data")


def _decodes(data: bytes, codec: str) -> bool:
    try:
        data.decode(codec)
    except UnicodeDecodeError:
        return False
    return True


def _emit(encoder: _Encoder, out: bytearray, text: str, offset: int, codec: str) -> None:
    try:
        out += encoder.encode(text, offset, codec)
    except _PartialStop as stop:
        out += stop.done  # glibc writes what it converted before the bad character
        raise _Stop from None


def _input_codec(data: bytes, source: _Target) -> tuple[str, int]:
    """The codec to decode with and where the text starts (after a UTF-16/32 BOM)."""
    if source.bom == "16":
        if data[:2] == b"\xff\xfe":
            return "utf-16-le", 2
        if data[:2] == b"\xfe\xff":
            return "utf-16-be", 2
        return "utf-16-le", 0  # no BOM: glibc assumes the machine order
    if source.bom == "32":
        if data[:4] == b"\xff\xfe\x00\x00":
            return "utf-32-le", 4
        if data[:4] == b"\x00\x00\xfe\xff":
            return "utf-32-be", 4
        return "utf-32-le", 0
    return source.codec, 0


class _Encoder:
    def __init__(self, inv: Invocation, target: _Target, omit: bool) -> None:
        self.inv, self.target, self.omit = inv, target, omit
        self.dropped = False
        self.codec = {"utf-16": "utf-16-le", "utf-32": "utf-32-le"}.get(target.codec,
                                                                         target.codec)

    def bom(self) -> bytes:
        return {"utf-16": b"\xff\xfe", "utf-32": b"\xff\xfe\x00\x00"}.get(self.target.codec, b"")

    def encode(self, text: str, offset: int, in_codec: str) -> bytes:
        try:
            return text.encode(self.codec)
        except UnicodeEncodeError as e:
            first = e.start
        out = bytearray(text[:first].encode(self.codec))
        for k in range(first, len(text)):
            if k % 65536 == 0:
                self.inv.cancel.check()
            ch = text[k]
            try:
                out += ch.encode(self.codec)
                continue
            except UnicodeEncodeError:
                pass
            if self.target.translit:
                out += self._translit(ch)
            elif self.omit or self.target.ignore:
                self.dropped = True
            else:
                position = offset + len(text[:k].encode(in_codec))
                self.inv.error(f"illegal input sequence at position {position}")
                raise _PartialStop(bytes(out))
        return bytes(out)

    def _translit(self, ch: str) -> bytes:
        for candidate in (_TRANSLIT.get(ch), _strip_marks(ch), _compat(ch)):
            if candidate is None:
                continue
            try:
                return candidate.encode(self.codec)
            except UnicodeEncodeError:
                continue
        return "?".encode(self.codec)


class _PartialStop(_Stop):
    def __init__(self, done: bytes) -> None:
        super().__init__()
        self.done = done


def _strip_marks(ch: str) -> str | None:
    base = "".join(c for c in unicodedata.normalize("NFD", ch) if not unicodedata.combining(c))
    return base if base and base != ch else None


def _compat(ch: str) -> str | None:
    """Full-width forms and circled numbers, which glibc spells in ASCII."""
    code = ord(ch)
    if 0xFF01 <= code <= 0xFF5E:
        return chr(code - 0xFEE0)
    if 0x2460 <= code <= 0x2473:
        return f"({code - 0x245F})"
    return None
