"""Test-wide set-up: the checkout, the tests directory and its sub-directories (for their
shared helper modules) are importable.  Test modules themselves are imported with
pytest's importlib mode, so equal basenames in different folders do not clash."""

import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent
for p in [_HERE.parent, _HERE, *sorted(d for d in _HERE.iterdir() if d.is_dir())]:
    if str(p) not in sys.path and not p.name.startswith((".", "__")):
        sys.path.insert(0, str(p))
