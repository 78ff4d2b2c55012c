"""The command line: programs from -c, -m, a file or stdin; argv, cwd, exit statuses."""

from __future__ import annotations

from pathlib import Path

from pyharness import make_fs, py

from vshell.commands.python import locate_program, split_command_line


def test_print(fs) -> None:
    ran = py(fs, ["-c", "print(1)"])
    assert (ran.status, ran.stdout, ran.stderr) == (0, b"1\n", b"")


def test_python_name_too(fs) -> None:
    assert py(fs, ["-c", "print(2)"], name="python").stdout == b"2\n"


def test_version(fs) -> None:
    for flag in ("-V", "--version"):
        ran = py(fs, [flag])
        assert (ran.status, ran.stdout) == (0, b"Python 3.15.0\n")


def test_exit_statuses(fs) -> None:
    assert py(fs, ["-c", "import sys; sys.exit(3)"]).status == 3
    assert py(fs, ["-c", "import sys; sys.exit(263)"]).status == 7  # like a real process
    assert py(fs, ["-c", "import os; os._exit(9)"]).status == 9
    assert py(fs, ["-c", "raise SystemExit(0)"]).status == 0
    ran = py(fs, ["-c", "import sys; sys.exit('bye')"])
    assert (ran.status, ran.stderr) == (1, b"bye\n")


def test_uncaught_exception(fs) -> None:
    ran = py(fs, ["-c", "1/0"])
    assert ran.status == 1
    assert ran.stderr.startswith(b"Traceback (most recent call last):\n")
    assert ran.stderr.endswith(b"ZeroDivisionError: division by zero\n")


def test_script_file_argv_and_cwd(root: Path, fs) -> None:
    (root / "sub").mkdir()
    (root / "sub" / "s.py").write_text(
        "import os, sys\nprint(sys.argv)\nprint(os.getcwd())\nprint(__file__)\n"
        "print(open('data.txt').read())\n"
    )
    (root / "data.txt").write_text("payload")
    ran = py(fs, ["sub/s.py", "a", "b c"])
    assert ran.status == 0, ran.stderr
    assert ran.stdout == b"['sub/s.py', 'a', 'b c']\n/work\n/work/sub/s.py\npayload\n"


def test_missing_script(fs) -> None:
    ran = py(fs, ["nope.py"])
    assert ran.status == 2
    assert b"can't open file '/work/nope.py'" in ran.stderr


def test_cwd_is_invocation_dir(root: Path, fs) -> None:
    (root / "d").mkdir()
    (root / "d" / "f.txt").write_text("x")
    ran = py(fs, ["-c", "import os; print(os.getcwd(), os.listdir('.'))"], cwd="/work/d")
    assert ran.stdout == b"/work/d ['f.txt']\n"


def test_dash_m_from_cwd(root: Path, fs) -> None:
    (root / "mymod.py").write_text("import sys\nprint('main', __name__, sys.argv[1:])\n")
    ran = py(fs, ["-m", "mymod", "x"])
    assert (ran.status, ran.stdout) == (0, b"main __main__ ['x']\n"), ran.stderr


def test_program_from_stdin(fs) -> None:
    prog = b"import sys\nprint('hi', sys.argv)\n"
    assert py(fs, [], stdin=prog).stdout == b"hi ['']\n"
    assert py(fs, ["-", "q"], stdin=prog).stdout == b"hi ['-', 'q']\n"


def test_flags_pass_through(fs) -> None:
    # The runtime's sys.flags are fixed when it is built (isolated, UTF-8 mode); -O compiles
    # the program's own code optimised (no asserts, __debug__ false) and sets
    # sys.flags.optimize; -W and -X apply.
    code = "import sys; print(sys.flags.isolated, __debug__, sys.warnoptions, end=' ')"
    code += "; assert False; print(sys.flags.utf8_mode, sys._xoptions)"
    ran = py(fs, ["-I", "-B", "-u", "-O", "-W", "error", "-X", "utf8", "-X", "a=b", "-c", code])
    assert ran.stdout == b"1 False ['error'] 1 {'utf8': True, 'a': 'b'}\n", ran.stderr
    # -O and -OO show in sys.flags.optimize as in CPython (the other flags unchanged)
    code = ("import sys; print(sys.flags.optimize, sys.flags.isolated, sys.flags[3], "
            "len(sys.flags), repr(sys.flags).startswith('sys.flags(debug=0'))")
    for opts, level in (([], 0), (["-O"], 1), (["-OO"], 2), (["-O", "-O"], 2)):
        ran = py(fs, [*opts, "-c", code])
        assert ran.stdout == f"{level} 1 {level} 18 True\n".encode(), (opts, ran.stderr)
    ran = py(fs, ["-W", "error", "-c", "import warnings; warnings.warn('w')"])
    assert ran.status == 1 and ran.stderr.endswith(b"UserWarning: w\n"), ran.stderr
    ran = py(fs, ["-Z", "-c", "pass"])
    assert ran.status == 2 and ran.stderr.startswith(b"Unknown option: -Z\n")


def test_pythonpath_relative_to_cwd(root: Path, fs) -> None:
    (root / "lib").mkdir()
    (root / "lib" / "helper.py").write_text("VALUE = 42\n")
    env = {"PYTHONPATH": "lib"}
    ran = py(fs, ["-c", "import helper; print(helper.VALUE)"], env=env)
    assert ran.stdout == b"42\n", ran.stderr


