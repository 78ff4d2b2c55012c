"""vshell.text.regex: the dialects' syntax and errors, RE2's leftmost-longest matches, text
and bytes subjects, locales, and the budgeted backtracker for back-references."""

from __future__ import annotations

import time

import pytest

from vshell.text.regex import (
    RegexError,
    TooComplex,
    cancellable,
    compile,
    compile_many,
    compile_syntax,
    decode,
    encode,
    is_utf8_locale,
)


def bre(p: str, **kw):
    return compile(p, "bre", utf8=False, **kw)


def ere(p: str, **kw):
    return compile(p, "ere", utf8=False, **kw)


def whole(rx, s: str) -> str | None:
    m = rx.search(s)
    return m.group(0) if m else None


@pytest.mark.parametrize(
    "pattern,subject,want",
    [
        ("a\\{2\\}", "caaa", "aa"),
        ("a\\{2,\\}", "caaa", "aaa"),
        ("a\\{,2\\}b", "aaab", "aab"),
        ("a{2}", "a{2}", "a{2}"),  # BRE: braces are literal
        ("a\\+", "baa", "aa"),
        ("a\\?b", "xb", "b"),
        ("a\\|b", "xb", "b"),
        ("a|b", "a|b", "a|b"),  # BRE: | is literal
        ("*a", "x*a", "*a"),  # leading * is literal in a BRE
        ("\\(*a\\)", "x*a", "*a"),
        ("^*a", "*a", "*a"),
        ("a^b", "a^b", "a^b"),  # ^ not at the start: literal
        ("a$b", "a$b", "a$b"),
        ("\\(a\\)\\1", "xaa", "aa"),
        ("[]a]*", "]a]b", "]a]"),
        ("[^]a]", "]ab", "b"),
        ("[a-c]*", "abcd", "abc"),
        ("[[:digit:]]\\+", "x123y", "123"),
        ("[[:upper:][:digit:]]*", "AB1c", "AB1"),
        ("[[.-.]a]*", "-a-b", "-a-"),
        ("[[=e=]]", "xe", "e"),
        ("\\w\\+", "  ab_1 ", "ab_1"),
        ("\\W", "ab-", "-"),
        ("a\\s", "a b", "a "),
        ("\\bfo", "xfo fo", "fo"),
        ("\\<b", "ab b", "b"),
        ("o\\>", "oox", None),
        ("ab*\\{2\\}", "abbb", "abbb"),
        ("a**", "aaa", "aaa"),
    ],
)
def test_bre(pattern, subject, want):
    assert whole(bre(pattern), subject) == want


@pytest.mark.parametrize(
    "pattern,subject,want",
    [
        ("a{2}", "caaa", "aa"),
        ("a{,2}b", "aaab", "aab"),
        ("a{", "a{", "a{"),  # grep: a malformed interval is literal
        ("a{x}", "a{x}", "a{x}"),
        ("(a|b)+", "xabba", "abba"),
        ("a|ab|abc", "abc", "abc"),  # leftmost-longest
        ("a)", "a)", "a)"),  # grep: unmatched ) is literal
        ("\\(", "(", "("),
        ("\\{", "{", "{"),
        ("()", "x", ""),
        ("a||b", "b", "b"),  # leftmost-longest, not the empty alternative
        ("(a)\\1", "aa", "aa"),
        ("a+*", "aaa", "aaa"),
        ("x^a", "x^a", None),  # ERE ^ is always an anchor
        ("^(ab|a)$", "ab", "ab"),
    ],
)
def test_ere(pattern, subject, want):
    assert whole(ere(pattern), subject) == want


