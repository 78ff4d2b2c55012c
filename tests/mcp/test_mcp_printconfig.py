"""`vshell mcp --print-config CLIENT`: the JSON block names vshell by absolute path, and a
client that starts the server from it, with no venv on PATH, gets a working server."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp_harness import server_env

from vshell.mcp import clientconfig


def print_config(*args: str, cwd: Path, argv0: list[str] | None = None
                 ) -> subprocess.CompletedProcess[str]:
    cmd = argv0 or [sys.executable, "-m", "vshell"]
    return subprocess.run([*cmd, "mcp", *args], capture_output=True, text=True, cwd=cwd,
                          env=server_env(), timeout=60)


@pytest.mark.parametrize("client", list(clientconfig.CLIENTS))
def test_each_client_gets_its_block(client: str, tmp_path: Path) -> None:
    (tmp_path / "proj").mkdir()
    r = print_config("--mount", "proj:/work:cow", "--deny-path", "**/.env",
                     "--print-config", client, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    block = json.loads(r.stdout)
    key = "servers" if client == "vscode" else "mcpServers"
    entry = block[key]["vshell"]
    assert os.path.isabs(entry["command"]) and os.access(entry["command"], os.X_OK)
    args = entry["args"]
    assert args[args.index("mcp") + 1:] == ["--mount", f"{tmp_path / 'proj'}:/work:cow",
                                             "--deny-path", "**/.env"]
    if client == "vscode":
        assert entry["type"] == "stdio"
    assert "put this in" in r.stderr


def test_the_console_script_is_named_by_its_path(tmp_path: Path) -> None:
    script = tmp_path / "bin" / "vshell"
    script.parent.mkdir()
    script.write_text(f"#!{sys.executable}\nimport sys\nfrom vshell.cli.main import main\n"
                      "sys.exit(main())\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    r = print_config("--print-config=cursor", cwd=tmp_path, argv0=[str(script)])
    assert r.returncode == 0, r.stderr
    entry = json.loads(r.stdout)["mcpServers"]["vshell"]
    assert entry["command"] == str(script) and entry["args"] == ["mcp"]


def test_bad_requests(tmp_path: Path) -> None:
    for args in (["--print-config"], ["--print-config", "emacs"],
                 ["--print-config", "cursor", "--no-such-flag"],
                 ["--print-config", "cursor", "--mount", "missing:/w"]):
        r = print_config(*args, cwd=tmp_path)
        assert r.returncode == 2 and r.stdout == "", (args, r.stdout)
        assert r.stderr.startswith("vshell mcp: "), r.stderr


def test_a_client_without_the_venv_on_path_starts_the_server(tmp_path: Path) -> None:
    pytest.importorskip("mcp.client.stdio")
    from mcp.client.stdio import StdioServerParameters, stdio_client
    from mcp_harness import SyncClient

    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "hello.txt").write_text("from the host\n")
    r = print_config("--mount", "proj:/work", "--print-config", "claude-desktop", cwd=tmp_path)
    entry: dict[str, Any] = json.loads(r.stdout)["mcpServers"]["vshell"]
    env = {**entry.get("env", {}), "PATH": "/nonexistent"}  # what a GUI app may have
    params = StdioServerParameters(command=entry["command"], args=entry["args"], env=env,
                                   cwd="/")
    c = SyncClient()
    try:
        c.run(c._open(lambda: stdio_client(params, errlog=sys.stderr)))
        assert "job_start" in c.tools  # this tree's vshell, not another one on the machine
        res = c.call("bash", {"command": "cat /work/hello.txt"})
        assert res.structured_content["stdout"] == "from the host\n"
    finally:
        c.close()
