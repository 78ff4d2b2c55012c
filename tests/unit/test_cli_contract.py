"""The CLI contract, driven as agents drive it: a real `python -m vshell` process."""

from __future__ import annotations

import ast
import os
import signal
import statistics
import subprocess
import sys
import time
import tomllib
from pathlib import Path

VSHELL = [sys.executable, "-m", "vshell"]


def run(args: list[str], stdin: bytes | None = None, cwd: str | None = None,
        env: dict[str, str] | None = None, timeout: float = 30) -> subprocess.CompletedProcess:
    return subprocess.run(VSHELL + args, input=stdin, capture_output=True, cwd=cwd,
                          env=env, timeout=timeout)


def test_echo_hi() -> None:
    p = run(["-c", "echo hi"])
    assert (p.returncode, p.stdout, p.stderr) == (0, b"hi\n", b"")


def test_mount_and_pipeline(tmp_path: Path) -> None:
    (tmp_path / "a").write_text("1\n2\n3\n")
    p = run(["--mount", f"{tmp_path}:/work", "-c", "cd /work && cat a | wc -l > n"])
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "n").read_text() == "3\n"


def test_readonly_and_deny(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("x")
    p = run(["--mount", f"{tmp_path}:/w:ro", "--deny-path", ".env", "-c",
             "ls -A /w; cat /w/.env; echo x > /w/f"])
    assert p.stdout == b""
    assert b"Permission denied" in p.stderr and b"Read-only file system" in p.stderr
    assert p.returncode == 1


def test_status_and_parse_error() -> None:
    assert run(["-c", "exit 42"]).returncode == 42
    p = run(["-c", "echo )"])
    assert p.returncode == 2
    assert b"syntax error near unexpected token" in p.stderr
    assert b"Traceback" not in p.stderr


def test_bad_usage() -> None:
    for args in (["--nope"], ["--timeout", "soon", "-c", "true"], ["--mount", "x", "-c", "true"],
                 ["-c"], ["--deny-path", "a[b]", "-c", "true"]):
        p = run(args)
        assert p.returncode == 2, args
        assert p.stderr.startswith(b"vshell: "), p.stderr
        assert b"Traceback" not in p.stderr


def test_version_and_help() -> None:
    assert run(["--version"]).stdout.startswith(b"vshell ")
    assert run(["-v"]).returncode == 0
    assert b"--mount" in run(["--help"]).stdout


def test_timeout_status() -> None:
    t0 = time.monotonic()
    p = run(["--timeout", "300ms", "-c", "while :; do :; done"])
    assert p.returncode == 137
    assert time.monotonic() - t0 < 5
    assert run(["--timeout", "0", "-c", "true"]).returncode == 0
    assert run(["--timeout", "1m", "-c", "true"]).returncode == 0


def test_output_limit() -> None:
    p = run(["--output-limit", "5", "-c", "echo 0123456789"])
    assert p.stdout == b"01234"
    assert b"truncated" in p.stderr


def test_env_isolation() -> None:
    env = dict(os.environ, LEAKY="yes")
    p = run(["--env", "A=1", "--env", "LEAKY", "-c", "echo $A $LEAKY; echo ${HOSTPATH:-none}"],
            env=env)
    assert p.stdout == b"1 yes\nnone\n"
    p = run(["-c", "echo ${LEAKY:-unset}"], env=env)
    assert p.stdout == b"unset\n"


def test_cwd_defaults(tmp_path: Path) -> None:
    assert run(["-c", "pwd"]).stdout == b"/\n"
    assert run(["--mount", f"{tmp_path}:/m", "-c", "pwd"]).stdout == b"/m\n"
    assert run(["--mount", f"{tmp_path}:/m", "--cwd", "/tmp", "-c", "pwd"]).stdout == b"/tmp\n"
    assert run(["--cwd", "/nope", "-c", "pwd"]).returncode == 2


def test_file_argument(tmp_path: Path) -> None:
    (tmp_path / "s.sh").write_text('echo "$0 $1 $#"\n')
    p = run(["--mount", f"{tmp_path}:/w", "/w/s.sh", "a", "b"])
    assert p.stdout == b"/w/s.sh a 2\n"
    p = run([str(tmp_path / "s.sh")])  # a host path is not a sandbox path
    assert p.returncode == 127


def test_stdin_repl_line_by_line() -> None:
    p = run([], stdin=b"x=1\nif true; then\n  echo $x\nfi\necho done\n")
    assert p.stdout == b"1\ndone\n"
    assert p.stderr == b""


def test_sigint_and_sigterm() -> None:
    for sig, code in ((signal.SIGINT, 130), (signal.SIGTERM, 143)):
        proc = subprocess.Popen(VSHELL + ["-c", "sleep 10"], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        time.sleep(1.0)
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=10)
        assert proc.returncode == code, err


def test_startup_is_light() -> None:
    """Start-up imports no heavy module: not httpx, wasmtime, prompt_toolkit, jq or pyfakefs,
    and not the slow-to-import stdlib modules (dataclasses with inspect, hashlib)."""
    heavy = ("httpx", "wasmtime", "prompt_toolkit", "jq", "pyfakefs", "dataclasses", "inspect",
             "hashlib")
    code = ("import sys; before = set(sys.modules); import vshell.cli.main\n"
            "try:\n    vshell.cli.main.main(['-c', 'echo hi | cat; x=$((1+2)); [[ a == a ]]'])\n"
            "finally:\n"
            f"    print(sorted(m for m in {heavy!r} if m in set(sys.modules) - before))")
    # a first run may build the parser tables (which imports more); measure a warm start
    subprocess.run([sys.executable, "-m", "vshell", "-c", "true"], capture_output=True,
                   timeout=60)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=30)
    assert p.stdout.endswith(b"[]\n"), p.stdout + p.stderr


