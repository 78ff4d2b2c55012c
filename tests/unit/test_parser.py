"""Parser tests: scripts → AST shape, for every construct the shim adds to bashlex."""

from __future__ import annotations

from typing import Any

import pytest

from vshell.records import fields, is_record
from vshell.syntax import ast, parse


def walk(node: Any) -> list[Any]:
    """Every record node under ``node`` (pre-order), ``node`` included."""
    out: list[Any] = []

    def visit(n: Any) -> None:
        if isinstance(n, list | tuple):
            for x in n:
                visit(x)
        elif is_record(n):
            out.append(n)
            for f in fields(n):
                visit(getattr(n, f.name))

    visit(node)
    return out


def nodes(source: str, kind: type) -> list[Any]:
    return [n for n in walk(parse(source)) if isinstance(n, kind)]


def first(source: str, kind: type) -> Any:
    found = nodes(source, kind)
    assert found, f"no {kind.__name__} in {source!r}"
    return found[0]


def raws(words: list[ast.Word] | None) -> list[str] | None:
    return None if words is None else [w.raw for w in words]


def argv(source: str) -> list[list[str]]:
    """The raw words of every simple command, in tree order."""
    return [[w.raw for w in c.words] for c in nodes(source, ast.SimpleCommand)]


def top(source: str) -> Any:
    """The single command of a one-command script."""
    script = parse(source)
    assert len(script.items) == 1, script
    pipe = script.items[0].command.first
    assert len(pipe.commands) == 1, pipe
    return pipe.commands[0]


def check_positions(source: str) -> None:
    """Every Word's raw text is exactly the source at its position, on the right line."""
    for w in nodes(source, ast.Word):
        assert source[w.pos : w.pos + len(w.raw)] == w.raw, w
        assert w.line == source.count("\n", 0, w.pos) + 1, w


# -- simple commands, words ----------------------------------------------------------------

WORD_TABLE = [
    ("echo a b", [["echo", "a", "b"]]),
    ("echo 'a b' \"c $d\" e\\ f", [["echo", "'a b'", '"c $d"', "e\\ f"]]),
    ("echo $(a && b) $(a || b) $(a;) $((1+2)) $[3]", [["echo", "$(a && b)", "$(a || b)", "$(a;)",
                                                    "$((1+2))", "$[3]"]]),
    ("echo `date` ${x:-y} ${#a[@]} \"${!r}\"", [["echo", "`date`", "${x:-y}", "${#a[@]}",
                                               '"${!r}"']]),
    ("echo ${v:-$(echo \"}\")} x", [["echo", '${v:-$(echo "}")}', "x"]]),
    ("echo ${foo:-$({ ls /bin/ls; })}", [["echo", "${foo:-$({ ls /bin/ls; })}"]]),
    ("echo $'a\\'b' $\"x\"", [["echo", "$'a\\'b'", '$"x"']]),
    ("echo if then fi do done case esac", [["echo", "if", "then", "fi", "do", "done", "case",
                                            "esac"]]),
    ("ls @(a|b).txt !(x) +(y) *(z) ?(w)", [["ls", "@(a|b).txt", "!(x)", "+(y)", "*(z)", "?(w)"]]),
    ("echo {a,b} ~/x *.txt [ab]", [["echo", "{a,b}", "~/x", "*.txt", "[ab]"]]),
    ("diff <(ls a) >(cat)", [["diff", "<(ls a)", ">(cat)"]]),
    ("echo a \\\n  b # comment", [["echo", "a", "b"]]),
    ("x=$(\n cd /tmp\n pwd\n)", [[]]),
    ('ROOT="$(cd "$(dirname "$0")" && pwd)"', [[]]),
    ("echo $(cat <<EOF\n)\nEOF\n)", [["echo", "$(cat <<EOF\n)\nEOF\n)"]]),
    ("echo $(case x in a) echo;; esac)", [["echo", "$(case x in a) echo;; esac)"]]),
    ("echo `echo a` \"`b`\"", [["echo", "`echo a`", '"`b`"']]),
]


@pytest.mark.parametrize(("source", "expected"), WORD_TABLE)
def test_words_keep_raw_text(source: str, expected: list[list[str]]) -> None:
    assert argv(source) == expected
    check_positions(source)


