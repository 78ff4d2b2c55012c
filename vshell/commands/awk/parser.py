"""Recursive-descent parser for POSIX awk plus the gawk extensions agents use.

The tree is made of tuples ``(kind, ...)``; :mod:`.compiler` turns it into closures.
Precedence, lowest first: ?: (right), ||, &&, in, ~ !~, relational (non-associative;
``>`` is a redirection inside print's unparenthesised arguments), concatenation, additive,
multiplicative, unary + - !, ^ ** (right), ++ --, $, grouping.
"""

from __future__ import annotations

from vshell.commands.awk.lexer import AwkSyntaxError, Token, tokenize
from vshell.records import field, record

Node = tuple

_ASSIGN_OPS = {"=", "+=", "-=", "*=", "/=", "%=", "^=", "**="}
_CMP_OPS = {"<", "<=", "==", "!=", ">", ">="}
# tokens that may start an operand of a concatenation
_CONCAT_START = {
    "NUMBER", "STRING", "ERE", "NAME", "FUNC_NAME", "BUILTIN", "$", "!", "(", "-", "+", "++",
    "--",
}


@record
class Function:
    name: str
    params: list[str]
    body: Node
    line: int


@record
class Program:
    begin: list[Node] = field(default_factory=list)
    end: list[Node] = field(default_factory=list)
    beginfile: list[Node] = field(default_factory=list)
    endfile: list[Node] = field(default_factory=list)
    rules: list[tuple[Node | None, Node | None, Node | None]] = field(default_factory=list)
    functions: dict[str, Function] = field(default_factory=dict)
    # what the compiler and runner work out from the program alone, kept with it: a parsed
    # program is reused by every run of the same text (awk/command.py)
    memo: dict[str, object] = field(default_factory=dict, repr=False, compare=False)


