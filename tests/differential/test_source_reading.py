"""What bash's reader makes of raw source before parsing: where aliases expand, where a
``$( … )`` body ends, and a script that uses aliases read in linear time.

A line means what the aliases in force when it is read make of it: an alias defined on one
line serves the next ones (and the bodies of functions defined after it), never its own
line; in a compound command the places where a command starts include a function body
after ``name()`` or ``function name`` and the commands of a ``case`` item, never the
case's subject, ``in`` or patterns.  Each script runs in bash and in vshell: stdout,
stderr and status must agree.
"""

from __future__ import annotations

import subprocess

import pytest
from tools import needs

from vshell import Sandbox

pytestmark = needs("bash")

ON = "shopt -s expand_aliases\n"

SCRIPTS = [
    ON + "alias hi='echo hello'\nhi one\nalias hi='echo bye'; hi two\nhi three\n"
         "unalias hi\nhi four 2>/dev/null || echo gone",
    ON + "alias ll='echo ll:'\nf() { ll infunc; }\nf\nalias ll='echo changed:'\nf\nll after",
    ON + "alias ll='echo LL'\nfunction g { ll g1; }\ng\nfunction h() { ll h1; }\nh\n"
         "k() ( ll k1 )\nk\n(ll sub)\nm() {\n  ll m1\n}\nm",
    ON + "alias ll='echo LL'\ncase x in x) ll yes;; esac\ncase x in (x) ll paren;; esac\n"
         "case y in\n  x|ll) echo no;;\n  y) ll item\n     ll again;;\nesac",
    ON + "alias ll='echo LL'\ncase ll in ll) echo subject-is-a-word;; esac\n"
         "case a in b) ;; a) ll second;& c) ll fell;; esac",
    ON + "alias e='echo '\nalias w=world\ne w\ne e w",
    ON + "alias x='echo X'\nfor i in 1 2; do x $i; done\nif true; then x then; fi\n"
         "while false; do :; done; x after-while",
    ON + "alias ll='echo LL'\nshopt -u expand_aliases\nll off 2>/dev/null || echo off-ok\n"
         "shopt -s expand_aliases\nll on",
    ON + "echo 'alias is just a word here'\n" + "echo line\n" * 5,
    "alias ll='echo LL'\nll not-expanded-without-shopt 2>/dev/null || echo not-found",
]


def _bash(script: str) -> tuple[bytes, bytes, int]:
    p = subprocess.run(["bash", "-c", script], capture_output=True,
                       env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"})
    return p.stdout, p.stderr, p.returncode


@pytest.mark.parametrize("script", SCRIPTS)
def test_aliases_as_bash_reads_them(script: str) -> None:
    with Sandbox() as sb:
        got = sb.exec(script)
    want = _bash(script)
    assert (got.stdout, got.exit_code) == (want[0], want[2])
    assert got.stderr.replace(b"vshell: ", b"bash: ") == want[1].replace(b"bash: -c: ",
                                                                        b"bash: ")


def test_a_script_mentioning_alias_is_parsed_once_per_alias_change(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The rest of the script is parsed again only when the aliases changed (it was parsed
    after every line: a long script that mentioned "alias" took quadratic time)."""
    from vshell.syntax import parser

    calls = []
    real = parser.parse_partial

    def counting(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(parser, "parse_partial", counting)
    body = "".join(f"echo line{i}\n" for i in range(300))
    with Sandbox() as sb:
        res = sb.exec("# no alias is defined here\n" + body)
        assert res.stdout.count(b"\n") == 300
        assert len(calls) == 1, len(calls)
        calls.clear()
        res = sb.exec(ON + "alias a='echo A'\n" + body + "a end\nalias b='echo B'\n" + body +
                      "b end")
        assert res.stdout.endswith(b"A end\n" + b"".join(
            f"line{i}\n".encode() for i in range(300)) + b"B end\n")
        assert len(calls) <= 4, len(calls)


# Where a `$( … )` body ends, as bash's reader finds it: `#` inside a word is no comment,
# the word `case` outside a command position starts no case, a `)` in a here-document or a
# case pattern closes nothing.
SUBSTITUTIONS = [
    "echo $(echo a#b) $(echo ab#)",
    "set -- 1 2; echo $(echo x$#) $(echo $#)",
    "echo $(echo $(( 2#101 ))) $(echo $((1<<3)) $(( (2+3)*2 )))",
    "echo $(echo x #c\n)",
    "cat <(echo a#b)",
    "x=/a/b; echo $(echo ${x#*/} ${x##*/} \"${x#/}\")",
    "echo $(echo \"#q\" '#s' \\#e)",
    "echo $( # lead\necho y)",
    "echo $(case a in a) echo c#;; esac) $(case b in (b) echo paren;; esac)",
    "echo $(cat <<EOF\na#b ) #\nEOF\n)",
    "x=$(echo case); echo \"$x\" \"$(echo in case esac)\"",
    "msg=\"$(cat <<'EOF'\nDone :) see 1) and 2)\nEOF\n)\"; echo \"$msg\"",
    "msg=$(cat <<-EOF\n\tTabbed :)\n\tEOF\n); echo \"$msg\"",
    "echo $( (echo sub) ) $(f() { echo fn; }; f)",
    "a=$(for i in 1 2; do echo $i; done); echo $a",
    "echo $(echo a\\\nb)",
    "echo $( [[ a < b ]] && echo lt )",
    "echo $(x=(1 \")\" 2); echo ${#x[@]})",
    "echo $(( $(echo 3) + 1 ))",
    "echo $(echo one; # a comment with ) in it\necho two)",
]


@pytest.mark.parametrize("script", SUBSTITUTIONS)
def test_a_substitution_ends_where_bash_ends_it(script: str) -> None:
    with Sandbox() as sb:
        got = sb.exec(script)
    want = _bash(script)
    assert (got.stdout, got.stderr, got.exit_code) == want