def test_word_positions_and_lines() -> None:
    src = "echo a\n  cat 'b c'\n"
    cmds = nodes(src, ast.SimpleCommand)
    assert [(w.raw, w.pos, w.line) for w in cmds[1].words] == [("cat", 9, 2), ("'b c'", 13, 2)]
    assert cmds[1].line == 2


def test_assignments() -> None:
    cmd = top("a=1 b+=2 c[i]=3 d[i + 1]+=4 e= f=(x 'y z') g+=(1) cmd h=5")
    got = [(a.name, a.index, a.append, a.value.raw if a.value else None, raws(a.array))
           for a in cmd.assigns]
    assert got == [
        ("a", None, False, "1", None),
        ("b", None, True, "2", None),
        ("c", "i", False, "3", None),
        ("d", "i + 1", True, "4", None),
        ("e", None, False, "", None),
        ("f", None, False, None, ["x", "'y z'"]),
        ("g", None, True, None, ["1"]),
    ]
    assert raws(cmd.words) == ["cmd", "h=5"]


def test_array_literal_multiline_with_comments() -> None:
    cmd = top("a=(\n  one # first\n  \"two three\"\n  [k]=v\n)")
    assert raws(cmd.assigns[0].array) == ["one", '"two three"', "[k]=v"]


@pytest.mark.parametrize(
    ("source", "word"),
    [
        ("declare -a a=(1 \"2 3\")", 'a=(1 "2 3")'),
        ("local -A m=([k]=v [j]=\"w x\")", 'm=([k]=v [j]="w x")'),
        ("export x=(a b)", "x=(a b)"),
        ("readonly r=(1)", "r=(1)"),
        ("typeset -a t=()", "t=()"),
        ("let x=( 1 + 2 )", "x=( 1 + 2 )"),
    ],
)
def test_declaration_arrays_stay_one_word(source: str, word: str) -> None:
    cmd = top(source)
    assert cmd.assigns == []
    assert cmd.words[-1].raw == word


def test_array_outside_assignment_position_is_an_error() -> None:
    with pytest.raises(Exception, match="unexpected token"):
        parse("ls foo=(1 2)")


# -- redirections ---------------------------------------------------------------------------

REDIR_TABLE = [
    ("cat <in", ("<", "in", None, None)),
    ("cat >out", (">", "out", None, None)),
    ("cat >>out", (">>", "out", None, None)),
    ("cat >|out", (">|", "out", None, None)),
    ("cat 3<>f", ("<>", "f", 3, None)),
    ("cat 2>&1", (">&", "1", 2, None)),
    ("cat >&2", (">&", "2", None, None)),
    ("cat <&-", ("<&", "-", None, None)),
    ("cat 2>&-", (">&", "-", 2, None)),
    ("cat 4<&0", ("<&", "0", 4, None)),
    ("cat &>f", ("&>", "f", None, None)),
    ("cat &>>f", ("&>>", "f", None, None)),
    ("cat <<<\"s $x\"", ("<<<", '"s $x"', None, None)),
    ("exec {fd}>file", (">", "file", None, "fd")),
    ("exec {fd}<&-", ("<&", "-", None, "fd")),
    ("cat 2>\"$f\"", (">", '"$f"', 2, None)),
]


@pytest.mark.parametrize(("source", "expected"), REDIR_TABLE)
def test_redirects(source: str, expected: tuple[Any, ...]) -> None:
    r = first(source, ast.Redirect)
    assert (r.op, r.target.raw, r.fd, r.fd_var) == expected
    check_positions(source)


def test_redirect_anywhere_in_command() -> None:
    cmd = top(">out echo a 2>/dev/null b")
    assert raws(cmd.words) == ["echo", "a", "b"]
    assert [(r.op, r.target.raw, r.fd) for r in cmd.redirects] == [
        (">", "out", None),
        (">", "/dev/null", 2),
    ]


def test_compound_redirects() -> None:
    assert top("{ echo; } > f").redirects[0].target.raw == "f"
    assert top("( echo ) 2>/dev/null").redirects[0].fd == 2
    assert top("while x; do y; done <in").redirects[0].op == "<"
    assert len(top("if a; then b; fi >o 2>&1").redirects) == 2
    assert len(top("case x in *) ;; esac >o").redirects) == 1
    assert top("[[ -n x ]] >o").redirects[0].target.raw == "o"


