"""The guest sees exactly the sandbox: mounts, read-only rules, deny patterns, env, no host."""

from __future__ import annotations

import os
from pathlib import Path

from pyharness import make_fs, py

from vshell.vfs import VFS, HostBackend, MemoryBackend, Mount


def test_read_write_list_rename_delete_on_host_mount(root: Path, fs) -> None:
    (root / "in.txt").write_text("one\ntwo\n")
    prog = """
import os, shutil
lines = open('in.txt').read().splitlines()
os.mkdir('out')
with open('out/a.txt', 'w') as f:
    f.write(','.join(lines))
with open('out/a.txt', 'a') as f:
    f.write('!')
os.rename('out/a.txt', 'out/b.txt')
shutil.copy('out/b.txt', 'out/c.txt')
print(sorted(os.listdir('out')))
os.remove('in.txt')
with open('out/c.txt', 'r+b') as f:
    f.seek(2); f.write(b'X'); f.seek(0); print(f.read())
print(os.path.getsize('out/b.txt'), os.path.isdir('out'), os.path.exists('in.txt'))
os.makedirs('deep/er/est')
for d, subs, files in os.walk('.'):
    pass
shutil.rmtree('deep')
print(os.path.exists('deep'))
"""
    ran = py(fs, ["-c", prog])
    assert ran.status == 0, ran.stderr
    assert ran.stdout == b"['b.txt', 'c.txt']\nb'onX,two!'\n8 True False\nFalse\n"
    assert (root / "out" / "b.txt").read_text() == "one,two!"
    assert not (root / "in.txt").exists()
    assert not (root / "deep").exists()
    assert not list(root.rglob("__pycache__"))


def test_stat_times_truncate_and_symlinks(root: Path, fs) -> None:
    (root / "f").write_bytes(b"123456")
    prog = """
import os
os.utime('f', (1000000000, 1500000000))
st = os.stat('f')
print(int(st.st_mtime), st.st_size)
os.truncate('f', 3)
print(open('f', 'rb').read())
os.symlink('f', 'lnk')
print(os.readlink('lnk'), os.path.islink('lnk'), open('lnk').read())
"""
    ran = py(fs, ["-c", prog])
    assert ran.stdout == b"1500000000 6\nb'123'\nf True 123\n", ran.stderr
    assert os.readlink(root / "lnk") == "f"


def test_read_only_mount(root: Path, tmp_path: Path) -> None:
    ro = tmp_path / "ro"
    ro.mkdir()
    (ro / "keep.txt").write_text("kept")
    fs = make_fs(root, extra=[Mount("/ro", HostBackend(str(ro)), readonly=True)])
    prog = """
import errno, os
print(open('/ro/keep.txt').read())
for op in (lambda: open('/ro/new.txt', 'w'), lambda: open('/ro/keep.txt', 'a'),
           lambda: os.remove('/ro/keep.txt'), lambda: os.mkdir('/ro/d'),
           lambda: os.rename('/ro/keep.txt', '/ro/x')):
    try:
        op()
        print('allowed')
    except OSError as e:
        print(e.errno == errno.EROFS, e.strerror)
"""
    ran = py(fs, ["-c", prog])
    assert ran.status == 0, ran.stderr
    assert ran.stdout.splitlines() == [b"kept"] + [b"True Read-only file system"] * 5
    assert sorted(p.name for p in ro.iterdir()) == ["keep.txt"]


def test_memory_mount(root: Path) -> None:
    mem = MemoryBackend({"seed.txt": "seeded"})
    fs = make_fs(root, extra=[Mount("/mem", mem)])
    ran = py(fs, ["-c", ("import os\nprint(open('/mem/seed.txt').read())\n"
                  "open('/mem/new.bin','wb').write(b'\\0'*10)\nprint(sorted(os.listdir('/mem')))")])
    assert ran.stdout == b"seeded\n['new.bin', 'seed.txt']\n", ran.stderr
    ran = py(fs, ["-c", "print(len(open('/mem/new.bin','rb').read()))"])
    assert ran.stdout == b"10\n"


