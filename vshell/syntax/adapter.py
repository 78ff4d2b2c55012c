"""Convert the shim's concrete grammar trees into vshell's AST.

The shim hands over one :class:`GNode` per reduced production, with bashlex tokens as
leaves.  Words are taken from the source by position (``src[lexpos:endlexpos]``), never
from bashlex's quote-removed ``value``.
"""

from __future__ import annotations

import bisect
from typing import Any

from vshell.syntax import ast
from vshell.syntax.shim import scan
from vshell.syntax.shim.base import TT, GNode, HereDocBody, Token

_REDIR_OPS = {
    TT.LESS: "<",
    TT.GREATER: ">",
    TT.GREATER_GREATER: ">>",
    TT.GREATER_BAR: ">|",
    TT.LESS_GREATER: "<>",
    TT.LESS_LESS_LESS: "<<<",
    TT.LESS_AND: "<&",
    TT.GREATER_AND: ">&",
    TT.AND_GREATER: "&>",
    TT.AND_GREATER_GREATER: "&>>",
    TT.LESS_LESS: "<<",
    TT.LESS_LESS_MINUS: "<<-",
}

_LIST_NODES = frozenset(
    {"simple_list", "simple_list1", "list", "list0", "list1", "compound_list"}
)
_SEPARATORS = {TT.SEMICOLON: ";", TT.AMPERSAND: "&", TT.NEWLINE: "\n"}
_ANDOR = {TT.AND_AND: "&&", TT.OR_OR: "||"}


