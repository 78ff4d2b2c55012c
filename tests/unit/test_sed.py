"""sed: what the differential tests cannot show (e via the sandbox, VFS, chunking, paths)."""

from __future__ import annotations

import io

import pytest

from tests.cmdharness import GNU_ENV, run_cmd
from vshell import commands as builtins
from vshell.command import CancelToken, Invocation
from vshell.commands.sed import command as sed_mod
from vshell.commands.sed.parse import Parser, Piece, SedError
from vshell.interp.dispatch import call_command
from vshell.vfs import VFS, MemoryBackend, Mount


def mem_fs(files: dict[str, bytes | str], deny=None, readonly=False) -> VFS:
    return VFS(mounts=[Mount("/work", MemoryBackend(files), readonly=readonly)], deny=deny or [])


def sed(argv, files=None, stdin=b"", fs=None, env=None):
    fs = fs or mem_fs(files or {})
    return run_cmd(None, ["sed", *argv], stdin, env=env, fs=fs)  # type: ignore[arg-type]


def fake_shell(argv, stdin=None, stdout=None, stderr=None) -> int:
    """A stand-in for inv.run_command: ``sh -c 'echo WORDS'`` only."""
    assert argv[:2] == ["sh", "-c"]
    words = argv[2].split()
    assert words[0] == "echo"
    stdout.write((" ".join(words[1:]) + "\n").encode())
    return 0


def sed_with_shell(argv, stdin: bytes) -> bytes:
    out, err = io.BytesIO(), io.BytesIO()
    inp = io.BytesIO(stdin)
    fs = mem_fs({})
    inv = Invocation(
        name="sed", args=argv, dir="/work", stdin=inp, stdout=out, stderr=err,
        env=dict(GNU_ENV), fs=fs.bind({0: inp, 1: out, 2: err}), cancel=CancelToken(),
        run_command=fake_shell,
    )
    cmd = builtins.lookup("sed")
    assert cmd is not None
    assert call_command(cmd, inv) == 0, err.getvalue()
    return out.getvalue()


def test_e_command_runs_through_the_sandbox():
    assert sed_with_shell(["1e echo hi"], b"a\nb\n") == b"hi\na\nb\n"
    assert sed_with_shell(["e"], b"echo from ps\n") == b"from ps\n"
    assert sed_with_shell(["s/.*/echo X&/e"], b"a\n") == b"Xa\n"


def test_e_without_a_runner_is_an_error():
    r = sed(["e echo hi"], stdin=b"a\n")
    assert r.status == 1
    assert b"cannot run commands" in r.stderr


def test_in_place_with_backup_pattern():
    fs = mem_fs({"d/a.txt": "one\ntwo\n"})
    r = sed(["-ibak/*.orig", "s/o/0/g", "/work/d/a.txt"], fs=fs)
    assert r.status == 4  # the backup directory does not exist
    assert r.stderr == b"sed: cannot rename /work/d/a.txt: No such file or directory\n"
    # with a "/" the backup name is relative to the working directory, as in GNU sed
    fs = mem_fs({"d/a.txt": "one\ntwo\n", "bak/d/keep": ""})
    r = sed(["-ibak/*.orig", "s/o/0/g", "d/a.txt"], fs=fs)
    assert (r.status, r.stdout, r.stderr) == (0, b"", b"")
    with fs.open("/work/d/a.txt") as f:
        assert f.read() == b"0ne\ntw0\n"
    with fs.open("/work/bak/d/a.txt.orig") as f:
        assert f.read() == b"one\ntwo\n"
    assert sorted(fs.listdir("/work/d")) == ["a.txt"]
    fs = mem_fs({"d/a.txt": "one\n"})
    assert sed(["-i~", "s/o/0/", "d/a.txt"], fs=fs).status == 0
    assert sorted(fs.listdir("/work/d")) == ["a.txt", "a.txt~"]


def test_in_place_on_a_read_only_mount():
    fs = mem_fs({"a.txt": "x\n"}, readonly=True)
    r = sed(["-i", "s/x/y/", "a.txt"], fs=fs)
    assert r.status == 4
    assert r.stderr.startswith(b"sed: couldn't open temporary file sed")
    assert r.stderr.endswith(b": Read-only file system\n")
    with fs.open("/work/a.txt") as f:
        assert f.read() == b"x\n"