# -- lists and pipelines --------------------------------------------------------------------


def test_lists_and_background() -> None:
    script = parse("a & b; c &\nd && e || f")
    items = script.items
    assert [i.background for i in items] == [True, False, True, False]
    last = items[3].command
    assert [op for op, _ in last.rest] == ["&&", "||"]
    src = "a & b; c &\nd && e || f"
    assert [src[i.start : i.end] for i in items] == ["a", "b", "c", "d && e || f"]


def test_pipelines() -> None:
    pipe = parse("! a | b |& c").items[0].command.first
    assert pipe.negated and not pipe.timed
    assert len(pipe.commands) == 3
    assert pipe.stderr_pipes == [False, True]
    timed = parse("time -p ls | wc").items[0].command.first
    assert timed.timed and timed.time_posix and len(timed.commands) == 2
    assert parse("time ls").items[0].command.first.time_posix is False
    assert parse("time").items[0].command.first.timed


def test_time_after_a_pipe_is_a_word() -> None:
    assert argv("a | time b") == [["a"], ["time", "b"]]
    assert argv("a |\n  time -p b") == [["a"], ["time", "-p", "b"]]
    assert parse("! time a").items[0].command.first.timed


def test_pipeline_continues_after_newline() -> None:
    assert argv("a |\n  b &&\n  c") == [["a"], ["b"], ["c"]]


# -- compound commands ----------------------------------------------------------------------


def test_if_elif_else() -> None:
    node = top("if a; then b; elif c; then d; elif e; then f; else g; fi")
    assert isinstance(node, ast.If)
    assert len(node.clauses) == 3
    assert argv("if a; then b; elif c; then d; else g; fi") == [["a"], ["b"], ["c"], ["d"], ["g"]]
    assert node.else_body is not None
    assert top("if a\nthen\n b\nfi").else_body is None


def test_while_until() -> None:
    node = top("while false\ndo echo; done")
    assert isinstance(node, ast.While) and not node.until
    assert top("until x; do y; done").until
    assert argv("seq 3 | while read i\ndo echo $i\ndone") == [["seq", "3"], ["read", "i"],
                                                           ["echo", "$i"]]


@pytest.mark.parametrize(
    ("source", "var", "words"),
    [
        ("for x in a 'b c'; do :; done", "x", ["a", "'b c'"]),
        ("for x; do :; done", "x", None),
        ("for x do :; done", "x", None),
        ("for x in; do :; done", "x", []),
        ("for x in a b\ndo\n :\ndone", "x", ["a", "b"]),
        ("for x in a; { :; }", "x", ["a"]),
    ],
)
def test_for(source: str, var: str, words: list[str] | None) -> None:
    node = top(source)
    assert isinstance(node, ast.For)
    assert (node.var, raws(node.words)) == (var, words)


def test_arith_for() -> None:
    node = top("for ((i=0; i<3; i++)); do echo $i; done")
    assert isinstance(node, ast.ArithFor)
    assert (node.init, node.cond, node.step) == ("i=0", " i<3", " i++")
    empty = top("for (( ; ; )) do break; done")
    assert (empty.init.strip(), empty.cond.strip(), empty.step.strip()) == ("", "", "")
    assert isinstance(top("for ((i=0;i<2;i++))\ndo :; done"), ast.ArithFor)
    assert isinstance(top("for ((i=0;i<2;i++)) { :; }"), ast.ArithFor)


def test_select() -> None:
    node = top("select x in a b; do echo $x; break; done")
    assert isinstance(node, ast.Select)
    assert node.var == "x" and raws(node.words) == ["a", "b"]


def test_bodies_ending_in_a_compound_need_no_terminator() -> None:
    assert isinstance(top("select s in a; do { a; } done"), ast.Select)
    assert isinstance(top("while x; do (a) done"), ast.While)
    assert isinstance(top("{ (a) }"), ast.Group)
    with pytest.raises(Exception, match="unexpected token `done'"):
        parse("if a; then b; fi done")


