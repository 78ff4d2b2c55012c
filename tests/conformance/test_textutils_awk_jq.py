"""Upstream awk (onetrue awk) and jq suites from shared/conformance/textutils, run directly.

Each ``argv`` case runs through our command (no shell) in a fresh directory holding its
files, with the case's environment (``system()`` and pipes get a sandbox over the same
directory); ``script`` cases need the shell and run in an in-process ``Sandbox``.
Cases are compared as ``run.py`` compares them (jq: as JSON value streams).
``python tests/conformance/test_textutils_awk_jq.py [awk|jq]`` prints per-suite figures.
"""

from __future__ import annotations

import importlib.util
import io
import json
import os
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import pytest

SUITES = Path(os.environ.get("TEXTUTILS_DIR", "/work/shared/conformance/textutils"))
THRESHOLD = {"awk": 0.95, "jq": 0.95}
CASE_TIMEOUT = 5.0

pytestmark = pytest.mark.skipif(not SUITES.is_dir(), reason="conformance suites not present")


def _runpy():
    spec = importlib.util.spec_from_file_location("textutils_run", SUITES / "run.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def load_cases(tool: str) -> list[dict]:
    with open(SUITES / f"{tool}.jsonl", encoding="utf-8") as f:
        cases = [json.loads(line) for line in f.read().split("\n") if line.strip()]
    return [c for c in cases if not c.get("expect_fail_ref")]


def _make_files(tmp: str, files: dict, dec) -> None:
    for name, content in (files or {}).items():
        path = os.path.join(tmp, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if isinstance(content, dict) and "symlink" in content:
            os.symlink(content["symlink"], path)
        elif isinstance(content, dict) and content.get("dir"):
            os.makedirs(path, exist_ok=True)
        else:
            with open(path, "wb") as fh:
                fh.write(dec(content))


def _sandbox(tmp: str, env: dict):
    from vshell.sandbox import HostMount, Sandbox

    return Sandbox(mounts=[HostMount(tmp, "/w")], cwd="/w", env=env, timeout=CASE_TIMEOUT)


def _run_direct(tmp: str, argv: list[str], stdin: bytes, env: dict) -> tuple[int, bytes, bytes]:
    import shlex

    from vshell import commands as builtins
    from vshell.command import CancelToken, Invocation
    from vshell.interp.dispatch import call_command
    from vshell.vfs import VFS, HostBackend, Mount

    cmd = builtins.lookup(argv[0])
    assert cmd is not None
    out, err, inp = io.BytesIO(), io.BytesIO(), io.BytesIO(stdin)
    fs = VFS(mounts=[Mount("/w", HostBackend(tmp), readonly=False)], deny=[])

    def run_command(cmd: list[str], stdin=None, stdout=None, stderr=None, **_kw) -> int:
        """awk's system() and pipes: run through a sandbox over the same directory."""
        with _sandbox(tmp, env) as sb:
            res = sb.exec(shlex.join(cmd), stdin=stdin if stdin is not None else b"",
                          stdout=stdout, stderr=stderr)
        return res.exit_code

    inv = Invocation(
        name=argv[0], args=argv[1:], dir="/w", stdin=inp, stdout=out, stderr=err, env=env,
        fs=fs.bind({0: inp, 1: out, 2: err}),
        cancel=CancelToken(time.monotonic() + CASE_TIMEOUT),
        run_command=run_command,
    )
    try:
        status = call_command(cmd, inv)
    except BaseException as e:  # noqa: BLE001 - Cancelled (timeout) counts as a failure
        return -1, out.getvalue(), err.getvalue() + repr(e).encode()
    return status, out.getvalue(), err.getvalue()


def run_case(case: dict, rp) -> dict:
    env = {"PATH": "/usr/bin:/bin", "TZ": "UTC", "LANG": "C.UTF-8"}
    env.update(case.get("env") or {})
    stdin = rp.dec(case.get("stdin"))
    with tempfile.TemporaryDirectory(prefix="tu-case.") as tmp:
        _make_files(tmp, case.get("files"), rp.dec)
        env["HOME"] = "/w"
        if "argv" in case:
            argv = [rp.dec(a).decode("utf-8", "surrogateescape") for a in case["argv"]]
            status, out, err = _run_direct(tmp, argv, stdin, env)
        else:
            script = rp.build_script(case).decode("utf-8", "surrogateescape")
            with _sandbox(tmp, env) as sb:
                res = sb.exec(script, stdin=stdin)
            status, out, err = res.exit_code, res.stdout, res.stderr
    ok_out = rp.same_stdout(case, out, False)
    want = case.get("status")
    ok = ok_out and (want is None or want == status)
    return {"id": case["id"], "passed": ok, "status": status, "stdout": out, "stderr": err}


def run_suite(tool: str, only: str | None = None) -> dict[str, list[dict]]:
    rp = _runpy()
    by_suite: dict[str, list[dict]] = defaultdict(list)
    for case in load_cases(tool):
        if only and only not in case["id"]:
            continue
        by_suite[case["suite"]].append({**run_case(case, rp), "case": case})
    return by_suite


def _figures(by_suite: dict[str, list[dict]]) -> tuple[int, int]:
    passed = total = 0
    for results in by_suite.values():
        kept = [r for r in results if not r.get("skipped")]
        total += len(kept)
        passed += sum(r["passed"] for r in kept)
    return passed, total


@pytest.mark.parametrize("tool", ["awk", "jq"])
def test_upstream_suite(tool: str) -> None:
    passed, total = _figures(run_suite(tool))
    assert total and passed / total >= THRESHOLD[tool], (tool, passed, total)


def main() -> None:
    tools = sys.argv[1:2] or ["awk", "jq"]
    only = sys.argv[2] if len(sys.argv) > 2 else None
    for tool in tools:
        by_suite = run_suite(tool, only)
        for suite, results in sorted(by_suite.items()):
            kept = [r for r in results if not r.get("skipped")]
            fails = [r for r in kept if not r["passed"]]
            skipped = len(results) - len(kept)
            print(f"{suite}: {len(kept) - len(fails)}/{len(kept)}  (skipped {skipped})")
            for r in fails:
                if os.environ.get("VERBOSE"):
                    print("  FAIL", r["id"], r["status"], repr(r["stdout"][:200]),
                          repr(r["stderr"][:300]))
                else:
                    print("  FAIL", r["id"])
        passed, total = _figures(by_suite)
        print(f"{tool} total: {passed}/{total} = {100 * passed / max(total, 1):.1f}%")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    main()
