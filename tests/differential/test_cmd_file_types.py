"""file naming CSV, JSON, script and makefile types as file 5.44 on this host does."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent))

from cmdharness import run_cmd, run_gnu, write_files  # noqa: E402


def _file_version() -> str:
    if shutil.which("file") is None:
        return ""
    return subprocess.run(["file", "--version"], capture_output=True, text=True).stdout


pytestmark = pytest.mark.skipif(not _file_version().startswith("file-5.44"),
                                reason="needs file 5.44 as the oracle (its magic decides names)")

INTERPRETERS = [
    "/bin/sh", "/usr/bin/sh", "/bin/bash", "/usr/bin/bash", "/bin/dash", "/bin/ksh",
    "/usr/bin/ksh", "/bin/ash", "/bin/mksh", "/bin/zsh", "/usr/bin/zsh", "/bin/csh", "/bin/tcsh",
    "/usr/bin/python", "/usr/bin/python3", "/usr/bin/python3.11", "/usr/local/bin/python3",
    "/usr/bin/perl", "/usr/bin/perl5", "/usr/bin/ruby", "/usr/bin/node", "/usr/bin/nodejs",
    "/usr/bin/awk", "/usr/bin/gawk", "/usr/bin/nawk", "/usr/bin/tclsh", "/usr/bin/wish",
    "/usr/bin/php", "/usr/bin/lua", "/usr/bin/make -f", "/usr/bin/Rscript", "/usr/bin/fish",
    "/bin/bash -e", "/usr/bin/python3 -u", "/bin/false", " /bin/sh", "/usr/bin/env bash",
    "/usr/bin/env sh", "/usr/bin/env python", "/usr/bin/env python3 -u", "/usr/bin/env perl",
    "/usr/bin/env node", "/usr/bin/env php", "/usr/bin/env zsh", "/usr/bin/env -S bash -e",
    "/usr/bin/env lua", "/usr/bin/env tclsh", "/usr/bin/env ruby", "/usr/bin/env awk",
    "/usr/bin/env gawk", "/usr/bin/env fish", "/usr/bin/env wish", "/usr/bin/env bash5",
]
FILES: dict[str, bytes] = {f"script{i:02d}": f"#!{p}\necho hi\n".encode()
                           for i, p in enumerate(INTERPRETERS)}
FILES.update({
    "c.csv": b"a,b,c\n1,2,3\n4,5,6\n", "c2.csv": b"a,b\n1,2\n", "semi.csv": b"a;b\n1;2\n3;4\n",
    "t.tsv": b"a\tb\n1\t2\n3\t4\n", "u.csv": "café,b\n1,2\n3,4\n".encode(),
    "crlf.csv": b"a,b\r\n1,2\r\n3,4\r\n", "long.csv": b"".join(b"%d,x\n" % i for i in range(20)),
    "ten.csv": b"".join(b"%d,x\n" % i for i in range(9)) + b"a,b,c\n1,2\n",
    "q.csv": b'"a,b",c\n"x""y",z\n1,2\n', "noeol.csv": b"a,b\n1,2\n3,4",
    "commas": b",\n,\n,\n", "blank.csv": b"a,b\n\n1,2\n", "bom.csv": b"\xef\xbb\xbfa,b\n1,2\n3,4\n",
    "l1.csv": b"caf\xe9,b\n1,2\n3,4\n", "x.txt": b"a,b\n1,2\n3,4\n", "quoted_nl.csv":
    b'"a\nb",c\n1,2\n3,4\n', "j.json": b'{"a": 1}\n', "arr.json": b"[1,2,3]", "badj.json":
    b'{"a":\n', "uj.json": '{"a": "café"}\n'.encode(), "mk1": b"x:\n\techo\n.PHONY: x\n",
    "mk2": b"CC=gcc\nCFLAGS=-O2\n", "mk3": b".PHONY: all\nall:\n\ttrue\n", "mk4": b"b:\n\tgo\n",
    "mk5": b".include <bsd.prog.mk>\n", "mk6": b"SUBDIRS = src\n",
    "crlf.sh": b"#!/bin/sh\r\necho\r\n",
    "u.sh": "#!/bin/bash\necho café\n".encode(), "py_noshebang.py": b"import os\nprint(os)\n",
})


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    r = tmp_path_factory.mktemp("ftypes")
    write_files(r, FILES)
    return r


@pytest.mark.parametrize("name", sorted(FILES))
def test_file_names_the_type(root, name):
    for flags in ([], ["-i"]):
        want = run_gnu(root, ["file", *flags, name])
        got = run_cmd(root, ["file", *flags, name])
        assert got.stdout == want.stdout, (FILES[name][:60], got.stdout, want.stdout)