class Adapter:
    """Holds the source, its line index and the here-doc bodies for one parse."""

    def __init__(self, src: str, heredocs: dict[int, HereDocBody], first_line: int = 1) -> None:
        self.src = src
        self.first_line = first_line
        self.heredocs = heredocs
        self._nl = [i for i, c in enumerate(src) if c == "\n"]

    # -- positions ------------------------------------------------------------------------
    def line(self, pos: int) -> int:
        """Line of offset ``pos``, the source's first line being ``first_line``."""
        return bisect.bisect_left(self._nl, pos) + self.first_line

    def word(self, tok: Token) -> ast.Word:
        return ast.Word(self.src[tok.lexpos : tok.endlexpos], tok.lexpos, self.line(tok.lexpos))

    def span_word(self, start: int, end: int) -> ast.Word:
        return ast.Word(self.src[start:end], start, self.line(start))

    # -- lists ----------------------------------------------------------------------------
    def script(self, tree: GNode) -> list[ast.ListItem]:
        """Items of one top-level ``inputunit``."""
        if not tree.kids or not isinstance(tree.kids[0], GNode):
            return []
        return self.command_list(tree.kids[0]).items

    def command_list(self, node: Any) -> ast.CommandList:
        seq: list[Any] = []
        _flatten_list(node, seq)
        items: list[ast.ListItem] = []
        andor: ast.AndOr | None = None
        start = end = 0
        pending_op: str | None = None
        for part in seq:
            if isinstance(part, Token):
                if part.ttype in _ANDOR:
                    pending_op = _ANDOR[part.ttype]
                    continue
                if andor is not None:
                    bg = part.ttype == TT.AMPERSAND
                    items.append(ast.ListItem(andor, bg, start, end))
                    andor = None
                continue
            pipe = self.pipeline(part)
            first, last = _span(part)
            if andor is None or pending_op is None:
                if andor is not None:
                    items.append(ast.ListItem(andor, False, start, end))
                andor = ast.AndOr(pipe, [], pipe.line)
                start = first
            else:
                andor.rest.append((pending_op, pipe))
            end = last
            pending_op = None
        if andor is not None:
            items.append(ast.ListItem(andor, False, start, end))
        return ast.CommandList(items)

    # -- pipelines ------------------------------------------------------------------------
    def pipeline(self, node: GNode) -> ast.Pipeline:
        """``pipeline_command``: ``[time [-p]] [!] pipeline``."""
        negated = timed = posix = False
        line = self.line(_span(node)[0])
        while node.name == "pipeline_command":
            head = node.kids[0]
            if isinstance(head, Token) and head.ttype == TT.BANG:
                negated = not negated
            elif isinstance(head, GNode) and head.name == "timespec":
                timed = True
                posix = any(isinstance(k, Token) and k.ttype == TT.TIMEOPT for k in head.kids)
            else:
                node = head
                break
            tail = node.kids[1]
            if not isinstance(tail, GNode) or tail.name != "pipeline_command":
                return ast.Pipeline([], negated, timed, posix, [], line)
            node = tail
        commands: list[ast.Command] = []
        pipes: list[bool] = []
        self._flatten_pipeline(node, commands, pipes)
        return ast.Pipeline(commands, negated, timed, posix, pipes, line)

    def _flatten_pipeline(
        self, node: GNode, commands: list[ast.Command], pipes: list[bool]
    ) -> None:
        for n in _preorder(node, lambda g: g.name == "pipeline"):
            if isinstance(n, Token):
                if n.ttype in (TT.BAR, TT.BAR_AND):
                    pipes.append(n.ttype == TT.BAR_AND)
            elif n.name == "command":
                commands.append(self.command(n))

    # -- commands -------------------------------------------------------------------------
    def command(self, node: GNode) -> ast.Command:
        """``command``: simple, compound (with redirections), function or coproc."""
        head = node.kids[0]
        if head.name == "simple_command":
            return self.simple_command(head)
        if head.name == "function_def":
            return self.function_def(head)
        if head.name == "coproc":
            return self.coproc(head)
        redirects = self.redirects(node.kids[1]) if len(node.kids) > 1 else []
        return self.shell_command(head, redirects)

    def simple_command(self, node: GNode) -> ast.SimpleCommand:
        elements: list[Any] = []
        _collect(node, "simple_command_element", elements)
        cmd = ast.SimpleCommand(line=self.line(_span(node)[0]))
        for el in elements:
            item = el.kids[0]
            if isinstance(item, GNode):
                cmd.redirects.append(self.redirect(item))
            elif (
                item.ttype == TT.ASSIGNMENT_WORD
                and not cmd.words
                and scan.assignment_end(self.src, item.lexpos) is not None
            ):
                cmd.assigns.append(self.assignment(item))
            else:
                cmd.words.append(self.word(item))
        return cmd

    def assignment(self, tok: Token) -> ast.Assignment:
        src = self.src
        start = tok.lexpos
        m = scan.NAME_RE.match(src, start)
        assert m is not None
        j = m.end()
        index: str | None = None
        if src[j : j + 1] == "[":
            close = scan.match_bracket(src, j)
            index = src[j + 1 : close]
            j = close + 1
        append = src[j : j + 1] == "+"
        if append:
            j += 1
        j += 1  # the '='
        end = tok.endlexpos
        assign = ast.Assignment(m.group(0), index=index, append=append, line=self.line(start))
        if src[j : j + 1] == "(":  # with an index: a runtime error (see interp.simple.assign)
            try:
                close = scan.match_paren(src, j)
            except scan.ScanEOF:
                close = -1
            if close == end - 1:
                spans = scan.split_array_elements(src, j, close)
                assign.array = [self.span_word(a, b) for a, b in spans]
                return assign
        assign.value = self.span_word(j, end)
        return assign

    def redirects(self, node: GNode) -> list[ast.Redirect]:
        found: list[Any] = []
        _collect(node, "redirection", found)
        return [self.redirect(r) for r in found]

    def redirect(self, node: GNode) -> ast.Redirect:
        kids = node.kids
        fd: int | None = None
        fd_var: str | None = None
        if len(kids) == 3:
            first = kids[0]
            if first.ttype == TT.REDIR_WORD:
                fd_var = first.value
            else:
                fd = int(self.src[first.lexpos : first.endlexpos])
        op_tok, target_tok = kids[-2], kids[-1]
        redir = ast.Redirect(
            _REDIR_OPS[op_tok.ttype],
            self.word(target_tok),
            fd=fd,
            fd_var=fd_var,
            line=self.line(kids[0].lexpos),
        )
        if op_tok.ttype in (TT.LESS_LESS, TT.LESS_LESS_MINUS):
            body = self.heredocs.get(target_tok.lexpos)
            if body is not None:
                redir.heredoc = ast.HereDoc(body.body, body.quoted, body.unterminated)
            else:  # only when the body was never read (cannot happen after a full parse)
                redir.heredoc = ast.HereDoc("", False, True)
        return redir

    def shell_command(self, node: GNode, redirects: list[ast.Redirect]) -> ast.Command:
        """``shell_command`` and its alternatives (loops, if, case, groups, …)."""
        head = node.kids[0]
        line = self.line(_span(node)[0])
        if isinstance(head, Token):  # while / until
            return ast.While(
                self.command_list(node.kids[1]),
                self.command_list(node.kids[3]),
                head.ttype == TT.UNTIL,
                redirects,
                line,
            )
        method = getattr(self, "_" + head.name)
        return method(head, redirects, line)

    def _subshell(self, node: GNode, redirects: list[ast.Redirect], line: int) -> ast.Command:
        return ast.Subshell(self.command_list(node.kids[1]), redirects, line)

    def _group_command(self, node: GNode, redirects: list[ast.Redirect], line: int) -> ast.Command:
        return ast.Group(self.command_list(node.kids[1]), redirects, line)

    def _arith_command(self, node: GNode, redirects: list[ast.Redirect], line: int) -> ast.Command:
        return ast.ArithCommand(node.kids[0].value, redirects, line)

    def _cond_command(self, node: GNode, redirects: list[ast.Redirect], line: int) -> ast.Command:
        words = [self.span_word(a, b) for a, b in node.kids[1].value]
        return ast.CondCommand(words, redirects, line)

    def _arith_for_command(
        self, node: GNode, redirects: list[ast.Redirect], line: int
    ) -> ast.Command:
        parts = scan.split_top_level(node.kids[1].value, ";")
        while len(parts) < 3:
            parts.append("")
        body = self.command_list(_find(node, "compound_list"))
        return ast.ArithFor(parts[0], parts[1], ";".join(parts[2:]), body, redirects, line)

    def _loop_words(self, node: GNode) -> tuple[str, list[ast.Word] | None]:
        var = self.src[node.kids[1].lexpos : node.kids[1].endlexpos]
        has_in = any(isinstance(k, Token) and k.ttype == TT.IN for k in node.kids)
        if not has_in:
            return var, None
        words: list[ast.Word] = []
        wl = _find(node, "word_list")
        if wl is not None:
            toks: list[Any] = []
            _collect_tokens(wl, toks)
            words = [self.word(t) for t in toks]
        return var, words

    def _for_command(self, node: GNode, redirects: list[ast.Redirect], line: int) -> ast.Command:
        var, words = self._loop_words(node)
        body = self.command_list(_find(node, "compound_list"))
        return ast.For(var, words, body, redirects, line)

    def _select_command(self, node: GNode, redirects: list[ast.Redirect], line: int) -> ast.Command:
        var, words = self._loop_words(node)
        body = self.command_list(_find(node, "list"))
        return ast.Select(var, words, body, redirects, line)

    def _if_command(self, node: GNode, redirects: list[ast.Redirect], line: int) -> ast.Command:
        result = ast.If([], None, redirects, line)
        self._if_parts(node.kids, result)
        return result

    def _if_parts(self, kids: list[Any], result: ast.If) -> None:
        """``IF c THEN b [ELSE e | elif_clause] FI`` and ``elif_clause``, same shape."""
        result.clauses.append(
            ast.IfClause(self.command_list(kids[1]), self.command_list(kids[3]))
        )
        if len(kids) > 4:
            nxt = kids[4]
            if isinstance(nxt, GNode) and nxt.name == "elif_clause":
                self._if_parts(nxt.kids, result)
            elif isinstance(nxt, Token) and nxt.ttype == TT.ELSE:
                result.else_body = self.command_list(kids[5])

    def _case_command(self, node: GNode, redirects: list[ast.Redirect], line: int) -> ast.Command:
        items: list[ast.CaseItem] = []
        for kid in node.kids[4:]:
            if isinstance(kid, GNode) and kid.name in ("case_clause", "case_clause_sequence"):
                self._case_items(kid, items)
        return ast.Case(self.word(node.kids[1]), items, redirects, line)

    def _case_items(self, node: GNode, items: list[ast.CaseItem]) -> None:
        for kid in node.kids:
            if isinstance(kid, GNode):
                if kid.name in ("case_clause", "case_clause_sequence"):
                    self._case_items(kid, items)
                elif kid.name == "pattern_list":
                    items.append(self._case_item(kid))
            elif isinstance(kid, Token) and items:
                items[-1].terminator = self.src[kid.lexpos : kid.endlexpos]

    def _case_item(self, node: GNode) -> ast.CaseItem:
        pattern = _find(node, "pattern")
        toks: list[Any] = []
        _collect_tokens(pattern, toks)
        patterns = [self.word(t) for t in toks if t.ttype != TT.BAR]
        last = node.kids[-1]
        if isinstance(last, GNode) and last.name == "compound_list":
            body = self.command_list(last)
        else:
            body = ast.CommandList()
        return ast.CaseItem(patterns, body)

    # -- functions and coprocesses ---------------------------------------------------------
    def function_def(self, node: GNode) -> ast.FunctionDef:
        name_tok = node.kids[1] if node.kids[0].ttype == TT.FUNCTION else node.kids[0]
        body_node = node.kids[-1]
        redirects = self.redirects(body_node.kids[1]) if len(body_node.kids) > 1 else []
        body = self.shell_command(body_node.kids[0], redirects)
        name = self.src[name_tok.lexpos : name_tok.endlexpos]
        return ast.FunctionDef(name, body, self.line(node.kids[0].lexpos))

    def coproc(self, node: GNode) -> ast.Coproc:
        kids = node.kids
        line = self.line(kids[0].lexpos)
        name = "COPROC"
        rest = kids[1:]
        if isinstance(rest[0], Token):
            name = rest[0].value
            rest = rest[1:]
        head = rest[0]
        if head.name == "simple_command":
            return ast.Coproc(name, self.simple_command(head), line)
        redirects = self.redirects(rest[1]) if len(rest) > 1 else []
        return ast.Coproc(name, self.shell_command(head, redirects), line)


