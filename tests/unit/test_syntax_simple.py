"""The bashlex-free parser of one-line simple scripts builds exactly the bashlex path's tree.

Every script is parsed both ways: where ``parse_simple`` answers, its tree must equal the
full parser's (words, positions, lines, operators); where the full parser fails, the simple
one must decline.  Random scripts from a vocabulary rich in near misses (globs, quotes,
``$`` forms, reserved words, assignments, redirections) check the boundary."""

from __future__ import annotations

import random

import pytest

from vshell.syntax import parser
from vshell.syntax.simple import parse_simple

ACCEPTED = [
    "true", "true\n", ":", " true ;  false ", "echo hi | cat", "a | b && c||d", "true;",
    "ls -la /work/x.txt", "grep -n 'TODO: x' a.py | head -5", 'echo "a b" x"y"z \'c d\'',
    "echo $x $1 \"$HOME/a\" $_y9", "echo --x=1 a=b", "printf %s, @x ^y +z",
    "cd /tmp && ls", "echo '' \"\"", "export", "\ttrue\t",
]

DECLINED = [
    "", "   ", "\n", "a=b", "a=b ls", "x\ny", "true &", "ls *.py", "echo ~", "echo {a,b}",
    "echo $(date)", "echo ${x}", "echo `date`", "echo \"$(x)\"", "echo a\\ b", "if true",
    "echo > f", "cat < f", "true;;", "; true", "true |", "true &&", "! true", "time ls",
    "echo 'open", 'echo "open', "export a=b", "local x", "[[ a ]]", "echo #c", "f() { :; }",
    "(true)", "echo $?", "echo \"!x\"", "a|&b", "echo [x]", "for x in a; do :; done",
    "echo é", "echo a\r", '"a"=b c',
]

VOCAB = [
    "a", "bb", "echo", "-n", "--x=1", "=", "a=b", "'q r'", '"d e"', "$x", "$1", '"$y"',
    "|", "||", "&&", ";", ";;", "&", " ", "  ", "\t", "*", "?", "~", "{", "}", "(", ")",
    "if", "then", "fi", "!", "<", ">", "2>", "#", "$(", "`", "\\", "'", '"', "[", "]",
    "export", "time", "in", "x.y/z", "%1", "@", ":", ",", "+", "^", "\n", "$", "${x}",
]


def both(source: str, line: int = 1) -> tuple[object, object]:
    full, error, _ = parser._read_full(source, line)
    return parse_simple(source, line), (None if error is not None else full)


@pytest.mark.parametrize("source", ACCEPTED)
def test_accepted_scripts_match_the_full_parser(source: str) -> None:
    simple, full = both(source, 3)
    assert simple is not None, "the simple parser should take this script"
    assert simple == full


@pytest.mark.parametrize("source", DECLINED)
def test_other_scripts_go_to_the_full_parser(source: str) -> None:
    assert parse_simple(source) is None


def test_random_scripts_agree() -> None:
    rng = random.Random(19)
    taken = 0
    for _ in range(3000):
        source = "".join(rng.choice(VOCAB) for _ in range(rng.randint(1, 7)))
        simple, full = both(source, rng.randint(1, 4))
        if simple is not None:
            taken += 1
            assert simple == full, source
    assert taken > 100  # the sample exercises the simple parser, not only its refusals


def test_parse_uses_it() -> None:
    """``parse`` answers a plain one-liner without the full parser."""
    assert parser.parse("echo hi | cat") == parse_simple("echo hi | cat")
