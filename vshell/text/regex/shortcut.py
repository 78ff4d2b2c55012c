"""Yes/no answers that need no regex engine call (awk's ``~``, a pattern rule ``/re/``).

Why: an RE2 call costs about a microsecond of Python-to-C overhead, which dominates a test
of one short awk field or record.  Two facts of the parsed tree often answer for free:

* a *required literal* (``err`` in ``err[a-z]*r``): every match contains it, so a subject
  without it (one ``in``, a C ``find``) cannot match -- GNU grep's "must" prefilter;
* an *exact set* (``^(alpha|beta)$``): an anchored alternation of plain strings matches
  exactly the subjects equal to one branch, a hash look-up.

* a *prefix literal* (``err`` in ``err[a-z]*r``): a line matches exactly when its tail from
  the literal's first occurrence does, so grep -c can gather those tails in one C scan and
  let one RE2 call check a whole run of them; and when the rest of the pattern is simple
  enough for one linear ``re`` attempt (:mod:`.linear`), that attempt at the literal's
  first occurrence settles most lines with no RE2 call at all.

All are sound for any subject and keep matching linear.
"""

from __future__ import annotations

from vshell.text.regex.ast import Alt, Assert, Cat, Group, Lit, Node


def _flat(node: Node) -> list[Node]:
    """The concatenated items of ``node``, groups opened (they do not change the text)."""
    while isinstance(node, Group):
        node = node.node
    if isinstance(node, Cat):
        out: list[Node] = []
        for item in node.items:
            out.extend(_flat(item))
        return out
    return [node]


def _plain(cp: int) -> bool:
    return not 0xD800 <= cp <= 0xDFFF  # surrogates stand for invalid bytes


def required_literal(tree: Node) -> str | None:
    """The longest run of plain characters every match of ``tree`` contains, or None."""
    best = ""
    run: list[str] = []
    for item in [*_flat(tree), None]:
        if isinstance(item, Lit) and _plain(item.cp):
            run.append(chr(item.cp))
            continue
        if isinstance(item, Assert):
            continue  # a zero-width item does not break the run of text
        if len(run) > len(best):
            best = "".join(run)
        run = []
    return best or None


def prefix_literal(tree: Node) -> str | None:
    """The plain characters every match of ``tree`` begins with (``err`` in
    ``err[a-z]*r``), or None -- nothing, not even an assertion, before them."""
    run = []
    for item in _flat(tree):
        if not (isinstance(item, Lit) and _plain(item.cp)):
            break
        run.append(chr(item.cp))
    return "".join(run) or None


def after_prefix(tree: Node) -> list[Node]:
    """The concatenated items of ``tree`` after its :func:`prefix_literal` (``[a-z]*r`` of
    ``err[a-z]*r``): one attempt of them right after the prefix's first occurrence in a
    subject is often the whole answer (see ``linear.compile_attempt``)."""
    items = _flat(tree)
    prefix = prefix_literal(tree)
    return items[len(prefix) if prefix else 0:]


def _text(node: Node) -> str | None:
    items = _flat(node)
    if not all(isinstance(n, Lit) and _plain(n.cp) for n in items):
        return None
    return "".join(chr(n.cp) for n in items)  # type: ignore[union-attr]  # every item was just checked to be a Lit


def exact_set(tree: Node) -> frozenset[str] | None:
    """The strings an anchored ``^(a|b|...)$`` of plain branches matches, or None.  Only
    for string anchors (no multi-line mode, no record terminator)."""
    items = _flat(tree)
    if (len(items) < 3 or not isinstance(items[0], Assert) or items[0].kind != "bol"
            or not isinstance(items[-1], Assert) or items[-1].kind != "eol"):
        return None
    body = items[1:-1]
    if len(body) == 1:
        inner = body[0]
        while isinstance(inner, Group):
            inner = inner.node
        branches: list[Node] = inner.branches if isinstance(inner, Alt) else [inner]
    else:
        branches = [Cat(body)]
    out = set()
    for b in branches:
        t = _text(b)
        if t is None:
            return None
        out.add(t)
    return frozenset(out)
