"""File and system commands run through the whole sandbox: pipes, cancellation, the
shell's run_command (find -exec, xargs, env, timeout), mounts, deny rules and archives
with hostile member names."""

from __future__ import annotations

import io
import os
import tarfile
import time
from pathlib import Path

import pytest

from vshell import HostMount, MemoryMount, Sandbox


@pytest.fixture
def sb(tmp_path: Path):
    (tmp_path / "work").mkdir()
    (tmp_path / "ro").mkdir()
    (tmp_path / "ro" / "f").write_bytes(b"read only\n")
    (tmp_path / "work" / ".env").write_bytes(b"SECRET=1\n")
    with Sandbox(
        mounts=[HostMount(str(tmp_path / "work"), "/work"),
                HostMount(str(tmp_path / "ro"), "/ro", readonly=True)],
        deny=["**/.env"], cwd="/work", timeout=20,
    ) as box:
        yield box


def run(sb: Sandbox, script: str) -> tuple[int, bytes, bytes]:
    r = sb.exec(script)
    return r.exit_code, r.stdout, r.stderr


def test_yes_stops_on_broken_pipe(sb: Sandbox) -> None:
    t0 = time.monotonic()
    assert run(sb, "yes | head -3") == (0, b"y\ny\ny\n", b"")
    assert run(sb, "yes hello world | head -c 24")[1] == b"hello world\n" * 2
    assert time.monotonic() - t0 < 2


def test_sleep_is_cancelled_by_the_run_timeout(tmp_path: Path) -> None:
    with Sandbox(mounts=[MemoryMount("/work")], timeout=0.3) as box:
        t0 = time.monotonic()
        r = box.exec("sleep 10")
        assert r.exit_code == 137 and time.monotonic() - t0 < 1.5


def test_timeout_reports_124(sb: Sandbox) -> None:
    code, out, _ = run(sb, "timeout 0.2 sleep 0.5; echo $?; timeout 5 true; echo $?")
    assert out == b"124\n0\n"
    assert run(sb, "timeout x true")[0] == 125


def test_find_exec_and_xargs_use_shell_commands(sb: Sandbox) -> None:
    run(sb, "mkdir -p d/s && touch d/a d/s/b")
    assert run(sb, "find d -type f -exec echo F {} \\;")[1] == b"F d/a\nF d/s/b\n"
    assert run(sb, "find d -type f -exec echo {} +")[1] == b"d/a d/s/b\n"
    assert run(sb, "find d -type f | xargs -n1 echo got")[1] == b"got d/a\ngot d/s/b\n"
    assert run(sb, "printf 'x\\ny\\n' | xargs -I{} sh -c 'echo [{}]'")[1] == b"[x]\n[y]\n"
    assert run(sb, "find d -name a -execdir pwd \\;")[1] == b"/work/d\n"


def test_env_runs_with_the_new_environment(sb: Sandbox) -> None:
    assert run(sb, "env -i A=1 printenv")[1] == b"A=1\n"
    assert run(sb, "X=1 env -u X printenv X; echo $?")[1] == b"1\n"
    assert run(sb, "env -C /ro cat f")[1] == b"read only\n"


def test_identity_commands_report_the_sandbox() -> None:
    with Sandbox(env={"USER": "agent"}) as box:
        r = box.exec("whoami; export HOSTNAME=box.example; hostname; hostname -s; id; id -u; "
                     "id -un; uname; uname -n")
        assert r.stdout == (b"agent\nbox.example\nbox\nuid=1000(agent) gid=1000(agent) "
                            b"groups=1000(agent)\n1000\nagent\nLinux\nbox.example\n")
    with Sandbox() as box:
        assert box.exec("uname -a").stdout.startswith(b"Linux ")
        assert box.exec("nproc").stdout.strip().isdigit()


def test_which(sb: Sandbox) -> None:
    run(sb, "mkdir -p bin && printf '#!/bin/sh\\necho hi\\n' > bin/tool && chmod +x bin/tool")
    assert run(sb, "PATH=/work/bin:$PATH which tool")[1] == b"/work/bin/tool\n"
    assert run(sb, "which ls grep")[1] == b"/usr/bin/ls\n/usr/bin/grep\n"
    assert run(sb, "which nosuch; echo $?")[1] == b"1\n"


def test_deny_and_readonly_messages(sb: Sandbox) -> None:
    assert run(sb, "cat .env")[2] == b"cat: .env: Permission denied\n"
    assert b".env" not in run(sb, "ls -a")[1]
    code, _, err = run(sb, "rm /ro/f")
    assert code == 1 and err == b"rm: cannot remove '/ro/f': Read-only file system\n"
    assert run(sb, "touch /ro/new")[2] == (
        b"touch: cannot touch '/ro/new': Read-only file system\n")
    assert run(sb, "mkdir /ro/d")[2] == (
        b"mkdir: cannot create directory \xe2\x80\x98/ro/d\xe2\x80\x99: Read-only file system\n")
    assert run(sb, "find / -name .env")[1] == b""


def test_cp_and_mv_across_mounts(sb: Sandbox) -> None:
    run(sb, "mkdir -p src/in && echo data > src/in/f && chmod 751 src/in/f")
    assert run(sb, "cp -a src /tmp/copy && cat /tmp/copy/in/f && stat -c %a /tmp/copy/in/f")[
        1] == b"data\n751\n"
    assert run(sb, "mv src /tmp/moved && ls /tmp/moved/in && ls src; echo $?")[1] == (
        b"f\n2\n")
    assert run(sb, "mv /tmp/moved/in/f /ro/f")[0] == 1