def test_case() -> None:
    src = "case $x in a|b) echo 1;; (c) echo 2;& *) ;;& esac"
    node = top(src)
    assert isinstance(node, ast.Case)
    assert node.word.raw == "$x"
    assert [raws(i.patterns) for i in node.items] == [["a", "b"], ["c"], ["*"]]
    assert [i.terminator for i in node.items] == [";;", ";&", ";;&"]
    assert node.items[2].body.items == []


def test_case_multiline_and_last_arm_without_terminator() -> None:
    node = top("case x in\n  a)\n    echo a\n    ;;\n  b) echo b\nesac")
    assert [raws(i.patterns) for i in node.items] == [["a"], ["b"]]
    assert argv("case x in\n  a)\n    echo a\n    ;;\n  b) echo b\nesac") == [["echo", "a"],
                                                                          ["echo", "b"]]


def test_case_patterns_extglob_and_reserved_words() -> None:
    node = top("case x in @(a|b)) ;; !(c)) ;; if|then) ;; esac")
    assert [raws(i.patterns) for i in node.items] == [["@(a|b)"], ["!(c)"], ["if", "then"]]
    assert top("case x in esac").items == []


def test_subshell_and_group() -> None:
    assert isinstance(top("(a; b)"), ast.Subshell)
    assert isinstance(top("{ a; b; }"), ast.Group)
    assert argv("( (a) )") == [["a"]]
    assert argv("((cd /tmp; ls) | wc)") == [["cd", "/tmp"], ["ls"], ["wc"]]


def test_arith_command() -> None:
    node = top("(( count > 5 ))")
    assert isinstance(node, ast.ArithCommand)
    assert node.expr == " count > 5 "
    assert isinstance(top("((x = (1 + 2) * 3)) >/dev/null"), ast.ArithCommand)
    script = parse("(( x++ )) && echo y")
    assert script.items[0].command.rest[0][0] == "&&"


COND_TABLE = [
    ("[[ -n $x ]]", ["-n", "$x"]),
    ("[[ -n $x && ( $a == \"b c\" || ! -z $d ) ]]",
     ["-n", "$x", "&&", "(", "$a", "==", '"b c"', "||", "!", "-z", "$d", ")"]),
    ("[[ $x =~ ^a(b|c)+$ ]]", ["$x", "=~", "^a(b|c)+$"]),
    ("[[ $x =~ (a|b) && y ]]", ["$x", "=~", "(a|b)", "&&", "y"]),
    ("[[ 'a b' =~ \"^(a b)$\" ]]", ["'a b'", "=~", '"^(a b)$"']),
    ("[[ a<b ]]", ["a", "<", "b"]),
    ("[[ $x == @(a|b) ]]", ["$x", "==", "@(a|b)"]),
    ("[[ a &&\n  b ]]", ["a", "&&", "b"]),
    ("[[ (a)&&(b) ]]", ["(", "a", ")", "&&", "(", "b", ")"]),
]


@pytest.mark.parametrize(("source", "words"), COND_TABLE)
def test_cond_command(source: str, words: list[str]) -> None:
    node = top(source)
    assert isinstance(node, ast.CondCommand)
    assert raws(node.words) == words
    check_positions(source)


def test_cond_in_lists() -> None:
    script = parse("[[ -f a ]] && echo y || echo n; ! [[ x ]]")
    assert len(script.items) == 2
    assert script.items[1].command.first.negated


def test_functions() -> None:
    for src in ("f() { echo; }", "function f { echo; }", "function f() { echo; }",
                "f()\n{\n echo\n}"):
        node = top(src)
        assert isinstance(node, ast.FunctionDef) and node.name == "f", src
        assert isinstance(node.body, ast.Group)
    node = top("f() ( echo ) >&2")
    assert isinstance(node.body, ast.Subshell)
    assert node.body.redirects[0].op == ">&"
    assert top("f() { :; } > out").body.redirects[0].target.raw == "out"


def test_coproc() -> None:
    node = top("coproc cat")
    assert isinstance(node, ast.Coproc) and node.name == "COPROC"
    named = top("coproc name { echo; }")
    assert named.name == "name" and isinstance(named.body, ast.Group)


