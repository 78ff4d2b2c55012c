"""Shared fixtures for the files-and-system differential tests (vshell vs GNU on this host)."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

from cmdharness import run_cmd, run_gnu, write_files

FILES: dict[str, bytes | str] = {
    "a.txt": "hello\nworld\n",
    "b.txt": "x\n\n\n\ty\x01\xff\n",
    "empty": "",
    "noeol": "no newline",
    "d/one": "1\n",
    "d/.hidden": "h\n",
    "d/sub/two.txt": "22\n",
    "e/": "",
    "big.bin": bytes(range(256)) * 300,
    "space name": "s\n",
}

OLD = 1577880000  # 2020-01-01 12:00 UTC
MID = 1700000000


def build(root: Path) -> None:
    """A small tree with files, directories, symlinks and fixed old timestamps."""
    for name, data in FILES.items():
        if name.endswith("/"):
            (root / name).mkdir(parents=True, exist_ok=True)
        else:
            write_files(root, {name: data})
    os.symlink("a.txt", root / "link")
    os.symlink("d", root / "dlink")
    os.symlink("nowhere", root / "dangling")
    os.chmod(root / "d/one", 0o755)
    for dirpath, dirnames, filenames in os.walk(root, topdown=False):
        for n in filenames + dirnames:
            p = os.path.join(dirpath, n)
            os.utime(p, (OLD, OLD + hash(n) % 1000), follow_symlinks=False)
    os.utime(root / "b.txt", (MID, MID))
    os.utime(root, (OLD, OLD))


def snapshot(root: Path) -> dict[str, tuple]:
    """Everything observable about a tree (types, modes, contents, link targets)."""
    out: dict[str, tuple] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for n in sorted(dirnames + filenames):
            p = os.path.join(dirpath, n)
            rel = os.path.relpath(p, root)
            s = os.lstat(p)
            if stat.S_ISLNK(s.st_mode):
                out[rel] = ("l", os.readlink(p))
            elif stat.S_ISDIR(s.st_mode):
                out[rel] = ("d", stat.S_IMODE(s.st_mode))
            else:
                out[rel] = ("f", stat.S_IMODE(s.st_mode), Path(p).read_bytes())
    return out


def same_effect(tmp: Path, argv: list[str], stdin: bytes = b"", times: bool = False,
                setup=build, cwd: str = "") -> None:
    """Run argv with GNU in one copy of a tree and with vshell in another; compare all."""
    g, v = tmp / "g", tmp / "v"
    for r in (g, v):
        if r.exists():
            shutil.rmtree(r)
        r.mkdir()
        setup(r)
    want = run_gnu(g / cwd if cwd else g, argv, stdin)
    got = run_cmd(v, argv, stdin, cwd="/work/" + cwd if cwd else "/work")
    assert got.stdout == want.stdout.replace(os.fsencode(str(g)), b"/work"), (
        argv, got.stdout, want.stdout)
    assert got.stderr == want.stderr.replace(os.fsencode(str(g)), b"/work"), (
        argv, got.stderr, want.stderr)
    assert got.status == want.status, (argv, got.status, want.status)
    assert snapshot(v) == snapshot(g), argv
    if times:
        for rel in snapshot(g):
            sg, sv = os.lstat(g / rel), os.lstat(v / rel)
            assert sg.st_mtime_ns == sv.st_mtime_ns, (argv, rel)


def run_with_commands(root: Path, argv: list[str], stdin: bytes = b"",
                      env: dict[str, str] | None = None, cwd: str = "/work"):
    """Like cmdharness.run_cmd, but with ``inv.run_command`` wired to the shipped commands
    (what the interpreter provides), for find -exec, xargs, env and timeout."""
    import io

    from cmdharness import GNU_ENV, Ran, make_fs

    from vshell import commands as builtins
    from vshell.command import CancelToken, Invocation
    from vshell.interp.dispatch import call_command

    fs = make_fs(root)
    token = CancelToken()

    def invoke(argv, stdin_stream, out, err, env_map, directory, timeout=None):
        cmd = builtins.lookup(argv[0])
        if cmd is None and argv[0] == "echo":  # a shell builtin in vshell: enough of it here
            out.write(" ".join(argv[1:]).encode() + b"\n")
            return 0
        if cmd is None:
            err.write(f"vshell: {argv[0]}: command not found\n".encode())
            return 127
        inv = Invocation(
            name=argv[0], args=list(argv[1:]), dir=directory, stdin=stdin_stream, stdout=out,
            stderr=err, env=dict(env_map), fs=fs.bind({0: stdin_stream, 1: out, 2: err}),
            cancel=token,
        )
        inv.run_command = lambda a, stdin=None, stdout=None, stderr=None, env=None, cwd=None, \
            timeout=None: invoke(
                a,
                io.BytesIO(stdin) if isinstance(stdin, bytes) else (stdin or stdin_stream),
                stdout or out, stderr or err, env if env is not None else env_map,
                cwd or directory, timeout)
        return call_command(cmd, inv)

    out, err = io.BytesIO(), io.BytesIO()
    status = invoke(argv, io.BytesIO(stdin), out, err, GNU_ENV if env is None else env, cwd)
    return Ran(status, out.getvalue(), err.getvalue())