@pytest.mark.parametrize(
    "pattern,extended,strict,message",
    [
        ("a[b", False, False, "Unmatched [, [^, [:, [., or [="),
        ("[[:alpha:]", False, False, "Unmatched [, [^, [:, [., or [="),
        ("\\(a", False, False, "Unmatched ( or \\("),
        ("(a", True, False, "Unmatched ( or \\("),
        ("a\\)", False, False, "Unmatched ) or \\)"),
        ("a)", True, True, "Unmatched ) or \\)"),
        ("\\(a\\)\\2", False, False, "Invalid back reference"),
        ("\\1(a)", True, False, "Invalid back reference"),
        ("(a\\1)", True, False, "Invalid back reference"),
        ("a\\{1", False, False, "Unmatched \\{"),
        ("a{1", True, True, "Unmatched \\{"),
        ("a\\{1,0\\}", False, False, "Invalid content of \\{\\}"),
        ("a{1,2,3}", True, False, "Invalid content of \\{\\}"),
        ("a\\{x\\}", False, False, "Invalid content of \\{\\}"),
        ("a{99999}", True, False, "Regular expression too big"),
        ("[[:foo:]]", False, False, "Invalid character class name"),
        ("[[.ab.]]", False, False, "Invalid collation character"),
        ("[z-a]", False, False, "Invalid range end"),
        ("a\\", False, False, "Trailing backslash"),
        ("*a", True, True, "Invalid preceding regular expression"),
        ("a**", False, True, "Invalid preceding regular expression"),
        ("\\{1\\}a", False, True, "Invalid preceding regular expression"),
    ],
)
def test_errors(pattern, extended, strict, message):
    with pytest.raises(RegexError) as info:
        compile(pattern, "ere" if extended else "bre", strict=strict, utf8=False)
    assert str(info.value) == message


def test_grep_dialect_warns_on_leading_repetition():
    rx = compile("*a|+b", "ere", utf8=False)
    assert rx.warnings == ["* at start of expression", "+ at start of expression"]
    assert rx.search("b")


def test_many_patterns_keep_their_own_back_references():
    rx = compile_many(["\\(x\\)\\1", "\\(y\\)\\1"], "bre", utf8=False, eol="\n")
    assert rx.search("yy") and rx.search("xx") and not rx.search("xy")


def test_eol_excludes_record_separator():
    assert bre("a.b", eol="\n").search("a\nb") is None
    assert bre("a[^x]b", eol="\n").search("a\nb") is None
    # sed (eol=None): dot and negated classes match newline
    assert bre("a.b").search("a\nb")
    assert bre("a[^x]b").search("a\nb")


def test_anchors_per_mode():
    assert bre("^b", eol="\n").search("a\nb")
    assert bre("^b").search("a\nb") is None
    assert bre("^b", multiline=True).search("a\nb")
    assert bre("a$").search("a\n") is None
    z = bre("^b", eol="\0")  # grep -z: NUL and newline swap roles
    assert z.search(z.prepare(b"a\nb")) is None and z.search(z.prepare(b"a\0b"))


def test_bytes_subjects_in_utf8():
    rx = compile("^.$", "bre", utf8=True)
    assert rx.search("é".encode()) and rx.search(b"\xff") is None
    assert compile("caf.", "bre").search("le café".encode()).span() == (3, 8)
    assert compile(".", "bre", utf8=False).search(b"\xff")


def test_utf8_text_mode_characters():
    rx = compile("^.$", "bre", utf8=True)
    assert rx.search(decode("é".encode(), True))
    assert rx.search(decode(b"\xff", True)) is None  # an invalid byte is not a character
    assert compile("[[:alpha:]]", "bre").search("é")
    assert compile("[[:upper:]]", "bre").search("Ω")
    assert compile("[[:digit:]]", "bre").search("٣") is None
    assert compile("b.", "ere").search("éébé").span() == (2, 4)  # char offsets for str


def test_c_locale_classes_are_ascii():
    assert bre("[[:alpha:]]").search("\xe9") is None
    assert bre("x", icase=True).search("X")


def test_leftmost_longest_and_posix_submatches():
    m = ere("(a|ab)(c|bcd)(d*)").search("abcd")
    assert (m.group(0), m.groups()) == ("abcd", ("a", "bcd", ""))
    assert ere("(x+|y)(z|xz*)").search("xxz").group(0) == "xxz"
    assert ere("a|ab").search("xab").group(0) == "ab"
    assert compile("(a|ab)(c|bcd)(d*)", "bash").search("abcd").groups() == ("a", "bcd", "")