def test_w_to_a_denied_path():
    fs = mem_fs({}, deny=["/work/secret*"])
    r = sed(["w /work/secret.txt"], stdin=b"a\n", fs=fs)
    assert r.status == 4
    assert r.stderr == b"sed: couldn't open file /work/secret.txt: Permission denied\n"


def test_reading_a_denied_file():
    fs = mem_fs({"s.txt": "a\n", "ok.txt": "b\n"}, deny=["/work/s.txt"])
    r = sed(["p", "s.txt", "ok.txt"], fs=fs)
    assert r.status == 2
    assert r.stdout == b"b\nb\n"
    assert r.stderr == b"sed: can't read s.txt: Permission denied\n"


SCRIPTS = [
    ["s/a/b/g"],
    ["s/a/b/"],
    ["s/\\(a\\)\\(.\\)/\\2\\1/"],
    ["-E", "s/(a)(.)/\\2\\1/g"],
    ["s/x*/-/g"],
    ["-n", "/a/p"],
    ["/a/d"],
    ["-n", "/a/!p"],
    ["$!N;s/\\n/+/"],
    ["-n", "$p"],
    ["2~3d"],
]
INPUTS = [b"", b"a\n", b"abc\nbca\ncab\nxyz\n" * 50, b"abc\nlast-no-eol-a", b"\n\n\na\n"]


@pytest.mark.parametrize("script", SCRIPTS, ids=[" ".join(s) for s in SCRIPTS])
def test_fast_paths_and_chunking_agree_with_the_line_engine(script, monkeypatch):
    files = {f"in{i}": data for i, data in enumerate(INPUTS)}
    names = [f"in{i}" for i in range(len(INPUTS))]
    want = [sed([*script, n], files) for n in names] + [sed([*script, *names], files)]
    monkeypatch.setattr(sed_mod, "CHUNK", 5)
    monkeypatch.setattr(sed_mod.Sed, "fast_path", lambda self: None)
    got = [sed([*script, n], files) for n in names] + [sed([*script, *names], files)]
    for w, g in zip(want, got, strict=True):
        assert (g.status, g.stdout, g.stderr) == (w.status, w.stdout, w.stderr)


def test_R_and_r_dev_stdin():
    r = sed(["R /work/l.txt", "/work/in"], {"l.txt": "L1\nL2\n", "in": "a\nb\nc\n"})
    assert r.stdout == b"a\nL1\nb\nL2\nc\n"
    r = sed(["1r /dev/stdin", "/work/in"], {"in": "a\nb\n"}, stdin=b"X\n")
    assert r.stdout == b"a\nX\nb\n"


def test_script_in_legacy_encoding_works_bytewise():
    r = sed(["s/\xe9/e/"], stdin=b"caf\xe9\n")  # argv carries the byte as surrogate escape
    r = run_cmd(
        None,  # type: ignore[arg-type]
        ["sed", "s/\udce9/e/"], b"caf\xe9 \xc2\xa4\n", fs=mem_fs({}),
    )
    assert r.stdout == b"cafe \xc2\xa4\n"


def test_parser_error_positions():
    def err(script: str) -> str:
        with pytest.raises(SedError) as info:
            Parser([Piece(script, "-e expression #1")], extended=False, utf8=True,
                   posix=False).parse()
        return str(info.value)

    assert err("s/a/b") == "-e expression #1, char 5: unterminated `s' command"
    assert err("k") == "-e expression #1, char 1: unknown command: `k'"
    assert err("{p") == "-e expression #1, char 0: unmatched `{'"
    assert err("p x") == "-e expression #1, char 3: extra characters after command"
    assert err("s/[/x/") == "-e expression #1, char 6: unterminated `s' command"
    with pytest.raises(SedError) as info:
        Parser([Piece("p\n\nk\n", "file s.sed", is_file=True)], extended=False, utf8=True,
               posix=False).parse()
    assert str(info.value) == "file s.sed line 3: unknown command: `k'"


def test_q_exit_status_and_missing_newline():
    r = sed(["2q7"], stdin=b"a\nb\nc\n")
    assert (r.status, r.stdout) == (7, b"a\nb\n")
    r = sed(["q"], stdin=b"a")
    assert r.stdout == b"a\n"
