"""jq: options, messages and exit statuses as jq 1.7 prints them, and streaming input."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from tests.cmdharness import run_cmd

pytest.importorskip("jq")

ENV = {"LC_ALL": "C.UTF-8", "TZ": "UTC", "PATH": "/usr/bin:/bin", "HOME": "/work",
       "SECRET_HOST_VAR_SHOULD_NOT_LEAK": ""}


def jq(tmp_path: Path, *argv: str, stdin: bytes = b"", env: dict | None = None):
    return run_cmd(tmp_path, ["jq", *argv], stdin, env=env or {"HOME": "/work", "X": "1"})


def test_pretty_and_compact(tmp_path: Path) -> None:
    r = jq(tmp_path, ".", stdin=b'{"a":[1,{"b":null}],"c":"\xc3\xa9"}')
    assert r.stdout == (
        b'{\n  "a": [\n    1,\n    {\n      "b": null\n    }\n  ],\n  "c": "\xc3\xa9"\n}\n'
    )
    assert jq(tmp_path, "-c", ".", stdin=b'{"a": [1, 2]}').stdout == b'{"a":[1,2]}\n'


def test_number_literals_kept(tmp_path: Path) -> None:
    r = jq(tmp_path, "-c", ".", stdin=b"1.000 100000000000000000001 [1.10] 3.0")
    assert r.stdout == b"1.000\n100000000000000000001\n[1.10]\n3.0\n"
    assert jq(tmp_path, "-n", "1 + 2.0").stdout == b"3\n"


def test_runtime_error_message_and_status(tmp_path: Path) -> None:
    r = jq(tmp_path, ".a", stdin=b'{"a":1}\n"x"\n')
    assert r.stdout == b"1\n"
    assert r.stderr.startswith(b"jq: error (at <stdin>:2): Cannot index string with")
    assert r.status == 5


def test_error_then_success_keeps_going(tmp_path: Path) -> None:
    r = jq(tmp_path, ".a", stdin=b'"x" {"a": 2}\n')
    assert r.stdout == b"2\n"
    assert b"jq: error (at <stdin>:1)" in r.stderr


def test_error_with_object_message(tmp_path: Path) -> None:
    r = jq(tmp_path, "-n", "error({a: 1})")
    assert r.stderr == b'jq: error (at <unknown>) (not a string): {"a":1}\n'
    assert r.status == 5


def test_compile_error_status_3(tmp_path: Path) -> None:
    r = jq(tmp_path, ".a |", stdin=b"1")
    assert r.status == 3
    assert r.stdout == b""
    assert r.stderr.startswith(b"jq: error: syntax error")
    assert r.stderr.endswith(b"jq: 1 compile error\n")


def test_undefined_function_compile_error(tmp_path: Path) -> None:
    r = jq(tmp_path, "-n", "nosuchfn")
    assert r.status == 3
    assert b"nosuchfn/0 is not defined" in r.stderr


def test_parse_error_status_2(tmp_path: Path) -> None:
    r = jq(tmp_path, ".", stdin=b'1 {"a":')
    assert r.stdout == b"1\n"
    assert r.stderr.startswith(b"jq: error (at <stdin>:")
    assert b"Unfinished JSON term" in r.stderr
    assert r.status == 2


def test_exit_status_flag(tmp_path: Path) -> None:
    assert jq(tmp_path, "-e", ".", stdin=b"1").status == 0
    assert jq(tmp_path, "-e", ".", stdin=b"null").status == 1
    assert jq(tmp_path, "-e", ".", stdin=b"false").status == 1
    assert jq(tmp_path, "-e", "empty", stdin=b"1").status == 4
    assert jq(tmp_path, "-e", ".a", stdin=b'"x"').status == 5


def test_unknown_option(tmp_path: Path) -> None:
    r = jq(tmp_path, "-z")
    assert r.status == 2
    assert r.stderr.startswith(b"jq: Unknown option -z\nUse jq --help")


def test_help_and_version(tmp_path: Path) -> None:
    assert jq(tmp_path, "--help").stdout.startswith(b"Usage:\tjq [OPTIONS] FILTER")
    assert jq(tmp_path, "--version").stdout.startswith(b"jq-1.")


def test_raw_join_and_nul(tmp_path: Path) -> None:
    assert jq(tmp_path, "-r", ".[]", stdin=b'["a\\tb", 1]').stdout == b"a\tb\n1\n"
    assert jq(tmp_path, "-j", ".[]", stdin=b'["a", 1]').stdout == b"a1"
    assert jq(tmp_path, "--raw-output0", ".[]", stdin=b'["a", "b"]').stdout == b"a\0b\0"
    r = jq(tmp_path, "--raw-output0", ".", stdin=b'"a\\u0000b"')
    assert r.status == 5 and b"Cannot dump a string containing NUL" in r.stderr


def test_ascii_raw_prints_quotes_like_jq(tmp_path: Path) -> None:
    assert jq(tmp_path, "-r", "-a", ".", stdin='"é"'.encode()).stdout == b'"\\u00e9"\n'


def test_sort_keys_tab_indent(tmp_path: Path) -> None:
    doc = b'{"b": {"y": 1, "x": 2}, "a": 0}'
    assert jq(tmp_path, "-S", "-c", ".", stdin=doc).stdout == b'{"a":0,"b":{"x":2,"y":1}}\n'
    assert jq(tmp_path, "--tab", ".", stdin=b'{"a":[1]}').stdout == b'{\n\t"a": [\n\t\t1\n\t]\n}\n'
    assert jq(tmp_path, "--indent", "1", ".", stdin=b'{"a":1}').stdout == b'{\n "a": 1\n}\n'
    r = jq(tmp_path, "--indent", "9", ".")
    assert r.status == 2 and b"--indent takes a number between -1 and 7" in r.stderr


def test_seq(tmp_path: Path) -> None:
    assert jq(tmp_path, "--seq", "-c", ".", stdin=b"\x1e[1]\n").stdout == b"\x1e[1]\n"
    r = jq(tmp_path, "--seq", "-c", ".", stdin=b"[1]\n")
    assert r.stderr.startswith(b"jq: ignoring parse error (at <stdin>:1): Unfinished abandoned")


def test_args_and_named(tmp_path: Path) -> None:
    r = jq(tmp_path, "-n", "-c", "--arg", "a", "x", "--argjson", "b", "[1]", "$ARGS", "--args",
           "p", "q")
    assert r.stdout == b'{"positional":["p","q"],"named":{"a":"x","b":[1]}}\n'
    r = jq(tmp_path, "-n", "--argjson", "b", "{bad", "$b")
    assert r.status == 2 and r.stderr.startswith(b"jq: invalid JSON text passed to --argjson")
    r = jq(tmp_path, "-n", "--arg", "a")
    assert r.status == 2 and b"--arg takes two parameters" in r.stderr


def test_slurpfile_rawfile_and_missing(tmp_path: Path) -> None:
    (tmp_path / "v.json").write_text("1 [2]")
    (tmp_path / "t.txt").write_text("hi\n")
    r = jq(tmp_path, "-n", "-c", "--slurpfile", "v", "v.json", "--rawfile", "t", "t.txt",
           "[$v, $t]")
    assert r.stdout == b'[[1,[2]],"hi\\n"]\n'
    r = jq(tmp_path, "-n", "--slurpfile", "v", "nope.json", "$v")
    assert r.status == 2 and b"nope.json" in r.stderr


def test_files_and_missing_file(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text('{"x": 1}\n')
    r = jq(tmp_path, "-c", ".x", "a.json", "missing.json")
    assert r.stdout == b"1\n"
    assert r.stderr == b"jq: error: Could not open missing.json: No such file or directory\n"
    assert r.status == 2


def test_error_position_names_the_file(tmp_path: Path) -> None:
    (tmp_path / "b.json").write_text('1\n2\n"s"\n')
    r = jq(tmp_path, ".+1", "b.json")
    assert r.stdout == b"2\n3\n"
    assert r.stderr.startswith(b"jq: error (at b.json:3): ")


def test_from_file(tmp_path: Path) -> None:
    (tmp_path / "p.jq").write_text("# comment\n.a\n")
    assert jq(tmp_path, "-f", "p.jq", stdin=b'{"a": 5}').stdout == b"5\n"
    r = jq(tmp_path, "-f", "nope.jq")
    assert r.status == 2 and b"Could not open nope.jq" in r.stderr


def test_input_and_inputs(tmp_path: Path) -> None:
    assert jq(tmp_path, "-n", "-c", "[inputs]", stdin=b"1 2 3").stdout == b"[1,2,3]\n"
    assert jq(tmp_path, "-c", "[., input]", stdin=b"1 2 3 4").stdout == b"[1,2]\n[3,4]\n"
    r = jq(tmp_path, "-n", "-c", "[inputs]", stdin=b"")
    assert r.stdout == b"[]\n"
    assert jq(tmp_path, "-nR", "-c", "[inputs]", stdin=b"a\nb").stdout == b'["a","b"]\n'


def test_raw_input(tmp_path: Path) -> None:
    assert jq(tmp_path, "-R", ".", stdin=b"a\nb").stdout == b'"a"\n"b"\n'
    assert jq(tmp_path, "-Rs", ".", stdin=b"a\nb\n").stdout == b'"a\\nb\\n"\n'
    assert jq(tmp_path, "-R", ".", stdin=b"\xff\n").stdout == '"\ufffd"\n'.encode()


def test_debug_and_stderr_go_to_our_stderr(tmp_path: Path) -> None:
    r = jq(tmp_path, "-n", "-c", "1 | debug | stderr")
    assert r.stdout == b"1\n"
    assert r.stderr.startswith(b'["DEBUG:",1]\n')


def test_halt_and_halt_error(tmp_path: Path) -> None:
    r = jq(tmp_path, "-n", '"bye\\n" | halt_error')
    assert (r.status, r.stderr) == (5, b"bye\n")
    r = jq(tmp_path, "-n", '{"a":1} | halt_error(3)')
    assert (r.status, r.stderr) == (3, b'{"a":1}\n')
    assert jq(tmp_path, "-c", "halt", stdin=b"1 2").status == 0


def test_env_is_the_sandbox_environment(tmp_path: Path) -> None:
    r = jq(tmp_path, "-n", "-c", "[env.X, $ENV.X, (env | has(\"PATH\"))]")
    assert r.stdout == b'["1","1",false]\n'


def test_library_path_is_not_the_host(tmp_path: Path) -> None:
    r = jq(tmp_path, "-n", 'include "etc/passwd"; 1')
    assert r.status == 3


def test_jq_17_builtins_still_there(tmp_path: Path) -> None:
    r = jq(tmp_path, "-c", "[leaf_paths]", stdin=b'{"a": [1, {"b": 2}]}')
    assert r.stdout == b'[["a",0],["a",1,"b"]]\n'


def test_streaming_many_values(tmp_path: Path) -> None:
    data = b"".join(b'{"i": %d, "s": "%s"}\n' % (i, b"x" * (i % 50)) for i in range(20000))
    r = jq(tmp_path, "-c", "select(.i % 5000 == 0) | .i", stdin=data)
    assert r.stdout == b"0\n5000\n10000\n15000\n"
    # a value split across read chunks
    big = b'{"k": "' + b"y" * 200000 + b'"}\n1\n'
    assert jq(tmp_path, "-c", "length", stdin=big).stdout == b"1\n1\n"


def test_stream_option(tmp_path: Path) -> None:
    r = jq(tmp_path, "--stream", "-c", ".", stdin=b'{"a":[1]}')
    assert r.stdout == b'[["a",0],1]\n[["a",0]]\n[["a"]]\n'


def test_reads_stdin_in_chunks(tmp_path: Path) -> None:
    """Without -s or input, jq does not read everything before producing output."""

    class Chunked(io.RawIOBase):
        def __init__(self) -> None:
            self.reads = 0

        def readable(self) -> bool:
            return True

        def read(self, n: int = -1) -> bytes:
            self.reads += 1
            if self.reads > 3:
                return b""
            return b"1\n" * 10

    from tests.cmdharness import make_fs
    from vshell import commands as builtins
    from vshell.command import CancelToken, Invocation
    from vshell.interp.dispatch import call_command

    src = Chunked()
    out, err = io.BytesIO(), io.BytesIO()
    inv = Invocation(name="jq", args=["-c", "."], dir="/work", stdin=src,  # type: ignore[arg-type]
                     stdout=out, stderr=err, env={}, fs=make_fs(tmp_path), cancel=CancelToken())
    cmd = builtins.lookup("jq")
    assert cmd is not None
    assert call_command(cmd, inv) == 0
    assert out.getvalue() == b"1\n" * 30
    assert src.reads == 4
