"""WASI preview 1, written over vshell's VFS and one invocation's streams.

One :class:`Wasi` per guest run holds everything the guest can reach: the argument and
environment blocks, a descriptor table (0-2 are the invocation's stdin/stdout/stderr, 3 is the
only preopen, "/" of the sandbox), and the :class:`~vshell.python.guestfs.GuestFS`.  Nothing
here touches the host: every path goes through the VFS, so mounts, read-only rules, deny
patterns and symlink containment hold exactly as for the shell's own commands.  Sockets and
processes do not exist (``sock_*`` answer ENOTSUP).

Each import of the module is a method named after it, taking ``(caller, *args)`` with the raw
arguments (i32s and i64s as unsigned ints) and returning a WASI errno; an ``OSError`` raised
inside one becomes its errno (:func:`vshell.python.abi.wasi_errno`), :class:`Fault` becomes
EFAULT, and :class:`Stop` unwinds the guest (``proc_exit``, or a cancel noticed in a host call
that would otherwise block).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import struct
import time
from collections.abc import Mapping, Sequence

from vshell.python import abi
from vshell.python.guestfs import GuestFS, filetype, join

TYPE_CHECKING = False  # not typing's: importing typing costs every python start
if TYPE_CHECKING:
    from typing import Any

MAX_FDS = 1024
STDIN_CHUNK = 65536
SLEEP_SLICE = 0.05
IO_CAP = 64 << 20  # bytes moved by one read/write call at most (a short count beyond)
PATH_MAX = 4096


INTERRUPT_OP = b'{"op": "interrupt-'  # the boot's requests about Ctrl-C (interrupt.py)
NO_HOST = -1  # no door here
HOST_FAULT = -2  # a bad request or answer


class Stop(Exception):
    """Unwind the guest now (its exit status or stop reason is already recorded)."""


class Fault(Exception):
    """The guest passed a pointer outside its memory."""


class WasiError(Exception):
    """Return this WASI errno to the guest."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


class FD:
    """One open descriptor of the guest."""

    __slots__ = ("entries", "file", "filetype", "flags", "inheriting", "kind", "path", "rights",
                 "stream")

    def __init__(self, kind: str, path: str, filetype: int, rights: int, inheriting: int,
                 flags: int = 0, file: Any = None, stream: Any = None) -> None:
        self.kind = kind  # "in" | "out" (the invocation's streams), "file", "dir"
        self.path = path
        self.filetype = filetype
        self.rights = rights
        self.inheriting = inheriting
        self.flags = flags
        self.file = file
        self.stream = stream
        self.entries: list[tuple[str, int, int]] | None = None


def _find(stream: Any, attr: str) -> Any:
    """``stream.attr``, looking through the sandbox's stream wrappers (``_raw``), or None."""
    for _ in range(3):
        if stream is None:
            return None
        found = getattr(stream, attr, None)
        if found is not None:
            return found
        stream = getattr(stream, "_raw", None)
    return None


def _block(items: Sequence[str]) -> tuple[int, bytes, list[int]]:
    """``(count, NUL-separated bytes, offsets)`` for args_get / environ_get."""
    offsets: list[int] = []
    data = bytearray()
    for item in items:
        offsets.append(len(data))
        data += item.encode("utf-8", "surrogateescape") + b"\0"
    return len(items), bytes(data), offsets


def _ns(st: Any, name: str) -> int:
    value = getattr(st, name + "_ns", None)
    if value is None:
        value = int(getattr(st, name, 0) * 1_000_000_000)
    return max(0, int(value)) & 0xFFFFFFFFFFFFFFFF


