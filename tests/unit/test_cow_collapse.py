"""Review lists a removed directory once, not every file it held (issue 10)."""

from __future__ import annotations

from pathlib import Path

from vshell import HostMount, Sandbox


def test_directory_removal_is_one_change(tmp_path: Path) -> None:
    (tmp_path / "d" / "sub").mkdir(parents=True)
    (tmp_path / "d" / "a").write_text("a")
    (tmp_path / "d" / "sub" / "b").write_text("b")
    (tmp_path / "x").write_text("x\n")
    with Sandbox(mounts=[HostMount(str(tmp_path), "/w", cow=True)]) as sb:
        assert sb.exec("rm -r /w/d; echo y >> /w/x").ok()
        assert sb.changes() == [("/w/d", "delete"), ("/w/x", "modify")]
        assert (tmp_path / "d" / "sub" / "b").exists()  # the host is untouched until sync
        result = sb.sync()
        assert result.ok
    assert not (tmp_path / "d").exists()
    assert (tmp_path / "x").read_text() == "x\ny\n"
