"""Pathname expansion for the interpreter: the walk lives in the text layer.

``vshell.text.pathglob`` walks any filesystem-like object (the MCP ``glob`` tool uses it
too); this module keeps the interpreter's import path.
"""

from __future__ import annotations

from vshell.text.pathglob import glob_expand, split_globignore

__all__ = ["glob_expand", "split_globignore"]
