"""``/usr/bin`` and ``/bin``: a read-only directory naming vshell's own commands.

Scripts look for tools as files (``ls /bin``, ``test -x /usr/bin/env``, ``which`` with
``PATH=/bin``), so each command vshell runs shows as an executable file there.  The shell
never reads these files to run a command: a path served by a :class:`CommandDir` means the
command of that name.  A copy of one elsewhere is a two-line script that runs the command.
"""

from __future__ import annotations

import errno
import io
import os
import stat as st
import threading
import time

from vshell.vfs.backend import Ctx, Listing, Parts
from vshell.vfs.errors import fs_error
from vshell.vfs.stats import crc32, make_stat

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any, BinaryIO

__all__ = ["COMMAND_DIRS", "CommandDir", "command_script"]

COMMAND_DIRS = ("/usr/bin", "/bin")  # where a merged-/usr system keeps its programs
_DEV = 0x7662  # st_dev of these entries ("vb")
_DIR_MODE = st.S_IFDIR | 0o755
_FILE_MODE = st.S_IFREG | 0o755


def command_script(name: str) -> bytes:
    """What reading ``/usr/bin/NAME`` gives: a script running vshell's command NAME."""
    return f'#!/bin/sh\nexec {name} "$@"\n'.encode()


class CommandDir:
    """A flat read-only directory of the names ``names()`` gives (asked once, on first use)."""

    def __init__(self, names: Callable[[], Iterable[str]]) -> None:
        self._source = names
        self._names: frozenset[str] | None = None
        self._lock = threading.Lock()
        self._time_ns = time.time_ns()

    def names(self) -> frozenset[str]:
        with self._lock:
            if self._names is None:
                self._names = frozenset(n for n in self._source() if n and "/" not in n)
            return self._names

    def _name(self, parts: Parts, ctx: Ctx) -> str | None:
        """The command ``parts`` names, None for the directory itself; ENOENT otherwise."""
        ctx.guard(parts)
        if not parts:
            return None
        if len(parts) > 1:
            raise fs_error(errno.ENOTDIR if parts[0] in self.names() else errno.ENOENT)
        if parts[0] not in self.names():
            raise fs_error(errno.ENOENT)
        return parts[0]

    def _stat_of(self, name: str | None) -> os.stat_result:
        ns = self._time_ns
        if name is None:
            return make_stat(_DIR_MODE, 1, _DEV, 2, 0, 0, 4096, ns, ns, ns)
        size = len(command_script(name))
        ino = crc32(name.encode()) | 2
        return make_stat(_FILE_MODE, ino, _DEV, 1, 0, 0, size, ns, ns, ns)

    # reading
    def open(self, parts: Parts, mode: str, ctx: Ctx) -> BinaryIO:
        name = self._name(parts, ctx)
        if name is None:
            raise fs_error(errno.EISDIR)
        if mode != "rb":
            raise fs_error(errno.EROFS)
        return io.BufferedReader(io.BytesIO(command_script(name)))

    def stat(self, parts: Parts, follow: bool, ctx: Ctx) -> os.stat_result:
        return self._stat_of(self._name(parts, ctx))

    def scandir(self, parts: Parts, ctx: Ctx) -> Listing:
        if self._name(parts, ctx) is not None:
            raise fs_error(errno.ENOTDIR)
        return (), [(name, "f") for name in sorted(self.names())]

    def readlink(self, parts: Parts, ctx: Ctx) -> str:
        self._name(parts, ctx)
        raise fs_error(errno.EINVAL)

    def realpath(self, parts: Parts, strict: bool, ctx: Ctx) -> Parts:
        if strict:
            self._name(parts, ctx)
        return parts

    def access(self, parts: Parts, mode: int, ctx: Ctx) -> bool:
        self._name(parts, ctx)
        return not mode & os.W_OK

    # writing: never
    def _refuse(self, *args: Any) -> None:
        raise fs_error(errno.EROFS)

    mkdir = rmdir = unlink = rename = symlink = link = _refuse
    chmod = utime = truncate = _refuse