def test_lines_of_compound_commands() -> None:
    script = parse("echo a\n\nif x\nthen\n  y\nfi\nfor i in 1; do\n  z\ndone\n")
    cmds = [i.command.first.commands[0] for i in script.items]
    assert [c.line for c in cmds] == [1, 3, 7]
    assert nodes("echo a\n\nif x\nthen\n  y\nfi", ast.SimpleCommand)[2].line == 5


def test_comments_and_blank_lines() -> None:
    assert argv("# only a comment\n\n  # another\necho a # trailing\n#end") == [["echo", "a"]]
    assert parse("").items == []
    assert parse("\n\n  \n").items == []


def test_many_lines_fast_enough() -> None:
    src = "".join(f"echo line{i} | grep x && y=$i\n" for i in range(500))
    assert len(parse(src).items) == 500


# -- here-documents: 24 kinds ---------------------------------------------------------------

HEREDOC_TABLE = [
    ("cat <<EOF\nhello $USER\nEOF\n", [("hello $USER\n", False)], [["cat"]]),
    ("cat <<'EOF'\nhello $USER\nEOF\n", [("hello $USER\n", True)], [["cat"]]),
    ('cat <<"EOF"\n$x\nEOF\n', [("$x\n", True)], [["cat"]]),
    ("cat <<\\EOF\n$x\nEOF\n", [("$x\n", True)], [["cat"]]),
    ('cat <<E"O"F\n$x\nEOF\n', [("$x\n", True)], [["cat"]]),
    ("cat <<-EOF\n\t\ttabbed\n  spaced\n\tEOF\n", [("tabbed\n  spaced\n", False)], [["cat"]]),
    ("cat <<-'EOF'\n\tq\n\tEOF\n", [("q\n", True)], [["cat"]]),
    ("cat <<'EOF'; echo done\nx\nEOF\n", [("x\n", True)], [["cat"], ["echo", "done"]]),
    ("cat <<'EOF' 2>&1 | tail -1\na\nb\nEOF\necho after", [("a\nb\n", True)],
     [["cat"], ["tail", "-1"], ["echo", "after"]]),
    ("cat <<'EOF' > f; echo done\nx\nEOF", [("x\n", True)], [["cat"], ["echo", "done"]]),
    ("cat <<A <<B\na\nA\nb\nB\necho z", [("a\n", False), ("b\n", False)], [["cat"], ["echo", "z"]]),
    ("cat <<A; cat <<B\na\nA\nb\nB\n", [("a\n", False), ("b\n", False)], [["cat"], ["cat"]]),
    ("cat <<EOF\nEOFX\nEOF\n", [("EOFX\n", False)], [["cat"]]),
    ("<<'EOF' cat\nbody\nEOF\n", [("body\n", True)], [["cat"]]),
    ("cat <<EOF\n  EOF\nEOF\n", [("  EOF\n", False)], [["cat"]]),
    ("python3 - <<'PY'\nprint(1)\nPY\n", [("print(1)\n", True)], [["python3", "-"]]),
    ("cat <<'EOF'\n\\foo\n\\\nbar $x\nEOF\n", [("\\foo\n\\\nbar $x\n", True)], [["cat"]]),
    ("if true; then\n  cat <<EOF\n  in if\nEOF\nfi\necho after", [("  in if\n", False)],
     [["true"], ["cat"], ["echo", "after"]]),
    ("for i in 1; do cat <<EOF\n$i\nEOF\ndone", [("$i\n", False)], [["cat"]]),
    ("f() {\n cat <<-EOF\n\t\tin f\n\tEOF\n}\nf", [("in f\n", False)], [["cat"], ["f"]]),
    ("while read l; do echo $l; done <<EOF\na\nb\nEOF\n", [("a\nb\n", False)],
     [["read", "l"], ["echo", "$l"]]),
    ("cat <<EOF\nEOF\n", [("", False)], [["cat"]]),
    ("cat <<EOF\nno final newline\nEOF", [("no final newline\n", False)], [["cat"]]),
    ("cat <<EOF && echo ok # c\nb\nEOF\n", [("b\n", False)], [["cat"], ["echo", "ok"]]),
]