class Wasi:
    """The state of one guest run and the host side of every WASI import."""

    def __init__(self, inv: Any, argv: Sequence[str], env: Mapping[str, str],
                 fs: GuestFS) -> None:
        self.inv = inv
        self.cancel = inv.cancel
        self.fs = fs
        self.args = _block(list(argv))
        self.environ = _block([f"{k}={v}" for k, v in env.items()])
        self.exit_code: int | None = None
        self.stop_reason: str | None = None
        self.interrupted = False
        self.broken_pipe = False
        self.host_errors: list[BaseException] = []
        stdin = inv.stdin
        self._stdin_read = None
        if stdin is not None:
            self._stdin_read = getattr(stdin, "read1", None) or stdin.read
        self.fds: dict[int, FD] = {
            0: FD("in", "/dev/stdin", abi.FILETYPE_UNKNOWN, abi.RIGHTS_STREAM, 0, stream=stdin),
            1: FD("out", "/dev/stdout", abi.FILETYPE_UNKNOWN, abi.RIGHTS_STREAM, 0,
                  stream=inv.stdout),
            2: FD("out", "/dev/stderr", abi.FILETYPE_UNKNOWN, abi.RIGHTS_STREAM, 0,
                  stream=inv.stderr),
            3: FD("dir", "/", abi.FILETYPE_DIRECTORY, abi.RIGHTS_ALL, abi.RIGHTS_ALL),
        }
        self.preopens = {3: b"/"}
        self._cpu0 = time.thread_time_ns()
        self._mem_addr = 0
        self._mem_keep: Any = None
        self._base = 0
        self._size = -1
        self._mv: memoryview | None = None
        from vshell.python import wasmtime_c

        self._context = 0
        self._data = wasmtime_c.memory_data
        self._data_size = wasmtime_c.memory_data_size
        # the guest's linear memory, charged to the sandbox's budget on every epoch tick
        # (set by the runtime); the size that budget refused, once it has
        self.memory_hold: Any = None
        self.memory_refused = 0
        # the door back into the shell: request bytes -> response bytes (None: a fault)
        self.door: Any = None
        self._alloc: Any = None
        # Ctrl-C as KeyboardInterrupt inside an interactive guest (see interrupt.py): set by
        # the runtime for such a run; ``interrupt_pending`` is set from any thread and acted
        # on by the guest's own thread at its next epoch tick or stdin wait
        self.interrupter: Any = None
        self.interrupt_pending = False

    # --- plumbing ---------------------------------------------------------------------
    def bind_memory(self, memory: Any, context: int) -> None:
        """Remember the instance's exported memory (a :class:`~vshell.python.wasmtime_c.
        Memory`) and its store.

        ``context`` is the store's ``wasmtime_context_t*``: a host call's caller context is
        that same pointer, so it is not asked for on every call."""
        self._mem_keep = memory
        self._mem_addr = memory.address
        self._context = context

    def view(self, caller: int) -> memoryview:
        """The guest's linear memory (bounds-checked by slicing), re-derived when it grew.

        Memory only moves when it grows, so its size is the one thing asked on each call."""
        size = self._data_size(self._context, self._mem_addr)
        if size != self._size or self._mv is None:
            base = self._data(self._context, self._mem_addr)
            self._mv = memoryview((ctypes.c_ubyte * size).from_address(base)).cast("B")
            self._base, self._size = base, size
        return self._mv

    def close(self) -> None:
        """Close every file the guest left open (flushing writes) and drop the memory view."""
        for fd in list(self.fds.values()):
            if fd.file is not None:
                with contextlib.suppress(Exception):  # best effort at teardown
                    fd.file.close()
        self.fds.clear()
        self._mv = None
        self._mem_keep = None

    def check(self) -> None:
        """Stop the guest if the run was cancelled or its deadline passed."""
        reason = self.cancel.reason
        if reason is not None:
            self.stop_reason = reason
            raise Stop(reason)

    def should_stop(self) -> bool:
        """Asked on every epoch tick: the run was stopped, or the guest's memory grew past
        what the sandbox's budget still gives (guests running side by side share it)."""
        reason = self.cancel.reason
        if reason is not None:
            self.stop_reason = reason
            return True
        if self.interrupted:  # Ctrl-C, noted on this thread (see runtime._note_sigint)
            return True
        hold = self.memory_hold
        if hold is not None and self._mem_addr:
            size = self._data_size(self._context, self._mem_addr)
            if size > hold.size and not hold.resize(size):
                self.memory_refused = size
                return True
        return False

    @staticmethod
    def _get(mv: memoryview, ptr: int, n: int) -> bytes:
        if ptr + n > len(mv):
            raise Fault
        return bytes(mv[ptr : ptr + n])

    @staticmethod
    def _put(mv: memoryview, ptr: int, data: bytes) -> None:
        end = ptr + len(data)
        if end > len(mv):
            raise Fault
        mv[ptr:end] = data

    def _str(self, mv: memoryview, ptr: int, n: int) -> str:
        if n > PATH_MAX:
            raise WasiError(abi.ENAMETOOLONG)
        return self._get(mv, ptr, n).decode("utf-8", "surrogateescape")

    def _fd(self, fd: int) -> FD:
        entry = self.fds.get(fd)
        if entry is None:
            raise WasiError(abi.EBADF)
        return entry

    def _path(self, mv: memoryview, fd: int, ptr: int, n: int) -> str:
        entry = self._fd(fd)
        if entry.kind != "dir":
            raise WasiError(abi.ENOTDIR)
        return join(entry.path, self._str(mv, ptr, n))

    def _iovs(self, mv: memoryview, ptr: int, n: int) -> list[tuple[int, int]]:
        """The iovecs at ``ptr``, each checked to lie in memory, trimmed to IO_CAP in all."""
        out: list[tuple[int, int]] = []
        total = 0
        size = len(mv)
        for buf, length in abi.IOVEC.iter_unpack(self._get(mv, ptr, 8 * n)):
            if buf + length > size:
                raise Fault
            if total + length > IO_CAP:
                length = IO_CAP - total
            out.append((buf, length))
            total += length
            if total >= IO_CAP:
                break
        return out

    def _scatter(self, mv: memoryview, iovs: list[tuple[int, int]], data: bytes) -> int:
        off = 0
        for ptr, length in iovs:
            if off >= len(data):
                break
            chunk = data[off : off + length]
            self._put(mv, ptr, chunk)
            off += len(chunk)
        return off

    def _gather(self, mv: memoryview, iovs: list[tuple[int, int]]) -> bytes:
        return b"".join(self._get(mv, ptr, length) for ptr, length in iovs)

    def _new_fd(self, entry: FD) -> int:
        for n in range(MAX_FDS):
            if n not in self.fds:
                self.fds[n] = entry
                return n
        raise WasiError(33)  # EMFILE

    def _filestat(self, mv: memoryview, out: int, st: Any) -> None:
        abi.FILESTAT.pack_into(
            mv, out, int(getattr(st, "st_dev", 0)) & 0xFFFFFFFFFFFFFFFF,
            (int(getattr(st, "st_ino", 0)) & 0xFFFFFFFFFFFFFFFF) or 1,
            filetype(st.st_mode), int(getattr(st, "st_nlink", 1)), int(st.st_size),
            _ns(st, "st_atime"), _ns(st, "st_mtime"), _ns(st, "st_ctime"))

    def _set_times(self, path: str, atim: int, mtim: int, flags: int, follow: bool) -> None:
        now = time.time_ns()
        cur = None
        if not flags & (abi.FST_ATIM | abi.FST_ATIM_NOW) or not flags & (
            abi.FST_MTIM | abi.FST_MTIM_NOW
        ):
            cur = self.fs.stat(path, follow)

        def chosen(now_flag: int, given_flag: int, given: int, current: str) -> int:
            """One of the two times: now, the one given, or the file's own (kept)."""
            if flags & now_flag:
                return now
            if flags & given_flag:
                return given
            return _ns(cur, current)

        a = chosen(abi.FST_ATIM_NOW, abi.FST_ATIM, atim, "st_atime")
        m = chosen(abi.FST_MTIM_NOW, abi.FST_MTIM, mtim, "st_mtime")
        self.fs.utime(path, (a, m), follow)

    # --- arguments, environment, clocks, randomness -----------------------------------
    def _sizes(self, block: tuple[int, bytes, list[int]], caller: int, cnt: int, size: int) -> int:
        mv = self.view(caller)
        abi.U32.pack_into(mv, cnt, block[0])
        abi.U32.pack_into(mv, size, len(block[1]))
        return 0

    def _fill(self, block: tuple[int, bytes, list[int]], caller: int, ptrs: int, buf: int) -> int:
        mv = self.view(caller)
        count, data, offsets = block
        if count:
            struct.pack_into(f"<{count}I", mv, ptrs, *[buf + o for o in offsets])
        self._put(mv, buf, data)
        return 0

    def args_sizes_get(self, caller: int, cnt: int, size: int) -> int:
        return self._sizes(self.args, caller, cnt, size)

    def args_get(self, caller: int, ptrs: int, buf: int) -> int:
        return self._fill(self.args, caller, ptrs, buf)

    def environ_sizes_get(self, caller: int, cnt: int, size: int) -> int:
        return self._sizes(self.environ, caller, cnt, size)

    def environ_get(self, caller: int, ptrs: int, buf: int) -> int:
        return self._fill(self.environ, caller, ptrs, buf)

    def clock_res_get(self, caller: int, clock: int, out: int) -> int:
        if clock > abi.CLOCK_THREAD_CPUTIME:
            return abi.EINVAL
        abi.U64.pack_into(self.view(caller), out, 1000)
        return 0

    def clock_time_get(self, caller: int, clock: int, precision: int, out: int) -> int:
        if clock == abi.CLOCK_REALTIME:
            now = time.time_ns()
        elif clock == abi.CLOCK_MONOTONIC:
            now = time.monotonic_ns()
        elif clock in (abi.CLOCK_PROCESS_CPUTIME, abi.CLOCK_THREAD_CPUTIME):
            now = time.thread_time_ns() - self._cpu0  # the guest runs on this thread
        else:
            return abi.EINVAL
        abi.U64.pack_into(self.view(caller), out, now)
        return 0

    def random_get(self, caller: int, buf: int, n: int) -> int:
        mv = self.view(caller)
        if buf + n > len(mv):
            raise Fault
        self._put(mv, buf, os.urandom(n))
        return 0

    def sched_yield(self, caller: int) -> int:
        self.check()
        return 0

    def proc_exit(self, caller: int, code: int) -> None:
        self.exit_code = code
        raise Stop("exit")

    def poll_oneoff(self, caller: int, sub_ptr: int, ev_ptr: int, nsubs: int, nev_ptr: int) -> int:
        """Clock subscriptions sleep (checking the cancel token); descriptors are always ready."""
        if nsubs == 0:
            return abi.EINVAL
        mv = self.view(caller)
        raw = self._get(mv, sub_ptr, abi.SUBSCRIPTION.size * nsubs)
        subs = list(abi.SUBSCRIPTION.iter_unpack(raw))
        events: list[tuple[int, int, int, int]] = []
        clocks: list[tuple[int, int]] = []  # (deadline ns on monotonic clock, userdata)
        now_mono = time.monotonic_ns()
        for userdata, tag, ident, timeout, _precision, flags in subs:
            if tag == abi.EVENTTYPE_CLOCK:
                if flags & abi.SUBCLOCK_ABSTIME:
                    if ident == abi.CLOCK_REALTIME:
                        rel = timeout - time.time_ns()
                    elif ident == abi.CLOCK_MONOTONIC:
                        rel = timeout - now_mono
                    else:
                        events.append((userdata, abi.EINVAL, tag, 0))
                        continue
                else:
                    rel = timeout
                clocks.append((now_mono + max(0, rel), userdata))
            elif tag in (abi.EVENTTYPE_FD_READ, abi.EVENTTYPE_FD_WRITE):
                err = 0 if ident in self.fds else abi.EBADF
                events.append((userdata, err, tag, 0))
            else:
                events.append((userdata, abi.EINVAL, tag, 0))
        if not events and clocks:
            wake = min(c[0] for c in clocks)
            self.cancel.start_held()  # a sleep: the run starts pipeline stages it held back
            while True:
                self.check()
                if self.interrupt_pending and self.deliver_interrupt():
                    return abi.EINTR  # time.sleep checks its signals: KeyboardInterrupt
                left = (wake - time.monotonic_ns()) / 1e9
                if left <= 0:
                    break
                time.sleep(min(left, SLEEP_SLICE))
            now_mono = time.monotonic_ns()
            events = [(u, 0, abi.EVENTTYPE_CLOCK, 0) for d, u in clocks if d <= now_mono]
        for i, (userdata, err, tag, nbytes) in enumerate(events):
            abi.EVENT.pack_into(mv, ev_ptr + i * abi.EVENT.size, userdata, err, tag, nbytes, 0)
        abi.U32.pack_into(mv, nev_ptr, len(events))
        return 0

    # --- descriptors ------------------------------------------------------------------
    def fd_advise(self, caller: int, fd: int, offset: int, length: int, advice: int) -> int:
        self._fd(fd)
        return 0

    def fd_allocate(self, caller: int, fd: int, offset: int, length: int) -> int:
        self._fd(fd)
        return abi.ENOTSUP

    def fd_close(self, caller: int, fd: int) -> int:
        entry = self.fds.pop(fd, None)
        if entry is None:
            return abi.EBADF
        self.preopens.pop(fd, None)
        if entry.file is not None:
            entry.file.close()
        return 0

    def fd_datasync(self, caller: int, fd: int) -> int:
        entry = self._fd(fd)
        if entry.file is not None and hasattr(entry.file, "flush"):
            entry.file.flush()
        return 0

    fd_sync = fd_datasync

    def fd_fdstat_get(self, caller: int, fd: int, out: int) -> int:
        e = self._fd(fd)
        abi.FDSTAT.pack_into(self.view(caller), out, e.filetype, e.flags, e.rights, e.inheriting)
        return 0

    def fd_fdstat_set_flags(self, caller: int, fd: int, flags: int) -> int:
        self._fd(fd).flags = flags
        return 0

    def fd_filestat_get(self, caller: int, fd: int, out: int) -> int:
        e = self._fd(fd)
        mv = self.view(caller)
        if e.kind in ("in", "out"):
            abi.FILESTAT.pack_into(mv, out, 0, fd + 1, e.filetype, 1, 0, 0, 0, 0)
            return 0
        if e.file is not None and hasattr(e.file, "flush"):
            try:
                e.file.flush()
            except (OSError, ValueError):
                pass
        try:
            st = self.fs.stat(e.path)
        except OSError:
            if e.file is None:
                raise
            pos = e.file.tell()
            size = e.file.seek(0, os.SEEK_END)
            e.file.seek(pos)
            abi.FILESTAT.pack_into(mv, out, 0, 1, e.filetype, 0, size, 0, 0, 0)
            return 0
        self._filestat(mv, out, st)
        return 0

    def fd_filestat_set_size(self, caller: int, fd: int, size: int) -> int:
        e = self._fd(fd)
        if e.file is None:
            return abi.EBADF if e.kind == "dir" else abi.EINVAL
        if not e.rights & abi.RIGHT_FD_WRITE:
            return abi.EBADF
        e.file.truncate(size)
        return 0

    def fd_filestat_set_times(self, caller: int, fd: int, atim: int, mtim: int, fl: int) -> int:
        e = self._fd(fd)
        if e.kind in ("in", "out"):
            return abi.ENOTSUP
        self._set_times(e.path, atim, mtim, fl, True)
        return 0

    def fd_prestat_get(self, caller: int, fd: int, out: int) -> int:
        name = self.preopens.get(fd)
        if name is None:
            return abi.EBADF
        abi.PRESTAT.pack_into(self.view(caller), out, 0, len(name))
        return 0

    def fd_prestat_dir_name(self, caller: int, fd: int, buf: int, n: int) -> int:
        name = self.preopens.get(fd)
        if name is None:
            return abi.EBADF
        self._put(self.view(caller), buf, name[:n])
        return 0

    def fd_read(self, caller: int, fd: int, iovs: int, niovs: int, out: int) -> int:
        e = self._fd(fd)
        mv = self.view(caller)
        if niovs == 1 and e.kind == "file":
            return self._read_file(e, mv, iovs, out)
        vecs = self._iovs(mv, iovs, niovs)
        want = sum(length for _, length in vecs)
        if e.kind == "in":
            self.check()
            if want and self.interrupter is not None and not self._wait_stdin():
                return abi.EINTR  # CPython's read loop checks its signals: KeyboardInterrupt
            data = self._read_stdin(min(want, STDIN_CHUNK)) if want else b""
            self.check()
        elif e.kind == "file":
            if not e.rights & abi.RIGHT_FD_READ:
                return abi.EBADF
            data = e.file.read(want) or b""
        elif e.kind == "dir":
            return abi.EISDIR
        else:
            return abi.EBADF
        abi.U32.pack_into(mv, out, self._scatter(mv, vecs, data))
        return 0

    def _read_file(self, e: FD, mv: memoryview, iov: int, out: int) -> int:
        """``fd_read`` of a file into one buffer, the way CPython reads: straight into the
        guest's memory, without the iovec list and the bytes copy (a line-by-line read of
        a file makes one such call per 8 KiB, so their overhead is the read's)."""
        buf, length = abi.IOVEC.unpack_from(self._get(mv, iov, 8))
        end = buf + length
        if end > len(mv):
            raise Fault
        if not e.rights & abi.RIGHT_FD_READ:
            return abi.EBADF
        end = buf + min(length, IO_CAP)
        readinto = getattr(e.file, "readinto", None)
        if readinto is None:
            data = e.file.read(end - buf) or b""
            self._put(mv, buf, data)
            count = len(data)
        else:
            count = readinto(mv[buf:end]) or 0
        abi.U32.pack_into(mv, out, count)
        return 0

    def _wait_stdin(self) -> bool:
        """Wait until the terminal has input (True), checking the cancel token, or until a
        Ctrl-C was delivered to the guest (False).  Streams that cannot say whether input is
        waiting (no ``wait_readable``) are read at once."""
        wait = _find(self.fds[0].stream, "wait_readable")
        if wait is not None:
            self.cancel.start_held()  # a wait for the terminal, as a sleep above
        while True:
            if self.deliver_interrupt():
                return False
            if wait is None or wait(SLEEP_SLICE):
                return True
            self.check()

    def deliver_interrupt(self) -> bool:
        """On the guest's thread: raise a pending Ctrl-C inside the guest (True if done)."""
        if not self.interrupt_pending or self.interrupter is None:
            return False
        mv = self.view(0)
        self.interrupt_pending = False
        return bool(self.interrupter.poke(mv))

    def take_interrupt(self) -> bool:
        """A pending Ctrl-C, taken (the door answers it; the guest raises it itself)."""
        if self.interrupt_pending:
            self.interrupt_pending = False
            return True
        return False

    def _read_stdin(self, n: int) -> bytes:
        if self._stdin_read is None:
            return b""
        try:
            return self._stdin_read(n) or b""
        except ValueError:  # a closed stream reads as end of input
            return b""

    def fd_write(self, caller: int, fd: int, iovs: int, niovs: int, out: int) -> int:
        e = self._fd(fd)
        mv = self.view(caller)
        if self.interrupter is not None and self.interrupter.wakeup_fd == fd:
            self.interrupter.on_write(mv, fd)  # a signal is being tripped: see interrupt.py
        data = self._gather(mv, self._iovs(mv, iovs, niovs))
        if e.kind == "out":
            self.check()
            if data:
                try:
                    e.stream.write(data)
                except BrokenPipeError:
                    self.broken_pipe = True
                    return abi.EPIPE
                except ValueError:  # the stream was closed under us
                    return abi.EPIPE
        elif e.kind == "file":
            if not e.rights & abi.RIGHT_FD_WRITE:
                return abi.EBADF
            if data:
                e.file.write(data)
        elif e.kind == "dir":
            return abi.EISDIR
        else:
            return abi.EBADF
        abi.U32.pack_into(mv, out, len(data))
        return 0

    def _positional(self, fd: int, right: int) -> FD:
        """The open file behind ``fd`` for a read or write at an offset that needs ``right``
        (pread and pwrite): a pipe cannot seek, a directory is no file."""
        e = self._fd(fd)
        if e.kind != "file":
            raise WasiError(abi.ESPIPE if e.kind != "dir" else abi.EISDIR)
        if not e.rights & right:
            raise WasiError(abi.EBADF)
        return e

    def fd_pread(self, caller: int, fd: int, iovs: int, niovs: int, offset: int, out: int) -> int:
        e = self._positional(fd, abi.RIGHT_FD_READ)
        mv = self.view(caller)
        vecs = self._iovs(mv, iovs, niovs)
        pos = e.file.tell()
        try:
            e.file.seek(offset)
            data = e.file.read(sum(length for _, length in vecs)) or b""
        finally:
            e.file.seek(pos)
        abi.U32.pack_into(mv, out, self._scatter(mv, vecs, data))
        return 0

    def fd_pwrite(self, caller: int, fd: int, iovs: int, niovs: int, offset: int, out: int) -> int:
        e = self._positional(fd, abi.RIGHT_FD_WRITE)
        mv = self.view(caller)
        data = self._gather(mv, self._iovs(mv, iovs, niovs))
        pos = e.file.tell()
        try:
            e.file.seek(offset)
            e.file.write(data)
        finally:
            e.file.seek(pos)
        abi.U32.pack_into(mv, out, len(data))
        return 0

    def fd_readdir(self, caller: int, fd: int, buf: int, n: int, cookie: int, out: int) -> int:
        e = self._fd(fd)
        if e.kind != "dir":
            return abi.ENOTDIR
        if cookie == 0 or e.entries is None:
            e.entries = self.fs.listdir(e.path)
        entries = e.entries
        data = bytearray()
        i = cookie
        while i < len(entries) and len(data) < n:
            name, kind, ino = entries[i]
            raw = name.encode("utf-8", "surrogateescape")
            data += abi.DIRENT.pack(i + 1, ino, len(raw), kind) + raw
            i += 1
        data = data[:n]
        mv = self.view(caller)
        self._put(mv, buf, bytes(data))
        abi.U32.pack_into(mv, out, len(data))
        return 0

    def fd_seek(self, caller: int, fd: int, offset: int, whence: int, out: int) -> int:
        e = self._fd(fd)
        if e.kind != "file":
            return abi.ESPIPE if e.kind != "dir" else abi.EBADF
        if offset >= 1 << 63:
            offset -= 1 << 64
        if whence not in (abi.WHENCE_SET, abi.WHENCE_CUR, abi.WHENCE_END):
            return abi.EINVAL
        if whence == abi.WHENCE_SET and offset < 0:
            return abi.EINVAL
        pos = e.file.seek(offset, whence)
        abi.U64.pack_into(self.view(caller), out, pos)
        return 0

    def fd_tell(self, caller: int, fd: int, out: int) -> int:
        e = self._fd(fd)
        if e.kind != "file":
            return abi.ESPIPE if e.kind != "dir" else abi.EBADF
        abi.U64.pack_into(self.view(caller), out, e.file.tell())
        return 0

    # --- paths --------------------------------------------------------------------------
    def path_create_directory(self, caller: int, fd: int, p: int, n: int) -> int:
        self.fs.mkdir(self._path(self.view(caller), fd, p, n))
        return 0

    def path_remove_directory(self, caller: int, fd: int, p: int, n: int) -> int:
        self.fs.rmdir(self._path(self.view(caller), fd, p, n))
        return 0

    def path_unlink_file(self, caller: int, fd: int, p: int, n: int) -> int:
        self.fs.unlink(self._path(self.view(caller), fd, p, n))
        return 0

    def path_filestat_get(self, caller: int, fd: int, flags: int, p: int, n: int,
                          out: int) -> int:
        mv = self.view(caller)
        path = self._path(mv, fd, p, n)
        st = self.fs.stat(path, bool(flags & abi.LOOKUP_SYMLINK_FOLLOW))
        self._filestat(mv, out, st)
        return 0

    def path_filestat_set_times(self, caller: int, fd: int, flags: int, p: int, n: int,
                                atim: int, mtim: int, fst: int) -> int:
        path = self._path(self.view(caller), fd, p, n)
        self._set_times(path, atim, mtim, fst, bool(flags & abi.LOOKUP_SYMLINK_FOLLOW))
        return 0

    def path_link(self, caller: int, ofd: int, oflags: int, op: int, on: int, nfd: int,
                  np_: int, nn: int) -> int:
        mv = self.view(caller)
        self.fs.link(self._path(mv, ofd, op, on), self._path(mv, nfd, np_, nn))
        return 0

    def path_rename(self, caller: int, ofd: int, op: int, on: int, nfd: int, np_: int,
                    nn: int) -> int:
        mv = self.view(caller)
        self.fs.rename(self._path(mv, ofd, op, on), self._path(mv, nfd, np_, nn))
        return 0

    def path_symlink(self, caller: int, op: int, on: int, fd: int, np_: int, nn: int) -> int:
        mv = self.view(caller)
        target = self._str(mv, op, on)
        self.fs.symlink(target, self._path(mv, fd, np_, nn))
        return 0

    def path_readlink(self, caller: int, fd: int, p: int, n: int, buf: int, size: int,
                      out: int) -> int:
        mv = self.view(caller)
        target = self.fs.readlink(self._path(mv, fd, p, n)).encode("utf-8", "surrogateescape")
        data = target[:size]
        self._put(mv, buf, data)
        abi.U32.pack_into(mv, out, len(data))
        return 0

    def path_open(self, caller: int, fd: int, dirflags: int, p: int, n: int, oflags: int,
                  rights: int, inheriting: int, fdflags: int, out: int) -> int:
        mv = self.view(caller)
        path = self._path(mv, fd, p, n)
        follow = bool(dirflags & abi.LOOKUP_SYMLINK_FOLLOW)
        want_read = bool(rights & abi.RIGHT_FD_READ)
        want_write = bool(rights & abi.RIGHT_FD_WRITE)
        create = bool(oflags & abi.O_CREAT)
        excl = create and bool(oflags & abi.O_EXCL)
        try:
            st = self.fs.stat(path, follow)
        except FileNotFoundError:
            if not create or oflags & abi.O_DIRECTORY:
                raise
            st = None
        if st is not None:
            if excl:
                return abi.EEXIST
            kind = filetype(st.st_mode)
            if kind == abi.FILETYPE_SYMBOLIC_LINK:
                return abi.ELOOP
            if kind == abi.FILETYPE_DIRECTORY:
                if want_write:
                    return abi.EISDIR
                entry = FD("dir", path, kind, rights & abi.RIGHTS_ALL, inheriting, fdflags)
                abi.U32.pack_into(mv, out, self._new_fd(entry))
                return 0
            if oflags & abi.O_DIRECTORY:
                return abi.ENOTDIR
        else:
            kind = abi.FILETYPE_REGULAR_FILE
        file = self._open_file(path, st is not None, want_read, want_write, oflags, fdflags)
        entry = FD("file", path, kind, rights & abi.RIGHTS_ALL, inheriting, fdflags, file=file)
        try:
            num = self._new_fd(entry)
        except WasiError:
            file.close()
            raise
        abi.U32.pack_into(mv, out, num)
        return 0

    def _open_file(self, path: str, exists: bool, want_read: bool, want_write: bool,
                   oflags: int, fdflags: int) -> Any:
        """Open ``path`` with the VFS mode matching POSIX open() flags."""
        fs = self.fs
        append = bool(fdflags & abi.FDFLAG_APPEND)
        if not want_write:
            if not exists:
                fs.open(path, "xb").close()
            return fs.open(path, "rb")
        if not exists:
            if oflags & abi.O_EXCL or not want_read:
                f = fs.open(path, "xb")
                if not want_read and not append:
                    return f
                f.close()
                return fs.open(path, ("a+b" if want_read else "ab") if append else "r+b")
            return fs.open(path, "a+b" if append else "w+b")
        if append:
            return fs.open(path, "a+b" if want_read else "ab")
        if oflags & abi.O_TRUNC:
            return fs.open(path, "w+b" if want_read else "wb")
        return fs.open(path, "r+b")

    # --- the door back into the shell (host::call) -------------------------------------------
    def bind_exports(self, alloc: Any) -> None:
        """Remember the export ``host::call`` answers through (``host_alloc``: i32 -> i32, a
        function of the run's store; None when the module has none)."""
        self._alloc = alloc

    def host_call(self, caller: int, ptr: int, length: int, out_ptr: int, out_len: int) -> int:
        """``host::call(ptr, len, *out_ptr, *out_len)``: one request, one response.

        The guest passes its request's bytes; the answer is written into memory the guest's
        ``host_alloc`` export hands out, and its address and length into the two out
        pointers.  0 is success, -1 "no host" (no door here), -2 a fault."""
        door = self.door
        mv = self.view(caller)
        if ptr + length > len(mv) or out_ptr + 4 > len(mv) or out_len + 4 > len(mv):
            return HOST_FAULT
        request = bytes(mv[ptr : ptr + length])
        if request.startswith(INTERRUPT_OP) and self.interrupter is not None:
            response = self._interrupt_answer(mv, request)
        else:
            if door is None or self._alloc is None:
                return NO_HOST
            self._mv = None  # the door may run guests of its own; nothing cached survives it
            response = door(request)
        if response is None or self._alloc is None:
            return HOST_FAULT
        self.check()
        where = self._alloc(len(response)) & 0xFFFFFFFF
        mv = self.view(caller)
        if not where or where + len(response) > len(mv):
            return HOST_FAULT
        self._put(mv, where, response)
        abi.U32.pack_into(mv, out_ptr, where)
        abi.U32.pack_into(mv, out_len, len(response))
        return 0

    def _interrupt_answer(self, mv: memoryview, request: bytes) -> bytes:
        """The boot learning where its SIGINT words are (see interrupt.py)."""
        import json

        from vshell.python import interrupt

        try:
            req = json.loads(request)
        except ValueError:
            return b'{"error": "bad request"}'
        return json.dumps(interrupt.answer(self.interrupter, mv, req)).encode()

    # --- sockets: there are none ----------------------------------------------------------
    def sock_accept(self, caller: int, *args: int) -> int:
        return abi.ENOTSUP

    sock_recv = sock_send = sock_shutdown = sock_accept

    def unsupported(self, caller: int, *args: int) -> int:
        """Any import this table does not know (none today): ENOSYS."""
        return abi.ENOSYS
