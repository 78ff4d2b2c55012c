"""tr: translate, squeeze or delete bytes, as GNU tr does (byte-oriented in every locale).

The work is ``bytes.translate`` plus one compiled regex for squeezing, chunk by chunk.
"""

from __future__ import annotations

import re

from vshell.command import Exit, Invocation
from vshell.commands._lib import textio as tio
from vshell.text import posix_class
from vshell.text.numarg import SIZE_MAX, parse_count


def _class(name: str) -> bytes | None:
    """The bytes of a POSIX class; GNU tr's classes are ASCII in every locale."""
    try:
        spans = posix_class.ascii_ranges(name)
    except KeyError:
        return None
    return bytes(b for lo, hi in spans for b in range(lo, hi + 1))


_ESC = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11}


class _Elem:
    """One parsed piece of a set: literal bytes, a class name, or a [c*n] repeat."""

    def __init__(self, kind: str, data: bytes = b"", name: str = "", count: int | None = 0):
        self.kind, self.data, self.name, self.count = kind, data, name, count


def _unescape(inv: Invocation, s: bytes) -> list[tuple[int, bool]]:
    """Bytes of a set with escapes resolved; the flag marks an escaped byte."""
    out: list[tuple[int, bool]] = []
    i = 0
    while i < len(s):
        c = s[i]
        if c == 0x5C:
            if i + 1 >= len(s):
                inv.error("warning: an unescaped backslash at end of string is not portable")
                out.append((0x5C, True))
                i += 1
                continue
            n = s[i + 1]
            if 0x30 <= n <= 0x37:
                j = i + 1
                val = 0
                while j < len(s) and j < i + 4 and 0x30 <= s[j] <= 0x37:
                    nv = val * 8 + s[j] - 0x30
                    if nv > 255:
                        break
                    val = nv
                    j += 1
                out.append((val, True))
                i = j
                continue
            out.append((_ESC.get(chr(n), n), True))
            i += 2
            continue
        out.append((c, False))
        i += 1
    return out


def _parse(inv: Invocation, text: str, is_set2: bool) -> list[_Elem]:
    raw = _unescape(inv, text.encode("utf-8", "surrogateescape"))
    elems: list[_Elem] = []
    i = 0
    n = len(raw)
    while i < n:
        c, esc = raw[i]
        if c == 0x5B and not esc and i + 1 < n:
            c1 = raw[i + 1][0]
            if c1 in (0x3A, 0x3D) and not raw[i + 1][1]:
                # [:class:] or [=c=]
                close = None
                for j in range(i + 2, n - 1):
                    if raw[j][0] == c1 and raw[j + 1][0] == 0x5D and not raw[j][1]:
                        close = j
                        break
                if close is not None:
                    body = bytes(b for b, _ in raw[i + 2 : close])
                    if c1 == 0x3A:
                        name = body.decode("latin-1")
                        if _class(name) is None:
                            raise Exit(1, f"invalid character class {tio.quote(name)}")
                        elems.append(_Elem("class", name=name))
                    else:
                        if len(body) != 1:
                            raise Exit(1, f"{body.decode('latin-1')}: equivalence class operand"
                                       " must be a single character")
                        elems.append(_Elem("lit", body))
                    i = close + 2
                    continue
            # [c*n]
            if i + 2 < n and raw[i + 2][0] == 0x2A and not raw[i + 2][1]:
                j = i + 3
                digits = b""
                while j < n and 0x30 <= raw[j][0] <= 0x39 and not raw[j][1]:
                    digits += bytes([raw[j][0]])
                    j += 1
                if j < n and raw[j][0] == 0x5D and not raw[j][1]:
                    cnt: int | None
                    if digits:
                        cnt = _repeat_count(digits)
                        if cnt == 0:
                            cnt = None
                    else:
                        cnt = None
                    if not is_set2:
                        if cnt is None:
                            raise Exit(1, "the [c*] repeat construct may not appear in string1")
                    elems.append(_Elem("rep", bytes([c1]), count=cnt))
                    i = j + 1
                    continue
        if i + 2 < n and raw[i + 1][0] == 0x2D and not raw[i + 1][1]:
            hi = raw[i + 2][0]
            if hi < c:
                lo_s = _show(raw[i][0])
                hi_s = _show(hi)
                raise Exit(1, f"range-endpoints of '{lo_s}-{hi_s}' are in reverse collating "
                           "sequence order")
            elems.append(_Elem("lit", bytes(range(c, hi + 1))))
            i += 3
            continue
        elems.append(_Elem("lit", bytes([c])))
        i += 1
    return elems


def _repeat_count(digits: bytes) -> int:
    """GNU's ``[c*n]`` count: octal with a leading 0, below SIZE_MAX, else an error."""
    text = digits.decode("ascii")
    n = parse_count(text, base=8 if text.startswith("0") else 10, limit=SIZE_MAX - 1)
    if n is None or n.overflow:
        raise Exit(1, f"invalid repeat count {tio.quote(text)} in [c*n] construct")
    return n.value


