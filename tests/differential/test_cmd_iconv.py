"""iconv against glibc's iconv program on this host."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_text_common import ids, make_root, same  # noqa: E402

pytestmark = pytest.mark.skipif(shutil.which("iconv") is None,
                                reason="needs glibc's iconv program as the oracle")

U8 = "café €\n".encode()
FILES = {
    "u8": U8, "l1": b"caf\xe9\n", "bad": b"a\xffb\n", "trunc": b"a\xc3", "x": b"x\n",
    "u16": "hé\n".encode("utf-16"), "u16be": "hé\n".encode("utf-16-be"),
    "u16le_bom": b"\xff\xfe" + "hé\n".encode("utf-16-le"), "u32": "hé\n".encode("utf-32"),
    "bom8": b"\xef\xbb\xbfhi\n", "cp": b"\x80 \x93q\x94 \x81",
    "sym": "“q” ‘s’ – — … © ® ™ ñ Å ß æ ø œ → × ÷ ½ ° µ ¡ « » • · £ ¥ ¢ ﬁ Ł đ 中 😀 Ａ ① ²\n"
    .encode(),
    "l9": "€ Š ž\n".encode(),
}
CONVERSIONS = [
    ("UTF-8", "LATIN1"), ("UTF-8", "ISO-8859-1"), ("UTF-8", "ISO-8859-15"), ("UTF-8", "CP1252"),
    ("UTF-8", "ASCII"), ("UTF-8", "ASCII//TRANSLIT"), ("UTF-8", "ASCII//IGNORE"),
    ("UTF-8", "LATIN1//TRANSLIT"), ("UTF-8", "UTF-16"), ("UTF-8", "UTF-16LE"),
    ("UTF-8", "UTF-16BE"), ("UTF-8", "UTF-32"), ("UTF-8", "UTF-32BE"), ("UTF-8", "UTF-8"),
    ("utf8", "latin1"), ("UTF-8", "us-ascii//translit"), ("UTF-8", "WINDOWS-1252//TRANSLIT"),
]
CASES: list = []
for f, t in CONVERSIONS:
    for name in ("u8", "bad", "sym", "l9", "trunc"):
        CASES.append(["iconv", "-f", f, "-t", t, name])
    CASES.append(["iconv", "-c", "-f", f, "-t", t, "sym"])
CASES += [
    ["iconv", "-f", "ISO-8859-1", "-t", "UTF-8", "l1"],
    ["iconv", "-f", "LATIN1", "-t", "UTF-16", "l1"],
    ["iconv", "-f", "CP1252", "-t", "UTF-8", "cp"],
    ["iconv", "-f", "ISO-8859-15", "-t", "UTF-8", "l1"],
    ["iconv", "-f", "UTF-16", "-t", "UTF-8", "u16"],
    ["iconv", "-f", "UTF-16", "-t", "UTF-8", "u16be"],
    ["iconv", "-f", "UTF-16LE", "-t", "UTF-8", "u16le_bom"],
    ["iconv", "-f", "UTF-16BE", "-t", "UTF-8", "u16be"],
    ["iconv", "-f", "UTF-32", "-t", "UTF-8", "u32"],
    ["iconv", "-f", "UTF-16", "-t", "LATIN1", "u16"],
    ["iconv", "-f", "UTF-8", "-t", "UTF-16", "bom8"],
    ["iconv", "-f", "UTF-8", "-t", "ASCII", "bom8"],
    ["iconv", "-c", "-f", "UTF-8", "-t", "LATIN1", "bad"],
    ["iconv", "-c", "-f", "UTF-8", "-t", "ASCII", "trunc"],
    ["iconv", "-f", "UTF-8", "-t", "FOO", "u8"],
    ["iconv", "-f", "BAR", "-t", "UTF-8", "u8"],
    ["iconv", "-f", "UTF-8", "-t", "ASCII", "nofile"],
    ["iconv", "-f", "UTF-8", "-t", "ASCII", "nofile", "x"],
    ["iconv", "-f", "UTF-8", "-t", "ASCII", "u8", "x"],
    ["iconv", "-f", "UTF-8", "-t", "UTF-16", "x", "x"],
    ["iconv", "-t", "ASCII//TRANSLIT", "u8"],
    ["iconv", "-f", "UTF-8", "u8"],
    ["iconv", "--from-code=UTF-8", "--to-code=ASCII//TRANSLIT", "u8"],
    ["iconv", "-s", "-f", "UTF-8", "-t", "ASCII", "u8"],
    ["iconv", "-x"],
    ["iconv", "-f"],
    ["iconv", "-cs", "-f", "UTF-8", "-t", "ASCII", "u8"],
    ["iconv", "-fUTF-8", "-tLATIN1", "l1"],
    ["iconv", "-f", "UTF-8", "-t", "ASCII", "-"],
    ["iconv", "-f", "UTF-8", "-t", "LATIN1", "--", "u8"],
    ["iconv", "--nosuch"],
]


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return make_root(tmp_path_factory, FILES)


@pytest.mark.parametrize("argv", CASES, ids=ids)
def test_iconv(root, argv):
    same(root, argv, "stdin é\n".encode())


def test_iconv_output_file(root):
    from cmdharness import run_cmd

    got = run_cmd(root, ["iconv", "-f", "UTF-8", "-t", "LATIN1", "-o", "out.l1", "u8"])
    assert got.status == 1 and not (root / "out.l1").exists()  # € has no Latin-1 byte
    got = run_cmd(root, ["iconv", "-f", "UTF-8", "-t", "LATIN1", "-o", "out.l1", "x"])
    assert got.status == 0 and (root / "out.l1").read_bytes() == b"x\n"


def test_iconv_list_and_help(root):
    from cmdharness import run_cmd

    names = run_cmd(root, ["iconv", "-l"]).stdout.decode().split()
    assert "UTF-8//" in names and "ISO-8859-15//" in names and "CP1252//" in names
    assert b"--from-code" in run_cmd(root, ["iconv", "--help"]).stdout
