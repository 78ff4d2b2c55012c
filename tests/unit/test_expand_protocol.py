"""Word expansion without a Shell: the expander reaches its shell only through
:class:`vshell.interp.expand_host.ExpansionHost`, so a small fake drives it here."""

from __future__ import annotations

import pytest

from vshell.interp.expand import Expander
from vshell.interp.expand_host import ExpansionHost
from vshell.interp.state import ShellState, Var


class FakeHost:
    """An ExpansionHost with canned substitutions: records what the expander asked for."""

    def __init__(self) -> None:
        self.state = ShellState()
        self.asked: list[str] = []
        self.errors: list[str] = []
        self.files = ["a.txt", "b.txt"]

    def arith(self, text: str, raw: str | None = None) -> int:
        self.asked.append(f"arith {text}")
        left, _, right = text.partition("+")
        return int(left) + int(right or 0)

    def check(self) -> None:
        pass

    def check_cancel(self) -> None:
        pass

    def command_substitution(self, source: str) -> str:
        self.asked.append(f"cmdsub {source}")
        return "out of " + source

    def process_substitution(self, op: str, source: str) -> str:
        return "/dev/fd/63"

    def glob(self, pattern: str) -> list[str]:
        self.asked.append(f"glob {pattern}")
        return [f for f in self.files if f.endswith(pattern.lstrip("*"))]

    def dash_flags(self) -> str:
        return "hB"

    def prompt_expand(self, s: str) -> str:
        return s

    def declare_line(self, name: str, var: Var) -> str:
        return f"declare -- {name}={var.value!r}"

    def err(self, message: str) -> None:
        self.errors.append(message)


@pytest.fixture
def host() -> FakeHost:
    return FakeHost()


def expander(host: ExpansionHost) -> Expander:
    return Expander(host)


def test_parameters_and_defaults(host: FakeHost) -> None:
    host.state.set("x", "hello")
    ex = expander(host)
    assert ex.word("$x") == "hello"
    assert ex.word("${x}-${unset:-fallback}") == "hello-fallback"
    assert ex.word("${#x}") == "5"


def test_field_splitting_only_unquoted(host: FakeHost) -> None:
    host.state.set("v", "a  b c")
    ex = expander(host)
    assert ex.words(["$v"]) == ["a", "b", "c"]
    assert ex.words(['"$v"']) == ["a  b c"]


def test_positional_parameters(host: FakeHost) -> None:
    host.state.positional = ["one", "two words"]
    ex = expander(host)
    assert ex.words(['"$@"']) == ["one", "two words"]
    assert ex.words(["$#"]) == ["2"]


def test_substitutions_go_to_the_host(host: FakeHost) -> None:
    ex = expander(host)
    assert ex.word("$(date)") == "out of date"
    assert ex.word("$((2+3))") == "5"
    assert host.asked == ["cmdsub date", "arith 2+3"]


def test_pathname_expansion_asks_the_host(host: FakeHost) -> None:
    ex = expander(host)
    assert ex.words(["*.txt"]) == ["a.txt", "b.txt"]
    assert host.asked == ["glob *.txt"]


def test_brace_expansion_needs_no_host(host: FakeHost) -> None:
    assert expander(host).words(["x{1..3}"]) == ["x1", "x2", "x3"]


def test_dash_flags(host: FakeHost) -> None:
    assert expander(host).word("$-") == "hB"