# -- tree helpers ---------------------------------------------------------------------------
# The grammar is left-recursive (lists, pipelines, words of a command), so a long command
# makes a deep tree: every walk here uses an explicit stack instead of recursion.


def _preorder(node: Any, descend: Any) -> list[Any]:
    """Nodes under ``node`` in source order; ``descend(n)`` says whether to open a GNode."""
    out: list[Any] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, GNode) and descend(n):
            stack.extend(reversed(n.kids))
        elif n is not None:
            out.append(n)
    return out


def _flatten_list(node: Any, out: list[Any]) -> None:
    """In-order pipeline_command nodes and separator / and-or tokens of a list tree."""
    for n in _preorder(node, lambda g: g.name in _LIST_NODES):
        if isinstance(n, Token):
            if n.ttype in _SEPARATORS or n.ttype in _ANDOR:
                out.append(n)
        elif isinstance(n, GNode) and n.name == "pipeline_command":
            out.append(n)


def _collect(node: Any, name: str, out: list[Any]) -> None:
    """GNodes called ``name`` under ``node``, in source order (not below a match)."""
    for n in _preorder(node, lambda g: g.name != name):
        if isinstance(n, GNode):
            out.append(n)


def _collect_tokens(node: Any, out: list[Any]) -> None:
    out.extend(n for n in _preorder(node, lambda g: True) if isinstance(n, Token))


def _find(node: GNode, name: str) -> Any:
    for kid in node.kids:
        if isinstance(kid, GNode) and kid.name == name:
            return kid
    return None


def _edge_token(node: Any, last: bool) -> Any:
    """The first (or last) positioned, non-newline token of a subtree, or None."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, GNode):
            stack.extend(n.kids if last else reversed(n.kids))
        elif isinstance(n, Token) and n.lexpos is not None and n.ttype != TT.NEWLINE:
            return n
    return None


def _span(node: Any) -> tuple[int, int]:
    """Source span of a subtree: first token's start, last token's end."""
    head = _edge_token(node, False)
    if head is None:
        return 0, 0
    return head.lexpos, _edge_token(node, True).endlexpos