@pytest.mark.parametrize(("source", "bodies", "commands"), HEREDOC_TABLE)
def test_heredocs(source: str, bodies: list[tuple[str, bool]], commands: list[list[str]]) -> None:
    redirs = [r for r in nodes(source, ast.Redirect) if r.heredoc is not None]
    assert [(r.heredoc.body, r.heredoc.quoted) for r in redirs] == bodies
    assert argv(source) == commands
    check_positions(source)


def test_heredoc_redirect_fields() -> None:
    r = first("cat 3<<-'END'\n\tx\nEND\n", ast.Redirect)
    assert (r.op, r.fd, r.target.raw) == ("<<-", 3, "'END'")


def test_heredoc_unterminated_reads_to_end() -> None:
    r = first("cat <<EOF\nline\n", ast.Redirect)
    assert r.heredoc is not None and r.heredoc.body == "line\n"
    assert r.heredoc.unterminated
    assert not first("cat <<EOF\nline\nEOF", ast.Redirect).heredoc.unterminated


# -- command position and assignment position ------------------------------------------------


def test_assignments_after_redirections() -> None:
    cmd = top(">o a=1 b=(1 2) cmd c=3")
    assert [a.name for a in cmd.assigns] == ["a", "b"]
    assert raws(cmd.words) == ["cmd", "c=3"]
    assert top("2>&1 a[1]=x").assigns[0].index == "1"


@pytest.mark.parametrize(
    ("source", "words"),
    [
        ("echo { else }", ["echo", "{", "else", "}"]),
        ("x } [[ a ]]", ["x", "}", "[[", "a", "]]"]),
        ("for x in a=1; do :; done", ["a=1"]),
        ("declare a[1]=x", ["declare", "a[1]=x"]),
        ("ls foo[1]=x", ["ls", "foo[1]=x"]),
        ("echo ((", None),
    ],
)
def test_words_that_look_like_syntax(source: str, words: list[str] | None) -> None:
    if words is None:
        with pytest.raises(Exception, match="syntax error"):
            parse(source)
        return
    found = nodes(source, ast.For)
    got = raws(found[0].words) if found else raws(top(source).words)
    assert got == words


def test_function_bodies_of_every_compound_kind() -> None:
    assert isinstance(top("function f [[ a ]]").body, ast.CondCommand)
    assert isinstance(top("function g (( x ))").body, ast.ArithCommand)
    assert isinstance(top("h() if a; then b; fi").body, ast.If)
    assert isinstance(top("k() for i in 1; do :; done").body, ast.For)
    assert isinstance(top("function s (a; b)").body, ast.Subshell)
    assert isinstance(top("function t () (a)").body, ast.Subshell)


def test_command_substitution_bodies_are_checked() -> None:
    for src in ("echo $(if true)", 'echo "$(fi)"', "echo <(fi)", "echo $(echo $(done))"):
        with pytest.raises(Exception, match="syntax error near unexpected token"):
            parse(src)
    parse("echo `if true`")  # bash checks backquotes only when they run
    parse("echo $( (a) ) $((1)) $(case x in a) echo;; esac)")


def test_array_literal_operators_are_errors() -> None:
    for src in ("a=(1;2)", "a=( inside=() )", "a=(\n1\n&\n)"):
        with pytest.raises(Exception, match="syntax error near unexpected token"):
            parse(src)
    assert raws(top("a=(<(ls) @(x|y) \"a b\" $(echo \")\") [k]=v)").assigns[0].array) == [
        "<(ls)", "@(x|y)", '"a b"', '$(echo ")")', "[k]=v"]


@pytest.mark.parametrize(
    ("source", "body"),
    [
        ("cat <<EOF\nfoo\\\nEOF\nEOF\necho after\n", "foo\\\nEOF\n"),  # joined: fooEOF
        ("cat <<EOF\nfoo\\\\\nEOF\necho after\n", "foo\\\\\n"),  # escaped backslash
        ("cat <<'EOF'\nfoo\\\nEOF\necho after\n", "foo\\\n"),  # quoted: no joining
        ("cat <<EOF\nEO\\\nF\necho after\n", ""),  # the delimiter itself continued
    ],
)
def test_heredoc_line_continuations(source: str, body: str) -> None:
    script = parse(source)
    assert len(script.items) == 2
    assert first(source, ast.Redirect).heredoc.body == body