def _show(b: int) -> str:
    if 32 <= b < 127:
        return chr(b)
    return f"\\{b:03o}"


def _expand(elems: list[_Elem], fill_to: int | None = None) -> bytes:
    out = bytearray()
    fill_at = -1
    for e in elems:
        if e.kind == "lit":
            out += e.data
        elif e.kind == "class":
            out += _class(e.name) or b""
        else:
            if e.count is None:
                fill_at = len(out)
                out += b""
                fill_byte = e.data
            else:
                # positions past set1's end are never used, and a set needs one copy
                limit = max(fill_to or 0, len(out) + 1)
                out += e.data * min(e.count, max(0, limit - len(out)) or 1)
    if fill_at >= 0 and fill_to is not None:
        need = max(0, fill_to - len(out))
        out[fill_at:fill_at] = fill_byte * need
    return bytes(out)


_Plan = tuple[bytes | None, bytes, bytes, "re.Pattern[bytes] | None"]
_PLANS: dict[tuple[bool, bool, bool, bool, tuple[str, ...]], _Plan] = {}


def _plan(inv: Invocation, comp: bool, delete: bool, squeeze: bool, trunc: bool,
          translating: bool, ops: list[str]) -> _Plan:
    """The translation table, the bytes to delete, the bytes to squeeze and the squeezing
    regex of one command line: made once per operands and flags (a loop runs the same
    ``tr`` again and again)."""
    e1 = _parse(inv, ops[0], False)
    set1 = _expand(e1)
    if comp:
        s1 = set(set1)
        set1 = bytes(b for b in range(256) if b not in s1)
    table = None
    deletes = b""
    squeeze_set = b""
    if translating:
        e2 = _parse(inv, ops[1], True)
        for e in e2:
            if e.kind == "class" and e.name not in ("upper", "lower"):
                raise Exit(1, "when translating, the only character classes that may appear in\n"
                           "string2 are 'upper' and 'lower'")
        set2 = _expand(e2, len(set1))
        if not set2 and not trunc and set1:
            raise Exit(1, "when not truncating set1, string2 must be non-empty")
        if trunc:
            set1 = set1[: len(set2)]
        elif len(set2) < len(set1):
            set2 = set2 + set2[-1:] * (len(set1) - len(set2))
        t = bytearray(range(256))
        for a, b in zip(set1, set2, strict=False):
            t[a] = b
        table = bytes(t)
        if squeeze:
            squeeze_set = set2
    elif delete:
        deletes = set1
        if squeeze:
            squeeze_set = _expand(_parse(inv, ops[1], True))
    else:
        squeeze_set = set1
    rx = None
    if squeeze_set:
        cls = b"".join(re.escape(bytes([b])) for b in sorted(set(squeeze_set)))
        rx = re.compile(b"([" + cls + b"])\\1+")
    return table, deletes, squeeze_set, rx


def run(inv: Invocation) -> int:
    opts = tio.options(inv, "cCdst", ["complement", "delete", "squeeze-repeats",
                                      "truncate-set1"])
    comp = opts.has("-c", "-C", "--complement")
    delete = opts.has("-d", "--delete")
    squeeze = opts.has("-s", "--squeeze-repeats")
    trunc = opts.has("-t", "--truncate-set1")
    ops = opts.operands
    if not ops:
        raise tio.usage_error(inv, "missing operand")
    translating = not delete and len(ops) >= 2
    if delete and squeeze:
        need = 2
    elif delete or (squeeze and len(ops) < 2):
        need = 1
    else:
        need = 2
    if len(ops) < need:
        if need == 2 and not squeeze:
            msg = (f"missing operand after {tio.quote(ops[-1])}\n"
                   "Two strings must be given when translating.")
        else:
            msg = (f"missing operand after {tio.quote(ops[-1])}\n"
                   "Two strings must be given when both deleting and squeezing repeats.")
        raise tio.usage_error(inv, msg)
    if len(ops) > need:
        msg = f"extra operand {tio.quote(ops[need])}"
        if delete and not squeeze:
            msg += "\nOnly one string may be given when deleting without squeezing repeats."
        raise tio.usage_error(inv, msg)
    key = (comp, delete, squeeze, trunc, tuple(ops))
    plan = _PLANS.get(key)
    if plan is None:
        plan = _plan(inv, comp, delete, squeeze, trunc, translating, ops)
        # an operand ending in a backslash may warn: keep those out, so each run warns
        if not any(op.endswith("\\") for op in ops):
            if len(_PLANS) >= 256:
                _PLANS.clear()
            _PLANS[key] = plan
    table, deletes, squeeze_set, rx = plan
    sq = set(squeeze_set)
    last = -1
    out = inv.stdout
    for data in tio.chunks(inv, inv.stdin):
        if table is not None or deletes:
            data = data.translate(table, deletes)
        if rx is not None and data:
            data = rx.sub(b"\\1", data)
            if last in sq and data[0] == last:
                data = data.lstrip(bytes([last]))
            if data:
                last = data[-1]
        if data:
            out.write(data)
    return 0
