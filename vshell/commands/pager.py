"""less and more: a sandbox has no terminal, so both behave as they do on a pipe.

less with its output not on a terminal copies its files (or stdin) unchanged; more does the
same but puts util-linux's ``::::::::::::::`` header before each named file.  The display
flags agents pass out of habit (``less -R -S -N -F -X``, ``more -d -s``) are accepted and,
as on a pipe, change nothing.  Messages and statuses are those of less 590 and util-linux
2.38 more.
"""

from __future__ import annotations

import stat as st
from collections.abc import Callable
from functools import partial

from vshell.command import Exit, Invocation
from vshell.commands._lib import textio as tio
from vshell.commands._lib.argwalk import ArgWalk
from vshell.commands._lib.futil import enc, strerror
from vshell.commands._lib.helptext import help_text

# less's options: letters that stand alone, and letters that take a value (-x4, -b 8 ...)
_LESS_FLAGS = set("aABcCdeEfFgGiIJKLmMnNqQrRsSuUVwWX~")
_LESS_VALUED = set("bhjkopPtTxyz#D")
_LESS_LONG = {
    "RAW-CONTROL-CHARS", "raw-control-chars", "chop-long-lines", "LINE-NUMBERS",
    "line-numbers", "quit-if-one-screen", "no-init", "quit-at-eof", "QUIT-AT-EOF",
    "ignore-case", "IGNORE-CASE", "squeeze-blank-lines", "silent", "quiet", "QUIET",
    "long-prompt", "LONG-PROMPT", "hilite-unread", "HILITE-UNREAD", "status-column",
    "clear-screen", "CLEAR-SCREEN", "force", "no-keypad", "tilde", "mouse", "wordwrap",
    "redraw-on-quit", "use-color", "no-lessopen", "follow-name", "no-vbell",
    "tabs", "shift", "window", "prompt", "pattern", "tag", "header", "jump-target",
    "max-back-scroll", "buffers", "color",
}

LESS_HELP = help_text("less")
_LESS_VERSION = b"less 590 (vshell: no terminal, copies its input)\n"

MORE_HELP = help_text("more")
_MORE_VERSION = b"more from util-linux 2.38.1\n"

_MORE_LONG = {"silent": "d", "logical": "f", "no-pause": "l", "print-over": "c",
              "clean-print": "p", "exit-on-eof": "e", "squeeze": "s", "plain": "u",
              "lines": "n", "help": "h", "version": "V"}


def less(inv: Invocation) -> int:
    return _copy_files(
        inv, _less_operands(inv), dash_is_stdin=True,
        directory="{name} is a directory\n",  # less says it on stdout
        open_failed=lambda name, e: inv.stdout.write(enc(f"{name}: {strerror(e)}\n")))


def _less_operands(inv: Invocation) -> list[str]:
    """The file operands of a less command line; complains about unknown options as less."""
    walk = ArgWalk(inv.args)
    files = walk.files
    for a in walk:
        if a.startswith("+") or a == "-":
            if a == "-":
                files.append(a)
            continue  # +G, +/pattern: commands for an interactive screen
        if a.startswith("--"):
            name = a[2:].partition("=")[0]
            if name == "help":
                raise _answer(inv, LESS_HELP.encode())
            if name == "version":
                raise _answer(inv, _LESS_VERSION)
            if not any(known.startswith(name) for known in _LESS_LONG) or not name:
                inv.stderr.write(enc(f'There is no {name} option ("less --help" for help)\n'))
            continue
        if not a.startswith("-"):
            files.append(a)
            continue
        for ch, rest in walk.letters(a):
            if ch in _LESS_VALUED:
                if not rest:
                    walk.take()
                break
            if ch == "V":
                raise _answer(inv, _LESS_VERSION)
            if ch == "?":
                raise _answer(inv, LESS_HELP.encode())
            if ch not in _LESS_FLAGS and not ch.isdigit():
                inv.stderr.write(enc(f'There is no -{ch} option ("less --help" for help)\n'))
    return files


def more(inv: Invocation) -> int:
    return _copy_files(
        inv, _more_operands(inv), directory="\n*** {name}: directory ***\n\n",
        header="::::::::::::::\n{name}\n::::::::::::::\n",
        open_failed=lambda name, e: inv.error(f"cannot open {name}: {strerror(e)}"))


def _copy_files(inv: Invocation, files: list[str], *, directory: str,
                open_failed: Callable[[str, OSError], object], header: str = "",
                dash_is_stdin: bool = False) -> int:
    """Copy each file (stdin when there are none) as less and more do on a pipe.

    The two differ only in what they say: the note for a directory, the complaint for a
    file that does not open, more's header before each file, and less reading ``-``.
    """
    if not files:
        _copy(inv, inv.stdin)
        return 0
    for name in files:
        if dash_is_stdin and name == "-":
            _copy(inv, inv.stdin)
            continue
        path = inv.abs(name)
        try:
            if st.S_ISDIR(inv.fs.stat(path).st_mode):
                inv.stdout.write(enc(directory.format(name=name)))
                continue
            f = inv.fs.open(path, "rb")
        except OSError as e:
            open_failed(name, e)
            continue
        try:
            if header:
                inv.stdout.write(enc(header.format(name=name)))
            _copy(inv, f)
        finally:
            f.close()
    return 0


def _more_operands(inv: Invocation) -> list[str]:
    walk = ArgWalk(inv.args)
    files = walk.files
    for a in walk:
        if a.startswith("+") and len(a) > 1:
            continue
        if a.startswith("--"):
            name, eq, _ = a[2:].partition("=")
            letter = _MORE_LONG.get(name)
            if letter is None:
                raise _more_usage(inv, f"unrecognized option '{a}'")
            if letter == "n" and not eq:
                walk.take()
            a = "-" + letter
            if letter == "n":
                continue
        if not a.startswith("-") or a == "-":
            files.append(a)
            continue
        if a[1:].isdigit():
            continue
        for ch, rest in walk.letters(a):
            if ch == "h":
                raise _answer(inv, MORE_HELP.encode())
            if ch == "V":
                raise _answer(inv, _MORE_VERSION)
            if ch == "n":
                if not rest:
                    walk.need(partial(_more_usage, inv), "option requires an argument -- 'n'")
                break
            if ch not in "dflcpesu":
                raise _more_usage(inv, f"invalid option -- '{ch}'")
    return files


def _answer(inv: Invocation, text: bytes) -> Exit:
    """--help and --version: the text on stdout, then the end with status 0 (raise it)."""
    inv.stdout.write(text)
    return Exit(0)


def _more_usage(inv: Invocation, message: str) -> Exit:
    inv.stderr.write(enc(f"more: {message}\nTry 'more --help' for more information.\n"))
    return Exit(1)


def _copy(inv: Invocation, f) -> None:
    for data in tio.chunks(inv, f):
        inv.stdout.write(data)
