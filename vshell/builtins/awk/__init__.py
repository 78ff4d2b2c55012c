"""awk: POSIX awk with the gawk extensions agents use, compiled to Python closures.

``lexer`` → ``parser`` (tuples) → ``compiler`` (closures over ``runtime.State``) →
``interp`` (BEGIN, the ARGV input loop, END).  See ``cli`` for the command line.
"""

from __future__ import annotations

from .cli import run

__all__ = ["run"]
