"""Command search is remembered across pipeline stages and runs, and never goes stale.

A stage's search dies with its subshell in bash (its hash table is the stage's own), so
vshell keeps each PATH search under the hash table (``interp.lookup``) and trusts it while the
VFS counts no change (``VFS.changes``); over a host mount only for the run that made it.
Here a script is created, made executable, moved, linked and removed on PATH between stages,
and what runs must be what bash runs, in a host mount and in memory alike.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from tools import needs

from vshell import BackendMount, HostMount, Sandbox
from vshell.vfs import MemoryBackend

SCRIPT = r"""
mkdir -p bin other; PATH=$PWD/bin:$PATH
echo a | tr a b
printf '#!/bin/sh\necho mytr "$@"\n' > bin/tr
echo a | tr a b
chmod +x bin/tr
echo a | tr a b
( tr a b <<< a )
echo $(tr a b <<< a)
command -v tr | sed "s#$PWD#.#"
type tr | sed "s#$PWD#.#"
chmod -x bin/tr; echo a | tr a b
chmod +x bin/tr; mv bin/tr other/tr; echo a | tr a b
mv other/tr bin/tr; echo a | tr a b
rm bin/tr; echo a | tr a b
printf '#!/bin/sh\necho mycut\n' > other/cut; chmod +x other/cut; ln -s ../other/cut bin/cut
echo a | cut -c1
rm bin/cut; echo a | cut -c1
ln other/cut bin/cut; echo a | cut -c1; rm bin/cut
cp other/cut bin/cut; echo a | cut -c1
PATH=${PATH#*:}; echo a | cut -c1
PATH=bin:$PATH; echo a | cut -c1; cd other; echo a | cut -c1; cd ..; echo a | cut -c1
mkdir -p bin2; PATH=$PWD/bin2:$PATH; echo a | cut -c1
printf '#!/bin/sh\necho cut2\n' > bin2/cut; echo a | cut -c1; chmod 755 bin2/cut; echo a | cut -c1
rm -r bin2; echo a | cut -c1
mkdir bin2; cp other/cut bin2/cut; echo a | cut -c1
mv bin2 bin3; echo a | cut -c1; mv bin3 bin2; echo a | cut -c1
# the shell itself remembers (bash's hash): a later file earlier on PATH is not seen
PATH=$PWD/bin4:$PATH; mkdir bin4; wc -c <<< abc
printf '#!/bin/sh\necho mywc\n' > bin4/wc; chmod +x bin4/wc
wc -c <<< abc; echo a | wc -c; hash -r; wc -c <<< abc
hash | sed "s#$PWD#.#" | sort
for i in 1 2 3; do echo $i | tr 1 x | wc -c; done
"""


@needs("bash")
def test_what_runs_follows_every_change_on_path(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "h").mkdir()
    want = subprocess.run(["bash", "-c", SCRIPT], cwd=tmp_path / "b", capture_output=True,
                          env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "HOME": "/"})
    assert want.returncode == 0 and b"mytr" in want.stdout
    with Sandbox(mounts=[HostMount(str(tmp_path / "h"), "/work")], timeout=60) as sb:
        assert not sb.fs.closed
        host = sb.exec(SCRIPT)
    with Sandbox(timeout=60) as sb:
        assert sb.fs.closed  # memory and vshell's command directories only
        memory = sb.exec("mkdir /tmp/w && cd /tmp/w\n" + SCRIPT)
    assert host.stdout == want.stdout, host.stderr
    assert memory.stdout == want.stdout, memory.stderr


def test_a_repeated_search_is_remembered_until_the_tree_changes() -> None:
    with Sandbox() as sb:
        fs = sb.fs
        sb.exec("echo a | tr a b")
        before = fs.changes
        sb.exec("echo a | tr a b; x=1; echo $x | cat")
        assert fs.changes == before  # reading, piping and assigning change nothing
        sb.exec("echo data > /tmp/f")
        assert fs.changes > before
        state = sb._state
        keys = {k[0] for k in state.search_cache}
        assert {"tr", "cat"} <= keys


def test_a_change_through_another_sandbox_of_a_shared_tree_is_seen() -> None:
    tree = MemoryBackend()
    with Sandbox(mounts=[BackendMount("/shared", tree)]) as a, \
            Sandbox(mounts=[BackendMount("/shared", tree)]) as b:
        assert b.fs.closed
        script = "PATH=/shared:$PATH; echo x | rev"
        assert b.exec(script).stdout == b"x\n"
        a.exec("printf '#!/bin/sh\\necho myrev\\n' > /shared/rev; chmod +x /shared/rev")
        assert b.exec(script).stdout == b"myrev\n"


def test_a_host_change_between_runs_is_seen(tmp_path: Path) -> None:
    with Sandbox(mounts=[HostMount(str(tmp_path), "/work")]) as sb:
        script = "PATH=/work:$PATH; echo x | rev"
        assert sb.exec(script).stdout == b"x\n"
        tool = tmp_path / "rev"
        tool.write_text("#!/bin/sh\necho hostrev\n")
        tool.chmod(0o755)
        assert sb.exec(script).stdout == b"hostrev\n"
        tool.unlink()
        assert sb.exec(script).stdout == b"x\n"


@pytest.mark.parametrize("path", ["/dev/fd", "/proc"])
def test_paths_whose_contents_depend_on_the_shell_are_searched_each_time(path: str) -> None:
    with Sandbox() as sb:
        res = sb.exec(f"PATH={path}:$PATH; echo a | tr a b")
        assert res.stdout == b"b\n"
        assert all(path not in k[1] for k in sb._state.search_cache)
