"""nl: number lines of files, with GNU's styles, formats and logical pages."""

from __future__ import annotations

from typing import IO, Any

from vshell.command import Exit, Invocation
from vshell.commands._lib import textio as tio
from vshell.text import regex
from vshell.text.numarg import INT_MAX, INTMAX_MAX, INTMAX_MIN, parse_int


def _style(inv: Invocation, v: str, what: str) -> str | regex.Regex:
    if v in ("a", "t", "n"):
        return v
    if v.startswith("p"):
        try:  # GNU nl: a basic regular expression, one line at a time
            return regex.compile(v[1:], "bre", utf8=regex.is_utf8_locale(inv.env))
        except regex.RegexError as e:
            raise Exit(1, str(e)) from None
    raise tio.usage_error(inv, f"invalid {what} numbering style: {tio.quote(v)}")


_WIDTH_MAX = 1 << 20


def _int(inv: Invocation, v: str, what: str, positive: bool = False,
         high: int = INTMAX_MAX) -> int:
    """GNU's ``xdectoimax``: a decimal in [1 or INTMAX_MIN, ``high``], else its message."""
    n = parse_int(v, low=-(1 << 200), high=1 << 200)
    if n is None:
        body = v.strip().lstrip("+-")
        if body.isdigit() and body.isascii():  # digits, only too many of them
            n = (1 << 201) * (-1 if v.strip().startswith("-") else 1)
        else:
            raise Exit(1, f"invalid {what}: {tio.quote(v)}")
    if positive and n <= 0:
        raise Exit(1, f"invalid {what}: {tio.quote(v)}: Numerical result out of range")
    if not INTMAX_MIN <= n <= high:
        raise Exit(1, f"invalid {what}: {tio.quote(v)}: Value too large for defined data type")
    return n


def run(inv: Invocation) -> int:
    """The command; a back-reference search inside it stops with the run's timeout."""
    with regex.cancellable(inv.cancel.check):
        return _run(inv)


def _run(inv: Invocation) -> int:
    opts = tio.options(inv, "b:d:f:h:i:l:n:ps:v:w:", [
        "body-numbering=", "section-delimiter=", "footer-numbering=", "header-numbering=",
        "line-increment=", "join-blank-lines=", "number-format=", "no-renumber",
        "number-separator=", "starting-line-number=", "number-width="])
    styles: dict[str, str | regex.Regex] = {"h": "n", "b": "t", "f": "n"}
    delim = b"\\:"
    incr, join, fmt, renumber, sep, start, width = 1, 1, "rn", True, b"\t", 1, 6
    for k, v in opts.items:
        v = v or ""
        if k in ("-b", "--body-numbering"):
            styles["b"] = _style(inv, v, "body")
        elif k in ("-h", "--header-numbering"):
            styles["h"] = _style(inv, v, "header")
        elif k in ("-f", "--footer-numbering"):
            styles["f"] = _style(inv, v, "footer")
        elif k in ("-d", "--section-delimiter"):
            d = v.encode("utf-8", "surrogateescape")
            delim = d + b":" if len(d) == 1 else d
        elif k in ("-i", "--line-increment"):
            incr = _int(inv, v, "line number increment")
        elif k in ("-l", "--join-blank-lines"):
            join = _int(inv, v, "line number of blank lines", True)
        elif k in ("-n", "--number-format"):
            if v not in ("ln", "rn", "rz"):
                raise tio.usage_error(inv, f"invalid line numbering format: {tio.quote(v)}")
            fmt = v
        elif k in ("-p", "--no-renumber"):
            renumber = False
        elif k in ("-s", "--number-separator"):
            sep = v.encode("utf-8", "surrogateescape")
        elif k in ("-v", "--starting-line-number"):
            start = _int(inv, v, "starting line number")
        elif k in ("-w", "--number-width"):
            width = _int(inv, v, "line number field width", True, INT_MAX)
            if width > _WIDTH_MAX:  # GNU would pad each line to gigabytes
                raise Exit(1, "memory exhausted")
    blank_fmt = b" " * (width + len(sep))
    delims = {delim * 3: "h", delim * 2: "b", delim: "f"} if delim else {}
    state: dict[str, Any] = {"sec": "b", "num": start, "blanks": 0}  # section, number, blanks
    out = inv.stdout

    def number() -> bytes:
        n = state["num"]
        if fmt == "ln":
            s = str(n).ljust(width)
        elif fmt == "rz":
            s = ("-" + str(-n).rjust(width - 1, "0")) if n < 0 else str(n).rjust(width, "0")
        else:
            s = str(n).rjust(width)
        state["num"] = n + incr
        return s.encode() + sep

    def number_lines(f: IO[bytes]) -> None:
        res: list[bytes] = []
        for rec in tio.records(inv, f):
            line = rec[:-1] if rec.endswith(b"\n") else rec
            nl = b"\n"
            sec = delims.get(line)
            if sec is not None:
                state["sec"] = sec
                if renumber:
                    state["num"] = start
                res.append(b"\n")
                continue
            style = styles[state["sec"]]
            if style == "a":
                if line == b"":
                    state["blanks"] += 1
                    if state["blanks"] >= join:
                        state["blanks"] = 0
                        res.append(number() + line + nl)
                    else:
                        res.append(blank_fmt + line + nl)
                    continue
                state["blanks"] = 0
                do = True
            elif style == "t":
                do = line != b""
            elif style == "n":
                do = False
            else:
                try:
                    do = style.search(line) is not None  # type: ignore[union-attr]  # letters done above
                except regex.TooComplex:
                    raise Exit(1, regex.TOO_COMPLEX) from None
            res.append((number() if do else blank_fmt) + line + nl)
            if len(res) > 4096:
                out.write(b"".join(res))
                res = []
        out.write(b"".join(res))

    return tio.each_input(inv, opts.operands, number_lines)
