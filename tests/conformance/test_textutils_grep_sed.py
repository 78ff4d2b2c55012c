"""Upstream grep and sed suites (shared/conformance/textutils) run through vshell's commands.

Cases given as ``argv`` call the command directly (tests/cmdharness.run_cmd) in a fresh
directory holding the case's files; cases given as a shell ``script`` need the vshell
interpreter and run in a :class:`vshell.Sandbox` with the directory mounted at ``/w`` (as
``run.py --vshell`` does) when the interpreter is there, else they are skipped.
``test_*_pass_rate`` asserts the per-tool pass rate of the kept cases (target >= 95 %) and
prints per-suite figures (``pytest -s``).
"""

from __future__ import annotations

import base64
import json
import os
from functools import cache
from pathlib import Path

import pytest

from tests.cmdharness import GNU_ENV, run_cmd

SUITES = Path(os.environ.get("TEXTUTILS_CONFORMANCE", "/work/shared/conformance/textutils"))


def _dec(v) -> bytes:
    if v is None:
        return b""
    if isinstance(v, dict):
        return base64.b64decode(v["base64"])
    return v.encode("utf-8")


def _load(tool: str) -> list[dict]:
    path = SUITES / f"{tool}.jsonl"
    if not path.exists():
        return []
    with path.open(encoding="utf-8") as f:
        cases = [json.loads(line) for line in f if line.strip()]
    return [c for c in cases if not c.get("expect_fail_ref")]


def _lines(b: bytes) -> list[bytes]:
    out = [x.rstrip(b"\r") for x in b.split(b"\n")]
    while out and out[-1] == b"":
        out.pop()
    return out


def _make_files(root: Path, case: dict) -> None:
    for name, content in (case.get("files") or {}).items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, dict) and "symlink" in content:
            os.symlink(content["symlink"], path)
        elif isinstance(content, dict) and content.get("dir"):
            path.mkdir(parents=True, exist_ok=True)
        else:
            path.write_bytes(_dec(content))


@cache
def _shell_works() -> bool:
    """Whether the interpreter can run scripts in-process (the Sandbox API)."""
    try:
        from vshell import MemoryMount, Sandbox

        with Sandbox(mounts=[MemoryMount("/w")], cwd="/w") as sb:
            return sb.exec("echo hi").stdout == b"hi\n"
    except Exception:  # not built yet
        return False


def run_script(case: dict, tmp: Path, stdin: bytes) -> tuple[bytes, int]:
    """The case's script in a vshell Sandbox with tmp mounted at /w (as run.py --vshell)."""
    from vshell import HostMount, Sandbox

    env = {"HOME": "/w", "TZ": "UTC", "LANG": "C.UTF-8"}
    with Sandbox(mounts=[HostMount(str(tmp), "/w")], cwd="/w", env=env, timeout=10) as sb:
        res = sb.exec(_script(case).decode("utf-8", "surrogateescape"), stdin=stdin)
    return res.stdout, res.exit_code


def _script(case: dict) -> bytes:
    pre = b""
    for k, v in sorted((case.get("env") or {}).items()):
        pre += f"export {k}='{v}'\n".encode()
    return pre + _dec(case["script"])


def run_case(case: dict, tmp: Path) -> tuple[bool, bytes, int | None]:
    """(passed, stdout, status) for one case."""
    _make_files(tmp, case)
    stdin = _dec(case.get("stdin"))
    if "argv" in case:
        argv = [_dec(a).decode("utf-8", "surrogateescape") for a in case["argv"]]
        env = dict(GNU_ENV)
        env.update(case.get("env") or {})
        got = run_cmd(tmp, argv, stdin, env=env)
        out, status = got.stdout, got.status
    else:
        out, status = run_script(case, tmp, stdin)
    want = _dec(case["stdout"])
    ok = out == want or (case.get("compare") == "lines" and _lines(out) == _lines(want))
    if case.get("status") is not None and status != case["status"]:
        ok = False
    return ok, out, status


def _runnable(case: dict) -> bool:
    return "argv" in case or _shell_works()


def _rate(tool: str, tmp_path_factory) -> tuple[int, int, dict]:
    per: dict[str, list[int]] = {}
    passed = total = 0
    for case in _load(tool):
        if not _runnable(case):
            continue
        tmp = tmp_path_factory.mktemp("case")
        try:
            ok = run_case(case, tmp)[0]
        except Exception:  # a crash counts as a failure
            ok = False
        ps = per.setdefault(case.get("suite", "?"), [0, 0])
        ps[1] += 1
        total += 1
        if ok:
            ps[0] += 1
            passed += 1
    return passed, total, per


@pytest.mark.parametrize("tool", ["grep", "sed"])
def test_pass_rate(tool, tmp_path_factory):
    if not _load(tool):
        pytest.skip("no upstream cases here")
    passed, total, per = _rate(tool, tmp_path_factory)
    for suite, (p, t) in sorted(per.items()):
        print(f"{tool} {suite}: {p}/{t}")
    print(f"{tool} total: {passed}/{total} ({100.0 * passed / max(total, 1):.1f}%)")
    assert passed >= 0.95 * total, (passed, total)
