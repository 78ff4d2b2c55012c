"""The commands added for agents (numfmt iconv less more chown chgrp yq): registered, with a
``--help``, and an unknown option is an error naming it (never silently ignored)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent))

from cmdharness import run_cmd  # noqa: E402

from vshell import commands as builtins  # noqa: E402

NEW = ["numfmt", "iconv", "less", "more", "chown", "chgrp", "yq"]


@pytest.mark.parametrize("name", NEW)
def test_registered_with_help(tmp_path: Path, name: str) -> None:
    assert name in builtins.names()
    r = run_cmd(tmp_path, [name, "--help"])
    assert r.status == 0 and b"usage" in r.stdout.lower() and not r.stderr, (name, r)


@pytest.mark.parametrize("name", NEW)
def test_unknown_option_is_reported(tmp_path: Path, name: str) -> None:
    (tmp_path / "f").write_text("x\n")
    r = run_cmd(tmp_path, [name, "--no-such-option-x", "f"])
    assert b"no-such-option-x" in r.stderr, (name, r)
    if name != "less":  # less says so and goes on, as less 590 does on a pipe
        assert r.status != 0, (name, r)


def test_numfmt_bad_input_is_a_message_not_a_traceback(tmp_path: Path) -> None:
    for argv in (["numfmt", "--to=si", "nan"], ["numfmt", "--format=%", "1"],
                 ["numfmt", "--from-unit=", "1"], ["numfmt", "--field=1-a", "1"],
                 ["numfmt", "--to=si", "9" * 400], ["numfmt", "--padding=-", "1"]):
        r = run_cmd(tmp_path, argv)
        assert r.status in (1, 2) and r.stderr.startswith(b"numfmt: "), (argv, r)


def test_iconv_bad_input_is_a_message_not_a_traceback(tmp_path: Path) -> None:
    for argv, stdin in ((["iconv", "-f", "UTF-8//", "-t", "//"], b"x"),
                        (["iconv", "-f", "UTF-32", "-t", "UTF-8"],
                         b"\xff\xfe\x00\x00\xff\xff\xff\x7f"),
                        (["iconv", "-t", "ASCII//TRANSLIT//IGNORE"], "\u4e2d".encode()),
                        (["iconv", "-o"], b"")):
        r = run_cmd(tmp_path, argv, stdin=stdin)
        assert b"Traceback" not in r.stderr and r.status in (0, 1, 64), (argv, r)