def test_tmp_is_writable(fs) -> None:
    ran = py(fs, ["-c", ("import tempfile\nwith tempfile.NamedTemporaryFile() as f:\n"
                  "    f.write(b'x'); f.flush(); print(f.name.startswith('/tmp/'))")])
    assert ran.stdout == b"True\n", ran.stderr


def test_deny_patterns_hidden_and_refused(root: Path) -> None:
    (root / ".env").write_text("SECRET=1")
    (root / "secrets").mkdir()
    (root / "secrets" / "k").write_text("key")
    (root / "ok.txt").write_text("ok")
    fs = make_fs(root, deny=["**/.env", "/work/secrets"])
    prog = """
import os, glob
print(sorted(os.listdir('/work')))
for p in ('/work/.env', '.env', '/work/secrets/k', 'secrets/../.env'):
    try:
        open(p).read(); print('READ', p)
    except OSError as e:
        print(type(e).__name__)
try:
    open('/work/.env', 'w')
except OSError as e:
    print('write', type(e).__name__)
print(glob.glob('**', recursive=True, include_hidden=True))
"""
    ran = py(fs, ["-c", prog])
    assert ran.status == 0, ran.stderr
    out = ran.stdout.decode().splitlines()
    assert out[0] == "['ok.txt']"
    assert all(line in ("PermissionError", "FileNotFoundError") for line in out[1:5]), out
    assert out[5] in ("write PermissionError", "write FileNotFoundError")
    assert out[6] == "['ok.txt']"
    assert (root / ".env").read_text() == "SECRET=1"


