"""The fields of a stat result by name, for the commands that print them by letter.

``find -printf`` and ``stat -c`` print the same fields under different letters (find's
``%n`` is stat's ``%h``, find's ``%u`` stat's ``%U``): each command keeps only its letter
table, made with :func:`by_letter`, and the values come from here.
"""

from __future__ import annotations

import stat as st
from collections.abc import Callable
from typing import Any

from vshell.commands._lib.futil import group_name, owner_name

Getter = Callable[[Any], "int | str"]


# find's letters for the file types (``-type``, ``%y``), which stat's names are keyed by too
_KIND_LETTER = {st.S_IFREG: "f", st.S_IFDIR: "d", st.S_IFLNK: "l", st.S_IFIFO: "p",
                st.S_IFSOCK: "s", st.S_IFCHR: "c", st.S_IFBLK: "b"}


def kind_letter(mode: int) -> str:
    """The letter of the file type in ``mode``: ``f d l p s c b``, ``U`` for another."""
    return _KIND_LETTER.get(st.S_IFMT(mode), "U")


def blocks(s: Any) -> int:
    """512-byte blocks allocated; counted from the size when the backend keeps no count."""
    b = getattr(s, "st_blocks", None)
    return int(b) if b is not None else -(-s.st_size // 512)


FIELDS: dict[str, Getter] = {
    "size": lambda s: s.st_size,
    "blocks": blocks,
    "nlink": lambda s: s.st_nlink,
    "ino": lambda s: s.st_ino,
    "uid": lambda s: s.st_uid,
    "gid": lambda s: s.st_gid,
    "user": lambda s: owner_name(s.st_uid),
    "group": lambda s: group_name(s.st_gid),
    "mode_string": lambda s: st.filemode(s.st_mode),
}


def by_letter(**letters: str) -> dict[str, Getter]:
    """A command's letter table: ``by_letter(n="nlink")`` maps ``n`` to the nlink getter."""
    return {letter: FIELDS[name] for letter, name in letters.items()}
