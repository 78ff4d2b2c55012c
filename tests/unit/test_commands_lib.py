"""The commands' shared pieces added for issue 21: help and version texts, the httpx error
translation of vshell.net.http, and GNU sed's numeric escapes in the text layer."""

from __future__ import annotations

import shutil
import subprocess

import httpx
import pytest

from vshell import Sandbox
from vshell.commands._lib.helptext import (
    RELEASES,
    find_help,
    find_version,
    help_text,
    version_text,
    written_by,
)
from vshell.net import http
from vshell.net.errors import (
    AccessDenied,
    ConnectFailed,
    ConnectTimedOut,
    DecodeFailed,
    InvalidAddress,
    TimedOut,
    TransferFailed,
)
from vshell.text.escapes import sed_numeric_escapes


@pytest.mark.parametrize(("authors", "text"), [
    (("A",), "Written by A.\n"),
    (("A", "B"), "Written by A and B.\n"),
    (("A", "B", "C"), "Written by A, B, and C.\n"),
    (("A", "B", "C", "D"), "Written by A, B, C,\nand D.\n"),
    (("A", "B", "C", "D", "E"), "Written by A, B, C,\nD, and E.\n"),
    (("A", "B", "C", "D", "E", "F", "G"), "Written by A, B, C,\nD, E, F,\nand G.\n"),
])
def test_written_by_wraps_as_gnulib(authors: tuple[str, ...], text: str) -> None:
    assert written_by(authors) == text


def test_version_texts() -> None:
    assert version_text("head").startswith("head (GNU coreutils) 9.1\nCopyright (C) 2022 ")
    assert version_text("head").endswith("\n\nWritten by David MacKenzie and Jim Meyering.\n")
    assert version_text("rev") == "rev from util-linux 2.38.1\n"
    assert version_text("patch").startswith("GNU patch 2.7.6\n")  # a data file
    assert find_version("cat") is None
    with pytest.raises(KeyError):
        version_text("cat")
    assert all(find_version(tool) for tool in RELEASES)


def test_help_texts_are_data_files() -> None:
    assert help_text("head").startswith("Usage: head [OPTION]... [FILE]...\n")
    assert find_help("no-such-command") is None
    with pytest.raises(FileNotFoundError):
        help_text("no-such-command")


def test_failures_turns_httpx_errors_into_vshell_net_ones() -> None:
    cases: list[tuple[Exception, type[Exception]]] = [
        (httpx.ConnectTimeout("slow"), ConnectTimedOut),
        (httpx.ReadTimeout("slow"), TimedOut),
        (httpx.ConnectError("refused"), ConnectFailed),
        (httpx.ReadError("reset"), TransferFailed),
        (httpx.DecodingError("bad gzip"), DecodeFailed),
        (httpx.InvalidURL("bad url"), InvalidAddress),
    ]
    for theirs, ours in cases:
        with pytest.raises(ours) as caught:
            with http.failures():
                raise theirs
        assert str(caught.value) == str(theirs)
        assert caught.value.__cause__ is theirs


def test_failures_lets_other_exceptions_through() -> None:
    denied = AccessDenied("example.com")
    with pytest.raises(AccessDenied) as caught:
        with http.failures():
            raise denied
    assert caught.value is denied
    with pytest.raises(KeyError):
        with http.failures():
            raise KeyError("x")


@pytest.mark.parametrize(("pattern", "decoded"), [
    ("a\\x2eb", "a.b"),
    ("\\d065\\o102\\cA", "AB\x01"),
    ("\\n\\\\x41\\d", "\\n\\\\x41\\d"),  # other escapes, an escaped backslash, no digits
    ("tail\\", "tail\\"),
    ("\\c", "\\c"),
])
def test_sed_numeric_escapes(pattern: str, decoded: str) -> None:
    assert sed_numeric_escapes(pattern) == decoded


def test_switches_maps_every_spelling_to_its_field() -> None:
    from vshell.commands._lib.opts import switches

    assert switches(quiet="-q --quiet --silent", all="-a") == {
        "-q": "quiet", "--quiet": "quiet", "--silent": "quiet", "-a": "all"}


def test_argwalk_letters_give_the_attached_rest() -> None:
    from vshell.commands._lib.argwalk import ArgWalk

    assert list(ArgWalk.letters("-cfUTF-8")) == [("c", "fUTF-8"), ("f", "UTF-8"), ("U", "TF-8"),
                                                  ("T", "F-8"), ("F", "-8"), ("-", "8"),
                                                  ("8", "")]
    walk = ArgWalk(["-f", "next"])
    assert next(iter(walk)) == "-f"
    assert walk.value("", ValueError, "needs a value") == "next"
    with pytest.raises(ValueError, match="needs a value"):
        walk.value("", ValueError, "needs a value")


def test_kind_letter_and_child_name() -> None:
    import stat

    from vshell.commands._lib.futil import child_name
    from vshell.commands._lib.statfields import kind_letter

    assert [kind_letter(m) for m in (stat.S_IFREG, stat.S_IFDIR, stat.S_IFLNK, stat.S_IFIFO,
                                     stat.S_IFSOCK, stat.S_IFCHR, stat.S_IFBLK, 0)] == list(
        "fdlpscbU")
    assert (child_name("d", "x"), child_name("d/", "x"), child_name("/", "x")) == (
        "d/x", "d/x", "/x")


@pytest.mark.skipif(shutil.which("mkdir") is None, reason="no host mkdir")
@pytest.mark.parametrize("name", ["mkdir", "rmdir", "mkfifo", "dirname", "readlink",
                                  "realpath", "stat", "rm"])
def test_missing_operand_as_gnu(name: str) -> None:
    """Options.required: GNU's words and status (coreutils on the host)."""
    host = subprocess.run([name], capture_output=True, env={"LC_ALL": "C", "PATH": "/usr/bin:/bin"})
    with Sandbox(timeout=30) as sb:
        got = sb.exec(name)
    assert got.stderr == host.stderr
    assert got.exit_code == host.returncode
