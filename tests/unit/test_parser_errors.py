"""Parser errors in bash's words and lines, parse_partial and is_complete."""

from __future__ import annotations

import pytest

from vshell.syntax import ParseError, ast, is_complete, parse, parse_partial

ERROR_TABLE = [
    # (source, message, line) — each checked against `bash -n` 5.2 by hand
    ("echo a )", "syntax error near unexpected token `)'", 1),
    ("if true; then", "syntax error: unexpected end of file", 2),
    ("if true; then\n", "syntax error: unexpected end of file", 2),
    ("echo 'abc", "unexpected EOF while looking for matching `''", 1),
    ('echo "abc\nfoo', "unexpected EOF while looking for matching `\"'", 1),
    ("echo `foo", "unexpected EOF while looking for matching ``'", 1),
    ("echo $(foo\n\n", "unexpected EOF while looking for matching `)'", 3),
    ("echo ${foo", "unexpected EOF while looking for matching `}'", 1),
    ("x=(a b", "unexpected EOF while looking for matching `)'", 1),
    ("(( 1 +", "unexpected EOF while looking for matching `)'", 1),
    ("echo a |\n\n", "syntax error: unexpected end of file", 3),
    ("if true; then\nfoo; }\nfi\n", "syntax error near unexpected token `}'", 2),
    ("for x in a b; do\n echo\ndone; ;;\n", "syntax error near unexpected token `;;'", 3),
    ("case x in\n a) echo ;;\nesac\n(\n", "syntax error: unexpected end of file", 5),
    ("echo a\necho b\nfi\necho c", "syntax error near unexpected token `fi'", 3),
    ("done", "syntax error near unexpected token `done'", 1),
    ("echo a; then", "syntax error near unexpected token `then'", 1),
    ("{ echo", "syntax error: unexpected end of file", 2),
    ("echo a &&", "syntax error: unexpected end of file", 2),
    ("echo a | | b", "syntax error near unexpected token `|'", 1),
    ("; echo", "syntax error near unexpected token `;'", 1),
    ("echo a\n\n\necho (", "syntax error near unexpected token `newline'", 4),
    ("echo a >", "syntax error near unexpected token `newline'", 1),
    ("if; then fi", "syntax error near unexpected token `;'", 1),
    ("function", "syntax error near unexpected token `newline'", 1),
    ("esac", "syntax error near unexpected token `esac'", 1),
    ("}", "syntax error near unexpected token `}'", 1),
]


@pytest.mark.parametrize(("source", "message", "line"), ERROR_TABLE)
def test_error_messages(source: str, message: str, line: int) -> None:
    with pytest.raises(ParseError) as info:
        parse(source)
    err = info.value
    assert (err.message, err.line) == (message, line)
    assert str(err) == message


def test_error_fields() -> None:
    with pytest.raises(ParseError) as info:
        parse("echo a\n  echo b )")
    err = info.value
    assert (err.line, err.col, err.token) == (2, 10, ")")


def test_only_parse_error_escapes() -> None:
    nasty = ["\x00", "$(", "`", "<<", "((", "[[", "a=(", "${", "case", "for ((", "{fd}>",
             "cat <<'", "echo $((", "f() ", "!(", "[[ a =~ (", "coproc", "time -p", "'", '"']
    for src in nasty:
        try:
            parse(src)
        except ParseError:
            pass


def test_parse_partial() -> None:
    script, err = parse_partial("echo a\necho b\nfi\necho c")
    assert err is not None and err.line == 3
    argv = [[w.raw for w in i.command.first.commands[0].words] for i in script.items]
    assert argv == [["echo", "a"], ["echo", "b"]]
    script, err = parse_partial("echo a; echo b")
    assert err is None and len(script.items) == 2
    script, err = parse_partial("echo a; fi")
    assert err is not None and script.items == []
    assert isinstance(script, ast.CommandList)


@pytest.mark.parametrize(
    "source",
    ["if x", "if x; then\n y\n", "echo 'a", 'echo "a', "cat <<EOF\nx", "cat <<EOF", "echo a |",
     "echo a &&", "echo a ||", "echo \\", "echo a \\\n", "f() {", "( echo", "case x in",
     "echo $(", "for x in a; do", "while true", "[[ a &&", "x=(1", "echo ${x"],
)
def test_is_complete_false(source: str) -> None:
    assert is_complete(source) is False


@pytest.mark.parametrize(
    "source",
    ["echo a", "echo a\n", "", "echo )", "fi", "cat <<EOF\nx\nEOF\n", "if x; then y; fi",
     "echo 'a\nb'", "echo a \\\\", "f() { :; }"],
)
def test_is_complete_true(source: str) -> None:
    assert is_complete(source) is True


@pytest.mark.parametrize(
    ("source", "words"),
    [("x\\", ["x"]), ("echo a7\\", ["echo", "a7"]), ("echo a \\", ["echo", "a"]),
     ("7\\", ["7"]), ("{0}\\", ["{0}"]), ("echo a$\\\n", ["echo", "a$\\\n"])],
)
def test_continuation_at_end_of_input(source: str, words: list[str]) -> None:
    cmd = parse(source).items[0].command.first.commands[0]
    assert [w.raw for w in cmd.words] == words


def test_random_input_raises_only_parse_error() -> None:
    import random

    rng = random.Random(1234)
    alphabet = "ab $'\"`\\(){}[]<>|&;#\n\t=~!*?@+-%^:,.019é"
    for _ in range(1500):
        src = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 20)))
        try:
            parse(src)
        except ParseError as e:
            assert e.message != "syntax error", src  # an internal failure, not bash's words
        is_complete(src)
