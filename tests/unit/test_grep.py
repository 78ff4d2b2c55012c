"""grep: what the differential tests cannot show (VFS rules, chunking, streams, options)."""

from __future__ import annotations

import io
import os

import pytest

from tests.cmdharness import run_cmd, write_files
from vshell import commands as builtins
from vshell.command import Cancelled, CancelToken, Invocation
from vshell.commands import grep as grep_mod
from vshell.interp.dispatch import call_command
from vshell.vfs import VFS, MemoryBackend, Mount

TEXT = "".join(f"line {i} {'match' if i % 7 == 0 else 'other'}\n" for i in range(1, 200))


def mem_fs(files: dict[str, bytes | str], deny: list[str] | None = None) -> VFS:
    return VFS(mounts=[Mount("/work", MemoryBackend(files))], deny=deny or [])


def grep(argv: list[str], files=None, stdin: bytes = b"", deny=None, env=None):
    fs = mem_fs(files or {}, deny)
    return run_cmd(None, ["grep", *argv], stdin, env=env, fs=fs)  # type: ignore[arg-type]


def test_registered_names():
    for name in ("grep", "egrep", "fgrep"):
        assert builtins.lookup(name) is not None


def test_denied_file_is_permission_denied():
    r = grep(["x", "/work/secret.txt", "/work/ok.txt"],
             {"secret.txt": "x\n", "ok.txt": "x\n"}, deny=["/work/secret.txt"])
    assert r.status == 2
    assert r.stdout == b"/work/ok.txt:x\n"
    assert r.stderr == b"grep: /work/secret.txt: Permission denied\n"


def test_quiet_match_beats_error():
    r = grep(["-q", "x", "missing", "ok.txt"], {"ok.txt": "x\n"})
    assert r.status == 0


def test_egrep_fgrep():
    files = {"f": "a.c\nabc\n"}
    assert grep.__name__  # keep flake quiet
    r = run_cmd(None, ["fgrep", "a.c", "/work/f"], fs=mem_fs(files))  # type: ignore[arg-type]
    assert r.stdout == b"a.c\n"
    r = run_cmd(None, ["egrep", "a(.)c", "/work/f"], fs=mem_fs(files))  # type: ignore[arg-type]
    assert r.stdout == b"a.c\nabc\n"


def test_patterns_from_stdin():
    r = grep(["-f", "-", "/work/t"], {"t": "one\ntwo\nthree\n"}, stdin=b"one\nthr\n")
    assert r.stdout == b"one\nthree\n"


@pytest.mark.parametrize(
    "argv",
    [
        ["match"],
        ["-n", "match"],
        ["-c", "match"],
        ["-vn", "match"],
        ["-b", "-o", "match"],
        ["-n", "-C2", "match"],
        ["-n", "-A3", "-m4", "match"],
        ["-B5", "line 1[0-9]5"],
        ["-c", "-v", "e"],
        ["-x", "line 77 match"],
    ],
)
def test_chunk_boundaries_do_not_matter(argv, monkeypatch):
    """The same results with a tiny read size (lines split across reads)."""
    files = {"t": TEXT}
    want = grep([*argv, "/work/t"], files)
    monkeypatch.setattr(grep_mod, "CHUNK", 7)
    got = grep([*argv, "/work/t"], files)
    assert (got.status, got.stdout, got.stderr) == (want.status, want.stdout, want.stderr)


def test_binary_detected_in_a_later_chunk(monkeypatch):
    monkeypatch.setattr(grep_mod, "CHUNK", 16)
    data = b"a1\n" * 20 + b"a\x00b\n" + b"a2\n"
    r = grep(["a", "/work/b"], {"b": data})
    assert r.status == 0
    assert r.stdout.startswith(b"a1\n")
    assert r.stderr == b"grep: /work/b: binary file matches\n"


def test_long_line_without_newline():
    data = b"x" * 300000 + b"needle" + b"y" * 300000
    r = grep(["-c", "needle", "/work/l"], {"l": data})
    assert r.stdout == b"1\n"
    r = grep(["-o", "needle", "/work/l"], {"l": data})
    assert r.stdout == b"needle\n"


def test_recursive_symlinks(tmp_path):
    write_files(tmp_path, {"d/a.txt": "hit\n", "other/b.txt": "hit\n"})
    os.symlink("../other", tmp_path / "d" / "link")
    os.symlink("a.txt", tmp_path / "d" / "alias.txt")
    r = run_cmd(tmp_path, ["grep", "-r", "hit", "d"])
    assert r.stdout == b"d/a.txt:hit\n"
    r = run_cmd(tmp_path, ["grep", "-R", "hit", "d"])
    assert r.stdout == b"d/a.txt:hit\nd/alias.txt:hit\nd/link/b.txt:hit\n"


def test_recursive_without_operand_omits_dot(tmp_path):
    write_files(tmp_path, {"x/y.txt": "hit\n"})
    r = run_cmd(tmp_path, ["grep", "-rn", "hit"])
    assert r.stdout == b"x/y.txt:1:hit\n"


def test_utf8_text_mode_and_c_locale():
    files = {"u": "é\nab\n".encode()}
    r = grep(["-c", "^.$", "/work/u"], files)
    assert r.stdout == b"1\n"
    r = grep(["-c", "^..$", "/work/u"], files, env={"LC_ALL": "C"})
    assert r.stdout == b"2\n"


def test_cancellation_stops_a_long_search():
    fs = mem_fs({"t": TEXT * 10})
    token = CancelToken()
    token.cancel()
    out, err = io.BytesIO(), io.BytesIO()
    inv = Invocation(
        name="grep", args=["x", "/work/t"], dir="/work", stdin=io.BytesIO(), stdout=out,
        stderr=err, env={"LC_ALL": "C.UTF-8"}, fs=fs, cancel=token,
    )
    cmd = builtins.lookup("grep")
    assert cmd is not None
    with pytest.raises(Cancelled):
        call_command(cmd, inv)


class _ClosedPipe(io.RawIOBase):
    def write(self, b):  # type: ignore[override]
        raise BrokenPipeError()


def test_broken_pipe_is_status_141():
    fs = mem_fs({"t": TEXT})
    inv = Invocation(
        name="grep", args=["line", "/work/t"], dir="/work", stdin=io.BytesIO(),
        stdout=_ClosedPipe(), stderr=io.BytesIO(), env={}, fs=fs,  # type: ignore[arg-type]
        cancel=CancelToken(),
    )
    cmd = builtins.lookup("grep")
    assert cmd is not None
    assert call_command(cmd, inv) == 141


def test_perl_mode_basics():
    files = {"p": "foo123\nbar\n"}
    assert grep(["-oP", r"\d+$", "/work/p"], files).stdout == b"123\n"
    # -P runs on RE2: look-around is refused with a clear message, never backtracked
    r = grep(["-oP", r"\d+(?=$)", "/work/p"], files)
    assert r.status == 2 and b"unsupported -P construct" in r.stderr
    r = grep(["-P", "-e", "a", "-e", "b", "/work/p"], files)
    assert r.status == 2
    assert r.stderr == b"grep: the -P option only supports a single pattern\n"


def test_dereference_recursive_stops_at_a_loop(tmp_path):
    write_files(tmp_path, {"loop/a/f": "hit\n"})
    os.symlink("..", tmp_path / "loop" / "a" / "up")
    r = run_cmd(tmp_path / "loop", ["grep", "-R", "hit", "a"])
    assert r.stdout == b"a/f:hit\n"
    assert r.stderr == b"grep: a/up/a: warning: recursive directory loop\n"
    assert r.status == 0
