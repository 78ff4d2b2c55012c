"""Descriptor scopes: what a command's redirections change is undone after it, but what
``exec`` changes stays, through every enclosing scope (``eval 'exec 3>f'``, a function, a
``{ …; } 2>err`` group), as in bash — except a descriptor the enclosing scope redirected
itself, which that scope restores.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    from typing import Any

    from vshell.interp.shell import Fds, Shell


def _log(sh: Shell) -> list[tuple[int, Any, bool]]:
    log = sh.__dict__.get("exec_fd_log")
    if log is None:
        log = sh.__dict__["exec_fd_log"] = []
    return log


def mark(sh: Shell) -> int:
    """Where the log of ``exec``'s changes stands as a scope begins."""
    log = sh.__dict__.get("exec_fd_log")  # every command marks: no empty log made for it
    return 0 if log is None else len(log)


def record(sh: Shell, before: Fds, after: Fds) -> None:
    """``exec`` made ``after`` the shell's table where ``before`` was."""
    from vshell.interp.io import PipeReader, PipeWriter

    log = _log(sh)
    for k in sorted(set(before) | set(after)):
        if after.get(k) is not before.get(k):
            log.append((k, after.get(k), False))
            gone = before.get(k)
            if gone is not None and k not in after and _handed_to_a_view(gone, after):
                continue
            if (gone is not None and k not in after and not any(v is gone for v in after.values())
                    and (isinstance(gone, (PipeReader, PipeWriter))
                         or (not sh.is_subshell and sh.ctx.redirect_opened is not None
                             and gone in sh.ctx.redirect_opened))):
                # `exec N>&-` on a coprocess's pipe: the other side sees EOF; on a file a
                # redirection of this shell opened: closed now (an unlinked file frees its
                # memory); a subshell shares its parent's streams, so it only lets go
                gone.close()


def _handed_to_a_view(gone: Any, after: Fds) -> bool:
    """Whether a descriptor of the table now reads or writes ``gone`` through a view
    (``exec 3< <(cmd)`` opened /dev/fd/63 as 3, then 63 went): that view owns it from now
    on, as a dup would in bash, so the stream stays open until the view is closed."""
    from vshell.vfs.devices import StreamView

    for v in after.values():
        if isinstance(v, StreamView) and v.stream is gone:
            v.owns = True
            return True
    return False


def stick(sh: Shell, fd: int, stream: Any) -> None:
    """What a command's redirection leaves after it: ``{var}>file`` open (``stream``),
    the source of ``n>&m-`` onto a closed ``n`` closed (None), as bash does."""
    _log(sh).append((fd, stream, True))


def restore(sh: Shell, saved: Fds, scope: Fds, start: int) -> Fds:
    """The table to return to after a scope that ran with ``scope`` in place of ``saved``."""
    log = sh.__dict__.get("exec_fd_log")
    if log is None or len(log) == start:
        return saved
    out = dict(saved)
    for k, stream, sticky in log[start:]:
        if scope.get(k) is not saved.get(k) and not sticky:
            continue  # the scope's own redirection of k: undone with the scope
        if stream is None:
            out.pop(k, None)
        else:
            out[k] = stream
    return out