# Kept off the start-up path (issue 19): the parser library and RE2 load only for scripts
# that need them; pathlib (with urllib.parse and ipaddress), tempfile, zipfile and
# importlib.resources are not needed at all.
NOT_AT_STARTUP = ("bashlex", "re2", "pathlib", "urllib", "ipaddress", "tempfile", "zipfile",
                  "importlib.resources", "certifi", "httpx", "httpcore", "wasmtime",
                  "prompt_toolkit", "jq", "yaml", "pyfakefs", "dataclasses", "inspect",
                  "hashlib", "mcp")


def _imported_by(code: str) -> list[str]:
    """The modules of NOT_AT_STARTUP that ``code`` imports, in a fresh interpreter.  Its
    site runs no .pth file (-S, then the site directories put on the path by hand), as a
    .pth of the environment may import some of them first (certifi, pathlib); the tree is
    found as the working directory."""
    probe = ("import site, sys; sys.path[1:1] = site.getsitepackages()\n"
             "before = set(sys.modules)\n"
             f"try:\n    exec({code!r})\nfinally:\n"
             "    new = set(sys.modules) - before\n"
             f"    print(sorted(m for m in {NOT_AT_STARTUP!r} if m in new))")
    p = subprocess.run([sys.executable, "-S", "-c", probe], capture_output=True, timeout=60,
                       cwd=Path(__file__).resolve().parents[2])
    assert p.stdout.endswith(b"]\n"), p.stdout + p.stderr
    return ast.literal_eval(p.stdout.decode().splitlines()[-1])


def test_a_one_line_script_starts_without_the_parser_library() -> None:
    """``vshell -c 'echo hi | cat'`` runs without bashlex, re2 or pathlib."""
    code = ("import vshell.cli.main\n"
            "assert vshell.cli.main.main(['-c', 'echo hi | cat; true && echo $HOME']) == 0")
    assert _imported_by(code) == []


# Off the path of a script of plain simple commands (issue 19): the standard library's slow
# imports (typing and re with the enum, functools and sre compiler they load, signal's
# enums, random, math, zlib...) and the parts of vshell such a script never asks for (the
# Protocol modules, the host backend, /dev, FIFOs, deny globs, the expander and the word
# lexer, redirections).
NOT_FOR_PLAIN_WORDS = (
    "typing", "re", "signal", "random", "math", "zlib", "contextlib", "weakref", "importlib",
    "warnings", "unicodedata", "vshell.protocols", "vshell.vfs.protocol",
    "vshell.vfs.host", "vshell.vfs.devices", "vshell.vfs.fifo", "vshell.text.segglob",
    "vshell.interp.expand", "vshell.syntax.words", "vshell.syntax.lexemes", "vshell.text.escapes",
    "vshell.cli.shellflags", "vshell.interp.redirect", "vshell.interp.builtins.resolve",
)
# ... and for `true`, a builtin on its own: no command table, pipeline or command call
NOT_FOR_TRUE = NOT_FOR_PLAIN_WORDS + (
    "vshell.commands", "vshell.interp.stages", "vshell.interp.dispatch", "_random",
)


def _new_modules(code: str) -> list[str]:
    """Every module ``code`` imports, in a fresh interpreter without site's .pth files (as
    _imported_by); the tree is found as the working directory."""
    probe = ("import site, sys; sys.path[1:1] = site.getsitepackages()\n"
             "before = set(sys.modules)\n"
             f"try:\n    exec({code!r})\nfinally:\n"
             "    print(sorted(set(sys.modules) - before))")
    p = subprocess.run([sys.executable, "-S", "-c", probe], capture_output=True, timeout=60,
                       cwd=Path(__file__).resolve().parents[2])
    assert p.stdout.endswith(b"]\n"), p.stdout + p.stderr
    return ast.literal_eval(p.stdout.decode().splitlines()[-1])