def test_locate_program() -> None:
    assert locate_program(["-u", "x.py", "-c"]) == 1
    assert locate_program(["-c", "pass", "x.py"]) is None
    assert locate_program(["-uc", "pass"]) is None
    assert locate_program(["-W", "error", "x.py"]) == 2
    assert locate_program(["-Werror", "x.py"]) == 1
    assert locate_program(["-m", "mod"]) is None
    assert locate_program(["-", "x.py"]) is None
    assert locate_program(["--", "x.py"]) == 1
    assert locate_program(["-X", "utf8", "--check-hash-based-pycs", "never", "y"]) == 4


def test_stdin_streamed_line_by_line(fs) -> None:
    data = b"".join(b"%d\n" % i for i in range(100_000))
    ran = py(fs, ["-c", "import sys\nn=s=0\nfor l in sys.stdin: n+=1; s+=int(l)\nprint(n, s)"],
             stdin=data)
    assert ran.stdout == b"100000 4999950000\n", ran.stderr


def test_input_and_binary_stdin(fs) -> None:
    ran = py(fs, ["-c", "a=input(); import sys; b=sys.stdin.read(); print(a, len(b))"],
             stdin=b"first\n" + b"x" * 100_000)
    assert ran.stdout == b"first 100000\n"
    ran = py(fs, ["-c", "import sys; b=sys.stdin.buffer.read(); print(b == bytes(range(256)))"],
             stdin=bytes(range(256)))
    assert ran.stdout == b"True\n"


def test_stdout_is_not_a_tty_and_stderr_separate(fs) -> None:
    ran = py(fs, ["-c", ("import sys; print(sys.stdout.isatty(), sys.stdin.isatty());"
                  "print('e', file=sys.stderr)")])
    assert (ran.stdout, ran.stderr) == (b"False False\n", b"e\n")


def test_fresh_state_per_run(root: Path) -> None:
    fs = make_fs(root)
    py(fs, ["-c", "import sys; sys.modules['marker'] = 1; open('/usr/local/lib/x', 'w')"])
    ran = py(fs, ["-c", ("import sys, os; print('marker' in sys.modules,"
                  " os.path.exists('/usr/local/lib/x'))")])
    assert ran.stdout == b"False False\n"


def test_no_site_flag_keeps_cwd_and_argv(root: Path, fs) -> None:
    (root / "d").mkdir()
    (root / "d" / "f.txt").write_text("content")
    (root / "d" / "s.py").write_text(
        "import os, sys\nprint(os.getcwd(), sys.argv, open('f.txt').read(), 'site' in sys.modules,"
        " sys.flags.no_site, sorted(k for k in globals() if k.startswith('_vs')))\n"
    )
    ran = py(fs, ["-S", "s.py", "x"], cwd="/work/d")
    assert ran.stdout == b"/work/d ['s.py', 'x'] content False 1 []\n", ran.stderr
    ran = py(fs, ["-S", "-c", "import os, sys; print(os.getcwd(), sys.argv)", "a"],
             cwd="/work/d")
    assert ran.stdout == b"/work/d ['-c', 'a']\n", ran.stderr
    (root / "d" / "m.py").write_text("import sys; print(__name__, sys.argv[1:])\n")
    ran = py(fs, ["-I", "-S", "-c", "import os; print(os.getcwd())"], cwd="/work/d")
    assert ran.stdout == b"/work/d\n", ran.stderr
    ran = py(fs, ["-S", "-m", "m", "z"], cwd="/work/d")
    assert ran.stdout == b"__main__ ['z']\n", ran.stderr
    ran = py(fs, ["-S"], stdin=b"import os; print(os.getcwd())", cwd="/work/d")
    assert ran.stdout == b"/work/d\n", ran.stderr
    ran = py(fs, ["-S", "-c", "import sys; sys.exit(4)"])
    assert ran.status == 4
    assert py(fs, ["-S", "-c", "1/0"]).stderr == py(fs, ["-c", "1/0"]).stderr  # no extra frames
    assert py(fs, ["-S", "missing.py"]).stderr.startswith(
        b"python3: can't open file '/work/missing.py': [Errno 44]")


def test_split_command_line() -> None:
    line = split_command_line(["-uSc", "code", "a"])
    assert (line.options, line.kind, line.value, line.rest) == (["-uS"], "c", "code", ["a"])
    assert line.no_site
    line = split_command_line(["-Wignore", "-X", "S", "-m", "mod"])
    assert (line.options, line.kind, line.value, line.no_site) == (
        ["-Wignore", "-X", "S"], "m", "mod", False)
    line = split_command_line(["-cprint(1)"])
    assert (line.kind, line.value) == ("c", "print(1)")
    assert split_command_line(["-c"]).kind is None


def test_pip_says_packages_cannot_be_installed(fs) -> None:
    for args in (["-m", "pip", "install", "requests"], ["-m", "ensurepip"]):
        ran = py(fs, args)
        assert ran.status == 1 and ran.stdout == b""
        assert b"packages cannot be installed in the sandbox" in ran.stderr
        assert b"/lib/python/site-packages" in ran.stderr


def test_no_program_at_a_terminal_gives_the_prompt(fs) -> None:
    import io

    class Terminal(io.BytesIO):
        interactive = True  # what the REPL's terminal input says of itself

    ran = py(fs, [], stdin=Terminal(b"6*7\nx = 5\nprint(x + 1)\n1/0\n"))
    assert ran.status == 0, ran.stderr
    assert ran.stdout == b">>> 42\n>>> >>> 6\n>>> >>> "
    assert ran.stderr.startswith(b"Python 3.15.0") and b"ZeroDivisionError" in ran.stderr
    ran = py(fs, ["-q"], stdin=Terminal(b"'q'\n"))
    assert (ran.stdout, ran.stderr) == (b">>> 'q'\n>>> ", b"\n")  # no banner
