"""Tokens of an awk program.

The whole program is tokenised up front so the parser can look ahead and back up (``print
(a)(b)`` versus ``print (a, b) > f``).  ``/`` starts a regular expression unless the token
before it ends an operand, as in every awk.  A NAME followed at once by ``(`` is a FUNC_NAME
(user function calls take no space before the parenthesis).
"""

from __future__ import annotations

import re

from vshell.records import record
from vshell.text import escapes

KEYWORDS = {
    "BEGIN", "END", "BEGINFILE", "ENDFILE", "function", "func", "if", "else", "while", "for",
    "do", "break", "continue", "next", "nextfile", "exit", "return", "delete", "in", "getline",
    "print", "printf",
}
BUILTINS = {
    "length", "substr", "index", "split", "sub", "gsub", "match", "sprintf", "sin", "cos",
    "atan2", "exp", "log", "sqrt", "int", "rand", "srand", "tolower", "toupper", "system",
    "close", "fflush", "gensub", "strftime", "systime", "mktime", "asort", "asorti", "and",
    "or", "xor", "lshift", "rshift", "compl", "patsplit", "isarray", "typeof",
}
# operators, longest first
OPS = [
    "**=", "+=", "-=", "*=", "/=", "%=", "^=", "==", "<=", ">=", "!=", "!~", "&&", "||",
    ">>", "++", "--", "**", "|&", "+", "-", "*", "/", "%", "^", "!", ">", "<", "|", "?", ":",
    "~", "$", "=", "(", ")", "[", "]", "{", "}", ",", ";",
]
# after these a "/" divides
_OPERAND_END = {"NAME", "NUMBER", "STRING", "ERE", "BUILTIN", ")", "]", "$", "++", "--"}

_NUM_RE = re.compile(r"0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class AwkSyntaxError(Exception):
    """A syntax error at (line, column); formatted gawk-style by the caller."""

    def __init__(self, message: str, line: int, col: int) -> None:
        super().__init__(message)
        self.line = line
        self.col = col


@record
class Token:
    kind: str  # NAME FUNC_NAME BUILTIN NUMBER STRING ERE NEWLINE EOF keyword or operator
    value: object
    line: int
    col: int


def unescape(body: str, warn: list[str] | None = None) -> str:
    """Process the escapes of a string literal's body (gawk's, see ``escapes.AWK``)."""
    if "\\" not in body:
        return body
    decoded = escapes.decode(body, escapes.AWK)
    if warn is not None:
        warn.extend(decoded.errors)
    return decoded.text


def tokenize(src: str) -> list[Token]:
    """Split ``src`` into tokens; raises AwkSyntaxError."""
    toks: list[Token] = []
    i, n = 0, len(src)
    line, line_start = 1, 0

    def add(kind: str, value: object, start: int) -> None:
        toks.append(Token(kind, value, line, start - line_start))

    while i < n:
        c = src[i]
        if c in " \t\r":
            i += 1
            continue
        if c == "\\" and src.startswith("\n", i + 1):
            i += 2
            line += 1
            line_start = i
            continue
        if c == "\\" and src.startswith("\r\n", i + 1):
            i += 3
            line += 1
            line_start = i
            continue
        if c == "#":
            while i < n and src[i] != "\n":
                i += 1
            continue
        if c == "\n":
            add("NEWLINE", None, i)
            i += 1
            line += 1
            line_start = i
            continue
        if c == '"':
            j = i + 1
            while j < n and src[j] != '"':
                if src[j] == "\\":
                    j += 1
                elif src[j] == "\n":
                    raise AwkSyntaxError("unterminated string", line, i - line_start)
                j += 1
            if j >= n:
                raise AwkSyntaxError("unterminated string", line, i - line_start)
            add("STRING", unescape(src[i + 1 : j]), i)
            i = j + 1
            continue
        if c == "/" and (not toks or toks[-1].kind not in _OPERAND_END):
            j = i + 1
            in_bracket = False
            while j < n:
                ch = src[j]
                if ch == "\\" and j + 1 < n:
                    j += 2
                    continue
                if ch == "\n":
                    raise AwkSyntaxError("unterminated regexp", line, i - line_start + 1)
                if in_bracket:
                    if ch == "]":
                        in_bracket = False
                elif ch == "[":
                    in_bracket = True
                    if src.startswith("^", j + 1):
                        j += 1
                    if src.startswith("]", j + 1):
                        j += 1
                elif ch == "/":
                    break
                j += 1
            if j >= n:
                raise AwkSyntaxError("unterminated regexp", line, i - line_start + 1)
            add("ERE", src[i + 1 : j], i)
            i = j + 1
            continue
        # ASCII only: str.isdigit/isalpha also accept '²' or 'é', which no awk token starts
        if (c.isascii() and c.isdigit()) or (
                c == "." and i + 1 < n and src[i + 1].isascii() and src[i + 1].isdigit()):
            m = _NUM_RE.match(src, i)
            assert m
            text = m.group()
            value = float(int(text, 16)) if text[:2] in ("0x", "0X") else float(text)
            add("NUMBER", value, i)
            i = m.end()
            continue
        if (c.isascii() and c.isalpha()) or c == "_":
            m = _NAME_RE.match(src, i)
            assert m
            word = m.group()
            if word in KEYWORDS:
                add("func" if word == "function" else word, word, i)
            elif word in BUILTINS:
                add("BUILTIN", word, i)
            elif src.startswith("(", m.end()):
                add("FUNC_NAME", word, i)
            else:
                add("NAME", word, i)
            i = m.end()
            continue
        for op in OPS:
            if src.startswith(op, i):
                if op == "/=" and toks and toks[-1].kind not in _OPERAND_END:
                    continue
                add(op, op, i)
                i += len(op)
                break
        else:
            raise AwkSyntaxError(f"invalid char '{c}' in expression", line, i - line_start)
    add("NEWLINE", None, i)
    add("EOF", None, i)
    return toks
