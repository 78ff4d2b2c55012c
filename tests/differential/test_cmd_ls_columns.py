"""ls -C / -x / -m layouts (with -w, COLUMNS and -T) against GNU ls on this host."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent))

from cmdharness import GNU_ENV, run_cmd, run_gnu, write_files  # noqa: E402

NAMES = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota",
         "kappa", "lambda", "mu", "nu", "xi", "omicron", "pi", "rho", "sigma", "tau",
         "upsilon", "phi", "chi", "psi", "omega", "a-much-longer-file-name.txt", "x",
         "naïve", "日本語.txt", "sp ace"]


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    r = tmp_path_factory.mktemp("lscols")
    write_files(r, {n: "data\n" * (i % 7) for i, n in enumerate(NAMES)})
    write_files(r, {"sub/one": "1", "sub/two": "2", "few/a": "", "few/b": ""})
    (r / "emptydir").mkdir()
    (r / "run.sh").write_text("#!/bin/sh\n")
    (r / "run.sh").chmod(0o755)
    return r


FLAGS = [
    ["-C"], ["-x"], ["-m"], ["-C", "-w", "40"], ["-x", "-w", "30"], ["-m", "-w", "40"],
    ["-C", "-w", "0"], ["-x", "-w", "0"], ["-m", "-w", "0"], ["-C", "-T", "0"],
    ["-C", "-T", "4", "-w", "50"], ["-Cs"], ["-Ci"], ["-CF"], ["-xF", "-w", "60"], ["-l", "-C"],
    ["-C", "-l"], ["-C", "-1"], ["-1", "-x"], ["--format=across"], ["--format=commas"],
    ["--format=vertical", "--width=100"], ["--format=horizontal"], ["-w", "x", "-C"],
    ["-C", "-w", "3"], ["-C", "-w", "1"], ["-Cr"], ["-CS"], ["-CA"], ["-Ca", "-w", "120"],
    ["-CR"], ["-C", "few", "sub"], ["-x", "emptydir", "few"], ["-C", "alpha", "beta", "sub"],
    ["-Cd", "sub", "few", "x"], ["-m", "few"], ["-C", "-T", "x"], ["--tabsize=2", "-C"],
    ["-Csh", "-w", "70"], ["-Cp"], ["-g", "-C", "-w", "50"], ["-Cn"],
]


@pytest.mark.parametrize("flags", FLAGS, ids=lambda f: " ".join(f))
def test_ls_layout(root, flags):
    want = run_gnu(root, ["ls", *flags])
    got = run_cmd(root, ["ls", *flags])
    assert (got.status, got.stdout, got.stderr) == (want.status, want.stdout, want.stderr)


@pytest.mark.parametrize("columns", ["30", "100", "0", "abc", "", "-5"])
@pytest.mark.parametrize("flags", [["-C"], ["-m"], [], ["-l"], ["-C", "-w", "50"]], ids=str)
def test_ls_columns_env(root, columns, flags):
    env = dict(GNU_ENV, COLUMNS=columns)
    want = run_gnu(root, ["ls", *flags], env=env)
    got = run_cmd(root, ["ls", *flags], env=env)
    assert (got.status, got.stdout, got.stderr) == (want.status, want.stdout, want.stderr)