def test_ln_refuses_links_leaving_the_mount(sb: Sandbox) -> None:
    code, _, err = run(sb, "ln -s /etc/passwd p")
    assert code == 1 and err == b"ln: failed to create symbolic link 'p': Operation not permitted\n"
    assert run(sb, "ln -s ../../../x up")[0] == 1
    assert run(sb, "echo hi > t && ln -s t ok && cat ok")[1] == b"hi\n"
    assert run(sb, "ln -s /ro/f cross")[0] == 1


def test_mktemp_in_sandbox_tmp(sb: Sandbox) -> None:
    code, out, _ = run(sb, "f=$(mktemp) && d=$(mktemp -d) && echo $f $d && test -f $f && "
                           "test -d $d && stat -c %a $f $d")
    lines = out.split(b"\n")
    assert code == 0 and lines[0].startswith(b"/tmp/tmp.")
    assert lines[1:3] == [b"600", b"700"]
    assert run(sb, "mktemp -p /work fooXXX")[1].startswith(b"/work/foo")


def _tar_with(members: list[tuple[tarfile.TarInfo, bytes]]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tf:
        for info, data in members:
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data) if data else None)
    return buf.getvalue()


def test_tar_refuses_hostile_members(sb: Sandbox, tmp_path: Path) -> None:
    evil = tarfile.TarInfo("../../escape")
    abs_member = tarfile.TarInfo("/abs/file")
    link = tarfile.TarInfo("ln")
    link.type, link.linkname = tarfile.SYMTYPE, "/etc"
    through = tarfile.TarInfo("ln/passwd")
    ok = tarfile.TarInfo("ok/file")
    data = _tar_with([(evil, b"x"), (abs_member, b"y"), (link, b""), (through, b"z"),
                      (ok, b"fine")])
    (tmp_path / "work" / "evil.tar").write_bytes(data)
    code, out, err = run(sb, "mkdir out && tar xf evil.tar -C out; echo $?; find out | sort")
    assert out.startswith(b"2\n")
    assert b"out/abs/file" in out and b"out/ok/file" in out
    assert not (tmp_path / "escape").exists() and not (tmp_path / "work" / "escape").exists()
    assert b"Removing leading `/' from member names" in err
    assert b"Member name contains '..'" in err
    # the escaping symlink is not created; "ln/passwd" then lands in a plain directory
    assert not (tmp_path / "work" / "out" / "ln").is_symlink()
    assert b"ln: Cannot create symlink" in err


def test_tar_does_not_write_through_a_symlink_member(sb: Sandbox, tmp_path: Path) -> None:
    link = tarfile.TarInfo("sub")
    link.type, link.linkname = tarfile.SYMTYPE, "../outside"
    through = tarfile.TarInfo("sub/file")
    (tmp_path / "work" / "outside").mkdir()
    (tmp_path / "work" / "t.tar").write_bytes(_tar_with([(link, b""), (through, b"z")]))
    code, _, err = run(sb, "mkdir x && tar xf t.tar -C x")
    assert code == 2 and b"symbolic link" in err
    assert not (tmp_path / "work" / "outside" / "file").exists()


def test_tar_gzip_roundtrip_in_sandbox(sb: Sandbox) -> None:
    run(sb, "mkdir -p p/q && echo 1 > p/q/one && ln -s q/one p/l")
    assert run(sb, "tar czf p.tgz p && mkdir o && tar xzf p.tgz -C o && cat o/p/l")[1] == b"1\n"
    assert run(sb, "tar tf p.tgz | sort")[1] == b"p/\np/l\np/q/\np/q/one\n"
    assert run(sb, "tar cf - p | tar tf - | wc -l")[1].strip() == b"4"
    assert run(sb, "echo hi | gzip | gunzip")[1] == b"hi\n"
    assert run(sb, "echo hi > g && gzip g && ls g* && zcat g.gz && gunzip g.gz && cat g")[1] == (
        b"g.gz\nhi\nhi\n")


def test_cat_streams_large_input(sb: Sandbox) -> None:
    t0 = time.monotonic()
    code, out, _ = run(sb, "head -c 5000000 /dev/zero | cat | cat -n | wc -c")
    assert code == 0 and out.strip() == b"5000007"
    assert time.monotonic() - t0 < 5


def test_ls_of_mounts_and_memory_tmp(sb: Sandbox) -> None:
    assert run(sb, "ls /")[1] == b"bin\ndev\nro\ntmp\nusr\nwork\n"  # /bin, /usr/bin: commands
    assert run(sb, "touch /tmp/a && ls /tmp")[1] == b"a\n"
    assert run(sb, "df | tail -n +2 | awk '{print $NF}' | sort")[1] == b"/ro\n/tmp\n/work\n"


def test_date_uses_env_tz() -> None:
    with Sandbox(env={"TZ": "Asia/Tokyo"}) as box:
        assert box.exec("date -d @0 +%H:%Z").stdout == b"09:JST\n"
        assert box.exec("date -u -d @0 +%H:%Z").stdout == b"00:UTC\n"
    with Sandbox() as box:
        assert box.exec("date -d @0 +%H%z").stdout == b"00+0000\n"


def test_shuf_is_a_permutation_and_seedable(sb: Sandbox, tmp_path: Path) -> None:
    (tmp_path / "work" / "seed").write_bytes(os.urandom(64))
    out = run(sb, "seq 100 | shuf")[1]
    assert sorted(out.split()) == sorted(str(i).encode() for i in range(1, 101))
    a = run(sb, "seq 50 | shuf --random-source=seed")[1]
    assert a == run(sb, "seq 50 | shuf --random-source=seed")[1]
    assert len(run(sb, "shuf -i 1-10 -n 3")[1].split()) == 3
    assert len(run(sb, "shuf -r -e a b -n 7")[1].split()) == 7
    assert run(sb, "shuf -e a -i 1-2")[0] == 1
