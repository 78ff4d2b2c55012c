"""Host-registered commands: sbsh's contract, in Python.

A registered command is dispatched exactly like a builtin (pipelines, redirections, exit
status), reports through ``Exit``/``exitf``, is registered per sandbox and is validated when
the sandbox is built.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from vshell import (
    Command,
    Exit,
    Invocation,
    MemoryMount,
    Outcome,
    Sandbox,
    SandboxConfigError,
    command,
    exitf,
)

REPO = Path(__file__).resolve().parents[2]


@command("slugify", "lower-case and hyphenate a line")
def slugify(inv: Invocation) -> None:
    data = inv.stdin.read().decode()
    inv.stdout.write(("-".join(data.lower().split()) + "\n").encode())


@command("fail", "exit as the arguments say")
def fail(inv: Invocation) -> int:
    kind = inv.args[0] if inv.args else ""
    if kind == "silent":
        raise Exit(3)
    if kind == "message":
        raise Exit(2, "too many files")
    if kind == "format":
        raise exitf(1, "read: %s (%d)", "boom", 7)
    if kind == "bug":
        raise KeyError("oops")
    if kind == "oserror":
        with inv.fs.open(inv.abs("missing.txt")) as f:
            f.read()
    if kind == "status":
        return 42
    return 0


def box(*cmds: Command, **kw: object) -> Sandbox:
    kw.setdefault("mounts", [MemoryMount("/work", files={"in.txt": b"Hello Big World\n"})])
    return Sandbox(commands=list(cmds) or [slugify, fail], **kw)  # type: ignore[arg-type]


def test_decorator_builds_a_command() -> None:
    assert isinstance(slugify, Command)
    assert (slugify.name, slugify.description) == ("slugify", "lower-case and hyphenate a line")
    # `from vshell import command` keeps working once the vshell.command module is imported
    import vshell.command  # noqa: F401 - binds the submodule over the package attribute

    assert vshell.command("x", "y")(print) == Command("x", "y", print)


def test_dispatched_like_a_builtin() -> None:
    with box() as sb:
        r = sb.exec("cd /work; slugify < in.txt; cat in.txt | slugify | tr a-z A-Z; "
                    "slugify < in.txt > out.txt; cat out.txt; echo Hi There | slugify 2>&1 | wc -l")
        assert r.stdout == b"hello-big-world\nHELLO-BIG-WORLD\nhello-big-world\n1\n"
        r = sb.exec("fail status; echo $?; fail status && echo no || echo yes; "
                    "echo a | fail silent | cat; echo ${PIPESTATUS[@]}")
        assert r.stdout == b"42\nyes\n0 3 0\n"
        r = sb.exec("if fail; then echo ok; fi; f() { fail status; }; f; echo $?")
        assert r.stdout == b"ok\n42\n"
        r = sb.exec("echo a b | xargs -n1 echo | slugify; command -v slugify; type -t fail")
        assert r.stdout == b"a-b\n/usr/bin/slugify\nfile\n"  # shown as shipped commands are
        r = sb.exec("fail status")
        assert (r.outcome, r.exit_code) == (Outcome.COMPLETED, 42)


def test_unregistered_name_is_not_found() -> None:
    with box() as sb:
        r = sb.exec("wordfreq")
        assert (r.outcome, r.exit_code) == (Outcome.NOT_FOUND, 127)
        assert b"wordfreq: command not found" in r.stderr
    with Sandbox() as plain:
        assert plain.exec("slugify").outcome is Outcome.NOT_FOUND


def test_exit_and_exitf_messages() -> None:
    with box() as sb:
        r = sb.exec("fail silent")
        assert (r.exit_code, r.stderr) == (3, b"")
        r = sb.exec("fail message")
        assert (r.exit_code, r.stderr) == (2, b"fail: too many files\n")
        r = sb.exec("fail format")
        assert (r.exit_code, r.stderr) == (1, b"fail: read: boom (7)\n")
        r = sb.exec("cd /work; fail oserror")
        assert r.exit_code == 1
        assert r.stderr == b"fail: /work/missing.txt: No such file or directory\n"
        r = sb.exec("fail message 2>/dev/null; echo $?")
        assert (r.stdout, r.stderr) == (b"2\n", b"")


def test_other_exceptions_print_and_exit_1_without_traceback(
        monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("VSHELL_DEBUG", raising=False)
    with box() as sb:
        r = sb.exec("fail bug; echo after $?")
    assert r.stdout == b"after 1\n"
    assert r.stderr == b"fail: KeyError: 'oops'\n"
    assert r.outcome is Outcome.COMPLETED
    assert "Traceback" not in capfd.readouterr().err
    monkeypatch.setenv("VSHELL_DEBUG", "1")
    with box() as sb:
        r = sb.exec("fail bug")
    assert r.exit_code == 1 and b"Traceback" not in r.stderr
    assert "Traceback" in capfd.readouterr().err  # only on the host's stderr, on request


def test_registration_is_per_sandbox() -> None:
    with box(slugify) as a, box(fail) as b:
        assert a.exec("echo X | slugify").stdout == b"x\n"
        assert b.exec("echo X | slugify").outcome is Outcome.NOT_FOUND
        assert b.exec("fail status").exit_code == 42
        assert a.exec("fail status").outcome is Outcome.NOT_FOUND


@pytest.mark.parametrize("bad", [
    Command("bad name", "d", print), Command("-x", "d", print), Command("", "d", print),
    Command("a/b", "d", print), Command("x", "", print), Command("x", "   ", print),
    Command("cd", "d", print), Command("time", "d", print), Command("if", "d", print),
    Command("export", "d", print), Command("cat", "d", print), Command("grep", "d", print),
    None, "slugify",
], ids=lambda c: repr(getattr(c, "name", c)))
def test_bad_registration_fails_at_construction(bad: object) -> None:
    with pytest.raises(SandboxConfigError):
        Sandbox(commands=[bad])  # type: ignore[list-item]


def test_duplicate_registration_fails() -> None:
    with pytest.raises(SandboxConfigError, match="twice"):
        Sandbox(commands=[slugify, Command("slugify", "again", print)])


def test_commands_sorted_by_name() -> None:
    cmds = [Command(n, "d", print) for n in ("zeta", "alpha", "Mid", "beta.2")]
    with Sandbox(commands=cmds) as sb:
        assert [c.name for c in sb.commands()] == ["Mid", "alpha", "beta.2", "zeta"]
    assert Sandbox().commands() == []


def test_invocation_fields() -> None:
    seen: list[Invocation] = []

    @command("peek", "record the invocation")
    def peek(inv: Invocation) -> None:
        seen.append(inv)

    with box(peek, allow_net=["example.com"]) as sb:
        sb.exec("cd /work; export A=1; LANG=C peek x 'y z'")
    inv = seen[0]
    assert (inv.name, inv.args, inv.dir) == ("peek", ["x", "y z"], "/work")
    assert inv.env["A"] == "1" and inv.env["LANG"] == "C" and inv.getenv("NOPE") == ""
    assert inv.abs("a/../b") == "/work/b" and inv.fs.isfile("/work/in.txt")
    assert inv.http is not None and inv.python is not None


def test_example_customcommand_runs() -> None:
    res = subprocess.run([sys.executable, str(REPO / "examples" / "customcommand.py")],
                         capture_output=True, timeout=60, cwd=REPO)
    assert res.returncode == 0, res.stderr
    assert res.stdout == (b"registered: wordfreq\n== top words in notes.txt\n"
                          b"5 quick\n4 the\n2 fox\n"
                          b"== files and stdin together, redirected\nstatus 1\n2 fox\n")
    assert res.stderr == b"wordfreq: missing.txt: No such file or directory\n"