def test_gnu_escapes_for_sed():
    assert bre("a\\tb\\n", gnu_escapes=True).search("a\tb\n")
    assert bre("a\\tb").search("atb")


def test_buffer_anchors():
    assert bre("\\`a").search("ba") is None
    assert bre("a\\'").search("a\n") is None
    assert bre("a\\'").search("ba")


def test_word_start_is_exact_next_to_any_atom():
    assert [m.group() for m in bre("\\<.").finditer("ab cd")] == ["a", "c"]
    assert bre("\\<\\(.\\)").search(" x").span() == (1, 2)
    assert bre(".\\>").sub("X", "ab cd!") == "aX cX!"
    # not expressible with RE2's \b: the exact budgeted engine runs it (GNU: hellX fX!)
    rx = bre("o*\\>")
    assert rx.backtracking and rx.sub("X", "hello fo!") == "hellX fX!"


def test_awk_dialect():
    rx = compile("[\\/]a\\y", "awk")
    assert rx.search("x/a b") and not rx.search("x/ab")
    assert compile("*a{1", "awk").search("*a{1")


def test_empty_matches_follow_gnu():
    assert ere("b*").sub("-", "abc") == "-a-c-"


def test_backreference_runs_and_ends_within_budget():
    assert bre("\\(ab*\\)\\1").search("xabbabb").group(0) == "abbabb"
    rx = compile("\\(a*\\)\\(a*\\)\\(a*\\)\\(a*\\)\\1\\2\\3\\4c", "bre", budget=50_000)
    t = time.monotonic()
    with pytest.raises(TooComplex):
        rx.search("a" * 300)
    assert time.monotonic() - t < 2


def test_backtracker_checks_for_cancellation():
    """A run's timeout reaches into a long back-reference search (checked every few
    thousand steps), whatever budget is left."""
    class Stop(BaseException):
        pass

    calls = []

    def check() -> None:
        calls.append(1)
        if len(calls) > 3:
            raise Stop()

    rx = compile("\\(a*\\)\\(a*\\)\\(a*\\)\\1\\2\\3c", "bre", budget=10**9)
    t = time.monotonic()
    with pytest.raises(Stop), cancellable(check):
        rx.search("a" * 2000)
    assert time.monotonic() - t < 1


def test_pathological_patterns_are_linear():
    t = time.monotonic()
    assert ere("(.*a){8}b").search("a" * 5000) is None
    assert ere("(a|aa)*b").search("a" * 100_000) is None
    assert compile("^(a+)+b$", "bash").search("a" * 100_000) is None
    assert time.monotonic() - t < 2


def test_perl_dialect_refuses_lookaround():
    with pytest.raises(RegexError, match="look-around"):
        compile("a(?=b)", "perl")
    assert compile("\\d+", "perl").search("ab12").group(0) == "12"


def test_find_syntaxes():
    assert compile_syntax("/\\(usr\\|etc\\)", "emacs").fullmatch("/usr")
    assert compile_syntax("/(usr|etc)", "posix-extended").fullmatch("/etc")
    assert compile_syntax("/USR", "emacs", icase=True).fullmatch("/usr")


def test_locale_and_codec_helpers():
    assert is_utf8_locale({"LC_ALL": "C.UTF-8"})
    assert not is_utf8_locale({"LC_ALL": "C", "LANG": "en_US.UTF-8"})
    assert is_utf8_locale({"LANG": "en_US.utf8"})
    assert not is_utf8_locale({})
    for data in (b"plain", "é".encode(), b"\xff\xfe bad", b"\x00"):
        assert encode(decode(data, True), True) == data
        assert encode(decode(data, False), False) == data


