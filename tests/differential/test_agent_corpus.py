"""The agent-style script corpus against GNU bash: stdout, stderr, status and files left behind.

Every ``agent_corpus/*.sh`` file holds many cases, each opened by ``### case: NAME``.  A case
runs in a fresh host temp dir, in bash and in vshell (an in-process ``Sandbox`` with that
dir mounted at its own host path, so ``pwd`` agrees), and all four results must be equal
byte for byte.  Directive lines right after the case line change how it runs:

``### mode: c|file|stdin|cli-c|cli-stdin``  -c (default), a script file run as
    ``bash ./script.sh``, the script on standard input, or through the real ``vshell`` CLI;
``### stderr: ignore``  the message text differs only in ways bash itself varies;
``### xfail: REASON``  a known interpreter difference (strict: fixing it turns this red).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from tools import gnu_awk_is_awk, require

from vshell import HostMount, Sandbox
from vshell import commands as builtins

CORPUS = Path(__file__).parent / "agent_corpus"
ENV = {"LC_ALL": "C.UTF-8", "TZ": "UTC", "PATH": "/usr/bin:/bin", "TERM": "dumb"}
MODES = ("c", "file", "stdin", "cli-c", "cli-stdin")
_CASE = re.compile(r"^### case: (\S+)\s*$")
_DIRECTIVE = re.compile(r"^### (mode|stderr|xfail|stdin-data): ?(.*)$")


@dataclass
class Case:
    name: str
    script: str
    mode: str = "c"
    check_stderr: bool = True
    xfail: str | None = None
    stdin: str = ""
    where: str = ""
    notes: list[str] = field(default_factory=list)


def load(path: Path) -> list[Case]:
    """The cases of one corpus file, in order (text before the first case is a comment)."""
    cases: list[Case] = []
    body: list[str] = []
    for lineno, line in enumerate(path.read_text().splitlines(keepends=True), 1):
        m = _CASE.match(line)
        if m:
            if cases:
                cases[-1].script = "".join(body)
            cases.append(Case(m.group(1), "", where=f"{path.name}:{lineno}"))
            body = []
            continue
        if not cases:
            continue
        d = _DIRECTIVE.match(line)
        if d and not body:
            key, value = d.group(1), d.group(2).strip()
            if key == "mode":
                assert value in MODES, f"{path.name}:{lineno}: unknown mode {value!r}"
                cases[-1].mode = value
            elif key == "stderr":
                assert value == "ignore", f"{path.name}:{lineno}: stderr: ignore only"
                cases[-1].check_stderr = False
            elif key == "xfail":
                cases[-1].xfail = value
            else:
                cases[-1].stdin += value.encode().decode("unicode_escape")
            continue
        body.append(line)
    if cases:
        cases[-1].script = "".join(body)
    return cases


def all_cases() -> list[Case]:
    out: list[Case] = []
    seen: set[str] = set()
    for path in sorted(CORPUS.glob("*.sh")):
        for c in load(path):
            key = f"{path.stem}::{c.name}"
            assert key not in seen, f"duplicate case {key}"
            seen.add(key)
            c.name = key
            out.append(c)
    return out


CASES = all_cases()


@dataclass
class Outcome:
    status: int
    stdout: bytes
    stderr: bytes
    files: dict[str, bytes | None]


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every path under ``root``: file bytes, or None for a directory (symlinks by target)."""
    out: dict[str, bytes | None] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            full = Path(dirpath, name)
            rel = str(full.relative_to(root))
            if full.is_symlink():
                out[rel] = b"-> " + os.fsencode(os.readlink(full))
            elif full.is_dir():
                out[rel] = None
            else:
                out[rel] = full.read_bytes()
    return out


def _prepare(root: Path, case: Case) -> tuple[list[str], bytes]:
    """bash's argv and stdin for ``case`` (writing its script file when it runs from one)."""
    if case.mode == "file":
        (root / "script.sh").write_text(case.script)
        return ["bash", "./script.sh"], case.stdin.encode()
    if case.mode in ("stdin", "cli-stdin"):
        return ["bash", "-s"], case.script.encode()
    return ["bash", "-c", case.script, "vshell"], case.stdin.encode()


def run_bash(root: Path, case: Case) -> Outcome:
    argv, stdin = _prepare(root, case)
    env = dict(ENV, HOME=str(root))
    if case.mode == "cli-stdin":
        # bash -s names itself "bash" in messages; the vshell CLI reading stdin says "vshell"
        argv = ["bash", "-c", "exec -a vshell bash -s"]
    p = subprocess.run(argv, input=stdin, capture_output=True, cwd=root, env=env, timeout=30)
    return Outcome(p.returncode, p.stdout, p.stderr, snapshot(root))


