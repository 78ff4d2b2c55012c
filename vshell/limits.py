"""A sandbox's limits: their defaults and the units they are written in.

The command line (``--timeout 1m``), ``vshell.toml`` (``timeout = "1m"``) and the Sandbox
itself share this one module, so a limit means the same wherever it is set and a default
changed here changes everywhere.  Faults are plain ``ValueError``s: each caller words them
for its own reader.  Imports nothing of vshell but records.
"""

from __future__ import annotations

from vshell.lazy import re
from vshell.records import record

DEFAULT_TIMEOUT = 30.0
DEFAULT_OUTPUT_LIMIT = 4 * 1024 * 1024
DEFAULT_MEMORY_FS_LIMIT = 1 << 30  # file data held by /tmp, memory mounts and cow overlays
# Everything one sandbox holds: shell data, pipes, file data and its Python guests together.
# Twice the default guest (1 GiB) or file data (1 GiB), so either can use its whole share
# with room for the shell; small enough that a few runaway sandboxes do not take a 16 GiB
# machine down.  The host's own overhead (the interpreter, caches, code) is not counted.
DEFAULT_MEMORY_LIMIT = 2 << 30
DEFAULT_MAX_JOBS = 64  # background jobs and process substitutions running at once



@record
class Limits:
    """The limits both ``vshell``'s flags and ``vshell.toml`` set, with the same defaults."""

    timeout: float | None = DEFAULT_TIMEOUT
    output_limit: int = DEFAULT_OUTPUT_LIMIT
    memory_fs_limit: int | None = DEFAULT_MEMORY_FS_LIMIT
    memory_limit: int | None = DEFAULT_MEMORY_LIMIT


# Pattern texts, compiled (and cached by re) on first use: most runs parse no limit at all.
_SECONDS = r"\d+(\.\d*)?"
_DURATION_PART = r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)"
_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_SIZE = r"(\d+)([kKmMgG]i?[bB]?|[bB])?"
_SIZE_UNITS = {"": 1, "b": 1, "k": 1024, "m": 1024**2, "g": 1024**3}


def parse_duration(text: str) -> float | None:
    """Go-style durations ("500ms", "1m30s", "0"); a bare number means seconds; zero means
    no limit (None).  ``ValueError`` for anything else."""
    t = text.strip()
    if re.fullmatch(_SECONDS, t):
        return float(t) or None
    pos = 0
    total = 0.0
    for m in re.finditer(_DURATION_PART, t):
        if m.start() != pos:
            break
        total += float(m.group(1)) * _UNITS[m.group(2)]
        pos = m.end()
    if pos != len(t) or not t:
        raise ValueError(f"invalid duration {text!r}")
    return total or None


def parse_size(text: str) -> int:
    """A byte count: digits with an optional binary unit ("512", "4M", "1GiB", "64kb").
    ``ValueError`` for anything else."""
    m = re.fullmatch(_SIZE, text.strip())
    if not m:
        raise ValueError(f"invalid byte count {text!r}")
    return int(m.group(1)) * _SIZE_UNITS[(m.group(2) or "").lower()[:1]]
