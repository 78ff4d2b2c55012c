"""Redirections: a new descriptor table for one command, and the files to close after.

Files are opened through the VFS only; ``/dev/stdout`` and friends resolve against the
shell's own descriptors.
"""

from __future__ import annotations

import errno
import io

from vshell.command import describe_oserror
from vshell.interp import io as sio
from vshell.interp.context import opened_by_redirections
from vshell.interp.state import ShellError
from vshell.syntax import ast

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    from typing import Any

    from vshell.interp.shell import Fds, Shell


class RedirectError(ShellError):
    pass


def partial_fds(e: BaseException) -> Fds | None:
    """The descriptors in place when a redirection failed: bash reports the failure there,
    so ``cmd 2>/dev/null >/bad/path`` prints nothing."""
    return getattr(e, "partial_fds", None)


def open_file(sh: Shell, path: str, mode: str, fds: Fds) -> Any:
    """Open ``path`` for a redirection; the stream is remembered as the run's own."""
    stream = _open_file(sh, path, mode, fds)
    try:
        opened_by_redirections(sh.ctx).add(stream)
    except TypeError:  # a stream that takes no weak reference: closed with the run only
        pass
    return stream


def _open_file(sh: Shell, path: str, mode: str, fds: Fds) -> Any:
    # process substitutions expanded just now added their descriptor to sh.fds
    fs = sh.ctx.fs.bind({**sh.fds, **fds}, umask=sh.state.umask, check=sh.ctx.cancel.waiting)
    full = sh.abspath(path)
    if path == "":
        raise OSError(errno.ENOENT, "No such file or directory", path)
    try:
        if mode == "noclobber":
            try:
                st = fs.stat(full)
                import stat as _stat

                if _stat.S_ISREG(st.st_mode):
                    raise RedirectError(f"{path}: cannot overwrite existing file")
            except FileNotFoundError:
                pass
            mode = "wb"
        if mode == "r+b":
            try:
                return fs.open(full, "r+b")
            except FileNotFoundError:
                fs.open(full, "wb").close()
                return fs.open(full, "r+b")
        try:
            return fs.open(full, mode)
        except IsADirectoryError:
            if mode != "rb":
                raise
            fs.listdir(full)  # bash opens a directory it may read (EACCES when denied)
            return DirectoryStream()
    except OSError as e:
        e.filename = path
        raise


class DirectoryStream(io.RawIOBase):
    """``< dir``: bash opens a directory for reading; every read then fails with EISDIR
    (``cat < dir`` says "cat: -: Is a directory", ``$(< dir)`` is empty)."""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        raise IsADirectoryError(errno.EISDIR, "Is a directory")


def apply(sh: Shell, redirects: list[ast.Redirect], fds: Fds, opened: list[Any],
          *, permanent: bool = False, in_shell: bool = False) -> Fds:
    """Apply ``redirects`` in order to a copy of ``fds``; files opened go to ``opened``.

    ``in_shell``: they are for a builtin, function or compound command, which bash runs
    without forking (so its undo list's gaps show)."""
    new = dict(fds)
    for r in redirects:
        sh.state.lineno = r.line or sh.state.lineno
        try:
            try:
                _apply_one(sh, r, new, opened, in_shell)
            except OSError as e:
                raise RedirectError(describe_oserror(e)) from None
            if r.fd_var:
                _keep_open(sh, r, new, opened)
        except ShellError as e:
            e.partial_fds = new  # type: ignore[attr-defined]  # the failed redirection's descriptors ride on the error (read by partial_fds)
            raise
    return new


def _keep_open(sh: Shell, r: ast.Redirect, new: Fds, opened: list[Any]) -> None:
    """``cmd {fd}>file`` leaves $fd open after cmd, as bash does."""
    from vshell.interp import fdscope

    value = sh.state.get(r.fd_var or "") or ""
    if not value.isdigit() or int(value) not in new:
        return  # a close: {fd}>&-
    stream = new[int(value)]
    opened[:] = [f for f in opened if f is not stream]
    fdscope.stick(sh, int(value), stream)