def run_vshell(root: Path, case: Case) -> Outcome:
    argv, stdin = _prepare(root, case)
    env = dict(ENV, HOME=str(root))
    if case.mode.startswith("cli"):
        cli = [sys.executable, "-m", "vshell", "--mount", f"{root}:{root}", "--cwd", str(root)]
        for k, v in env.items():
            cli += ["--env", f"{k}={v}"]
        cli += ["-c", case.script] if case.mode == "cli-c" else []
        p = subprocess.run(cli, input=stdin, capture_output=True, cwd=root, timeout=60,
                           env=dict(os.environ, PYTHONPATH=_checkout()))
        return Outcome(p.returncode, p.stdout, p.stderr, snapshot(root))
    with Sandbox(mounts=[HostMount(str(root), str(root))], env=env, cwd=str(root),
                 timeout=5) as sb:
        script = case.script if case.mode == "c" else "bash ./script.sh"
        if case.mode == "stdin":
            script = "bash -s"
        r = sb.exec(script, stdin=stdin)
    return Outcome(r.exit_code, r.stdout, r.stderr, snapshot(root))


def _empty(root: Path) -> None:
    for child in root.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()


def _checkout() -> str:
    return str(Path(__file__).resolve().parents[2])


# the host programs a case may start: a name vshell ships (or sh) in command position
_NAMES = "|".join(sorted(map(re.escape, [*builtins.names(), "sh"]), key=len, reverse=True))
_HOST_COMMANDS = re.compile(
    r"(?:^|[|;&(){}`!]|\$\(|\b(?:then|do|else|exec|time|-exec|command|env)\s"
    r"|\bxargs(?:\s+-[-\w{}%]+(?:\s+[{}%])?)*\s)\s*(" + _NAMES + r")(?=[\s;|&)'\"]|$)", re.M)
_SHELL_ONLY = {"true", "false", "echo", "printf", "test", "[", "kill", "pwd", "time"}


def tools_for(case: Case) -> list[str]:
    """The host programs bash will run for ``case`` (each must be installed to compare)."""
    found = {m.group(1) for m in _HOST_COMMANDS.finditer(case.script)} - _SHELL_ONLY
    return sorted(found | {"bash"})


def _params():
    for c in CASES:
        marks = [pytest.mark.xfail(reason=c.xfail, strict=True)] if c.xfail else []
        yield pytest.param(c, id=c.name, marks=marks)


@pytest.mark.parametrize("case", _params())
def test_agent_script(case: Case, tmp_path: Path) -> None:
    tools = tools_for(case)
    require(*tools)
    if "awk" in tools and not gnu_awk_is_awk():
        pytest.skip("awk on this host is not GNU awk (apt-get install gawk)")
    # both run in the same directory, one after the other, so printed paths agree
    want = run_bash(tmp_path, case)
    _empty(tmp_path)
    got = run_vshell(tmp_path, case)
    where = case.where
    assert got.stdout == want.stdout, (where, "stdout", got.stdout[-3000:], want.stdout[-3000:])
    if case.check_stderr:
        assert got.stderr == want.stderr, (where, "stderr", got.stderr[-3000:], want.stderr[-3000:])
    assert got.status == want.status, (where, "status", got.status, want.status, got.stderr)
    assert got.files == want.files, (where, "files", _diff_files(got.files, want.files))


def test_corpus_is_large_enough() -> None:
    assert len(CASES) >= 1000, len(CASES)
    assert {c.mode for c in CASES} >= set(MODES), "every mode has cases"


def _diff_files(got: dict, want: dict) -> list[str]:
    lines = []
    for k in sorted(set(got) | set(want)):
        if got.get(k, "<missing>") != want.get(k, "<missing>"):
            g, w = got.get(k, "<missing>"), want.get(k, "<missing>")
            lines.append(f"{k}: vshell={g!r:.200} bash={w!r:.200}")
    return lines


def test_generated_files_are_current() -> None:
    """The committed gen_*.sh files are exactly what generate.py writes from its templates."""
    sys.path.insert(0, str(CORPUS))
    try:
        import generate
    finally:
        sys.path.remove(str(CORPUS))
    stale = [p.name for p, text in generate.outputs() if not p.exists() or p.read_text() != text]
    assert not stale, f"run python {CORPUS / 'generate.py'}: {stale}"
