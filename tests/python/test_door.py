"""The door back into the shell: the guest's subprocess, os.system and os.popen run vshell
commands in the same sandbox (same files, policies, limits, timeout), never a host process."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from vshell import MemoryMount, Sandbox
from vshell.sandbox import HostMount


@pytest.fixture
def sb(tmp_path: Path, warm: None):
    (tmp_path / "f").write_text("x1\nb\nx2\n")
    with Sandbox(mounts=[HostMount(str(tmp_path), "/work")], timeout=60) as box:
        yield box


def py(sb: Sandbox, code: str, **kw):
    sb.fs.open("/tmp/prog.py", "wb").write(code.encode())
    return sb.exec("cd /work && python3 /tmp/prog.py", **kw)


def test_subprocess_run_ls_captured(sb: Sandbox) -> None:
    res = py(sb, "import subprocess\n"
                 "r = subprocess.run(['ls', '-la'], capture_output=True, text=True)\n"
                 "print(r.returncode, repr(r.stderr)); print(r.stdout)")
    assert res.exit_code == 0, res.stderr
    first, listing = res.stdout.decode().split("\n", 1)
    assert first == "0 ''"
    assert listing.startswith("total ") and " f\n" in listing


def test_os_system_with_a_redirection(sb: Sandbox, tmp_path: Path) -> None:
    res = py(sb, "import os\nst = os.system('grep -c x f > n')\n"
                 "print(st, open('n').read().strip())\n"
                 "print(os.system('exit 3'))")
    assert res.stdout == b"0 2\n768\n", res.stderr
    assert (tmp_path / "n").read_text() == "2\n"


def test_a_script_that_shells_out_to_sort(sb: Sandbox) -> None:
    res = py(sb, "import subprocess\n"
                 "print(subprocess.check_output(['sort'], input=b'b\\na\\nc\\n'))\n"
                 "p = subprocess.Popen(['sort', '-r'], stdin=subprocess.PIPE,\n"
                 "                     stdout=subprocess.PIPE, text=True)\n"
                 "out, err = p.communicate('a\\nc\\nb\\n')\n"
                 "print(repr(out), err, p.returncode, p.wait())\n"
                 "p1 = subprocess.Popen(['cat', 'f'], stdout=subprocess.PIPE)\n"
                 "p2 = subprocess.Popen(['sort'], stdin=p1.stdout, stdout=subprocess.PIPE)\n"
                 "print(p2.stdout.read())")
    assert res.stdout == (b"b'a\\nb\\nc\\n'\n'c\\nb\\na\\n' None 0 0\n"
                          b"b'b\\nx1\\nx2\\n'\n"), res.stderr


def test_shell_strings_popen_and_output_order(sb: Sandbox) -> None:
    res = py(sb, "import os, subprocess, sys\n"
                 "print('before')\n"
                 "subprocess.run(['echo', 'inherited'])\n"
                 "print(subprocess.run('echo $((1+2)) | tr 3 4', shell=True,\n"
                 "                     capture_output=True).stdout)\n"
                 "print(repr(os.popen('echo hi; echo there').read()))\n"
                 "f = os.popen('tr a-z A-Z', 'w'); f.write('up\\n'); print(f.close())\n"
                 "print(os.popen('exit 2').close())\n"
                 "print(subprocess.getoutput('echo go; echo err >&2'))\n"
                 "print(subprocess.call(['false']))\n"
                 "for line in subprocess.Popen(['seq', '2'], stdout=subprocess.PIPE,\n"
                 "                             text=True).stdout: print('L', line.strip())\n"
                 "r = subprocess.run(['sh', '-c', 'echo o; echo e >&2'],\n"
                 "                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT)\n"
                 "print(r.stdout)\n"
                 "print(subprocess.run([sys.executable, '-c', 'print(6*7)'],\n"
                 "                     capture_output=True).stdout)")
    assert res.stdout == (b"before\ninherited\nb'4\\n'\n'hi\\nthere\\n'\nUP\nNone\n512\n"
                          b"go\nerr\n1\nL 1\nL 2\nb'o\\ne\\n'\nb'42\\n'\n"), res.stderr


def test_errors_are_pythons_own(sb: Sandbox) -> None:
    res = py(sb, "import subprocess\n"
                 "try:\n    subprocess.run(['nosuchcmd'])\n"
                 "except FileNotFoundError as e: print('FNF', e.filename)\n"
                 "try:\n    subprocess.check_call(['sh', '-c', 'exit 3'])\n"
                 "except subprocess.CalledProcessError as e: print('CPE', e.returncode)\n"
                 "try:\n    subprocess.run(['sleep', '5'], timeout=0.3)\n"
                 "except subprocess.TimeoutExpired as e: print('TO', e.timeout)\n"
                 "print(subprocess.run('nosuchcmd', shell=True).returncode)")
    assert res.stdout == b"FNF nosuchcmd\nCPE 3\nTO 0.3\n127\n", res.stderr


def test_the_door_keeps_the_sandbox_rules(tmp_path: Path, warm: None) -> None:
    (tmp_path / "secret.env").write_text("TOKEN")
    (tmp_path / "ro.txt").write_text("keep")
    mounts = [HostMount(str(tmp_path), "/work", readonly=True),
              MemoryMount("/mem", files={"a": b"memory\n"})]
    with Sandbox(mounts=mounts, deny=["**/*.env"], timeout=60) as box:
        box.fs.open("/tmp/p.py", "wb").write(
            b"import subprocess as s\n"
            b"r = s.run(['cat', '/work/secret.env'], capture_output=True)\n"
            b"print(r.returncode, r.stdout, b'denied' in r.stderr.lower()"
            b" or b'permission' in r.stderr.lower())\n"
            b"r = s.run('echo x > /work/ro.txt', shell=True, capture_output=True)\n"
            b"print(r.returncode != 0, b'Read-only' in r.stderr)\n"
            b"print(s.run(['cat', '/mem/a'], capture_output=True).stdout)\n"
            b"s.run('echo made > /tmp/made', shell=True)\n")
        res = box.exec("python3 /tmp/p.py; cat /tmp/made")
    assert res.stdout == b"1 b'' True\nTrue True\nb'memory\\n'\nmade\n", res.stderr
    assert (tmp_path / "ro.txt").read_text() == "keep"


def test_the_door_is_held_to_the_runs_timeout(sb: Sandbox) -> None:
    start = time.monotonic()
    res = py(sb, "import subprocess\nsubprocess.run(['sleep', '30'])\nprint('not here')",
             timeout=1.5)
    assert res.outcome.name == "TIMED_OUT" and b"not here" not in res.stdout
    assert time.monotonic() - start < 6


def test_no_host_process_is_started(sb: Sandbox, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*a: object, **k: object) -> None:
        raise AssertionError("a host process was started")

    monkeypatch.setattr(subprocess, "Popen", refuse)
    res = py(sb, "import subprocess, os\n"
                 "print(subprocess.run(['echo', 'ok'], capture_output=True).stdout,"
                 " os.system('true'))")
    assert res.stdout == b"b'ok\\n' 0\n", res.stderr


def test_a_program_cannot_plant_the_boot_code(sb: Sandbox) -> None:
    """The compiled boot code is taken only from a run's boot, as its first request, when
    vshell asked for it; a program's own request is refused and changes nothing."""
    from vshell.python import boot_code, door

    before = boot_code()
    res = py(sb, "import _host, json\n"
                 "print(_host.call(json.dumps({'op': 'boot', 'code': 'AAAA'}).encode()))")
    assert res.stdout == b'b\'{"error": "not asked for"}\'\n', res.stderr
    assert boot_code() == before
    taken: list[bytes] = []
    answer = door.handler(None, taken.append)
    offer = b'{"op": "boot", "code": "AAAA"}'
    assert answer(offer) == b"{}" and taken == [b"\0\0\0"]
    assert b"not asked for" in answer(offer) and taken == [b"\0\0\0"]  # only the first call