def _target_fd(sh: Shell, r: ast.Redirect, new: Fds, default: int) -> int:
    if r.fd_var:
        fd = 10
        while fd in new:
            fd += 1
        sh.state.set(r.fd_var, str(fd))
        return fd
    return default if r.fd is None else r.fd


def _apply_one(sh: Shell, r: ast.Redirect, new: Fds, opened: list[Any], in_shell: bool = False
               ) -> None:
    op = r.op
    ex = sh.expander
    if op in ("<<", "<<-"):
        body = r.heredoc.body if r.heredoc else ""
        if r.heredoc is not None and not r.heredoc.quoted:
            body = ex.heredoc(body)
        new[_target_fd(sh, r, new, 0)] = io.BytesIO(body.encode("utf-8", "surrogateescape"))
        return
    if op == "<<<":
        text = ex.word(r.target.raw) if r.target else ""
        new[_target_fd(sh, r, new, 0)] = io.BytesIO((text + "\n").encode("utf-8",
                                                                          "surrogateescape"))
        return
    raw = r.target.raw if r.target else ""
    if op in (">&", "<&"):
        word = ex.word(raw)
        default = 1 if op == ">&" else 0
        if word == "-":
            if r.fd_var:  # `exec {fd}>&-` closes the descriptor $fd names
                value = sh.state.get(r.fd_var) or ""
                if not value.isdigit():
                    raise RedirectError(f"{r.fd_var}: ambiguous redirect")
                fd = int(value)
            else:
                fd = _target_fd(sh, r, new, default)
            new.pop(fd, None)
            return
        if word.endswith("-") and word[:-1].isdigit():
            src = int(word[:-1])
            fd = _target_fd(sh, r, new, default)
            if src not in new:
                raise RedirectError(f"{src}: Bad file descriptor")
            if in_shell and fd not in new:
                from vshell.interp import fdscope

                # bash undoes a move onto a closed descriptor by closing it, and never
                # reopens the source: after the command, src stays closed
                fdscope.stick(sh, src, None)
            new[fd] = new.pop(src)
            return
        if word.isdigit():
            src = int(word)
            if src not in new:
                raise RedirectError(f"{raw}: Bad file descriptor")  # bash names the word
            new[_target_fd(sh, r, new, default)] = new[src]
            return
        if op == ">&" and r.fd is None and not r.fd_var:
            op = "&>"
            path = ex.redirect_target(raw)
            f = open_file(sh, path, "wb", new)
            opened.append(f)
            new[1] = f
            new[2] = f
            return
        raise RedirectError(f"{word}: ambiguous redirect")
    path = ex.redirect_target(raw)
    if op == "<":
        f = open_file(sh, path, "rb", new)
        opened.append(f)
        new[_target_fd(sh, r, new, 0)] = f
    elif op in (">", ">|"):
        mode = "noclobber" if op == ">" and sh.state.options.get("noclobber") else "wb"
        f = open_file(sh, path, mode, new)
        opened.append(f)
        new[_target_fd(sh, r, new, 1)] = f
    elif op == ">>":
        f = open_file(sh, path, "ab", new)
        opened.append(f)
        new[_target_fd(sh, r, new, 1)] = f
    elif op == "<>":
        f = open_file(sh, path, "r+b", new)
        opened.append(f)
        new[_target_fd(sh, r, new, 0)] = f
    elif op in ("&>", "&>>"):
        f = open_file(sh, path, "ab" if op == "&>>" else "wb", new)
        opened.append(f)
        new[1] = f
        new[2] = f
    else:
        raise RedirectError(f"{op}: unsupported redirection")


def close_all(opened: list[Any]) -> None:
    for f in opened:
        try:
            f.close()
        except (OSError, ValueError):
            pass


def null_stream() -> Any:
    return sio.NullInput()
