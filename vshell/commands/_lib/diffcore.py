"""The GNU diff algorithm: Myers' O(ND) search with GNU's refinements.

A line-for-line re-expression of the behaviour of GNU diffutils' analyze.c and gnulib's
diffseq.h (ideas, not code): trim the identical ends (keeping ``horizon`` lines),
discard "confusing" lines that have no or too many matches, find the middle snake by
searching from both ends, then shift the change boundaries the way GNU does so that the
hunks (and therefore the output) come out the same as GNU diff's.
"""

from __future__ import annotations

from vshell.records import record


@record
class Change:
    """``deleted`` lines of file 0 at ``line0`` replaced by ``inserted`` lines at ``line1``."""

    line0: int
    line1: int
    deleted: int
    inserted: int


class _Ctx:
    def __init__(self, xv: list[int], yv: list[int], too_expensive: int) -> None:
        self.xv = xv
        self.yv = yv
        self.fd: dict[int, int] = {}
        self.bd: dict[int, int] = {}
        self.too_expensive = too_expensive
        self.xchanged: list[int] = []
        self.ychanged: list[int] = []


def _diag(c: _Ctx, xoff: int, xlim: int, yoff: int, ylim: int, minimal: bool):
    xv, yv = c.xv, c.yv
    fd, bd = c.fd, c.bd
    dmin = xoff - ylim
    dmax = xlim - yoff
    fmid = xoff - yoff
    bmid = xlim - ylim
    fmin = fmax = fmid
    bmin = bmax = bmid
    odd = (fmid - bmid) & 1
    fd[fmid] = xoff
    bd[bmid] = xlim
    cost = 0
    big = 1 << 62
    while True:
        cost += 1
        if fmin > dmin:
            fmin -= 1
            fd[fmin - 1] = -1
        else:
            fmin += 1
        if fmax < dmax:
            fmax += 1
            fd[fmax + 1] = -1
        else:
            fmax -= 1
        for d in range(fmax, fmin - 1, -2):
            tlo = fd[d - 1]
            thi = fd[d + 1]
            x0 = thi if tlo < thi else tlo + 1
            x = x0
            y = x0 - d
            while x < xlim and y < ylim and xv[x] == yv[y]:
                x += 1
                y += 1
            fd[d] = x
            if odd and bmin <= d <= bmax and bd[d] <= x:
                return x, y, True, True
        if bmin > dmin:
            bmin -= 1
            bd[bmin - 1] = big
        else:
            bmin += 1
        if bmax < dmax:
            bmax += 1
            bd[bmax + 1] = big
        else:
            bmax -= 1
        for d in range(bmax, bmin - 1, -2):
            tlo = bd[d - 1]
            thi = bd[d + 1]
            x0 = tlo if tlo < thi else thi - 1
            x = x0
            y = x0 - d
            while xoff < x and yoff < y and xv[x - 1] == yv[y - 1]:
                x -= 1
                y -= 1
            bd[d] = x
            if not odd and fmin <= d <= fmax and x <= fd[d]:
                return x, y, True, True
        if minimal:
            continue
        if cost >= c.too_expensive:
            fxybest = -1
            fxbest = 0
            for d in range(fmax, fmin - 1, -2):
                x = min(fd[d], xlim)
                y = x - d
                if ylim < y:
                    x = ylim + d
                    y = ylim
                if fxybest < x + y:
                    fxybest = x + y
                    fxbest = x
            bxybest = big
            bxbest = 0
            for d in range(bmax, bmin - 1, -2):
                x = max(xoff, bd[d])
                y = x - d
                if y < yoff:
                    x = yoff + d
                    y = yoff
                if x + y < bxybest:
                    bxybest = x + y
                    bxbest = x
            if (xlim + ylim) - bxybest < fxybest - (xoff + yoff):
                return fxbest, fxybest - fxbest, True, False
            return bxbest, bxybest - bxbest, False, True