SUBMATCH_SCRIPTS = [
    ("abcd", ["sed", "-E", "s/(a|ab)(c|bcd)(d*)/[\\1,\\2,\\3]/"]),
    ("abcd", ["sed", "s/\\(a\\|ab\\)\\(c\\|bcd\\)\\(d*\\)/[\\1,\\2,\\3]/"]),
    ("foobar", ["sed", "-E", "s/(foo|foob)(ar|bar)?/[\\1|\\2]/"]),
    ("xyz", ["sed", "-E", "s/(x|xy)(z|yz)?/[\\1|\\2]/"]),
    ("aaa bbb", ["grep", "-oE", "(a|aa)+|b+"]),
    ("abab", ["sed", "-E", "s/(ab|a)(bab)?/[\\1|\\2]/"]),
]


@pytest.mark.parametrize(("data", "argv"), SUBMATCH_SCRIPTS, ids=[" ".join(a) for _, a in
                                                                  SUBMATCH_SCRIPTS])
def test_posix_submatches_like_gnu(data, argv):
    """Leftmost-longest with POSIX's subexpression rules (what Python's re got wrong:
    ``[ab,c,d]`` for the first case); the host's GNU tool is the oracle."""
    import shlex
    import shutil
    import subprocess

    from vshell import Sandbox

    if shutil.which(argv[0]) is None:
        pytest.skip(f"{argv[0]} not installed")
    want = subprocess.run(argv, input=data.encode() + b"\n", capture_output=True).stdout
    with Sandbox() as sb:
        got = sb.exec(f"printf '%s\\n' {shlex.quote(data)} | {shlex.join(argv)}").stdout
    assert got == want


# -- shortcuts that answer without an engine call (test, first_per_line, count_lines)

_TEST_PATTERNS = [
    "^(a|b)$", "^(alpha|beta)$", "^(ab|)$", "^alpha$", "^(a|b)c$", "err[a-z]*r", "e\\brr",
    "x(yz)+", "^é$", "(^a|b$)", "^(a|b)", "a|b", "^(a|b)$|c", "[[:digit:]]+err",
]
_TEST_SUBJECTS = [
    "", "a", "b", "ab", "a\n", "\na", "c", "alpha", "beta", "alphabeta", "error", "erxr",
    "an err is here", "xyzyz", "é", "e", "bc", "ac", "12err", "ERROR",
]


@pytest.mark.parametrize("pattern", _TEST_PATTERNS)
@pytest.mark.parametrize("icase", [False, True])
@pytest.mark.parametrize("utf8", [False, True])
def test_test_agrees_with_search(pattern, icase, utf8):
    rx = compile(pattern, "awk", icase=icase, utf8=utf8)
    for s in _TEST_SUBJECTS:
        assert rx.test(s) is (rx.search(s) is not None), (pattern, s)
        b = encode(s, utf8)
        assert rx.test(b) is (rx.search(b) is not None), (pattern, s)


def test_shortcut_extraction():
    from vshell.text.regex import shortcut
    from vshell.text.regex.parse import parse

    def tree(p):
        return parse(p, "ere", utf8=True)[0]

    assert shortcut.required_literal(tree("x[0-9]*error\\>s")) == "errors"
    assert shortcut.required_literal(tree("x[0-9]*error\\> s")) == "error s"
    assert shortcut.required_literal(tree("(ab)c")) == "abc"
    assert shortcut.required_literal(tree("a|b")) is None
    assert shortcut.required_literal(tree("(ab)*c")) == "c"
    assert shortcut.exact_set(tree("^(a|bc)$")) == {"a", "bc"}
    assert shortcut.exact_set(tree("^a(b|c)$")) is None
    assert shortcut.exact_set(tree("^(a|b)")) is None


@pytest.mark.parametrize("pattern,rep", [
    ("e\\(rr\\)or", "<\\1>"), ("x*", "-"), ("\\(a\\)\\|b", "[\\1]"), ("o", "0"), ("$", "!"),
])
def test_first_per_line_matches_sed(pattern, rep):
    text = "error and error\nfoo boo\n\nbar\nab ba\nterror"
    rx = compile(pattern, "bre", utf8=True, eol="\n")
    from vshell.commands.sed.command import _first_per_line_spans
    from vshell.commands.sed.parse import Subst

    sub = Subst.__new__(Subst)
    sub.parts = [("lit", rep.split("\\1")[0])]
    if "\\1" in rep:
        sub.parts = [("lit", rep.split("\\1")[0]), ("ref", 1), ("lit", rep.split("\\1")[1])]
    want = "\n".join(rx.sub(lambda m: "".join(
        v if k == "lit" else (m.group(v) or "") for k, v in sub.parts), line, 1)
        for line in text.split("\n"))
    spans = rx.first_per_line(text)
    assert spans is not None
    assert _first_per_line_spans(spans, sub, text) == want


