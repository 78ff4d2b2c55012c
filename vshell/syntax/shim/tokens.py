"""bashlex's tokenizer with vshell's fixes (see :mod:`vshell.syntax.shim.base`).

The subclass hooks bashlex's ``token`` / ``_readtoken`` / ``_readtokenword`` and a few
predicates.  It relies on the tokenizer's private state (``_shell_input_line``,
``_shell_input_line_index``, ``_last_read_token``, ``_positions``, ``_parserstate``), which
is why the bashlex version is pinned exactly.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from vshell.syntax.shim import scan
from vshell.syntax.shim.base import (
    BARE_PREFIXES,
    DECLARATION_BUILTINS,
    MAX_DEPTH,
    PF,
    REDIR_OPS,
    TT,
    WF,
    WORDISH,
    HereDocBody,
    ShimError,
    Token,
    bstate,
    btok,
    butils,
    eof_error,
)
from vshell.syntax.shim.dquote import read_double_quoted

# Reads every command of a ``$( … )`` body at a nesting depth, raising ShimError on a syntax
# error: the reader gives the tokenizer this (the tokenizer sits below the reader).
BodyReader = Callable[[str, int], None]

_TERMINATORS = frozenset({TT.NEWLINE, TT.SEMICOLON, TT.AMPERSAND})


class Tokenizer(btok.tokenizer):
    """bashlex's tokenizer with vshell's token fixes (see the module docstring)."""

    # bashlex's own state, set by its (untyped) base class
    _shell_input_line: str
    _shell_input_line_index: int

    def __init__(self, src: str, depth: int = 0, read_body: BodyReader | None = None) -> None:
        super().__init__(src, parserstate=bstate.parserstate(), strictmode=True)
        self.vs_read_body = read_body
        self.vs_source = src
        body = src.removesuffix("\n")
        if (len(body) - len(body.rstrip("\\"))) % 2 == 1:
            # A final `\` continues onto the newline bashlex appends; give the line an end
            # of its own so bashlex never reads past the input in the middle of a word.
            self._shell_input_line += "\n"
        self.vs_depth = depth
        self.vs_queue: list[Token] = []
        self.vs_pending: list[tuple[Token, bool]] = []
        self.vs_heredocs: dict[int, HereDocBody] = {}
        self.vs_heredoc_eof = False
        self.vs_command: str | None = None
        self.vs_prefix = True  # still before the command word of a simple command
        self.vs_after_pipe = False

    # -- driver support -------------------------------------------------------------------
    def vs_reset(self) -> None:
        """Forget the token history before the next top-level command."""
        none = Token(None, None)
        self._current_token = self._last_read_token = none
        self._token_before_that = self._two_tokens_ago = none
        self._parserstate = bstate.parserstate()
        self._positions: list[Any] = []
        self._token_to_read = None
        self._open_brace_count = 0
        self._esacs_needed_count = 0
        self._dstack: list[Any] = []
        self.vs_command = None
        self.vs_prefix = True
        self.vs_after_pipe = False

    # -- token stream ---------------------------------------------------------------------
    def token(self) -> Token:
        t = super().token()
        last = self._last_read_token
        ttype = t.ttype
        if ttype in (TT.BAR, TT.BAR_AND):
            self.vs_after_pipe = True
        elif ttype != TT.NEWLINE:
            self.vs_after_pipe = False
        if ttype in (TT.WORD, TT.ASSIGNMENT_WORD) and t.endlexpos >= len(self.vs_source):
            raw = self.vs_source[t.lexpos :]
            if (len(raw) - len(raw.rstrip("\\"))) % 2 == 1 and t.endlexpos - t.lexpos > 1:
                t.endlexpos = len(self.vs_source) - 1  # `word\` + end of input: continued
        if ttype in (TT.WORD, TT.ASSIGNMENT_WORD):
            if last.ttype in REDIR_OPS:
                if last.ttype in (TT.LESS_LESS, TT.LESS_LESS_MINUS):
                    self.vs_pending.append((t, last.ttype == TT.LESS_LESS_MINUS))
            elif self.vs_prefix and not self._parserstate & PF.CASEPAT:
                end = scan.assignment_end(self._shell_input_line, t.lexpos)
                if end is not None and end <= t.endlexpos:
                    t.ttype = TT.ASSIGNMENT_WORD  # e.g. after a redirection: `>f a=1 cmd`
                elif ttype == TT.WORD:
                    self.vs_prefix = False
                    self.vs_command = t.value
            elif ttype == TT.WORD:
                self.vs_prefix = False
        elif ttype in (TT.DONE, TT.RIGHT_CURLY) and last.ttype not in _TERMINATORS:
            # `… (a) done`: bashlex's select body is a `list`, which needs a terminator
            # where bash's compound_list does not; an extra newline is harmless elsewhere.
            self.vs_queue.insert(0, t)
            t = self._current_token = Token(TT.NEWLINE, "\n", (t.lexpos, t.lexpos + 1))
        elif ttype not in WORDISH and ttype not in REDIR_OPS:
            self.vs_command = None
            self.vs_prefix = bool(self._reserved_word_acceptable(t))
            if ttype in (TT.NEWLINE, TT.SEMICOLON) and last.ttype in BARE_PREFIXES:
                # `time` / `!` alone: the grammar's `timespec list_terminator` eats the
                # terminator, so supply the one the enclosing list still needs.
                self.vs_queue.append(Token(TT.NEWLINE, "\n", (t.lexpos, t.lexpos + 1)))
        return t

    def _readtoken(self) -> Any:
        if self.vs_queue:
            return self.vs_queue.pop(0)
        if self._token_to_read is None and self._eol_ungetc_lookahead is None:
            special = self._vs_special()
            if special is not None:
                return special
        t = super()._readtoken()
        if t is TT.NEWLINE and self.vs_pending:
            self._vs_read_heredocs()
        elif t is btok.eoftoken and self._current_token.ttype != TT.NEWLINE:
            # The final newline was eaten by a `\`-newline continuation: end of input
            # still ends the command, as in bash.
            end = len(self._shell_input_line)
            self._current_token = nl = Token(TT.NEWLINE, "\n", (end - 1, end))
            return nl
        return t

    def _parse_matched_pair(self, doublequotes: Any, open: str, close: str,
                            **kw: Any) -> str:
        """bashlex's reader, but a plain double-quoted string is read in linear time."""
        if doublequotes == open == close == '"' and not kw.get("dolbrace") and \
                not kw.get("arraysub"):
            return read_double_quoted(self, **kw)
        return super()._parse_matched_pair(doublequotes, open, close, **kw)

    def _parse_comsub(
        self,
        doublequotes: Any,
        open: str,
        close: str,
        parsingcommand: bool = False,
        dquote: bool = False,
        firstclose: bool = False,
    ) -> str:
        """Read ``$(…)`` / ``<(…)``, then check its body parses, as bash does."""
        start = self._shell_input_line_index
        src = self._shell_input_line
        command = open == "(" and parsingcommand and src[start : start + 1] != "("
        if command:
            # the body's end found as bash's reader finds it (vshell.syntax.lexemes):
            # bashlex's own reader takes `$#` or `a#b` for a comment, the word `case` for a
            # case statement, and a `)` in a here-document for the end
            try:
                end = scan.command_body_end(src, start)
            except scan.ScanEOF:  # reported as bashlex reports it (see reader._convert_internal)
                raise btok.MatchedPairError(
                    self._line_number, "unexpected EOF while looking for matching ')'", self
                ) from None
            self._shell_input_line_index = end + 1
            # its body must parse (reading it checks the substitutions nested in it)
            self._vs_check_body(src[start:end], start)
            return src[start : end + 1]
        text: str = super()._parse_comsub(
            doublequotes, open, close, parsingcommand=parsingcommand, dquote=dquote,
            firstclose=firstclose,
        )
        return text

    def _vs_check_body(self, body: str, offset: int) -> None:
        if self.vs_depth >= MAX_DEPTH or self.vs_read_body is None:
            return
        try:
            self.vs_read_body(body, self.vs_depth + 1)
        except ShimError as e:
            if e.eof and e.token is None:
                end = offset + len(body)
                raise ShimError("syntax error near unexpected token `)'", end, False, ")") from None
            raise ShimError(e.message, offset + e.pos, e.eof, e.token) from None

    def _vs_special(self) -> Token | None:
        """``((``, ``for ((`` and ``[[`` at a command position become single tokens."""
        src = self._shell_input_line
        n = len(src)
        i = self._shell_input_line_index
        while i < n and (src[i] in " \t" or src.startswith("\\\n", i)):
            i += 2 if src[i] == "\\" else 1
        if i + 1 >= n or src[i] not in "([":
            return None
        last = self._last_read_token
        if self._parserstate & PF.CASEPAT:
            return None
        if (
            src[i] == "("
            and last.ttype == TT.WORD
            and self._token_before_that.ttype == TT.FUNCTION
            and src[i + 1 :].lstrip(" \t")[:1] != ")"
        ):
            # `function f (body)`: the grammar would take `(` as the start of `()`; an
            # empty newline_list (a newline token) steers it to the subshell body.
            return Token(TT.NEWLINE, "\n", (i, i + 1))
        if src.startswith("((", i):
            if last.ttype == TT.FOR:
                kind = TT.ARITH_FOR_EXPRS
            elif self._reserved_word_acceptable(last):
                kind = TT.ARITH_CMD
            else:
                return None
            try:
                end = scan.match_arith(src, i)
            except scan.ScanEOF as e:
                raise eof_error(e.close, e.start) from None
            if end is None:
                return None
            self._shell_input_line_index = end
            return Token(kind, src[i + 2 : end - 2], (i, end))
        if (
            src.startswith("[[", i)
            and src[i + 2 : i + 3] in (" ", "\t", "\n")
            and self._reserved_word_acceptable(last)
        ):
            try:
                spans, cstart, cend = scan.scan_cond(src, i + 2)
            except scan.ScanEOF:
                msg = "unexpected token `EOF' in conditional command"
                raise ShimError(msg, len(src), True, "]]") from None
            self._shell_input_line_index = cend
            self.vs_queue.append(Token(TT.COND_CMD, spans, (i + 2, cstart)))
            self.vs_queue.append(Token(TT.COND_END, "]]", (cstart, cend)))
            return Token(TT.COND_START, "[[", (i, i + 2))
        return None

    def _readtokenword(self, c: str) -> Any:
        src = self._shell_input_line
        start = self._shell_input_line_index - 1
        try:
            paren = scan.compound_assign_prefix(src, start)
            if paren is not None and (
                self._vs_assignment_ok() or self.vs_command in DECLARATION_BUILTINS
            ):
                close = scan.match_paren(src, paren)
                bad = scan.array_syntax_error(src, paren, close)
                if bad is not None:
                    pos, op = bad
                    raise ShimError(f"syntax error near unexpected token `{op}'", pos, False, op)
                return self._vs_word(start, scan.scan_word(src, close + 1), True)
            eq = scan.subscript_assign_end(src, start)
            if eq is not None:
                return self._vs_word(start, scan.scan_word(src, eq), True)
        except scan.ScanEOF as e:
            raise eof_error(e.close, e.start) from None
        in_pattern = bool(self._parserstate & PF.CASEPAT)
        t = super()._readtokenword(c)
        if in_pattern and isinstance(t, Token) and t.ttype not in WORDISH and t.ttype != TT.ESAC:
            t.ttype = TT.WORD  # a case pattern: reserved words are plain words here
        elif isinstance(t, Token) and t.ttype == TT.TIME and not self._time_command_acceptable():
            t.ttype = TT.WORD  # bashlex asks but then ignores the answer
        if isinstance(t, Token) and t.ttype in (TT.WORD, TT.ASSIGNMENT_WORD):
            end = t.endlexpos
            nxt = src[end : end + 1]
            extglob = nxt == "(" and src[end - 1] in scan.EXTGLOB_CHARS
            if (extglob and src[end - 2 : end - 1] != "$") or "${" in src[start:end]:
                try:
                    new_end = scan.scan_word(src, start)
                except scan.ScanEOF as e:
                    raise eof_error(e.close, e.start) from None
                if new_end > end:
                    t.endlexpos = new_end
                    t.value = src[start:new_end]
                    self._shell_input_line_index = new_end
            elif (
                t.ttype == TT.WORD
                and nxt in ("<", ">")
                and len(t.value) > 2
                and t.value[0] == "{"
                and t.value[-1] == "}"
                and scan.NAME_RE.fullmatch(t.value[1:-1])
            ):
                t.ttype = TT.REDIR_WORD
                t.value = t.value[1:-1]
        return t

    def _vs_word(self, start: int, end: int, assignment: bool) -> Token:
        """Make a WORD / ASSIGNMENT_WORD token for ``src[start:end]`` read by our scanners."""
        self._shell_input_line_index = end
        self._recordpos()
        t = self._createtoken(TT.WORD, self._shell_input_line[start:end], butils.typedset(WF))
        if assignment and self._vs_assignment_ok():
            t.ttype = TT.ASSIGNMENT_WORD
            t.flags.add(WF.ASSIGNMENT)
            t.flags.add(WF.NOSPLIT)
        return t

    def _vs_assignment_ok(self) -> bool:
        """Whether a word read now is in assignment position (before the command word)."""
        return (
            self.vs_prefix
            and self._last_read_token.ttype not in REDIR_OPS
            and not self._parserstate & PF.CASEPAT
        )

    def _is_assignment(self, value: str, iscompassign: bool) -> Any:
        eq = scan.subscript_assign_end(value, 0)
        if eq is not None:
            return eq - 1
        return super()._is_assignment(value, iscompassign)

    def _time_command_acceptable(self) -> bool:
        """``time`` is reserved at a command start, but not after ``|`` / ``|&`` (and any
        newlines that follow them)."""
        return not self.vs_after_pipe

    def _reserved_word_acceptable(self, tok: Any) -> bool:
        """bashlex's rule, minus its slip of taking a *word* ``{`` or ``}`` as an operator,
        plus ``coproc NAME {``."""
        if tok and tok.ttype in WORDISH:
            return bool(
                self._last_read_token.ttype == TT.WORD
                and self._token_before_that.ttype in (TT.FUNCTION, TT.COPROC)
            )
        if tok and not isinstance(tok.value, str | None):
            return False  # our COND_CMD token carries a list
        return bool(super()._reserved_word_acceptable(tok))

    def _vs_read_heredocs(self) -> None:
        """Read the pending here-document bodies; the index is just after a newline.

        For an unquoted delimiter bash joins ``\\``-newline continued lines before it
        compares a line with the delimiter; the body keeps them as written (the
        interpreter removes them when it expands the body).
        """
        src = self._shell_input_line
        n = len(src)
        i = self._shell_input_line_index
        for dtok, strip in self.vs_pending:
            delim, quoted = scan.unquote_delimiter(src[dtok.lexpos : dtok.endlexpos])
            lines: list[str] = []
            found = False
            while i < n:
                line, logical, i = self._vs_heredoc_line(src, i, strip, not quoted)
                if logical == delim:
                    found = True
                    break
                lines.append(line)
            if not found:
                self.vs_heredoc_eof = True
            self.vs_heredocs[dtok.lexpos] = HereDocBody("".join(lines), quoted, not found)
        self.vs_pending = []
        self._shell_input_line_index = i

    @staticmethod
    def _vs_heredoc_line(src: str, i: int, strip: bool, join: bool) -> tuple[str, str, int]:
        """One body line from ``i``: (raw text, text compared with the delimiter, next i)."""
        n = len(src)
        raw: list[str] = []
        logical: list[str] = []
        while i < n:
            nl = src.find("\n", i)
            e = n if nl < 0 else nl + 1
            line = src[i:e]
            i = e
            if strip:
                line = line.lstrip("\t")
            raw.append(line)
            text = line.removesuffix("\n")
            backslashes = len(text) - len(text.rstrip("\\"))
            if join and line.endswith("\n") and backslashes % 2 == 1 and i < n:
                logical.append(text[:-1])
                continue
            logical.append(text)
            break
        return "".join(raw), "".join(logical), i
