"""bash's reserved words: a word that is one of these at a command's start is grammar, not a
command name (``type if`` says "keyword"; completion offers them)."""

from __future__ import annotations

KEYWORDS = frozenset(
    "if then else elif fi case esac for select while until do done in function time { } ! [[ ]] "
    "coproc".split()
)