def test_true_and_a_pipeline_start_without_typing_re_or_what_they_skip() -> None:
    """``vshell -c true`` and ``vshell -c 'echo hi | cat'`` import none of the modules taken
    off their path (issue 19; README "Start-up"): with one of them back, start-up is a
    millisecond or more slower on every call."""
    for script, banned in (("true", NOT_FOR_TRUE), ("echo hi | cat", NOT_FOR_PLAIN_WORDS)):
        code = f"import vshell.cli.main\nassert vshell.cli.main.main(['-c', {script!r}]) == 0"
        new = _new_modules(code)
        assert "vshell.interp.simple" in new  # the script ran
        back = [m for m in new if any(m == b or m.startswith(b + ".") for b in banned)]
        assert back == [], (script, back)


def test_the_vshell_command_is_its_own_launcher() -> None:
    """pip installs bin/vshell as the ``vshell`` command (pyproject's script-files): a
    [project.scripts] entry would get a wrapper that imports re before vshell runs.  The
    launcher imports gc and vshell.cli.main, nothing else."""
    root = Path(__file__).resolve().parents[2]
    with open(root / "pyproject.toml", "rb") as f:
        project = tomllib.load(f)
    assert "scripts" not in project["project"]
    assert project["tool"]["setuptools"]["script-files"] == ["bin/vshell"]
    launcher = (root / "bin" / "vshell").read_text()
    assert launcher.startswith("#!python\n")
    imported = [a.name if isinstance(node, ast.Import) else node.module
                for node in ast.walk(ast.parse(launcher))
                if isinstance(node, ast.Import | ast.ImportFrom) for a in node.names]
    assert imported == ["gc", "vshell.cli.main"]


def test_import_vshell_imports_nothing_else() -> None:
    """``import vshell`` is as cheap as the interpreter: not even typing (or re).  Without
    site (-S), whose .pth files may import either first; the tree is on the path as cwd."""
    probe = ("import sys; before = set(sys.modules); import vshell\n"
             "print(sorted(set(sys.modules) - before))")
    p = subprocess.run([sys.executable, "-S", "-c", probe], capture_output=True, timeout=60,
                       cwd=Path(__file__).resolve().parents[2])
    assert p.stdout == b"['vshell']\n", p.stdout + p.stderr


def _median_runtime(argv: list[str], n: int = 5) -> float:
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        subprocess.run(argv, capture_output=True, timeout=30)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def test_a_former_backtracking_pattern_now_ends_at_once() -> None:
    """(a|aa)*b held Python's re for minutes; on the RE2 layer it answers at once."""
    script = ('printf "%s\\n" "$(printf "a%.0s" {1..40})" | grep -E "(a|aa)*b";'
              " echo reached $?")
    t0 = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "vshell", "--timeout", "5", "-c", script],
                       capture_output=True, timeout=60)
    assert p.returncode == 0 and p.stdout == b"reached 1\n", (p.returncode, p.stderr)
    assert time.monotonic() - t0 < 10


def test_watchdog_ends_a_process_stuck_in_c() -> None:
    """Nothing vshell runs should hold the interpreter past its timeout any more, but the
    one-shot CLI keeps the kernel's SIGALRM as a last resort: a C loop that never yields
    (sum over a huge range) is ended shortly after the timeout and its grace."""
    code = ("from vshell.cli import run\n"
            "assert run._arm_watchdog(0.5)\n"
            "sum(range(10 ** 13))\n")
    t0 = time.monotonic()
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    assert p.returncode == -signal.SIGALRM, (p.returncode, p.stderr)
    assert time.monotonic() - t0 < 30


def test_every_flag_is_in_both_help_texts() -> None:
    """Each flag ``parse_args`` accepts is in ``vshell --help`` (usage and options) and,
    but the REPL-only ones, in ``vshell mcp --help``; the server's own flags too."""
    import inspect
    import re

    from vshell.cli import args
    from vshell.cli import main as cli
    from vshell.mcp import main as mcp_cli

    accepted = set(re.findall(r'name == "(--[a-z-]+)"', inspect.getsource(args.parse_args)))
    assert {"--mount", "--memory-limit", "--max-jobs", "--overlay"} <= accepted
    usage, _, options = cli.HELP.partition("options:")
    for flag in accepted:
        assert f"[{flag}" in usage, flag
        assert f"  {flag}" in options, flag
    for flag in (accepted - {"--try", "--history-file"}) | set(mcp_cli._OWN):
        assert f"[{flag}" in mcp_cli.USAGE, flag
    for flag in mcp_cli._OWN:
        assert f"  {flag}" in mcp_cli.HELP.partition("server options:")[2], flag


def test_mcp_refuses_repl_only_flags() -> None:
    from vshell.mcp import main as mcp_cli

    for argv in (["--try"], ["--history-file", "/tmp/h"]):
        assert mcp_cli.main(argv) == 2
