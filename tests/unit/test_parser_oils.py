"""Acceptance sweep: every Oils spec case that ``bash -n`` accepts must parse.

The Oils spec files are out-of-sample material for the shim.  Which cases bash accepts is
computed once with ``bash -O extglob -n`` (subprocess is allowed in tests only) and kept in
pytest's cache, keyed by the spec files' digest.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from vshell.syntax import ParseError, parse

SPEC_DIR = Path(__file__).resolve().parents[2].parent / "shared/conformance/oils/spec"
MIN_RATIO = 0.97


def _cases() -> list[tuple[str, str]]:
    """(case id, code) for every ``#### `` case; the code stops at the first ``## `` line."""
    out: list[tuple[str, str]] = []
    for path in sorted(SPEC_DIR.glob("*.test.sh")):
        name: str | None = None
        lines: list[str] = []
        done = False
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines(True):
            if line.startswith("#### "):
                if name is not None:
                    out.append((name, "".join(lines)))
                name, lines, done = f"{path.name}: {line[5:].strip()}", [], False
            elif name is not None and not done:
                if line.startswith("## "):
                    done = True
                else:
                    lines.append(line)
        if name is not None:
            out.append((name, "".join(lines)))
    return out


def _bash_accepts(code: str) -> bool:
    proc = subprocess.run(
        ["bash", "-O", "extglob", "-n"],
        input=code.encode("utf-8", "surrogateescape"),
        capture_output=True,
        timeout=10,
        check=False,
    )
    return proc.returncode == 0


def _accepted(cases: list[tuple[str, str]], cache: Any) -> list[tuple[str, str]]:
    if shutil.which("bash") is None:
        return cases
    digest = hashlib.sha256("\0".join(code for _, code in cases).encode()).hexdigest()[:16]
    key = f"vshell/oils-bash-n/{digest}"
    verdicts = cache.get(key, None) if cache is not None else None
    if not isinstance(verdicts, list) or len(verdicts) != len(cases):
        with ThreadPoolExecutor(8) as pool:
            verdicts = list(pool.map(_bash_accepts, [code for _, code in cases]))
        if cache is not None:
            cache.set(key, verdicts)
    return [case for case, ok in zip(cases, verdicts, strict=True) if ok]


def test_oils_spec_acceptance(pytestconfig: pytest.Config) -> None:
    if not SPEC_DIR.is_dir():
        pytest.skip(f"no Oils spec files at {SPEC_DIR}")
    cases = _accepted(_cases(), getattr(pytestconfig, "cache", None))
    failures: list[str] = []
    for name, code in cases:
        try:
            parse(code)
        except ParseError as e:
            failures.append(f"{name}: line {e.line}: {e}")
    ratio = 1 - len(failures) / max(1, len(cases))
    print(f"\nOils spec: {len(cases) - len(failures)}/{len(cases)} parsed ({ratio:.2%})")
    assert ratio >= MIN_RATIO, "\n".join(failures[:40])
