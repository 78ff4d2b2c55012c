"""Arithmetic evaluator tests: every case is replayed through bash 5.2 for its expectation.

Each case is (setup, expression): setup assigns shell variables (``x=1 a[2]=5``), bash
evaluates ``$(( expression ))`` in a subshell, and we compare the result or the error
(``EXPR: MESSAGE``) plus the final values of the variables involved.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from vshell.interp.arith import ArithError, evaluate

CASES: list[tuple[str, str]] = [
    # constants and bases
    ("", "0"), ("", "42"), ("", "0x1F + 017"), ("", "0X1f"), ("", "36#zZ"), ("", "37#zZ"),
    ("", "64#@_"), ("", "64#_"), ("", "64#aA"), ("", "2#1011"), ("", "2#102"), ("", "65#1"),
    ("", "1#1"), ("", "0#1"), ("", "08#1"), ("", "10#"), ("", "2#"), ("", "09"), ("", "08+1"),
    ("", "1a"), ("", "0x1g"), ("", "0x"), ("", "10#0009"), ("", "9223372036854775807"),
    ("", "9223372036854775808"), ("", "99999999999999999999"), ("", "-9223372036854775808"),
    ("", "1.5"), ("", " 1 + 2 "), ("", "\t1\n+\n2"), ("", "   "), ("", ""),
    # operators and precedence
    ("", "1+2*3"), ("", "(1+2)*3"), ("", "7/2"), ("", "-7/2"), ("", "7%-3"), ("", "-7%3"),
    ("", "2**10"), ("", "2**3**2"), ("", "2**63"), ("", "2**64"), ("", "(-2)**63"),
    ("", "0**0"), ("", "-2**2"), ("", "2**-1"), ("", "2**-1 + 3"), ("", "2**-1, 3"),
    ("", "0 && 2**-1"), ("", "1<<3"), ("", "1<<64"), ("", "1<<-1"), ("", "-8>>1"),
    ("", "-1>>63"), ("", "5&3"), ("", "5|3"), ("", "5^3"), ("", "~0"), ("", "~5"), ("", "!5"),
    ("", "!0"), ("", "!!7"), ("", "- -1"), ("", "--1"), ("", "++5"), ("", "-+-1"),
    ("", "1<2"), ("", "2<=2"), ("", "3>2"), ("", "2>=3"), ("", "1==1"), ("", "1!=1"),
    ("", "1 < 2 == 1"), ("", "1 | 2 ^ 3 & 4"), ("", "1 + 2 << 1"), ("", "3 > 2 > 1"),
    ("", "1 && 2"), ("", "0 || 0"), ("", "3 || x"), ("", "1 ? 2 : 3"), ("", "0 ? 2 : 3"),
    ("", "1 ? 0 ? 4 : 5 : 6"), ("", "0 ? 1 : 0 ? 2 : 3"), ("", "1, 2, 3"),
    ("", "-9223372036854775807 - 2"), ("", "9223372036854775807 + 1"),
    ("", "-2**63 / -1"), ("", "-2**63 % -1"), ("", "-2**63 * -1"), ("", "5 % 0"),
    ("", "1/0"), ("", "1/0 + 2"), ("", " 1/0"), ("", "1 / 0"), ("", "1/  0 , 3"),
    ("", "1/0, 1=2"), ("", "0 && 1/0"), ("", "1 || 1/0"), ("", "0 ? 1/0 : 2"),
    ("", "1 ? 2 : 1/0"),
    # syntax errors
    ("", "1 +"), ("", "1 + "), ("", "1 +  \t"), ("", "1 2"), ("", "a b"), ("", "@"),
    ("", "$"), ("", "1 @"), ("", "x @"), ("", "1/0 @"), ("", "1/0 x @"), ("", "()"),
    ("", "1+2)"), ("", "(1+2"), ("", "((1)"), ("", "x="), ("", ","), ("", "1,"),
    ("", "1 ? 2"), ("", "1 ? : 2"), ("", "1 ? 2 : "), ("", "x = 1 ?"), ("", "1 = 2"),
    ("", "1=2"), ("", "(x)=1"), ("", "x+1=2"), ("", "-x = 1"), ("", "1 ? 2 : x = 3"),
    ("", "x++ = 1"), ("", "++x = 1"), ("", "++x++"), ("", "--x--"), ("", "5 ++x"),
    ("", "5++"), ("", "x+++y"), ("", "x---y"), ("", "a[1"), ("", "0 && a[1=1"),
    ("", "1 2 3 @"), ("", "'1'"), ("", '"1"'), ("", "1 ; 2"), ("", "x[1]]"),
    # variables
    ("x=5", "x"), ("x=5", "x * 2"), ("x='1+2'", "x*2"), ("x='1+'", "x"), ("x='1 +'", "x * 3"),
    ("x=", "x + 1"), ("x=' '", "x + 1"), ("x='\n3\n'", "x + 1"), ("x=abc abc=7", "x + 1"),
    ("x=x", "x"), ("x=y y=x+1", "x+1"), ("", "unset_var + 1"), ("x=010", "x"),
    ("x=0x10", "x + 1"), ("x=-3", "x*x"), ("x=' 4 '", "x"), ("x=1/0", "1 + x"),
    ("x=3", "x++ + x"), ("x=1", "x += (x=10)"), ("x=1", "x + (x=5)"), ("x=1", "(x=5) + x"),
    ("x=7", "x++"), ("x=7", "x--"), ("x=7", "++x"), ("x=7", "--x"), ("", "x++"),
    ("x=7", "x += 3"), ("x=7", "x -= 3"), ("x=7", "x *= 3"), ("x=7", "x /= 2"),
    ("x=7", "x %= 4"), ("x=7", "x <<= 2"), ("x=-7", "x >>= 1"), ("x=6", "x &= 3"),
    ("x=6", "x |= 3"), ("x=6", "x ^= 3"), ("x=7", "x /= 0"), ("x=7", "x /= 0, 1"),
    ("x=7", "x %= 0"), ("x=5", "x = y = 3"), ("x=5", "x = 2, y = x * 3"), ("x='1+2'", "x += 1"),
    ("x=3 y=4", "x > y ? x : y"), ("x=0 y=0", "0 && x++"), ("x=0 y=0", "1 || (y=5)"),
    ("x=1 y=1", "1 ? x++ : y++"), ("x=1 y=1", "0 ? x++ : y++"), ("x=0", "0 && (x = 1/0)"),
    ("x=0", "0 && x/=0"), ("x=1", "x && y"), ("", "x = 2**63"), ("x='2 3'", "x"),
    ("x=5", "x=x+1"), ("x=' 1 + 1 '", "x"), ("x=1 y=2", "x, y"), ("x=1", "x = = 2"),
    ("x=9", "1+x=2"), ("x=1/0", "1+x=2"), ("x=5", "x++ + ++x"), ("x=2", "x ** 3 ** x"),
    # arrays
    ("a[1]=5", "a[1]"), ("a[1]=5", "a[1] * 2"), ("", "a[1]=5, a[1]"), ("a[2]=3", "a[1+1]++"),
    ("a[0]=4", "a"), ("a[3]=4 i=2", "a[i+1] += 1"), ("a[1]=9", "a[ 1 ]"), ("", "x[1]++"),
    ("a[1]='1+1'", "a[1] * 3"), ("i=0 a[0]=1 a[1]=2", "a[i++]+=10"),
    ("i=0 a[0]=1 a[1]=2", "a[i++]++"), ("i=1 a[1]=2", "--a[i--]"), ("i=0", "a[i++] = 7"),
    # odds and ends
    ("", "((((((1))))))"), ("", "1 ? 2 : 3 ? 4 : 5"), ("x=1", "x = 1 , y"), ("", "~-1"),
    ("", "!-1"), ("x=' 1+'", "x"), ("", "0x7fffffffffffffff + 1"), ("", "1 + \u00e9"),
    ("", "1 ? x = 5 : 6"), ("", "0 ? 1 : x = 5"), ("x=4", "x<<=1, x>>=2"), ("", "x+=1"),
    ("x=3", "x**=2"), ("x=3", "x&&=2"), ("", "1 +\n"), ("", "(1)(2)"), ("", "1 ** (2"),
    ("x=2", "x ? : 3"), ("", "-"), ("", "!"), ("", "(") , ("", ")"), ("", "1 )"),
    ("y=5", "x = y++ * 2"), ("x=1 y=2 z=3", "x += y += z"), ("x=2", "x *= x += 1"),
]


def _bash_quote(s: str) -> str:
    return "'" + s.replace("'", "'\\''") + "'"


def _setup_vars(setup: str) -> list[tuple[str, str]]:
    out = []
    for m in re.finditer(r"(\w+(?:\[\d+\])?)=('(?:[^']*)'|\S*)", setup):
        v = m.group(2)
        out.append((m.group(1), v[1:-1] if v.startswith("'") else v))
    return out


_WATCH = ["x", "y", "i", "a[0]", "a[1]", "a[2]", "a[3]", "a[4]"]


class _Ctx:
    """A dict-backed context; indexed arrays only, ``a`` means ``a[0]`` as in bash."""

    def __init__(self, setup: str) -> None:
        self.vars: dict[str, str] = {}
        for k, v in _setup_vars(setup):
            self.vars[k if "[" in k else k + "[0]"] = v

    def _key(self, name: str, sub: str | None) -> str:
        return f"{name}[{evaluate(sub, self) if sub is not None else 0}]"

    def get(self, name: str, subscript: str | None) -> str | None:
        return self.vars.get(self._key(name, subscript))

    def set(self, name: str, subscript: str | None, value: int) -> None:
        self.vars[self._key(name, subscript)] = str(value)

    def resolve_subscript(self, name: str, subscript: str) -> str:
        return str(evaluate(subscript, self))

    def nounset_error(self, name: str) -> None:
        return None

    def dump(self) -> list[str]:
        vals = [self.vars.get(w if "[" in w else w + "[0]", "<unset>") for w in _WATCH]
        return [f"{w}={v}".replace("\n", "\\n") for w, v in zip(_WATCH, vals, strict=True)]


def _ours(setup: str, expr: str) -> list[str]:
    ctx = _Ctx(setup)
    try:
        r = evaluate(expr, ctx)
    except ArithError as e:
        return f"{e.expr}: {e}".splitlines()
    return [f"R:{r}", *ctx.dump()]


def _bash_all(cases: list[tuple[str, str]]) -> list[list[str]]:
    parts = []
    dump = "; ".join(
        f'v=${{{w}-<unset>}}; echo "{w}=${{v//$\'\\n\'/\\\\n}}"' for w in _WATCH
    )
    for setup, expr in cases:
        assigns = "; ".join(f"{k}={_bash_quote(v)}" for k, v in _setup_vars(setup))
        parts.append(
            f"( {assigns or ':'}; E={_bash_quote(expr)}; r=$(($E)); echo \"R:$r\"; {dump} )"
            " 2>&1; echo @@END"
        )
    out = subprocess.run(
        ["bash", "-s"], input="\n".join(parts) + "\n",
        check=False, capture_output=True, text=True, timeout=60,
    ).stdout
    blocks = out.split("@@END\n")[: len(cases)]
    return [[re.sub(r"^bash: (line \d+: )?", "", ln) for ln in b.splitlines()] for b in blocks]


@pytest.fixture(scope="module")
def bash_results() -> dict[tuple[str, str], list[str]]:
    if shutil.which("bash") is None:
        pytest.skip("bash not available")
    return dict(zip(CASES, _bash_all(CASES), strict=True))


@pytest.mark.parametrize("case", CASES, ids=[f"{s}|{e}" for s, e in CASES])
def test_matches_bash(case: tuple[str, str], bash_results: dict) -> None:
    assert _ours(*case) == bash_results[case]


class _Strict(_Ctx):
    """A context with ``set -u`` on: records and refuses unset names."""

    def __init__(self, setup: str) -> None:
        super().__init__(setup)
        self.unset: list[str] = []

    def nounset_error(self, name: str) -> None:
        self.unset.append(name)
        raise LookupError(name)


def test_nounset_called_with_name() -> None:
    ctx = _Strict("")
    with pytest.raises(LookupError):
        evaluate("zz + 1", ctx)
    assert ctx.unset == ["zz"]


def test_nounset_array_passes_array_name() -> None:
    ctx = _Strict("")
    with pytest.raises(LookupError):
        evaluate("b[1] + 1", ctx)
    assert ctx.unset == ["b"]


def test_nounset_not_called_in_short_circuit() -> None:
    ctx = _Strict("")
    assert evaluate("0 && zz", ctx) == 0
    assert evaluate("1 || zz", ctx) == 1
    assert evaluate("1 ? 2 : zz", ctx) == 2
    assert ctx.unset == []


def test_assignment_target_is_not_read() -> None:
    ctx = _Strict("")
    assert evaluate("zz = 3", ctx) == 3
    assert ctx.vars["zz[0]"] == "3"


def test_error_attributes() -> None:
    with pytest.raises(ArithError) as ei:
        evaluate("  1/0 + 2", _Ctx(""))
    assert ei.value.expr == "1/0 + 2"
    assert ei.value.message == "division by 0"
    assert ei.value.token == "0 + 2"
    assert str(ei.value) == 'division by 0 (error token is "0 + 2")'


def test_error_in_variable_names_its_value() -> None:
    with pytest.raises(ArithError) as ei:
        evaluate("x * 2", _Ctx("x='3 +'"))
    assert ei.value.expr == "3 +"


def test_recursion_limit() -> None:
    with pytest.raises(ArithError) as ei:
        evaluate("x", _Ctx("x=x"))
    assert str(ei.value) == 'expression recursion level exceeded (error token is "x")'


def test_deep_parentheses_evaluate_as_in_bash() -> None:
    """bash takes any depth; the parser descends ~17 levels per parenthesis, so the limit is
    raised before parsing, not only before evaluating (60 levels failed)."""
    import sys

    old = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)  # as a fresh process has it
    try:
        expr = "(" * 400 + "1+2" + ")" * 400
        assert evaluate(expr + "*2", _Ctx("")) == 6
    finally:
        sys.setrecursionlimit(max(old, sys.getrecursionlimit()))


def test_subscript_side_effect_once() -> None:
    ctx = _Ctx("i=0 a[0]=5")
    assert evaluate("a[i++]++", ctx) == 5
    assert ctx.vars["i[0]"] == "1"
    assert ctx.vars["a[0]"] == "6"


def test_empty_expression() -> None:
    assert evaluate("", _Ctx("")) == 0
    assert evaluate(" \n\t", _Ctx("")) == 0
