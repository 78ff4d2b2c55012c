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


def test_popen_output_streams_while_the_child_runs(sb: Sandbox) -> None:
    """The first line arrives while the child still waits for a file the program makes only
    after reading it: the child cannot have ended (nor written its second line) yet."""
    res = py(sb, "import os, subprocess\n"
                 "p = subprocess.Popen(['sh', '-c', 'echo a; while [ ! -e /tmp/go ]; do '\n"
                 "                      'sleep 0.02; done; echo b'], stdout=subprocess.PIPE)\n"
                 "first = p.stdout.readline()\n"
                 "print(first, p.poll())\n"
                 "open('/tmp/go', 'w').close()\n"
                 "print(p.stdout.readline(), p.stdout.readline(), p.wait(), p.returncode)")
    assert res.stdout == b"b'a\\n' None\nb'b\\n' b'' 0 0\n", res.stderr


def test_popen_with_timing_a_before_b(sb: Sandbox) -> None:
    res = py(sb, "import subprocess, time\n"
                 "t = time.monotonic()\n"
                 "p = subprocess.Popen(['sh', '-c', 'echo a; sleep 1; echo b'],\n"
                 "                     stdout=subprocess.PIPE, text=True)\n"
                 "a = p.stdout.readline(); ta = time.monotonic() - t\n"
                 "b = p.stdout.readline(); tb = time.monotonic() - t\n"
                 "print(a.strip(), b.strip(), ta < tb - 0.5, p.wait())")
    assert res.stdout == b"a b True 0\n", res.stderr


def test_popen_stdin_pipe_talks_to_a_running_child(sb: Sandbox) -> None:
    res = py(sb, "import subprocess\n"
                 "p = subprocess.Popen(['cat'], stdin=subprocess.PIPE, stdout=subprocess.PIPE)\n"
                 "for word in (b'one', b'two'):\n"
                 "    p.stdin.write(word + b'\\n'); p.stdin.flush()\n"
                 "    print(p.stdout.readline())\n"
                 "p.stdin.close()\n"
                 "print(p.stdout.read(), p.wait())\n"
                 "p = subprocess.Popen(['head', '-1'], stdin=subprocess.PIPE,\n"
                 "                     stdout=subprocess.PIPE, text=True)\n"
                 "print(repr(p.communicate('x\\ny\\n')[0]), p.returncode)")
    assert res.stdout == b"b'one\\n'\nb'two\\n'\nb'' 0\n'x\\n' 0\n", res.stderr


def test_kill_terminate_timeouts_and_poll(sb: Sandbox) -> None:
    res = py(sb, "import subprocess, time\n"
                 "t = time.monotonic()\n"
                 "p = subprocess.Popen(['sleep', '30'])\n"
                 "print(p.poll()); p.kill(); print(p.wait())\n"
                 "p = subprocess.Popen(['sleep', '30']); p.terminate(); print(p.wait())\n"
                 "try:\n"
                 "    subprocess.run(['sleep', '30'], timeout=0.3)\n"
                 "except subprocess.TimeoutExpired as e:\n"
                 "    print('timeout', e.timeout)\n"
                 "p = subprocess.Popen(['sh', '-c', 'echo part; sleep 30'],\n"
                 "                     stdout=subprocess.PIPE)\n"
                 "try:\n"
                 "    p.communicate(timeout=0.5)\n"
                 "except subprocess.TimeoutExpired as e:\n"
                 "    print('partial', e.output)\n"
                 "p.kill(); print(p.communicate(), p.returncode)\n"
                 "try:\n"
                 "    p2 = subprocess.Popen(['sleep', '30']); p2.wait(timeout=0.2)\n"
                 "except subprocess.TimeoutExpired:\n"
                 "    print('wait timeout', p2.poll()); p2.kill()\n"
                 "print(time.monotonic() - t < 20)")
    assert res.stdout == (b"None\n-9\n-15\ntimeout 0.3\npartial b'part\\n'\n(b'part\\n', None) -9\n"
                          b"wait timeout None\nTrue\n"), res.stderr


def test_wait_without_reading_does_not_deadlock(sb: Sandbox) -> None:
    res = py(sb, "import subprocess\n"
                 "p = subprocess.Popen(['seq', '300000'], stdout=subprocess.PIPE)\n"
                 "print(p.wait(), len(p.stdout.read()))")
    size = sum(len(f"{i}\n") for i in range(1, 300001))
    assert res.stdout == f"0 {size}\n".encode(), res.stderr


def test_children_end_before_the_guest_and_file_targets(sb: Sandbox, tmp_path: Path) -> None:
    res = py(sb, "import subprocess\n"
                 "with open('out.txt', 'w') as f:\n"
                 "    subprocess.run(['echo', 'to a file'], stdout=f)\n"
                 "subprocess.Popen(['sh', '-c', 'sleep 0.3; echo late > late.txt'])\n"
                 "print('done')")
    assert res.stdout == b"done\n", res.stderr
    assert (tmp_path / "out.txt").read_text() == "to a file\n"
    assert (tmp_path / "late.txt").read_text() == "late\n"


def test_os_popen_reads_as_the_command_writes(sb: Sandbox) -> None:
    res = py(sb, "import os\n"
                 "f = os.popen('echo first; while [ ! -e /tmp/go2 ]; do sleep 0.02; done; '\n"
                 "             'echo second')\n"
                 "print(f.readline().strip()); open('/tmp/go2', 'w').close()\n"
                 "print(f.readline().strip(), f.close())")
    assert res.stdout == b"first\nsecond None\n", res.stderr


def test_kill_a_child_blocked_on_a_full_pipe_then_read_the_rest(sb: Sandbox) -> None:
    res = py(sb, "import subprocess\n"
                 "p = subprocess.Popen(['yes'], stdout=subprocess.PIPE)\n"
                 "print(p.stdout.read(4)); p.kill(); print(p.wait())\n"
                 "rest = p.stdout.read()\n"
                 "print(set(rest) <= set(b'y\\n'), len(rest) <= 2 << 20)")
    assert res.stdout == b"b'y\\ny\\n'\n-9\nTrue True\n", res.stderr
