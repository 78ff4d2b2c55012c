"""A bounded backtracking matcher, for the one thing RE2 cannot run: back-references.

The tree is compiled to a small instruction list and run by an explicit-stack machine (no
Python recursion, so long subjects cannot overflow the stack).  Every instruction counts
against a work budget; past it :class:`TooComplex` ends the search -- the caller reports
GNU-style ``regular expression too complex`` instead of freezing its host.  Matches are
leftmost-longest: every path from the leftmost start is explored and the longest kept.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from vshell.text.regex.ast import Alt, Assert, Backref, Cat, Group, Lit, Node, Repeat, Set

DEFAULT_BUDGET = 200_000

# opcodes
CHAR, ANY, SPLIT, JMP, SAVE, ASSERT, BACKREF, MARK, CHECK, MATCH = range(10)


PAUSE_EVERY = 2048  # steps between cancellation checks (and a GIL hand-over)


class TooComplex(Exception):
    """The work budget ran out before the search ended."""


_local = threading.local()


@contextmanager
def cancellable(check: Callable[[], None]) -> Iterator[None]:
    """Within the block, this thread's searches call ``check`` (which raises to stop the
    run: a timeout or cancellation) every few thousand steps, and hand the GIL over."""
    old = getattr(_local, "check", None)
    _local.check = check
    try:
        yield
    finally:
        _local.check = old


class _Compiler:
    def __init__(self) -> None:
        self.code: list[list] = []
        self.marks = 0

    def emit(self, *ins) -> int:
        self.code.append(list(ins))
        return len(self.code) - 1

    def node(self, n: Node) -> None:
        if isinstance(n, Lit):
            self.emit(CHAR, n.cp)
        elif isinstance(n, Set):
            self.emit(ANY, n)
        elif isinstance(n, Assert):
            self.emit(ASSERT, n.kind)
        elif isinstance(n, Backref):
            self.emit(BACKREF, n.index)
        elif isinstance(n, Group):
            self.emit(SAVE, 2 * n.index)
            self.node(n.node)
            self.emit(SAVE, 2 * n.index + 1)
        elif isinstance(n, Cat):
            for item in n.items:
                self.node(item)
        elif isinstance(n, Alt):
            jumps = []
            for k, b in enumerate(n.branches):
                if k < len(n.branches) - 1:
                    split = self.emit(SPLIT, 0, 0)
                    self.code[split][1] = len(self.code)
                    self.node(b)
                    jumps.append(self.emit(JMP, 0))
                    self.code[split][2] = len(self.code)
                else:
                    self.node(b)
            for j in jumps:
                self.code[j][1] = len(self.code)
        elif isinstance(n, Repeat):
            self.repeat(n)
        else:
            raise TypeError(n)

    def repeat(self, n: Repeat) -> None:
        for _ in range(n.lo):
            self.node(n.node)
        if n.hi is None:
            reg = self.marks
            self.marks += 1
            top = self.emit(MARK, reg)
            split = self.emit(SPLIT, len(self.code) + 1, 0)
            self.node(n.node)
            self.emit(CHECK, reg)  # an iteration that consumed nothing ends the loop
            self.emit(JMP, top)
            self.code[split][2] = len(self.code)
            return
        splits = []
        for _ in range(n.hi - n.lo):
            splits.append(self.emit(SPLIT, len(self.code) + 1, 0))
            self.node(n.node)
        for s in splits:
            self.code[s][2] = len(self.code)


def simplify(node: Node) -> Node:
    """Drop a repeat of something that already repeats without bound: ``(X*)*`` matches
    what ``(X*)`` matches (and POSIX's group then holds the whole run either way), but a
    backtracker would try every way of splitting the run."""
    if isinstance(node, Group):
        return Group(node.index, simplify(node.node))
    if isinstance(node, Cat):
        return Cat([simplify(n) for n in node.items])
    if isinstance(node, Alt):
        return Alt([simplify(n) for n in node.branches])
    if isinstance(node, Repeat):
        inner = simplify(node.node)
        core = inner.node if isinstance(inner, Group) else inner
        if node.hi is None and node.lo <= 1 and isinstance(core, Repeat) and (
            core.hi is None and core.lo <= 1
        ):
            if node.lo == 0 and core.lo == 1:
                return Repeat(inner, 0, 1)
            return inner
        return Repeat(inner, node.lo, node.hi)
    return node


class Program:
    """A compiled tree; :meth:`search` finds the leftmost-longest match in a ``str``."""

    def __init__(
        self, node: Node, groups: int, *, icase: bool, utf8: bool, eol: str | None,
        multiline: bool, budget: int = DEFAULT_BUDGET,
    ) -> None:
        comp = _Compiler()
        comp.node(simplify(node))
        comp.emit(MATCH)
        self.code = [tuple(x) for x in comp.code]
        self.marks = comp.marks
        self.groups = groups
        self.icase = icase
        self.utf8 = utf8
        self.eol = eol
        self.multiline = multiline
        self.budget = budget

    # -- character tests
    def is_word(self, ch: str) -> bool:
        if ch == "_":
            return True
        if not self.utf8 or ch < "\x80":
            return ch.isascii() and ch.isalnum()
        return ch.isalnum()

    def in_set(self, s: Set, ch: str) -> bool:
        if ch == self.eol:
            return False
        if self.utf8 and "\udc80" <= ch <= "\udcff":
            return False  # an invalid byte is matched by nothing but itself
        cands = (ch, ch.lower(), ch.upper()) if self.icase else (ch,)
        hit = any(lo <= ord(c) <= hi for c in cands for lo, hi in s.ranges)
        return hit != s.negate

    def same(self, a: str, b: str) -> bool:
        return a == b or (self.icase and a.lower() == b.lower())

    def assertion(self, kind: str, s: str, i: int) -> bool:
        n = len(s)
        line = self.eol if self.eol is not None else ("\n" if self.multiline else None)
        if kind == "bol" or (kind == "bufstart" and self.eol is not None):
            return i == 0 or (line is not None and s[i - 1] == line)
        if kind == "eol" or (kind == "bufend" and self.eol is not None):
            return i == n or (line is not None and s[i] == line)
        if kind == "bufstart":
            return i == 0
        if kind == "bufend":
            return i == n
        before = i > 0 and self.is_word(s[i - 1])
        after = i < n and self.is_word(s[i])
        if kind == "word":
            return before != after
        if kind == "notword":
            return before == after
        if kind == "wordstart":
            return after and not before
        return before and not after  # wordend

    # -- the machine
    def search(
        self, s: str, pos: int = 0, endpos: int | None = None, anchored: bool = False,
    ) -> list[tuple[int, int]] | None:
        """Spans of the match and its groups ((-1, -1) unset), or None; TooComplex."""
        end = len(s) if endpos is None else endpos
        if end >= 0x10FFFF:
            raise TooComplex()  # offsets are kept as code points
        steps = [self.budget]
        for start in range(pos, end + 1):
            got = self.run(s, start, end, steps)
            if got is not None or anchored:
                return got
        return None

    def run(self, s: str, start: int, end: int, steps: list[int]) -> list[tuple[int, int]] | None:
        code = self.code
        nslots = 2 * (self.groups + 1)
        best: tuple[str, int] | None = None
        # Captures and loop marks are short strings of chr(offset + 1) ("\0" = unset): a
        # str is not tracked by the cyclic GC, so the many saved states do not make the
        # collector's full passes (which hold the GIL) grow with the search.
        caps0 = "\0" * nslots
        regs0 = "\0" * self.marks
        # The stack is flat (pc, i, caps, regs, pc, ...) and the seen-keys are strings:
        # no container is allocated per step, so the search never triggers the cyclic
        # GC, whose full passes over the host's heap would hold the GIL for tens of ms.
        stack: list = [0, start, caps0, regs0]
        push = stack.append
        pop = stack.pop
        budget = steps[0]
        check = getattr(_local, "check", None)
        seen: set[str] = set()
        while stack:
            regs = pop()
            caps = pop()
            i = pop()
            pc = pop()
            while True:
                budget -= 1
                if not budget % PAUSE_EVERY:
                    if budget < 0:
                        raise TooComplex()
                    time.sleep(0)  # let other threads (a server's) run now, not in 5 ms
                    if check is not None:
                        check()
                ins = code[pc]
                op = ins[0]
                if op == CHAR:
                    if i < end and self.same(s[i], chr(ins[1])):
                        i += 1
                        pc += 1
                        continue
                    break
                if op == ANY:
                    if i < end and self.in_set(ins[1], s[i]):
                        i += 1
                        pc += 1
                        continue
                    break
                if op == SPLIT:
                    key = f"{pc},{i},{caps}{regs}"
                    if key in seen:
                        break  # explored already: it cannot give a longer match
                    seen.add(key)
                    push(ins[2])
                    push(i)
                    push(caps)
                    push(regs)
                    pc = ins[1]
                    continue
                if op == JMP:
                    pc = ins[1]
                    continue
                if op == SAVE:
                    caps = caps[: ins[1]] + chr(i + 1) + caps[ins[1] + 1 :]
                    pc += 1
                    continue
                if op == ASSERT:
                    if self.assertion(ins[1], s, i):
                        pc += 1
                        continue
                    break
                if op == BACKREF:
                    a, b = ord(caps[2 * ins[1]]) - 1, ord(caps[2 * ins[1] + 1]) - 1
                    if a < 0 or b < 0:
                        break
                    k = b - a
                    if i + k <= end and self.same(s[i : i + k], s[a:b]):
                        i += k
                        pc += 1
                        continue
                    break
                if op == MARK:
                    regs = regs[: ins[1]] + chr(i + 1) + regs[ins[1] + 1 :]
                    pc += 1
                    continue
                if op == CHECK:
                    if ord(regs[ins[1]]) - 1 == i:
                        break
                    pc += 1
                    continue
                # MATCH
                if best is None or i > best[1]:
                    best = (caps, i)
                if i == end:
                    stack.clear()
                break
        steps[0] = budget
        if best is None:
            return None
        caps, stop = best
        spans = [(start, stop)]
        for g in range(1, self.groups + 1):
            a, b = ord(caps[2 * g]) - 1, ord(caps[2 * g + 1]) - 1
            spans.append((a, b) if a >= 0 and b >= 0 else (-1, -1))
        return spans