def _compareseq(c: _Ctx, xoff: int, xlim: int, yoff: int, ylim: int, minimal: bool) -> None:
    xv, yv = c.xv, c.yv
    stack = [(xoff, xlim, yoff, ylim, minimal)]
    while stack:
        xoff, xlim, yoff, ylim, minimal = stack.pop()
        while xoff < xlim and yoff < ylim and xv[xoff] == yv[yoff]:
            xoff += 1
            yoff += 1
        while xoff < xlim and yoff < ylim and xv[xlim - 1] == yv[ylim - 1]:
            xlim -= 1
            ylim -= 1
        if xoff == xlim:
            c.ychanged.extend(range(yoff, ylim))
        elif yoff == ylim:
            c.xchanged.extend(range(xoff, xlim))
        else:
            xmid, ymid, lo_min, hi_min = _diag(c, xoff, xlim, yoff, ylim, minimal)
            # the second half is pushed first so the first half is handled first
            stack.append((xmid, xlim, ymid, ylim, hi_min))
            stack.append((xoff, xmid, yoff, ymid, lo_min))


def _discard(equivs: list[list[int]], nclasses: int, minimal: bool) -> list[list[int]]:
    """GNU's discard_confusing_lines: 0 keep, 1 discard (per line of each file)."""
    counts = [[0] * (nclasses + 1), [0] * (nclasses + 1)]
    for f in (0, 1):
        cf = counts[f]
        for e in equivs[f]:
            cf[e] += 1
    discarded: list[list[int]] = []
    for f in (0, 1):
        end = len(equivs[f])
        other = counts[1 - f]
        many = 5
        tem = end // 64
        while True:
            tem >>= 2
            if tem <= 0:
                break
            many *= 2
        d = [0] * end
        for i, e in enumerate(equivs[f]):
            n = other[e]
            if n == 0:
                d[i] = 1
            elif n > many:
                d[i] = 2
        discarded.append(d)
    for f in (0, 1):
        d = discarded[f]
        end = len(d)
        i = 0
        while i < end:
            if d[i] == 2:
                d[i] = 0
            elif d[i] != 0:
                provisional = 0
                j = i
                while j < end:
                    if d[j] == 0:
                        break
                    if d[j] == 2:
                        provisional += 1
                    j += 1
                while j > i and d[j - 1] == 2:
                    j -= 1
                    d[j] = 0
                    provisional -= 1
                length = j - i
                if provisional * 4 > length:
                    while j > i:
                        j -= 1
                        if d[j] == 2:
                            d[j] = 0
                else:
                    minimum = 1
                    tem = length >> 2
                    while True:
                        tem >>= 2
                        if tem <= 0:
                            break
                        minimum <<= 1
                    minimum += 1
                    j = 0
                    consec = 0
                    while j < length:
                        if d[i + j] != 2:
                            consec = 0
                        else:
                            consec += 1
                            if minimum == consec:
                                j -= consec
                            elif minimum < consec:
                                d[i + j] = 0
                        j += 1
                    _undiscard_edge(d, i, length, 1)
                    i += length - 1
                    _undiscard_edge(d, i, length, -1)
            i += 1
    if minimal:
        return [[0] * len(equivs[0]), [0] * len(equivs[1])]
    return discarded


