"""Glob pattern tests; expectations come from bash 5.2 (extglob on, C.UTF-8) at test time.

Patterns are passed to bash through an unquoted variable, which gives bash the same
convention as ours: a backslash makes the next character literal.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from vshell.text.glob import compile_glob as compile_pattern
from vshell.text.glob import (
    has_magic,
    match,
    remove_prefix,
    remove_suffix,
    replace,
    unescape,
)

MATCH_CASES: list[tuple[str, str]] = [
    # (string, pattern)
    ("abc", "abc"), ("abc", "a*"), ("abc", "*c"), ("abc", "*b*"), ("abc", "a?c"), ("ac", "a?c"),
    ("", "*"), ("", "?"), ("", ""), ("a", ""), ("a/b", "a*b"), ("a\nb", "a?b"), ("a\nb", "*"),
    ("abc", "[abc]bc"), ("xbc", "[abc]bc"), ("b", "[a-c]"), ("d", "[a-c]"), ("d", "[!a-c]"),
    ("d", "[^a-c]"), ("b", "[^a-c]"), ("]", "[]]"), ("]", "[]a]"), ("a", "[!]a]"), ("x", "[!]a]"),
    ("-", "[a-]"), ("-", "[-a]"), ("b", "[z-a]"), ("[", "["), ("[]", "[]"), ("[a", "[a"),
    ("x", "[[:alpha:]"), ("[a", "[[:alpha:]"), ("a", "[[:foo:]a]"), ("b", "[[:foo:]a]"),
    ("a", "[[:alpha:]]"), ("1", "[[:alpha:]]"), ("1", "[[:digit:]]"), ("é", "[[:alpha:]]"),
    ("É", "[[:upper:]]"), ("é", "[[:lower:]]"), ("_", "[[:punct:]]"), ("_", "[[:word:]]"),
    (" ", "[[:space:]]"), ("\t", "[[:blank:]]"), ("f", "[[:xdigit:]]"), ("g", "[[:xdigit:]]"),
    ("\x01", "[[:cntrl:]]"), (" ", "[[:graph:]]"), (" ", "[[:print:]]"), ("a", "[[:alnum:]_]"),
    ("_", "[[:alnum:]_]"), ("-", "[[:alnum:]_]"), ("a", "[![:alpha:]]"), ("1", "[![:alpha:]]"),
    ("a", "[[=a=]]"), ("=", "[[=a=]]"), ("-", "[[.-.]]"), ("a", "[\\]]"), ("]", "[\\]]"),
    ("\\", "\\\\"), ("ab", "a\\b"), ("a*", "a\\*"), ("ab", "a\\*"), ("a", "a\\"),
    ("a\\", "a\\"), ("*", "[*]"), ("?", "[?]"), ("x", "[?]"), (")", "[)]"), ("a.b", "*.b"),
    (".x", "*x"), (".x", "?x"), ("AbC", "abc"), ("B", "[a-c]"), ("é", "?"), ("ab", "[a]b"),
    # extglob
    ("ab", "@(a|b)b"), ("cb", "@(a|b)b"), ("", "?(a)"), ("a", "?(a)"), ("aa", "?(a)"),
    ("aaa", "*(a)"), ("", "*(a)"), ("", "+(a)"), ("abab", "+(ab)"), ("ab", "?(a|b)"),
    ("abc", "a!(b)c"), ("ac", "a!(b)c"), ("abbc", "a!(b)c"), ("a", "!(a)*"), ("foo.c", "!(*.c)"),
    ("foo.h", "!(*.c)"), ("", "!(a)"), ("a", "!(a)"), ("ab", "!(a)b"), ("b", "!(a)b"),
    ("abc", "!(a|b)c"), ("xyz", "*!(z)"), ("xyz", "!(x)*"), ("x", "+(!(y))"),
    ("ab", "@(a|!(c))b"), ("a(", "@(a"), ("a)", "a)"), ("a|b", "a|b"), ("a", "@()a"),
    ("a", "*()a"), ("(", "("), ("x]", "@([)x])"), ("b", "@(a|[b)|c])"), ("ab", "@(a|b)@(b)"),
    ("foobar", "@(foo|f)*(o)bar"), ("fbar", "@(foo|f)*(o)bar"), ("x.tar.gz", "*.@(tar.gz|tgz)"),
    ("abcabc", "+(abc)"), ("abcab", "+(abc)"), ("aXb", "a@(X|Y)b"), ("a", "@(a|*(b))"),
    ("bbb", "@(a|*(b))"), ("ab", "*(a|b|ab)"), ("x", "!(*)"), ("", "!(*)"), ("foo", "!(f*)"),
    ("bar", "!(f*)"), ("foo", "!(foo)"), ("fooo", "!(foo)"), ("a.c", "!(*.c|*.h)"),
    ("a.d", "!(*.c|*.h)"), ("abc", "@(a)!(x)"), ("ax", "@(a)!(x)"), ("a", "a!()"),
    ("ab", "a!()"), ("ab", "a@(\\))"), ("a)", "a@(\\))"), ("a|", "@(a\\|)"),
    ("aa", "+(a)"), ("zz", "!(+(z))"), ("zy", "!(+(z))"), ("@", "@"), ("!", "!"),
    # bash only tries what follows a * where a character remains
    ("a", "*@()"), ("ab", "a*@(|x)"), ("ax", "*@(x|)"), ("ax", "*+(x|)"), ("", "*+(|x)"),
    ("a", "*?(x)"), ("", "*?(x)"), ("ab", "*@(b)"),
]


def _bash(script: str, env: dict[str, str]) -> str:
    e = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C.UTF-8", **env}
    return subprocess.run(
        ["bash", "-O", "extglob", "-c", script],
        check=False, capture_output=True, text=True, env=e, timeout=60,
    ).stdout


def _run_cases(body: str, cases: list[tuple[str, ...]]) -> list[str]:
    """Run ``body`` once per case with $S, $P, $R set; output is one line per case."""
    env = {}
    for i, case in enumerate(cases):
        for name, val in zip("SPR", case, strict=False):
            env[f"{name}{i}"] = val
    script = (
        f"for ((i=0;i<{len(cases)};i++)); do s=S$i p=P$i r=R$i; S=${{!s}}; P=${{!p}}; "
        f"R=${{!r}}; {body}; done"
    )
    out = _bash(script, env).split("\x1f\n")
    return out[: len(cases)]


needs_bash = pytest.mark.skipif(shutil.which("bash") is None, reason="bash not available")


@pytest.fixture(scope="module")
def match_expect() -> list[str]:
    return _run_cases(
        r"""[[ $S == $P ]] && printf 'Y\x1f\n' || printf 'N\x1f\n'""", MATCH_CASES
    )


@needs_bash
@pytest.mark.parametrize("i", range(len(MATCH_CASES)), ids=[repr(c) for c in MATCH_CASES])
def test_match(i: int, match_expect: list[str]) -> None:
    s, p = MATCH_CASES[i]
    assert ("Y" if match(p, s) else "N") == match_expect[i]


NOCASE_CASES = [
    ("AbC", "abc"), ("B", "[a-c]"), ("b", "[A-C]"), ("X.TXT", "*.txt"), ("É", "é"),
    ("ABAB", "+(ab)"), ("FOO", "!(foo)"), ("a", "[[:upper:]]"), ("A", "[[:lower:]]"),
    ("é", "[[:upper:]]"), ("fOo", "!(FOO)"), ("x", "[![:upper:]]"),
]


@needs_bash
def test_nocase() -> None:
    expect = _run_cases(
        r"""shopt -s nocasematch; [[ $S == $P ]] && printf 'Y\x1f\n' || printf 'N\x1f\n'""",
        NOCASE_CASES,  # type: ignore[arg-type]
    )
    got = ["Y" if match(p, s, nocase=True) else "N" for s, p in NOCASE_CASES]
    assert got == expect


TRIM_CASES: list[tuple[str, str]] = [
    ("abcabc", "*b"), ("abcabc", "b*"), ("abcabc", "a"), ("abcabc", "c"), ("abcabc", ""),
    ("abcabc", "*"), ("abcabc", "?"), ("/usr/local/bin", "*/"), ("/usr/local/bin", "/*"),
    ("file.tar.gz", ".*"), ("file.tar.gz", "*."), ("abcabc", "*(a|b)"), ("abcabc", "+(abc)"),
    ("abcabc", "!(c)"), ("aaa", "a*(a)"), ("", "*"), ("", "x"), ("a\\b", "*\\\\"),
    ("x*y", "*\\*"), ("abcabc", "[ab]"), ("héllo", "h?"), ("abc", "@(a|ab)"),
]


@needs_bash
def test_trim() -> None:
    body = r"""printf '%s|%s|%s|%s\x1f\n' "${S#$P}" "${S##$P}" "${S%$P}" "${S%%$P}" """
    expect = _run_cases(body, TRIM_CASES)  # type: ignore[arg-type]
    got = [
        "|".join(
            [remove_prefix(s, p, False), remove_prefix(s, p, True),
             remove_suffix(s, p, False), remove_suffix(s, p, True)]
        )
        for s, p in TRIM_CASES
    ]
    assert got == expect


REPL_CASES: list[tuple[str, str, str]] = [
    ("abcabc", "b", "X"), ("abcabc", "", "X"), ("abcabc", "?(b)", "X"), ("abcabc", "*(b)", "X"),
    ("abcabc", "*", "X"), ("abcabc", "@()", "X"), ("abcabc", "*(a)", "X"), ("abcabc", "*(c)", "X"),
    ("", "", "X"), ("", "x", "Y"), ("", "*", "X"), ("abcabc", "a*c", "X"), ("abcabc", "b*", ""),
    ("aaa", "a", "bb"), ("a.b.c", ".", "/"), ("abcabc", "[bc]", "-"), ("abcabc", "!(a)", "X"),
    ("hello world", "o", "0"), ("xyz", "q", "Q"), ("abab", "ab", ""), ("a b c", " ", "_"),
    ("abcabc", "c", "X"), ("abcabc", "a", "X"), ("path/to/file", "/", "\\"),
    ("", "?(x)", "X"), ("", "!(x)", "X"), ("", "*(x)", "X"), ("", "@()", "X"),
    ("a[b", "[", "("), ("a*b*", "\\*", "+"), ("a\\b", "\\", "/"), ("aaa", "a*", "X"),
    ("x.y.z", "*.", "-"), ("abc", "abc\\", "X"), ("abc\\", "c\\", "X"), ("abab", "b*a", "X"),
    ("abcabc", "@(b|bc)", "X"), ("abcabc", "*(bc)", "X"), ("aXbX", "[[:upper:]]", "_"),
]


@needs_bash
def test_replace() -> None:
    body = (
        r"""shopt -u patsub_replacement; printf '%s|%s|%s|%s\x1f\n' """
        r""" "${S/$P/$R}" "${S//$P/$R}" "${S/#$P/$R}" "${S/%$P/$R}" """
    )
    expect = _run_cases(body, REPL_CASES)  # type: ignore[arg-type]
    got = [
        "|".join(replace(s, p, r, m) for m in ("", "/", "#", "%")) for s, p, r in REPL_CASES
    ]
    assert got == expect


@needs_bash
def test_replace_ampersand() -> None:
    cases = [("abcabc", "b", "[&]"), ("abc", "?", "&&"), ("abc", "b", "\\&"), ("abc", "x", "&")]
    body = r"""printf '%s|%s\x1f\n' "${S/$P/$R}" "${S//$P/$R}" """
    expect = _run_cases(body, cases)  # type: ignore[arg-type]
    got = ["|".join(replace(s, p, r, m, ampersand=True) for m in ("", "/")) for s, p, r in cases]
    assert got == expect


def test_has_magic() -> None:
    assert has_magic("*.c") and has_magic("a?") and has_magic("[ab]") and has_magic("@(a)")
    assert has_magic("!(x)") and has_magic("+(x)") and has_magic("*(x)")
    assert not has_magic("abc") and not has_magic("\\*") and not has_magic("[a")
    assert not has_magic("a\\[b]") and not has_magic("\\[b\\]")
    assert not has_magic("@(x)", extglob=False)
    # bash's rule: a [ with any unescaped ] after it
    assert has_magic("[]") and has_magic("[]]") and has_magic("[!]")
    assert not has_magic("[\\]") and not has_magic("[a\\]") and not has_magic("][")


def test_unescape() -> None:
    assert unescape("a\\*b") == "a*b"
    assert unescape("\\\\") == "\\"
    assert unescape("x\\") == "x\\"
    assert unescape("plain") == "plain"


def test_pathname_flags() -> None:
    assert not match("*", "a/b", pathname=True)
    assert not match("a?b", "a/b", pathname=True)
    assert not match("a[/]b", "a/b", pathname=True)
    assert match("a/*", "a/b", pathname=True)
    assert not match("*", ".hidden", pathname=True)
    assert match("*", ".hidden", pathname=True, dotglob=True)
    assert match(".*", ".hidden", pathname=True)
    assert not match("a/*", "a/.b", pathname=True)
    assert match("a/.*", "a/.b", pathname=True)
    assert not match("!(x)", ".h", pathname=True)
    assert match("!(x)", "h", pathname=True)
    assert not match("?(a)*", ".h", pathname=True)
    assert match("@(.h|a)", ".h", pathname=True)
    assert not match("[.]h", ".h", pathname=True)


def test_compiled_is_cached_regex() -> None:
    a = compile_pattern("*.c")
    assert a is compile_pattern("*.c")
    assert a.fullmatch("x.c") and not a.fullmatch("x.h")


def test_long_value_replace_is_fast() -> None:
    v = "ab" * 5000
    assert replace(v, "b", "", "/") == "a" * 5000
    assert replace(v, "x", "y", "/") == v
    assert remove_suffix(v, "b*", True) == "a"


_ATOMS = [
    ["a", "b", "*", "?", "[ab]", "[!a]", "@(a|b)", "!(a)", "*(a)", "+(b)", "?(ab)", "\\*",
     "!(*b)", "@(a*|b)", "*(a|b)", "!(a|ab)", "+(a|!(b))"],
    ["a", "c", ".", "?", "*", "[a-c]", "[[:alpha:]]", "[]a]", "@(a|*)", "?(*)", "+(*a)", "!(?)",
     "*(?)", "[!b]", "\\a", "@(!(a)|b)", "*(a|b*)", "+(?|ab)", "!(a*|*c)", "@(.)"],
]


def _random_cases(seed: int, n: int) -> list[tuple[str, str]]:
    """Random short patterns and subjects; the seeds are fixed so failures reproduce."""
    import random

    rnd = random.Random(seed)
    atoms = _ATOMS[seed % 2]
    chars = "ab*" if seed % 2 == 0 else "abc.*"
    return [
        ("".join(rnd.choice(chars) for _ in range(rnd.randint(0, 5))),
         "".join(rnd.choice(atoms) for _ in range(rnd.randint(0, 4))))
        for _ in range(n)
    ]


@needs_bash
@pytest.mark.parametrize("seed", [10, 11])
def test_random_against_bash(seed: int) -> None:
    """Matching, trimming and substitution of random extglob patterns, all at once."""
    cases = _random_cases(seed, 500)
    body = (
        r"""shopt -u patsub_replacement; [[ $S == $P ]] && m=Y || m=N; """
        r"""printf '%s|%s|%s|%s|%s|%s|%s|%s|%s\x1f\n' $m "${S#$P}" "${S##$P}" "${S%$P}" """
        r""" "${S%%$P}" "${S/$P/X}" "${S//$P/X}" "${S/#$P/X}" "${S/%$P/X}" """
    )
    expect = _run_cases(body, cases)  # type: ignore[arg-type]
    bad = []
    for (s, p), want in zip(cases, expect, strict=True):
        got = "|".join([
            "Y" if match(p, s) else "N",
            remove_prefix(s, p, False), remove_prefix(s, p, True),
            remove_suffix(s, p, False), remove_suffix(s, p, True),
            *(replace(s, p, "X", m) for m in ("", "/", "#", "%")),
        ])
        if got != want:
            bad.append((s, p, want, got))
    assert bad == []
