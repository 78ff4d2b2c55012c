"""fmt: fill and join paragraphs with GNU fmt's line-breaking costs.

GNU fmt chooses breaks by dynamic programming over a cost model (short lines, ragged
edges, sentence ends, widows and orphans); the same model is reproduced here so the
output matches it.  Widths count bytes, as GNU's do.
"""

from __future__ import annotations

from vshell.command import Exit, Invocation
from vshell.commands._lib import textio as tio
from vshell.records import record

TABWIDTH = 8
LEEWAY = 7
MAXWORDS = 1000
MAXCHARS = 5000
MAXCOST = (1 << 63) - 1


def _equiv(n: int) -> int:
    return n * n


def _short_cost(n: int) -> int:
    return _equiv(n * 10)


def _ragged_cost(n: int) -> int:
    return _short_cost(n) // 2


LINE_COST = _equiv(70)
SENTENCE_BONUS = _equiv(50)
NOBREAK_COST = _equiv(600)
PAREN_BONUS = _equiv(40)
PUNCT_BONUS = _equiv(40)
LINE_CREDIT = _equiv(3)


def _widow_cost(n: int) -> int:
    return _equiv(200) // (n + 2)


def _orphan_cost(n: int) -> int:
    return _equiv(150) // (n + 2)


_PUNCT = set(b"!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


@record
class Word:
    text: bytes
    length: int = 0
    space: int = 0
    paren: bool = False
    punct: bool = False
    period: bool = False
    final: bool = False
    best_cost: int = 0
    next_break: int = 0
    line_length: int = 0


@record(frozen=True)
class _Layout:
    """What the options ask of every file: widths, spacing, the indentation rule, prefix."""

    max_width: int
    goal_width: int
    uniform: bool  # -u
    split_lines: bool  # -s
    crown: bool  # -c
    tagged: bool  # -t
    prefix: bytes  # -p


class _Fmt:
    def __init__(self, inv: Invocation, data: bytes, layout: _Layout) -> None:
        self.inv = inv
        self.data = data
        self.pos = 0
        self.o = layout
        prefix = layout.prefix
        stripped = prefix.lstrip(b" ")
        self.prefix_lead_space = len(prefix) - len(stripped)
        self.prefix_full_length = len(stripped)
        self.prefix_length = len(stripped.rstrip(b" "))
        self.prefix = stripped[: self.prefix_length]
        self.tabs = False
        self.in_column = 0
        self.out_column = 0
        self.next_prefix_indent = 0
        self.prefix_indent = 0
        self.first_indent = 0
        self.other_indent = 0
        self.last_line_length = 0
        self.words: list[Word] = []
        self.chars = 0
        self.out: list[bytes] = []

    # --- input ---
    def getc(self) -> int:
        if self.pos >= len(self.data):
            return -1
        c = self.data[self.pos]
        self.pos += 1
        return c

    def get_space(self, c: int) -> int:
        while True:
            if c == 32:
                self.in_column += 1
            elif c == 9:
                self.tabs = True
                self.in_column = (self.in_column // TABWIDTH + 1) * TABWIDTH
            else:
                return c
            c = self.getc()

    def get_prefix(self) -> int:
        self.in_column = 0
        c = self.get_space(self.getc())
        if self.prefix_length == 0:
            self.next_prefix_indent = min(self.prefix_lead_space, self.in_column)
        else:
            self.next_prefix_indent = self.in_column
            for p in self.prefix:
                if c != p:
                    return c
                self.in_column += 1
                c = self.getc()
            c = self.get_space(c)
        return c

    def same_para(self, c: int) -> bool:
        return (self.next_prefix_indent == self.prefix_indent
                and self.in_column >= self.next_prefix_indent + self.prefix_full_length
                and c not in (10, -1))

    def set_other_indent(self, same: bool) -> None:
        if self.o.split_lines:
            self.other_indent = self.first_indent
        elif self.o.crown:
            self.other_indent = self.in_column if same else self.first_indent
        elif self.o.tagged:
            if same and self.in_column != self.first_indent:
                self.other_indent = self.in_column
            elif self.other_indent == self.first_indent:
                self.other_indent = 3 if self.first_indent == 0 else 0
        else:
            self.other_indent = self.first_indent

    def get_line(self, c: int) -> int:
        while True:
            start_pos = self.pos - 1
            while True:
                if self.chars >= MAXCHARS:
                    self.set_other_indent(True)
                    self.flush_paragraph()
                    # the word being read moves down with the rest
                    self.chars += self.pos - 1 - start_pos
                self.chars += 1
                c = self.getc()
                if c == -1 or c in b" \t\n\v\f\r":
                    break
            text = self.data[start_pos:self.pos - (0 if c == -1 else 1)]
            w = Word(text, len(text))
            self.in_column += w.length
            first, last = text[0], text[-1]
            w.paren = first in b"(['`\""
            w.punct = last in _PUNCT
            k = len(text) - 1
            while k > 0 and text[k] in b")]'\"":
                k -= 1
            w.period = text[k] in b".?!"
            start = self.in_column
            c = self.get_space(c)
            w.space = self.in_column - start
            w.final = c == -1 or (w.period and (c == 10 or w.space > 1))
            if c in (10, -1) or self.o.uniform:
                w.space = 2 if w.final else 1
            self.words.append(w)
            if len(self.words) >= MAXWORDS - 1:
                self.set_other_indent(True)
                self.flush_paragraph()
            if c in (10, -1):
                break
        return self.get_prefix()

    def copy_rest(self, c: int) -> int:
        self.out_column = 0
        if self.in_column > self.next_prefix_indent or c not in (10, -1):
            self.put_space(self.next_prefix_indent)
            for p in self.prefix:
                if self.out_column == self.in_column:
                    break
                self.out.append(bytes([p]))
                self.out_column += 1
            if c not in (10, -1):
                self.put_space(self.in_column - self.out_column)
            if c == -1 and self.in_column >= self.next_prefix_indent + self.prefix_length:
                self.out.append(b"\n")
        while c not in (10, -1):
            self.out.append(bytes([c]))
            c = self.getc()
        return c

    def get_paragraph(self, c: int) -> tuple[bool, int]:
        self.last_line_length = 0
        while (c in (10, -1) or self.next_prefix_indent < self.prefix_lead_space
               or self.in_column < self.next_prefix_indent + self.prefix_full_length):
            c = self.copy_rest(c)
            if c == -1:
                return False, c
            self.out.append(b"\n")
            c = self.get_prefix()
        self.prefix_indent = self.next_prefix_indent
        self.first_indent = self.in_column
        self.words = []
        self.chars = 0
        c = self.get_line(c)
        self.set_other_indent(self.same_para(c))
        if self.o.split_lines:
            pass
        elif self.o.crown:
            if self.same_para(c):
                c = self.get_line(c)
                while self.same_para(c) and self.in_column == self.other_indent:
                    c = self.get_line(c)
        elif self.o.tagged:
            if self.same_para(c) and self.in_column != self.first_indent:
                c = self.get_line(c)
                while self.same_para(c) and self.in_column == self.other_indent:
                    c = self.get_line(c)
        else:
            while self.same_para(c) and self.in_column == self.other_indent:
                c = self.get_line(c)
        if self.words:
            self.words[-1].period = self.words[-1].final = True
        return True, c

    # --- formatting ---
    def fmt_paragraph(self) -> None:
        words = self.words
        n = len(words)
        max_width = self.o.max_width
        limit = Word(b"", max_width)
        limit.best_cost = 0
        words.append(limit)  # sentinel at index n
        for start in range(n - 1, -1, -1):
            best = MAXCOST
            length = self.first_indent if start == 0 else self.other_indent
            w = start
            length += words[w].length
            while True:
                w += 1
                wcost = self._line_cost(w, length, n) + words[w].best_cost
                if start == 0 and self.last_line_length > 0:
                    wcost += _ragged_cost(length - self.last_line_length)
                if wcost < best:
                    best = wcost
                    words[start].next_break = w
                    words[start].line_length = length
                if w == n:
                    break
                length += words[w - 1].space + words[w].length
                if length >= max_width:
                    break
            words[start].best_cost = best + self._base_cost(start, n)
        words.pop()

    def _line_cost(self, nxt: int, length: int, n: int) -> int:
        if nxt == n:
            return 0
        cost = _short_cost(self.o.goal_width - length)
        if self.words[nxt].next_break != n:
            cost += _ragged_cost(length - self.words[nxt].line_length)
        return cost

    def _base_cost(self, this: int, n: int) -> int:
        words = self.words
        cost = LINE_COST
        if this > 0:
            prev = words[this - 1]
            if prev.period:
                cost += -SENTENCE_BONUS if prev.final else NOBREAK_COST
            elif prev.punct:
                cost -= PUNCT_BONUS
            elif this > 1 and words[this - 2].final:
                cost += _widow_cost(prev.length)
        if words[this].paren:
            cost -= PAREN_BONUS
        elif words[this].final:
            cost += _orphan_cost(words[this].length)
        return cost

    def put_space(self, space: int) -> None:
        target = self.out_column + space
        if self.tabs:
            tab_target = target // TABWIDTH * TABWIDTH
            if self.out_column + 1 < tab_target:
                while self.out_column < tab_target:
                    self.out.append(b"\t")
                    self.out_column = (self.out_column // TABWIDTH + 1) * TABWIDTH
        if self.out_column < target:
            self.out.append(b" " * (target - self.out_column))
            self.out_column = target

    def put_line(self, w: int, indent: int) -> None:
        self.out_column = 0
        self.put_space(self.prefix_indent)
        self.out.append(self.prefix)
        self.out_column += self.prefix_length
        self.put_space(indent - self.out_column)
        end = self.words[w].next_break - 1
        while w != end:
            self.out.append(self.words[w].text)
            self.out_column += self.words[w].length
            self.put_space(self.words[w].space)
            w += 1
        self.out.append(self.words[w].text)
        self.out_column += self.words[w].length
        self.last_line_length = self.out_column
        self.out.append(b"\n")

    def put_paragraph(self, finish: int) -> None:
        self.put_line(0, self.first_indent)
        w = self.words[0].next_break
        while w != finish:
            self.put_line(w, self.other_indent)
            w = self.words[w].next_break

    def flush_paragraph(self) -> None:
        if not self.words:
            return
        self.fmt_paragraph()
        n = len(self.words)
        split = n
        best = MAXCOST
        w = self.words[0].next_break
        while w != n:
            nb = self.words[w].next_break
            nbc = self.words[nb].best_cost if nb < n else 0
            if self.words[w].best_cost - nbc < best:
                split = w
                best = self.words[w].best_cost - nbc
            if best <= MAXCOST - LINE_CREDIT:
                best += LINE_CREDIT
            w = nb
        self.put_paragraph(split)
        self.words = self.words[split:]
        self.chars = sum(x.length for x in self.words)

    def run(self) -> bytes:
        c = self.get_prefix()
        while True:
            ok, c = self.get_paragraph(c)
            if not ok:
                break
            self.fmt_paragraph()
            self.put_paragraph(len(self.words))
            if len(self.out) > 4096:
                self.inv.stdout.write(b"".join(self.out))
                self.out = []
        return b"".join(self.out)


def run(inv: Invocation) -> int:
    opts = tio.options(inv, "w:g:uscp:t", ["width=", "goal=", "uniform-spacing",
                                          "split-only", "crown-margin", "prefix=",
                                          "tagged-paragraph"], numeric=True)
    width = 75
    goal = None
    width_given = False
    for k, v in opts.items:
        if k in ("-w", "--width", "-NUM"):
            if not (v or "").isdigit():
                raise Exit(1, f"invalid width: {tio.quote(v or '')}")
            width = int(v or "0")
            width_given = True
        elif k in ("-g", "--goal"):
            if not (v or "").isdigit():
                raise Exit(1, f"invalid width: {tio.quote(v or '')}")
            goal = int(v or "0")
    if goal is None:
        goal = width * (2 * (100 - LEEWAY) + 1) // 200
    elif not width_given:
        width = goal + 10
    if goal > width:
        raise Exit(1, f"invalid width: {tio.quote(str(goal))}: Numerical result out of range")
    layout = _Layout(width, goal, opts.has("-u", "--uniform-spacing"),
                     opts.has("-s", "--split-only"), opts.has("-c", "--crown-margin"),
                     opts.has("-t", "--tagged-paragraph"),
                     (opts.last("-p", "--prefix") or "").encode("utf-8", "surrogateescape"))
    status = 0
    for name in opts.operands or ["-"]:
        data = tio.read_whole(
            inv, name,
            open_error=lambda n, e: f"cannot open {tio.aquote(n)} for reading: {tio.strerror(e)}",
            read_error=lambda n, e: f"read error: {tio.strerror(e)}")
        if data is None:
            status = 1
            continue
        inv.stdout.write(_Fmt(inv, data, layout).run())
    return status