def _shift_boundaries(equivs: list[list[int]], changed: list[list[int]]) -> None:
    """GNU's shift_boundaries; ``changed`` lists carry one sentinel 0 at each end."""
    for f in (0, 1):
        ch = changed[f]
        oc = changed[1 - f]
        eq = equivs[f]
        i_end = len(eq)
        # positions below are real indexes; list index = position + 1
        i = 0
        j = 0
        while True:
            while i < i_end and not ch[i + 1]:
                while oc[j + 1]:
                    j += 1
                j += 1
                i += 1
            if i == i_end:
                break
            start = i
            i += 1
            while ch[i + 1]:
                i += 1
            while oc[j + 1]:
                j += 1
            while True:
                runlength = i - start
                while start and eq[start - 1] == eq[i - 1]:
                    start -= 1
                    ch[start + 1] = 1
                    i -= 1
                    ch[i + 1] = 0
                    while ch[start - 1 + 1]:
                        start -= 1
                    j -= 1
                    while oc[j + 1]:
                        j -= 1
                corresponding = i if oc[j - 1 + 1] else i_end
                while i != i_end and eq[start] == eq[i]:
                    ch[start + 1] = 0
                    start += 1
                    ch[i + 1] = 1
                    i += 1
                    while ch[i + 1]:
                        i += 1
                    j += 1
                    while oc[j + 1]:
                        j += 1
                        corresponding = i
                if runlength == i - start:
                    break
            while corresponding < i:
                start -= 1
                ch[start + 1] = 1
                i -= 1
                ch[i + 1] = 0
                j -= 1
                while oc[j + 1]:
                    j -= 1


def diff(a: list[object], b: list[object], *, minimal: bool = False,
         horizon: int = 0) -> list[Change]:
    """The changes turning ``a`` into ``b`` (items compared with ``==``/hash)."""
    # identical ends, keeping ``horizon`` lines of each for the analysis
    n, m = len(a), len(b)
    pre = 0
    while pre < n and pre < m and a[pre] == b[pre]:
        pre += 1
    suf = 0
    while suf < n - pre and suf < m - pre and a[n - 1 - suf] == b[m - 1 - suf]:
        suf += 1
    p0 = max(0, pre - horizon)
    s0 = max(0, suf - horizon)
    aa = a[p0:n - s0]
    bb = b[p0:m - s0]
    classes: dict[object, int] = {}
    eq = [[classes.setdefault(x, len(classes) + 1) for x in aa],
          [classes.setdefault(x, len(classes) + 1) for x in bb]]
    disc = _discard(eq, len(classes), minimal)
    changed = [[0] * (len(eq[0]) + 2), [0] * (len(eq[1]) + 2)]
    real = [[], []]  # type: list[list[int]]
    und = [[], []]  # type: list[list[int]]
    for f in (0, 1):
        for i, e in enumerate(eq[f]):
            if disc[f][i] == 0:
                und[f].append(e)
                real[f].append(i)
            else:
                changed[f][i + 1] = 1
    diags = len(und[0]) + len(und[1]) + 3
    too = 1
    while diags:
        diags >>= 2
        too <<= 1
    ctx = _Ctx(und[0], und[1], max(4096, too))
    _compareseq(ctx, 0, len(und[0]), 0, len(und[1]), minimal)
    for x in ctx.xchanged:
        changed[0][real[0][x] + 1] = 1
    for y in ctx.ychanged:
        changed[1][real[1][y] + 1] = 1
    _shift_boundaries(eq, changed)
    # build the script (forward)
    out: list[Change] = []
    c0, c1 = changed[0], changed[1]
    i0 = i1 = 0
    l0, l1 = len(eq[0]), len(eq[1])
    while i0 < l0 or i1 < l1:
        if c0[i0 + 1] or c1[i1 + 1]:
            s0_, s1_ = i0, i1
            while i0 < l0 and c0[i0 + 1]:
                i0 += 1
            while i1 < l1 and c1[i1 + 1]:
                i1 += 1
            out.append(Change(s0_ + p0, s1_ + p0, i0 - s0_, i1 - s1_))
        else:
            i0 += 1
            i1 += 1
    return out


def _undiscard_edge(d: list[int], start: int, length: int, step: int) -> None:
    """Un-discard the provisional lines at one edge of a run (analyze.c's two edge scans).

    Walks from ``start`` in direction ``step`` until three real discards in a row, or a
    real discard eight or more lines in; the scan is the same at the run's head and tail.
    """
    consec = 0
    for j in range(length):
        k = start + j * step
        if j >= 8 and d[k] == 1:
            break
        if d[k] == 2:
            consec = 0
            d[k] = 0
        elif d[k] == 0:
            consec = 0
        else:
            consec += 1
        if consec == 3:
            break
