"""vshell.text.glob against bash 5.2 and GNU find: ``case``, pathname expansion over a temp
directory (dotglob, nocaseglob, extglob, globstar), ``find -name/-path``, random nested
extglobs on longer subjects, and the linear-time bound."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from vshell import HostMount, Sandbox
from vshell.text import glob as G

needs_bash = pytest.mark.skipif(shutil.which("bash") is None, reason="bash not available")
ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C.UTF-8"}


def _both(script: str, host: Path) -> tuple[str, str]:
    want = subprocess.run(["bash", "-c", script], capture_output=True, env=ENV, cwd=host,
                          timeout=120).stdout.decode("utf-8", "replace")
    with Sandbox(mounts=[HostMount(str(host), "/w")], cwd="/w", timeout=60) as sb:
        got = sb.exec(script).stdout.decode("utf-8", "replace")
    return want, got


CASE_PATTERNS = ["a*", "*c", "?b?", "[a-c]*", "[!a]*", "*[[:digit:]]", "@(ab|cd)*", "!(a*)",
                 "+(ab)", "*(a|b)c", "?(x)abc", "*\\**", "[]]*", "a\\?c", "*.@(c|h)"]
CASE_SUBJECTS = ["abc", "ABC", "abab", "cd1", "x.c", "a?c", "]x", "a*b", "", "xabc", "ab"]


@needs_bash
@pytest.mark.parametrize("nocase", [False, True])
def test_case_statement(tmp_path: Path, nocase: bool) -> None:
    lines = ["shopt -s extglob"] + (["shopt -s nocasematch"] if nocase else [])
    for s in CASE_SUBJECTS:
        for p in CASE_PATTERNS:
            q = p.replace("'", "'\\''")
            lines.append(f"p='{q}'; case '{s}' in $p) printf Y;; *) printf N;; esac")
    lines.append("echo")
    want, got = _both("\n".join(lines), tmp_path)
    assert len(want) == len(CASE_SUBJECTS) * len(CASE_PATTERNS) + 1
    assert got == want


FILES = ["a.c", "b.h", "A.C", ".hidden", ".h.c", "sp ace", "x]y", "ab", "abab", "sub/x.c",
         "sub/.y.c", "sub/deep/z.c", "Sub/q", "1.txt", "é.c"]
GLOBS = ["*", ".*", "*.c", "[ab].*", "?.c", "*(a|b).c", "!(*.c)", "+(ab)", "@(.hidden|a.c)",
         "sub/*", "*/*.c", "[[:upper:]]*", "*/", "s*/.*", "[!a]*", "*\\]*", "**/*.c", "**",
         "sub/**", "*.[ch]", "?(a)b*", "!(a*|b*)", "[.]*", "nomatch*", "[[:alpha:]].c"]


@needs_bash
@pytest.mark.parametrize("opts", ["", "dotglob", "nocaseglob", "globstar", "nullglob",
                                  "ignore"])
def test_pathname_expansion(tmp_path: Path, opts: str) -> None:
    for f in FILES:
        p = tmp_path / f
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("x")
    if opts == "ignore":
        lines = ["shopt -s extglob; GLOBIGNORE='*.c:a*:[[:upper:]]*:sub/x*'"]
    else:
        lines = ["shopt -s extglob" + (f" {opts}" if opts else "")]
    lines += [f"echo {g}" for g in GLOBS]
    want, got = _both("\n".join(lines), tmp_path)
    assert want.count("\n") == len(GLOBS)
    assert got.splitlines() == want.splitlines()


FIND_PATTERNS = ["*.c", ".*", "*", "[ab]*", "?.?", "*[[:digit:]]*", "\\*", "[!.]*", "*/x*",
                 "sub*", "*.C"]


@pytest.mark.skipif(shutil.which("find") is None, reason="GNU find not available")
def test_find_name_and_path(tmp_path: Path) -> None:
    for f in FILES:
        p = tmp_path / f
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("x")
    lines = []
    for p in FIND_PATTERNS:
        q = p.replace("'", "'\\''")
        for test in ("-name", "-iname", "-path", "-ipath"):
            lines.append(f"echo '{test} {q}'; find . {test} '{q}' | sort")
    want, got = _both("\n".join(lines), tmp_path)
    assert got.splitlines() == want.splitlines()


_ATOMS = ["a", "b", "*", "?", "[ab]", "!(a)", "!(*b)", "@(a|!(b))", "*(a|b)", "+(ab|b)",
          "!(+(a))", "*(!(a)b)", "?(a|*)", "@(*a|b*)", "+(!(b)|a)"]


@needs_bash
@pytest.mark.parametrize("seed", [21, 22])
def test_nested_extglob_random_against_bash(seed: int) -> None:
    """Nested negations on subjects up to 10 characters: match, trim and substitute."""
    rnd = random.Random(seed)
    cases = [("".join(rnd.choice("ab") for _ in range(rnd.randint(0, 10))),
              "".join(rnd.choice(_ATOMS) for _ in range(rnd.randint(1, 3))))
             for _ in range(300)]
    env = dict(ENV)
    for i, (s, p) in enumerate(cases):
        env[f"S{i}"], env[f"P{i}"] = s, p
    script = (
        f"for ((i=0;i<{len(cases)};i++)); do s=S$i p=P$i; S=${{!s}}; P=${{!p}}; "
        r"""[[ $S == $P ]] && m=Y || m=N; printf '%s|%s|%s|%s|%s|%s\n' $m "${S##$P}" """
        r""" "${S%$P}" "${S//$P/X}" "${S/#$P/X}" "${S/%$P/X}"; done"""
    )
    out = subprocess.run(["bash", "-O", "extglob", "-c", script], capture_output=True,
                         text=True, env=env, timeout=120).stdout.splitlines()
    bad = []
    for (s, p), want in zip(cases, out, strict=True):
        got = "|".join(["Y" if G.match(p, s) else "N", G.remove_prefix(s, p, True),
                        G.remove_suffix(s, p, False), G.replace(s, p, "X", "/"),
                        G.replace(s, p, "X", "#"), G.replace(s, p, "X", "%")])
        if got != want:
            bad.append((s, p, want, got))
    assert bad == []


def test_linear_in_the_subject() -> None:
    """Doubling the subject roughly doubles the time, however the pattern backtracks."""
    pats = ["*a*a*a*a*a*a*a*a*b", "!(*a*a*b)", "+(a|aa)*(a|aa)b", "*@(a|b)*+(a)?"]

    def cost(n: int) -> float:
        s = "a" * n
        t0 = time.perf_counter()
        for p in pats:
            G.compile_glob(p).fullmatch(s)
            G.remove_suffix(s, p, True)
            G.remove_prefix(s, p, False)
            G.replace(s, p, "X", "")
        return time.perf_counter() - t0

    cost(1000)  # build the states once
    small, big = cost(20_000), cost(80_000)
    assert big < 10 * small + 0.05, (small, big)
    assert big < 2.0


def test_modes() -> None:
    assert G.fnmatch("*", ".hidden") and G.fnmatch("a*c", "a/b/c")
    assert G.fnmatch("*.C", "x.c", icase=True) and not G.fnmatch("*.C", "x.c")
    assert not G.fnmatch("@(a)", "a")  # no extglob in fnmatch mode
    assert not G.match("*", ".x", pathname=True) and G.match("*", ".x", pathname=True,
                                                            dotglob=True)
    assert not G.match("a*", "a/b", pathname=True) and G.match("a*", "a/b")
    assert G.match("*.TXT", "a.txt", nocase=True)
    assert not G.match("@(a)", "a", extglob=False) and G.match("@(a)", "@(a)", extglob=False)


@needs_bash
def test_globignore_against_bash(tmp_path: Path) -> None:
    """GLOBIGNORE: wildcards stop at "/" and take leading dots, but a final * takes the rest."""
    for f in FILES:
        p = tmp_path / f
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("x")
    ignores = ["*", "s*", "*x.c", "*/x.c", "*c", "*.c", "sub*", "?ub/*", "*deep", "?h*",
               "[.]h*", "a\\*", "*.c:B*", "@(a|s)*"]
    lines = ["shopt -s extglob"]
    for g in ignores:
        lines.append(f"GLOBIGNORE='{g}'; echo sub/* : * : .*")
    want, got = _both("\n".join(lines), tmp_path)
    assert want.count("\n") == len(ignores)
    assert got.splitlines() == want.splitlines()