@pytest.mark.parametrize("pattern", ["err[a-z]*r", "^$", "$", "o*", "^b", "z"])
def test_count_lines_agrees_with_lines(pattern):
    data = b"error\n\nfoo\nbar erxr\n\nberr r\n"
    rx = compile(pattern, "bre", utf8=False, eol="\n")
    want = sum(1 for line in data.split(b"\n")[:-1] if rx.search(line) is not None)
    assert rx.count_lines(data, 0, len(data), b"\n") == want
    assert sum(1 for _ in rx.lines(data, 0, len(data), b"\n")) == want


_FAST_DATA = (b"error here\nerr only\nberr xr\n\xff err\xffr\nerrr\n\nnothing\n"
              b"err\xe9r ok\nERROR\n" * 3 + b"tail err-r\nerr- errxr\n")


@pytest.mark.parametrize("argv", [
    ["grep", "-c", "err[a-z]*r"], ["grep", "-c", "err.r"], ["grep", "-c", "err[^a-z]*r$"],
    ["grep", "-c", "err[[:alpha:]]*r x"], ["grep", "-c", "-E", "err(or|r)"],
    ["grep", "-c", "e\\(r\\)\\1"],
    ["sed", "s/err\\([a-z]*\\)r/<\\1>/"], ["sed", "s/r*/-/"], ["sed", "s/$/!/"],
    ["awk", "/err[a-z]*r/ {n++} END {print n+0}"], ["awk", "$1 ~ /^(error|errr)$/"],
    ["awk", "$1 !~ /^(error|errr|)$/"],
], ids=lambda a: " ".join(a))
@pytest.mark.parametrize("locale", ["C", "C.UTF-8"])
def test_fast_paths_like_gnu(argv, locale):
    """The shortcuts (tails scan for grep -c, raw spans for sed, awk's prefilters) against
    the GNU tools, with lines that hold the literal but no match and invalid UTF-8."""
    import shlex
    import shutil
    import subprocess

    from vshell import Sandbox

    tool = "gawk" if argv[0] == "awk" else argv[0]
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} not installed")
    env = {"LC_ALL": locale, "PATH": "/usr/bin:/bin"}
    want = subprocess.run([tool, *argv[1:]], input=_FAST_DATA, capture_output=True, env=env)
    with Sandbox() as sb:
        with sb.fs.open("/tmp/in", "wb") as f:
            f.write(_FAST_DATA)
        got = sb.exec(f"LC_ALL={locale} {shlex.join(argv)} /tmp/in")
    assert (got.stdout, got.exit_code) == (want.stdout, want.returncode)


@pytest.mark.parametrize("pattern", [
    "err[a-z]*r", "^err", "r$", "e.r", "\\<err", "err\\>", "^$", "(a|b)+", "x*", "[^a-z]r",
    "err\\'", "\\`err",
])
@pytest.mark.parametrize("utf8", [False, True])
def test_prime_keeps_test_exact(pattern, utf8):
    """After prime (awk's per-batch shortcut), test answers as search does, for the batch's
    records, for others, and for records the line-oriented check could not vouch for."""
    records = ["error", "err only", "", "berr xr", "\udcff err\udcffr", "errr", "ab", "r",
               "x err", "é err r", "err\udce9r", "nothing", "err", "e\nr"]
    rx = compile(pattern, "awk", utf8=utf8)
    for batch in (records, records[:-1], [r for r in records if "err" in r], ["err"] * 3):
        rx.prime(batch)
        for s in [*records, "zzz err r", "error!"]:
            assert rx.test(s) is (rx.search(s) is not None), (pattern, batch, s)
