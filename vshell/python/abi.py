"""WASI preview 1 constants and struct layouts, and the host-errno → WASI-errno map.

Layouts are written out with explicit padding (``struct`` with ``<`` adds none); the sizes are
the ones wasi-libc's ``wasi/api.h`` asserts.
"""

from __future__ import annotations

import errno
import struct

# --- errno (the WASI numbering, not the host's) ---
SUCCESS = 0
E2BIG, EACCES, EBADF, EEXIST, EFAULT = 1, 2, 8, 20, 21
EINVAL, EIO, EISDIR, ELOOP, ENAMETOOLONG = 28, 29, 31, 32, 37
EINTR = 27
ENOENT, ENOSYS, ENOTDIR, ENOTEMPTY, ENOTSUP = 44, 52, 54, 55, 58
EPERM, EPIPE, EROFS, ESPIPE, EXDEV, ENOTCAPABLE = 63, 64, 69, 70, 75, 76

_WASI_ERRNO_NAMES = (
    "SUCCESS", "E2BIG", "EACCES", "EADDRINUSE", "EADDRNOTAVAIL", "EAFNOSUPPORT", "EAGAIN",
    "EALREADY", "EBADF", "EBADMSG", "EBUSY", "ECANCELED", "ECHILD", "ECONNABORTED",
    "ECONNREFUSED", "ECONNRESET", "EDEADLK", "EDESTADDRREQ", "EDOM", "EDQUOT", "EEXIST",
    "EFAULT", "EFBIG", "EHOSTUNREACH", "EIDRM", "EILSEQ", "EINPROGRESS", "EINTR", "EINVAL",
    "EIO", "EISCONN", "EISDIR", "ELOOP", "EMFILE", "EMLINK", "EMSGSIZE", "EMULTIHOP",
    "ENAMETOOLONG", "ENETDOWN", "ENETRESET", "ENETUNREACH", "ENFILE", "ENOBUFS", "ENODEV",
    "ENOENT", "ENOEXEC", "ENOLCK", "ENOLINK", "ENOMEM", "ENOMSG", "ENOPROTOOPT", "ENOSPC",
    "ENOSYS", "ENOTCONN", "ENOTDIR", "ENOTEMPTY", "ENOTRECOVERABLE", "ENOTSOCK", "ENOTSUP",
    "ENOTTY", "ENXIO", "EOVERFLOW", "EOWNERDEAD", "EPERM", "EPIPE", "EPROTO", "EPROTONOSUPPORT",
    "EPROTOTYPE", "ERANGE", "EROFS", "ESPIPE", "ESRCH", "ESTALE", "ETIMEDOUT", "ETXTBSY",
    "EXDEV", "ENOTCAPABLE",
)

HOST_TO_WASI: dict[int, int] = {
    getattr(errno, name): code
    for code, name in enumerate(_WASI_ERRNO_NAMES)
    if code and hasattr(errno, name)
}
HOST_TO_WASI[errno.EOPNOTSUPP] = ENOTSUP  # same number as ENOTSUP on Linux; explicit anyway
HOST_TO_WASI[errno.EWOULDBLOCK] = HOST_TO_WASI[errno.EAGAIN]


def wasi_errno(exc: OSError) -> int:
    """The WASI errno for a host OSError (EIO when it carries none we know)."""
    if exc.errno is None:
        return EIO
    return HOST_TO_WASI.get(exc.errno, EIO)


# --- file types ---
FILETYPE_UNKNOWN = 0
FILETYPE_CHARACTER_DEVICE = 2
FILETYPE_DIRECTORY = 3
FILETYPE_REGULAR_FILE = 4
FILETYPE_SYMBOLIC_LINK = 7

# --- flags ---
LOOKUP_SYMLINK_FOLLOW = 1
O_CREAT, O_DIRECTORY, O_EXCL, O_TRUNC = 1, 2, 4, 8
FDFLAG_APPEND = 1
FST_ATIM, FST_ATIM_NOW, FST_MTIM, FST_MTIM_NOW = 1, 2, 4, 8
WHENCE_SET, WHENCE_CUR, WHENCE_END = 0, 1, 2
CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME, CLOCK_THREAD_CPUTIME = 0, 1, 2, 3
EVENTTYPE_CLOCK, EVENTTYPE_FD_READ, EVENTTYPE_FD_WRITE = 0, 1, 2
SUBCLOCK_ABSTIME = 1

# --- rights ---
RIGHT_FD_READ = 1 << 1
RIGHT_FD_SEEK = 1 << 2
RIGHT_FD_TELL = 1 << 5
RIGHT_FD_WRITE = 1 << 6
RIGHT_FD_READDIR = 1 << 14
RIGHTS_ALL = (1 << 30) - 1
# A stream (stdin/stdout/stderr): no seek/tell, so wasi-libc's isatty() is false either way.
RIGHTS_STREAM = RIGHTS_ALL & ~(RIGHT_FD_SEEK | RIGHT_FD_TELL | RIGHT_FD_READDIR)

# --- structs ---
FDSTAT = struct.Struct("<BxHxxxxQQ")  # filetype, flags, rights_base, rights_inheriting (24 B)
FILESTAT = struct.Struct("<QQBxxxxxxxQQQQQ")  # dev ino type nlink size atim mtim ctim (64 B)
PRESTAT = struct.Struct("<BxxxI")  # tag (0 = dir), name length
DIRENT = struct.Struct("<QQIBxxx")  # d_next, d_ino, d_namlen, d_type (24 B) + name
IOVEC = struct.Struct("<II")
# userdata, tag, clock id or fd, timeout, precision, flags (48 B)
SUBSCRIPTION = struct.Struct("<QB7xI4xQQH6x")
EVENT = struct.Struct("<QHBxxxxxQHxxxxxx")  # userdata, error, type, nbytes, flags (32 B)
U32 = struct.Struct("<I")
U64 = struct.Struct("<Q")
assert FDSTAT.size == 24 and FILESTAT.size == 64 and DIRENT.size == 24
assert SUBSCRIPTION.size == 48 and EVENT.size == 32
