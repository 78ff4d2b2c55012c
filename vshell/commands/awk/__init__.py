"""awk: POSIX awk with the gawk extensions agents use, compiled to Python closures.

``lexer`` → ``parser`` (tuples) → ``compiler`` (closures over ``runtime.State``) →
``interp`` (BEGIN, the ARGV input loop, END).  See ``cli`` for the command line.
"""

from __future__ import annotations

from vshell.commands.awk.command import run

__all__ = ["run"]
