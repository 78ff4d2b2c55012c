"""A persistent overlay (Sandbox(overlay_dir=...)) survives the Sandbox and is resumable."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from vshell.sandbox import HostMount, Sandbox, SandboxConfigError


@pytest.fixture()
def host(tmp_path: Path) -> Path:
    h = tmp_path / "host"
    h.mkdir()
    (h / "a.txt").write_text("old\n")
    (h / "gone.txt").write_text("bye\n")
    (h / "sub").mkdir()
    (h / "sub" / "keep").write_text("k\n")
    return h


def _sb(host: Path, ov: Path, vpath: str = "/w") -> Sandbox:
    return Sandbox(mounts=[HostMount(str(host), vpath, cow=True)], overlay_dir=str(ov))


def test_resume_across_two_sandboxes(host: Path, tmp_path: Path) -> None:
    ov = tmp_path / "ov"
    with _sb(host, ov) as sb:
        script = ("echo new >> a.txt; rm gone.txt; mkdir -p d/e; echo z > d/e/z; "
                  "chmod 555 d; ln -s a.txt link; chmod 600 sub/keep")
        assert sb.exec(script).exit_code == 0
    assert (host / "a.txt").read_text() == "old\n"
    assert (host / "gone.txt").exists() and not (host / "d").exists()
    assert stat.S_IMODE(os.stat(ov).st_mode) == 0o700
    with _sb(host, ov) as sb:
        assert sb.changes() == [
            ("/w/a.txt", "modify"), ("/w/d", "add"), ("/w/d/e", "add"), ("/w/d/e/z", "add"),
            ("/w/gone.txt", "delete"), ("/w/link", "add"), ("/w/sub/keep", "modify"),
        ]
        r = sb.exec("cat a.txt link d/e/z; stat -c %a d sub/keep; ls")
        assert r.stdout == b"old\nnew\nold\nnew\nz\n555\n600\na.txt\nd\nlink\nsub\n"
        assert sb.exec("echo more >> d/e/z").exit_code == 0  # 0555 dir: file still writable
    with _sb(host, ov) as sb:
        assert sb.exec("cat d/e/z").stdout == b"z\nmore\n"
        res = sb.sync()
        assert res.ok
    assert (host / "a.txt").read_text() == "old\nnew\n"
    assert not (host / "gone.txt").exists()
    with _sb(host, ov) as sb:
        assert sb.changes() == []


def test_state_is_plain_files_and_json(host: Path, tmp_path: Path) -> None:
    ov = tmp_path / "ov"
    with _sb(host, ov) as sb:
        sb.exec("echo hello > new.txt")
    state = json.loads((ov / "state.json").read_text())
    (m,) = state["mounts"]
    assert m["host"] == str(host) and m["vpath"] == "/w"
    assert (ov / m["id"] / m["upper"] / "new.txt").read_bytes() == b"hello\n"
    assert [p.name for p in (ov / m["id"]).iterdir()] == [m["upper"]]  # old snapshots gone
    assert sorted(p.name for p in ov.iterdir()) == [".lock", m["id"], "state.json"]  # no temp


def test_mismatched_host_refused(host: Path, tmp_path: Path) -> None:
    ov = tmp_path / "ov"
    with _sb(host, ov) as sb:
        sb.exec("echo x > f")
    other = tmp_path / "other"
    other.mkdir()
    with pytest.raises(SandboxConfigError, match="recorded for"):
        _sb(other, ov)
    with pytest.raises(SandboxConfigError, match="also holds"):
        _sb(host, ov, vpath="/elsewhere")
    with pytest.raises(SandboxConfigError, match="copy-on-write"):
        Sandbox(mounts=[HostMount(str(host), "/w")], overlay_dir=str(ov))


def test_discard_persists(host: Path, tmp_path: Path) -> None:
    ov = tmp_path / "ov"
    with _sb(host, ov) as sb:
        sb.exec("echo x > f; rm a.txt")
        sb.discard()
    with _sb(host, ov) as sb:
        assert sb.changes() == []
        assert sb.exec("cat a.txt").stdout == b"old\n"


def test_corrupt_state_refused(host: Path, tmp_path: Path) -> None:
    ov = tmp_path / "ov"
    ov.mkdir(mode=0o700)
    (ov / "state.json").write_text("{not json")
    with pytest.raises(SandboxConfigError, match="corrupt"):
        _sb(host, ov)
    (ov / "state.json").write_text(json.dumps({"version": 1, "mounts": [{
        "id": "m0", "host": str(host), "vpath": "/w", "upper": "u",
        "entries": [{"path": ["..", "x"], "kind": "f", "mode": 420,
                     "atime_ns": 0, "mtime_ns": 0}]}]}))
    with pytest.raises(SandboxConfigError, match="bad path"):
        _sb(host, ov)


def test_second_process_refused_while_in_use(host: Path, tmp_path: Path) -> None:
    ov = tmp_path / "ov"
    with _sb(host, ov):
        with pytest.raises(SandboxConfigError, match="in use"):
            _sb(host, ov)
    with _sb(host, ov) as sb:  # released on close
        assert sb.exec("true").exit_code == 0


def test_save_failure_reported_not_raised(host: Path, tmp_path: Path) -> None:
    ov = tmp_path / "ov"
    with _sb(host, ov) as sb:
        store = sb._overlay_store

        def broken() -> None:
            raise OSError(28, "No space left on device")

        store.save = broken  # type: ignore[method-assign]
        r = sb.exec("echo x > f")
        assert r.exit_code == 0 and b"overlay not saved" in r.stderr
        sb._overlay_store = None  # let close() end quietly
        store.close()


def test_unreadable_modes_saved_and_restored(host: Path, tmp_path: Path) -> None:
    """A 0000 file and a 0000 directory under a 0500 one survive, checked as a non-root uid."""
    from pyfakefs import helpers

    ov = tmp_path / "ov"
    helpers.set_uid(4321)
    helpers.set_gid(4321)
    try:
        with _sb(host, ov) as sb:
            script = "mkdir -p d/e; echo z > d/e/z; chmod 0 d/e; chmod 500 d; echo y > w; chmod 0 w"
            r = sb.exec(script)
            assert (r.exit_code, r.stderr) == (0, b"")
        with _sb(host, ov) as sb:
            r = sb.exec('stat -c "%a %n" d d/e w; chmod 700 d/e w; cat d/e/z w')
            assert r.stdout == b"500 d\n0 d/e\n0 w\nz\ny\n", r.stderr
    finally:
        helpers.reset_ids()