class Parser:
    def __init__(self, src: str) -> None:
        self.toks: list[Token] = tokenize(src)
        self.pos = 0
        self.in_function: Function | None = None
        self.loop_depth = 0
        # print context: ">" ends the expression, "|" starts a pipe
        self.no_gt = 0
        self.no_in = 0

    # ------------------------------------------------------------ helpers
    @property
    def tok(self) -> Token:
        return self.toks[self.pos]

    def peek(self, k: int = 1) -> Token:
        return self.toks[min(self.pos + k, len(self.toks) - 1)]

    def advance(self) -> Token:
        t = self.toks[self.pos]
        self.pos += 1
        return t

    def at(self, *kinds: str) -> bool:
        return self.tok.kind in kinds

    def error(self, tok: Token | None = None, message: str = "syntax error") -> AwkSyntaxError:
        t = tok or self.tok
        if message == "syntax error" and t.kind in ("NEWLINE", "EOF"):
            message = "unexpected newline or end of string"
        return AwkSyntaxError(message, t.line, t.col)

    def expect(self, kind: str) -> Token:
        if self.tok.kind != kind:
            raise self.error()
        return self.advance()

    def newlines(self) -> None:
        while self.tok.kind == "NEWLINE":
            self.pos += 1

    def terminators(self) -> None:
        while self.tok.kind in ("NEWLINE", ";"):
            self.pos += 1

    # ------------------------------------------------------------ program
    def program(self) -> Program:
        prog = Program()
        self.terminators()
        while not self.at("EOF"):
            self.item(prog)
            self.terminators()
        return prog

    def item(self, prog: Program) -> None:
        t = self.tok
        if t.kind in ("BEGIN", "END", "BEGINFILE", "ENDFILE"):
            self.advance()
            if not self.at("{"):
                raise self.error(message=f"{t.kind} blocks must have an action part")
            body = self.block()
            getattr(prog, t.kind.lower()).append(body)
            return
        if t.kind == "func":
            self.function(prog)
            return
        pattern: Node | None = None
        pattern2: Node | None = None
        if not self.at("{"):
            pattern = self.expr()
            if self.at(","):
                self.advance()
                self.newlines()
                pattern2 = self.expr()
        action = self.block() if self.at("{") else None
        prog.rules.append((pattern, pattern2, action))

    def function(self, prog: Program) -> None:
        start = self.advance()
        t = self.tok
        if t.kind not in ("NAME", "FUNC_NAME"):
            raise self.error()
        name = str(t.value)
        self.advance()
        if name in prog.functions:
            raise self.error(t, f"function `{name}' previously defined")
        self.expect("(")
        params: list[str] = []
        self.newlines()
        while not self.at(")"):
            p = self.expect("NAME")
            if p.value == name:
                raise self.error(
                    p, f"function `{name}': cannot use function name as parameter name"
                )
            params.append(str(p.value))
            self.newlines()
            if self.at(","):
                self.advance()
                self.newlines()
            elif not self.at(")"):
                raise self.error()
        self.advance()
        self.newlines()
        fn = Function(name, params, ("block", []), start.line)
        prog.functions[name] = fn
        self.in_function = fn
        fn.body = self.block()
        self.in_function = None

    # ------------------------------------------------------------ statements
    def block(self) -> Node:
        self.expect("{")
        stmts: list[Node] = []
        self.terminators()
        while not self.at("}"):
            if self.at("EOF"):
                raise self.error()
            stmts.append(self.statement())
            self.terminators()
        self.advance()
        return ("block", stmts)

    def simple_end(self) -> None:
        """A simple statement ends at ; newline } or EOF."""
        if self.at(";", "NEWLINE"):
            self.advance()
        elif not self.at("}", "EOF"):
            raise self.error()

    def statement(self) -> Node:
        t = self.tok
        k = t.kind
        if k == "{":
            return self.block()
        if k == ";":
            self.advance()
            return ("block", [])
        if k == "if":
            self.advance()
            self.expect("(")
            cond = self.expr()
            self.expect(")")
            self.newlines()
            then = self.statement()
            save = self.pos
            self.terminators()
            if self.at("else"):
                self.advance()
                self.newlines()
                return ("if", cond, then, self.statement())
            self.pos = save
            return ("if", cond, then, None)
        if k == "while":
            self.advance()
            self.expect("(")
            cond = self.expr()
            self.expect(")")
            if self.at(";"):
                self.advance()
                return ("while", cond, ("block", []))
            self.newlines()
            return ("while", cond, self.loop_body())
        if k == "do":
            self.advance()
            self.newlines()
            body = self.loop_body()
            self.terminators()
            self.expect("while")
            self.expect("(")
            cond = self.expr()
            self.expect(")")
            self.simple_end()
            return ("do", body, cond)
        if k == "for":
            return self.for_statement()
        if k in ("break", "continue"):
            self.advance()
            if not self.loop_depth:
                raise self.error(t, f"`{k}' is not allowed outside a loop")
            self.simple_end()
            return (k,)
        if k in ("next", "nextfile"):
            self.advance()
            if self.in_function is None and self.rule_kind_begin_end():
                pass
            self.simple_end()
            return (k,)
        if k == "exit":
            self.advance()
            value = None if self.at(";", "NEWLINE", "}", "EOF") else self.expr()
            self.simple_end()
            return ("exit", value)
        if k == "return":
            self.advance()
            if self.in_function is None:
                raise self.error(t, "`return' used outside function context")
            value = None if self.at(";", "NEWLINE", "}", "EOF") else self.expr()
            self.simple_end()
            return ("return", value)
        if k == "delete":
            self.advance()
            paren = False
            if self.at("(") and self.peek().kind == "NAME" and self.peek(2).kind == ")":
                self.advance()
                paren = True
            name = self.expect("NAME").value
            subs = None
            if self.at("["):
                self.advance()
                subs = self.expr_list("]")
                self.expect("]")
            if paren:
                self.expect(")")
            self.simple_end()
            return ("delete", name, subs)
        if k in ("print", "printf"):
            node = self.print_statement()
            self.simple_end()
            return node
        e = self.expr()
        self.simple_end()
        return ("expr", e)

    def rule_kind_begin_end(self) -> bool:
        return False

    def loop_body(self) -> Node:
        self.loop_depth += 1
        try:
            return self.statement()
        finally:
            self.loop_depth -= 1

    def for_statement(self) -> Node:
        self.advance()
        self.expect("(")
        # for (k in a) / for ((k) in a)
        if (
            self.at("NAME")
            and self.peek().kind == "in"
            and self.peek(2).kind == "NAME"
            and self.peek(3).kind == ")"
        ):
            var = self.advance().value
            self.advance()
            arr = self.advance().value
            self.advance()
            self.newlines()
            return ("forin", ("var", var), arr, self.loop_body())
        if (
            self.at("(")
            and self.peek().kind == "NAME"
            and self.peek(2).kind == ")"
            and self.peek(3).kind == "in"
            and self.peek(4).kind == "NAME"
            and self.peek(5).kind == ")"
        ):
            self.advance()
            var = self.advance().value
            self.pos += 2
            arr = self.advance().value
            self.advance()
            self.newlines()
            return ("forin", ("var", var), arr, self.loop_body())
        init = None if self.at(";") else self.simple_statement_expr()
        self.expect(";")
        self.newlines()
        cond = None if self.at(";") else self.expr()
        self.expect(";")
        self.newlines()
        incr = None if self.at(")") else self.simple_statement_expr()
        self.expect(")")
        if self.at(";"):
            self.advance()
            return ("for", init, cond, incr, ("block", []))
        self.newlines()
        return ("for", init, cond, incr, self.loop_body())

    def simple_statement_expr(self) -> Node:
        return ("expr", self.expr())

    def print_statement(self) -> Node:
        kind = self.advance().kind
        args: list[Node] = []
        self.no_gt += 1
        try:
            if not self.at(";", "NEWLINE", "}", ">", ">>", "|", "EOF"):
                if self.at("("):
                    save = self.pos
                    self.advance()
                    self.no_gt -= 1
                    try:
                        inner = self.expr_list(")")
                    finally:
                        self.no_gt += 1
                    if self.at(")") and self.peek().kind in (
                        ";", "NEWLINE", "}", ">", ">>", "|", "EOF"
                    ):
                        self.advance()
                        args = inner
                    else:
                        self.pos = save
                        args = self.expr_list(None)
                else:
                    args = self.expr_list(None)
        finally:
            self.no_gt -= 1
        redir = None
        if self.at(">", ">>", "|", "|&"):
            op = self.advance().kind
            target = self.concat_expr(no_gt=True)
            redir = (op, target)
        if kind == "printf" and not args:
            raise self.error()
        return (kind, args, redir)

    def expr_list(self, closer: str | None) -> list[Node]:
        items = [self.expr()]
        while self.at(","):
            self.advance()
            self.newlines()
            items.append(self.expr())
        return items

    # ------------------------------------------------------------ expressions
    def expr(self) -> Node:
        return self.ternary()

    def ternary(self) -> Node:
        cond = self.or_expr()
        if self.at("?"):
            self.advance()
            self.newlines()
            a = self.ternary()
            self.newlines()
            self.expect(":")
            self.newlines()
            b = self.ternary()
            return ("cond", cond, a, b)
        if self.tok.kind in _ASSIGN_OPS and _is_lvalue(cond):
            op = self.advance().kind
            self.newlines()
            value = self.ternary()
            return ("assign", op, cond, value)
        return cond

    def or_expr(self) -> Node:
        left = self.and_expr()
        while self.at("||"):
            self.advance()
            self.newlines()
            left = ("or", left, self.and_expr())
        return left

    def and_expr(self) -> Node:
        left = self.in_expr()
        while self.at("&&"):
            self.advance()
            self.newlines()
            left = ("and", left, self.in_expr())
        return left

    def in_expr(self) -> Node:
        left = self.match_expr()
        while self.at("in") and not self.no_in:
            self.advance()
            name = self.expect("NAME").value
            subs = left[1] if left[0] == "grouping" else [left]
            left = ("in", subs, name)
        return left

    def match_expr(self) -> Node:
        left = self.rel_expr()
        while self.at("~", "!~"):
            neg = self.advance().kind == "!~"
            if self.at("ERE"):
                # a literal regex ends the match: `$1 ~ /re/ !$2` concatenates
                left = ("match", neg, left, ("ere", self.advance().value))
                if self.tok.kind in _CONCAT_START and self.tok.kind not in ("-", "+"):
                    rest = self.concat_expr()
                    parts = rest[1] if rest[0] == "concat" else [rest]
                    left = ("concat", [left, *parts])
            else:
                left = ("match", neg, left, self.rel_expr())
        return left

    def rel_expr(self) -> Node:
        left = self.pipe_getline()
        while self.tok.kind in _CMP_OPS:
            if self.tok.kind == ">" and self.no_gt:
                break
            op = self.advance().kind
            left = ("cmp", op, left, self.pipe_getline())
        return left

    def pipe_getline(self) -> Node:
        left = self.concat_expr()
        while self.at("|") and self.peek().kind == "getline":
            self.advance()
            self.advance()
            var = self.optional_lvalue()
            left = ("getline", "cmd", var, left)
        return left

    def concat_expr(self, no_gt: bool = False) -> Node:
        if no_gt:
            self.no_gt += 1
        try:
            parts = [self.additive()]
            while self.tok.kind in _CONCAT_START and not (
                self.tok.kind == "in" or self.tok.kind in ("-", "+")
            ):
                parts.append(self.additive())
        finally:
            if no_gt:
                self.no_gt -= 1
        return parts[0] if len(parts) == 1 else ("concat", parts)

    def additive(self) -> Node:
        left = self.multiplicative()
        while self.at("+", "-"):
            op = self.advance().kind
            left = ("binop", op, left, self.multiplicative())
        return left

    def multiplicative(self) -> Node:
        left = self.unary()
        while self.at("*", "/", "%"):
            op = self.advance().kind
            left = ("binop", op, left, self.unary())
        return left

    def unary(self) -> Node:
        if self.at("!"):
            self.advance()
            return ("not", self.unary())
        if self.at("-"):
            self.advance()
            return ("neg", self.unary())
        if self.at("+"):
            self.advance()
            return ("plus", self.unary())
        return self.power()

    def power(self) -> Node:
        base = self.postfix()
        if self.at("^", "**"):
            self.advance()
            # right associative; the exponent may carry a unary sign
            if self.at("-"):
                self.advance()
                exp = ("neg", self.power_operand())
            elif self.at("+"):
                self.advance()
                exp = ("plus", self.power_operand())
            elif self.at("!"):
                self.advance()
                exp = ("not", self.power_operand())
            else:
                exp = self.power_operand()
            return ("binop", "^", base, exp)
        return base

    def power_operand(self) -> Node:
        return self.power()

    def postfix(self) -> Node:
        if self.at("++", "--"):
            delta = 1.0 if self.advance().kind == "++" else -1.0
            target = self.postfix()
            if not _is_lvalue(target):
                raise self.error()
            return ("preinc", target, delta)
        node = self.primary()
        if self.at("++", "--") and _is_lvalue(node):
            delta = 1.0 if self.advance().kind == "++" else -1.0
            return ("postinc", node, delta)
        return node

    def optional_lvalue(self) -> Node | None:
        if self.at("$"):
            self.advance()
            return ("field", self.field_operand())
        if self.at("NAME"):
            name = self.advance().value
            if self.at("["):
                self.advance()
                subs = self.expr_list("]")
                self.expect("]")
                return ("elem", name, subs)
            return ("var", name)
        return None

    def field_operand(self) -> Node:
        if self.at("++", "--"):
            delta = 1.0 if self.advance().kind == "++" else -1.0
            target = self.field_operand()
            return ("preinc", target, delta)
        if self.at("-"):
            self.advance()
            return ("neg", self.field_operand())
        return self.primary()

    def primary(self) -> Node:
        t = self.tok
        k = t.kind
        if k == "NUMBER":
            self.advance()
            return ("num", t.value)
        if k == "STRING":
            self.advance()
            return ("str", t.value)
        if k == "ERE":
            self.advance()
            return ("ere", t.value)
        if k == "$":
            self.advance()
            return ("field", self.field_operand())
        if k == "(":
            self.advance()
            self.no_gt, saved = 0, self.no_gt
            no_in, self.no_in = self.no_in, 0
            try:
                self.newlines()
                items = self.expr_list(")")
                self.newlines()
                self.expect(")")
            finally:
                self.no_gt = saved
                self.no_in = no_in
            if len(items) > 1:
                if not self.at("in"):
                    raise self.error()
                return ("grouping", items)
            return ("group", items[0])
        if k == "NAME":
            self.advance()
            if self.at("["):
                self.advance()
                subs = self.expr_list("]")
                self.expect("]")
                return ("elem", t.value, subs)
            return ("var", t.value)
        if k == "FUNC_NAME":
            self.advance()
            self.expect("(")
            args: list[Node] = []
            self.newlines()
            if not self.at(")"):
                args = self.call_args()
            self.expect(")")
            return ("call", t.value, args, t.line)
        if k == "BUILTIN":
            self.advance()
            name = str(t.value)
            args = []
            if self.at("("):
                self.advance()
                self.newlines()
                if not self.at(")"):
                    args = self.call_args()
                self.expect(")")
            elif name != "length":
                raise self.error()
            return ("builtin", name, args)
        if k == "getline":
            self.advance()
            var = self.optional_lvalue()
            if self.at("<"):
                self.advance()
                src = self.getline_source()
                return ("getline", "file", var, src)
            return ("getline", "simple", var, None)
        if k in ("-", "+", "!"):
            return self.unary()
        if k in ("++", "--"):
            return self.postfix()
        raise self.error()

    def getline_source(self) -> Node:
        if self.at("$"):
            self.advance()
            return ("field", self.field_operand())
        if self.at("-"):
            self.advance()
            return ("neg", self.primary())
        node = self.primary()
        if self.at("++", "--") and _is_lvalue(node):
            delta = 1.0 if self.advance().kind == "++" else -1.0
            return ("postinc", node, delta)
        return node

    def call_args(self) -> list[Node]:
        saved, self.no_gt = self.no_gt, 0
        try:
            args = [self.expr()]
            while self.at(","):
                self.advance()
                self.newlines()
                args.append(self.expr())
            self.newlines()
        finally:
            self.no_gt = saved
        return args


def _is_lvalue(node: Node) -> bool:
    return node[0] in ("var", "elem", "field")


def parse(src: str) -> Program:
    return Parser(src).program()
