"""vshell.builtins._regex: POSIX BRE/ERE translation, errors, dialects, text modes."""

from __future__ import annotations

import re

import pytest

from vshell.builtins._regex import (
    NeedsText,
    RegexError,
    compile_posix,
    decode,
    encode,
    is_utf8_locale,
    search_longest,
    translate,
)


def bre(p: str, **kw) -> re.Pattern:
    return translate(p, extended=False, utf8=False, **kw)


def ere(p: str, **kw) -> re.Pattern:
    return translate(p, extended=True, utf8=False, **kw)


def whole(rx: re.Pattern, s: str) -> str | None:
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
        ("a|ab|abc", "abc", "abc"),  # literal alternatives reordered: longest first
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
        translate(pattern, extended=extended, strict=strict, utf8=False)
    assert str(info.value) == message


def test_grep_dialect_warns_on_leading_repetition():
    comp = compile_posix("*a|+b", extended=True, utf8=False)
    assert comp.warnings == ["* at start of expression", "+ at start of expression"]
    assert comp.regex.search("b")


def test_group_offset_renumbers_back_references():
    comp = compile_posix(
        "\\(x\\)\\1", extended=False, utf8=False, group_offset=2, wrap="(y)(z){}"
    )
    assert comp.source == "(y)(z)(x)(?:\\3)"
    assert comp.regex.search("yzxx")


def test_eol_excludes_record_separator():
    rx = translate("a.b", extended=False, utf8=False, eol="\n")
    assert rx.search("a\nb") is None
    assert translate("a[^x]b", extended=False, utf8=False, eol="\n").search("a\nb") is None
    # sed (eol=None): dot and negated classes match newline
    assert translate("a.b", extended=False, utf8=False).search("a\nb")
    assert translate("a[^x]b", extended=False, utf8=False).search("a\nb")


def test_anchors_per_mode():
    assert translate("^b", extended=False, utf8=False, eol="\n").search("a\nb")
    assert translate("^b", extended=False, utf8=False).search("a\nb") is None
    assert translate("^b", extended=False, utf8=False, multiline=True).search("a\nb")
    assert translate("a$", extended=False, utf8=False).search("a\n") is None
    z = translate("^b", extended=False, utf8=False, eol="\0")
    assert z.search("a\nb") is None and z.search("a\0b")


def test_binary_mode_and_needs_text():
    rx = translate("err[a-z]*r", extended=False, binary=True, utf8=True)
    assert rx.search(b"an error") and isinstance(rx.pattern, bytes)
    lit = translate("café", extended=False, binary=True, utf8=True)
    assert lit.search("le café".encode())
    for needs in (".", "[^a]", "\\w", "[[:alpha:]]", "\\bx"):
        with pytest.raises(NeedsText):
            translate(needs, extended=False, binary=True, utf8=True)
    # the C locale is byte-wise: binary always works
    assert translate(".", extended=False, binary=True, utf8=False).search(b"\xff")


def test_utf8_text_mode_characters():
    rx = translate("^.$", extended=False, utf8=True)
    assert rx.search(decode("é".encode(), True))
    assert rx.search(decode(b"\xff", True)) is None  # an invalid byte is not a character
    assert translate("[[:alpha:]]", extended=False, utf8=True).search("é")
    assert translate("[[:upper:]]", extended=False, utf8=True).search("Ω")
    assert translate("[[:digit:]]", extended=False, utf8=True).search("٣") is None


def test_c_locale_classes_are_ascii():
    assert translate("[[:alpha:]]", extended=False, utf8=False).search("\xe9") is None
    assert translate("x", extended=False, utf8=False, icase=True).search("X")
    assert translate("\xe9", extended=False, utf8=False, icase=True).search("\xc9") is None


def test_longest_flag_and_search_longest():
    comp = compile_posix("a|ab|abc", extended=True, utf8=False)
    assert not comp.longest  # top-level literal alternatives: reordered, exact
    comp = compile_posix("(a|ab)(c|bcd)", extended=True, utf8=False)
    assert comp.longest
    m = comp.search("abcd")
    assert (m.group(0), m.groups()) == ("abcd", ("a", "bcd"))
    comp = compile_posix("(x+|y)(z|xz*)", extended=True, utf8=False)
    assert comp.longest
    assert comp.search("xxz").group(0) == "xxz"
    rx = re.compile("a|ab")
    assert search_longest(rx, "xab").group(0) == "ab"


def test_gnu_escapes_for_sed():
    rx = translate("a\\tb\\n", extended=False, utf8=False, gnu_escapes=True)
    assert rx.search("a\tb\n")
    assert translate("a\\tb", extended=False, utf8=False).search("atb")


def test_buffer_anchors():
    assert translate("\\`a", extended=False, utf8=False).search("ba") is None
    assert translate("a\\'", extended=False, utf8=False).search("a\n") is None
    assert translate("a\\'", extended=False, utf8=False).search("ba")


def test_locale_and_codec_helpers():
    assert is_utf8_locale({"LC_ALL": "C.UTF-8"})
    assert not is_utf8_locale({"LC_ALL": "C", "LANG": "en_US.UTF-8"})
    assert is_utf8_locale({"LANG": "en_US.utf8"})
    assert not is_utf8_locale({})
    for data in (b"plain", "é".encode(), b"\xff\xfe bad", b"\x00"):
        assert encode(decode(data, True), True) == data
        assert encode(decode(data, False), False) == data