def test_symlink_escape_refused(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("host secret")
    (root / "esc").symlink_to(outside)
    (root / "escdir").symlink_to("/etc")
    fs = make_fs(root)
    prog = """
for p in ('esc', 'escdir/passwd', '/work/../../etc/passwd', '../../../etc/passwd', '/etc/passwd'):
    try:
        print('READ', open(p).read()[:20])
    except OSError as e:
        print(type(e).__name__)
"""
    ran = py(fs, ["-c", prog])
    assert ran.status == 0, ran.stderr
    assert b"READ" not in ran.stdout
    assert b"host secret" not in ran.stdout


def test_root_listing_is_the_sandbox(root: Path, fs) -> None:
    ran = py(fs, ["-c", "import os; print(sorted(os.listdir('/')))"])
    assert ran.stdout.decode().strip() == repr(sorted(fs.listdir("/")))


def test_guest_files_are_read_only(fs) -> None:
    ran = py(fs, ["-c", ("import os\ntry:\n open('/pyvenv.cfg','w')\nexcept OSError as e:"
                  " print(e.strerror)\ntry:\n os.remove('/pyvenv.cfg')\nexcept OSError as e:"
                  " print(e.strerror)")])
    assert ran.stdout == b"Read-only file system\nRead-only file system\n"


def test_environment_is_the_invocation_env(fs, monkeypatch) -> None:
    monkeypatch.setenv("HOST_ONLY_SECRET", "leak")
    ran = py(fs, ["-c", "import os; print(sorted(os.environ.items()))"],
             env={"A": "1", "LANG": "C.UTF-8"})
    assert ran.stdout == b"[('A', '1'), ('LANG', 'C.UTF-8')]\n"
    ran = py(fs, ["-c", "import os; print(dict(os.environ))"], env={})
    assert ran.stdout == b"{}\n"


def test_no_processes_no_sockets_no_threads(fs) -> None:
    prog = """
import subprocess, socket, os
for name, op in (('subprocess', lambda: subprocess.run(['ls'])),
                 ('socket', lambda: socket.socket().connect(('127.0.0.1', 80))),
                 ('system', lambda: os.system('ls'))):
    try:
        r = op()
        print(name, 'returned', r)
    except (OSError, AttributeError, RuntimeError) as e:
        print(name, type(e).__name__)
"""
    ran = py(fs, ["-c", prog])
    assert ran.status == 0, ran.stderr
    for line in ran.stdout.decode().splitlines():
        assert "returned" not in line or line.endswith(("returned -1", "returned 127")), line


def test_dev_null_and_urandom(fs) -> None:
    ran = py(fs, ["-c", ("import os\nopen('/dev/null','w').write('x')\n"
                  "print(open('/dev/null').read() == '', len(os.urandom(16)))")])
    assert ran.stdout == b"True 16\n", ran.stderr


def test_site_packages_convention(root: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "pkga").mkdir(parents=True)
    (site / "pkga" / "__init__.py").write_text("NAME = 'pkga'\n")
    (site / "extra").mkdir()
    (site / "extra" / "viapth.py").write_text("OK = True\n")
    (site / "x.pth").write_text("extra\n")
    vfs = VFS(mounts=[Mount("/work", HostBackend(str(root))),
                      Mount("/lib/python/site-packages", HostBackend(str(site)),
                            readonly=True)])
    ran = py(vfs, ["-c", "import pkga, viapth; print(pkga.NAME, viapth.OK)"])
    assert (ran.status, ran.stdout) == (0, b"pkga True\n"), ran.stderr
    ran = py(vfs, ["-I", "-c", "import pkga; print(pkga.NAME)"])
    assert ran.stdout == b"pkga\n", ran.stderr


def test_a_missing_module_says_what_vshell_can_do(fs) -> None:
    """Not CPython's hint for a build without site ("enable your virtual environment?")."""
    ran = py(fs, ["-c", "import requests"])
    assert ran.status == 1
    last = ran.stderr.decode().splitlines()[-1]
    assert last.startswith("ModuleNotFoundError: No module named 'requests'. vshell's Python")
    assert "/lib/python/site-packages" in last and "virtual environment" not in last
    ran = py(fs, ["-c", "try:\n import nosuchmod\nexcept ImportError as e:\n print(e)"])
    assert ran.stdout == b"No module named 'nosuchmod'\n"  # the exception itself is unchanged


def test_no_site_packages_mount_costs_nothing(fs) -> None:
    ran = py(fs, ["-c", "import sys; print([p for p in sys.path if 'lib/python/' in p])"])
    assert ran.stdout == b"[]\n"


def test_descriptor_calls(root: Path, fs) -> None:
    prog = """
import os, select
fd = os.open('f.bin', os.O_RDWR | os.O_CREAT, 0o644)
os.write(fd, b'0123456789')
print(os.pread(fd, 4, 2), os.lseek(fd, 0, os.SEEK_CUR))
os.pwrite(fd, b'AB', 8)
os.fsync(fd)
os.ftruncate(fd, 9)
os.utime(fd, (5, 6)) if os.utime in os.supports_fd else os.utime('f.bin', (5, 6))
print(os.fstat(fd).st_size, int(os.stat('f.bin').st_mtime))
os.close(fd)
print(open('f.bin', 'rb').read())
os.link('f.bin', 'g.bin')
print(open('g.bin', 'rb').read())
r, w, _ = select.select([0], [1], [], 0)
print(r, w)
try:
    os.close(99)
except OSError as e:
    print('EBADF', e.errno)
"""
    ran = py(fs, ["-c", prog])
    assert ran.status == 0, ran.stderr
    assert ran.stdout.decode().splitlines() == [
        "b'2345' 10", "9 6", "b'01234567A'", "b'01234567A'", "[0] [1]", "EBADF 8"]


def test_final_slash_follows_a_link_in_the_guest(fs) -> None:
    prog = """
import os, stat
os.chdir('/tmp')
os.mkdir('real'); os.symlink('real', 'd'); open('file', 'w').close(); os.symlink('file', 'fl')
print(stat.S_ISDIR(os.lstat('d/').st_mode), stat.S_ISLNK(os.lstat('d').st_mode))
for call in (lambda: os.readlink('d/'), lambda: os.unlink('fl/'), lambda: os.rename('d/', 'e')):
    try:
        call()
        print('done')
    except OSError as e:
        print(type(e).__name__)
print(sorted(os.listdir('.')))
"""
    ran = py(fs, ["-c", prog])
    assert ran.status == 0, ran.stderr
    assert ran.stdout == (
        b"True True\nOSError\nNotADirectoryError\nNotADirectoryError\n"
        b"['d', 'file', 'fl', 'real']\n"
    )
