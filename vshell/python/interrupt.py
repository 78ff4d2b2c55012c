"""Ctrl-C inside the interactive guest: KeyboardInterrupt raised by the guest's own CPython.

WASI has no signals, and a running guest cannot be called into.  So the host does what a
native SIGINT handler does in a native CPython: it sets the few words the handler sets
(``Handlers[SIGINT].tripped``, ``is_tripped`` and the signals bit of the main thread's eval
breaker) while the guest is paused in a host call or an epoch tick, and the guest's eval loop
raises ``KeyboardInterrupt`` at its next check, exactly as after a real signal: ``input()``
at the prompt, a ``while True: pass``, a ``time.sleep`` all see it, and the code module's
prompt prints it and goes on.

Where those words are is learned from the guest itself, when an interactive guest boots
(``pywasm/guest/boot.py``, ``_learn_interrupt``), not from a table of struct offsets that
would differ between CPython builds:

1. ``begin``: the boot has set a wakeup fd (``signal.set_wakeup_fd``) and SIGINT's default
   handler; the host finds ``_PyRuntime`` (which starts with the ``xdebugpy`` cookie of
   ``_Py_DebugOffsets`` and its size) just below the address of the small int 0, which lives
   inside it, and copies it (A);
2. the boot calls ``_thread.interrupt_main()``: CPython's ``trip_signal`` sets the words,
   then writes one byte to the wakeup fd; at that write the host copies ``_PyRuntime`` (B);
3. the eval loop handles the signal (KeyboardInterrupt, caught by the boot), which clears the
   words; ``end``: the host copies it again (C) and keeps every word that gained exactly one
   bit from A to B (a flag or a bit, never a pointer or a count) and is back to A in C;
4. steps 1-3 run twice, and only the words both rounds found, with the same bit, are kept
   (a word of the allocator or the collector that happened to move the same way once must
   not be set later); the last ``end`` then sets those bits at once, as a self-test: the
   boot must see KeyboardInterrupt right after, and says so with ``check``; if it did not,
   interrupts stay off for the run and Ctrl-C stops the guest as before.
"""

from __future__ import annotations

import re
import struct

TYPE_CHECKING = False  # not typing's: importing typing costs every python start
if TYPE_CHECKING:
    from typing import Any

COOKIE = b"xdebugpy"
SEARCH_BELOW = 4 << 20  # _PyRuntime starts at most this far below the small int 0
MAX_RUNTIME = 16 << 20  # a sane bound on sizeof(_PyRuntimeState)
MAX_WORDS = 8
_U32 = struct.Struct("<I")
_HEAD = struct.Struct("<8sQQQ")  # cookie, version, free_threaded, runtime_state.size
_NONZERO = re.compile(rb"[^\x00]")


class Interrupter:
    """What one guest run learned of where its SIGINT words are, and the poke that sets them."""

    def __init__(self) -> None:
        self.words: list[tuple[int, int]] = []  # (address, bits to set)
        self.ready = False
        self.wakeup_fd: int | None = None
        self._span: tuple[int, int] | None = None
        self._before: bytes | None = None
        self._during: bytes | None = None
        self._rounds: list[set[tuple[int, int]]] = []

    def begin(self, mv: memoryview, fd: int, small_zero: int, hexversion: int) -> bool:
        """Step 1: find ``_PyRuntime`` near ``small_zero`` and copy it; False if not found."""
        self.ready = False
        self.words = []
        low = max(0, small_zero - SEARCH_BELOW)
        if small_zero <= 0 or small_zero > len(mv):
            return False
        window = bytes(mv[low:small_zero])
        at = window.rfind(COOKIE)
        while at >= 0:
            start = low + at
            if start + _HEAD.size <= len(mv):
                _, version, free_threaded, size = _HEAD.unpack_from(mv, start)
                if (version == hexversion and not free_threaded and 0 < size <= MAX_RUNTIME
                        and start < small_zero < start + size and start + size <= len(mv)):
                    self._span = (start, size)
                    self._before = bytes(mv[start : start + size])
                    self._during = None
                    self.wakeup_fd = fd
                    return True
            at = window.rfind(COOKIE, 0, at)
        return False

    def on_write(self, mv: memoryview, fd: int) -> None:
        """Step 2: the wakeup fd is written (the words are set): copy ``_PyRuntime`` again."""
        if fd == self.wakeup_fd and self._span is not None and self._during is None:
            start, size = self._span
            self._during = bytes(mv[start : start + size])

    def end(self, mv: memoryview, final: bool) -> bool:
        """Step 3 (and 4 when ``final``): learn this round's words; on the last round keep
        the words every round found and set them once (the guest checks it raised)."""
        self.wakeup_fd = None
        span, before, during = self._span, self._before, self._during
        self._before = self._during = None
        if span is None or before is None or during is None:
            return False
        start, size = span
        after = bytes(mv[start : start + size])
        changed = int.from_bytes(before, "little") ^ int.from_bytes(during, "little")
        diff = changed.to_bytes(size, "little")
        found: set[tuple[int, int]] = set()
        seen: set[int] = set()
        for m in _NONZERO.finditer(diff):
            off = m.start() & ~3
            if off in seen or off + 4 > size:
                continue
            seen.add(off)
            a = _U32.unpack_from(before, off)[0]
            b = _U32.unpack_from(during, off)[0]
            c = _U32.unpack_from(after, off)[0]
            gained = b & ~a
            if b == a | gained and gained and not gained & (gained - 1) and c == a:
                found.add((start + off, gained))
        self._rounds.append(found)
        if not final:
            return bool(found)
        words = set.intersection(*self._rounds)
        self._rounds = []
        if not words or len(words) > MAX_WORDS:
            return False
        self.words = sorted(words)
        self.ready = True
        self.poke(mv)
        return True

    def check(self, ok: bool) -> None:
        """The guest saw (or did not see) KeyboardInterrupt after the self-test poke."""
        self.ready = ok and bool(self.words)

    def poke(self, mv: memoryview) -> bool:
        """Set the learned bits (the guest raises KeyboardInterrupt at its next check)."""
        if not self.ready:
            return False
        if any(addr + 4 > len(mv) for addr, _ in self.words):
            return False
        for addr, bits in self.words:
            _U32.pack_into(mv, addr, _U32.unpack_from(mv, addr)[0] | bits)
        return True


def answer(state: Interrupter, mv: memoryview, request: dict[str, Any]) -> dict[str, Any]:
    """The host side of the boot's ``{"op": "interrupt-…"}`` requests."""
    op = request.get("op")
    if op == "interrupt-begin":
        fd, zero, version = request.get("fd"), request.get("zero"), request.get("hexversion")
        if not (isinstance(fd, int) and isinstance(zero, int) and isinstance(version, int)):
            return {"ok": False}
        return {"ok": state.begin(mv, fd, zero, version)}
    if op == "interrupt-end":
        return {"ok": state.end(mv, request.get("final") is True)}
    if op == "interrupt-check":
        state.check(request.get("ok") is True)
        return {"ok": state.ready}
    return {"error": f"unknown request {op!r}"}
