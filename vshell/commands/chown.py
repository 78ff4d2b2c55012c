"""chown and chgrp: the sandbox stores no ownership, so they answer as GNU does for the user.

Every file a script can see belongs to the sandbox user (``id``: ``$USER``, uid 1000, or 0
for root).  Giving a file to that user or its group is a no-op that succeeds; any other
owner fails as it does for an unprivileged GNU user (``changing ownership of 'f':
Operation not permitted``, status 1).  As root every request succeeds and nothing changes.
"""

from __future__ import annotations

import stat as st

from vshell.command import Exit, Invocation
from vshell.commands._lib.futil import (
    child_name,
    enc,
    last_switch,
    quote,
    quoteaf,
    strerror,
    write_line,
)
from vshell.commands._lib.helptext import help_text
from vshell.commands._lib.opts import parse
from vshell.commands.sysinfo import user_name

_FLAGS = "cfvRhHLP"
_LONG = ["changes", "silent", "quiet", "verbose", "recursive", "reference=", "dereference",
         "no-dereference", "preserve-root", "no-preserve-root"]

CHOWN_HELP = help_text("chown")

CHGRP_HELP = help_text("chgrp")


class _Identity:
    """The sandbox user, as ``id`` reports it."""

    def __init__(self, inv: Invocation) -> None:
        self.name = user_name(inv)
        self.uid = 0 if self.name == "root" else 1000

    def user(self, text: str) -> int | None:
        """The uid ``text`` names (a number, the user's name or root), None if unknown."""
        if text.isdigit():
            return int(text)
        if text == self.name:
            return self.uid
        return 0 if text == "root" else None

    group = user


def chown(inv: Invocation) -> int:
    return _run(inv, group_only=False)


def chgrp(inv: Invocation) -> int:
    return _run(inv, group_only=True)


def _usage(inv: Invocation, message: str) -> Exit:
    inv.stderr.write(enc(f"{inv.name}: {message}\nTry '{inv.name} --help' for more information.\n"))
    return Exit(1)


def _parse_spec(inv: Invocation, me: _Identity, spec: str, group_only: bool
                ) -> tuple[str | None, str | None]:
    """The (user, group) texts ``spec`` asks for (None: keep); raise GNU's complaint."""
    if group_only:
        if spec and me.group(spec) is None:
            raise Exit(1, f"invalid group: {quote(spec)}")
        return None, spec or None
    sep = ":" if ":" in spec else ("." if "." in spec and me.user(spec) is None else "")
    user, _, group = spec.partition(sep) if sep else (spec, "", "")
    if user and me.user(user) is None:
        raise Exit(1, f"invalid user: {quote(spec)}")
    if sep and not group and user:
        # "USER:" means USER's login group: GNU finds it only for a user name
        if user.isdigit():
            raise Exit(1, f"invalid spec: {quote(spec)}")
        return user, user
    if group and me.group(group) is None:
        raise Exit(1, f"invalid group: {quote(spec)}")
    return user or None, group or None


def _run(inv: Invocation, group_only: bool) -> int:
    opts = parse(inv, _FLAGS, _LONG + ([] if group_only else ["from="]),
                 help_text=CHGRP_HELP if group_only else CHOWN_HELP)
    me = _Identity(inv)
    # --from: only files with that owner change; every file here is the user's
    current = opts.last("--from")
    wanted_owner = True
    if current is not None:
        cur_uid, cur_gid = _parse_spec(inv, me, current, False)
        wanted_owner = all(me.user(t) == me.uid for t in (cur_uid, cur_gid) if t is not None)
    ops = list(opts.operands)
    ref = opts.last("--reference")
    uid: str | None
    gid: str | None
    if ref is not None:
        try:
            inv.fs.stat(inv.abs(ref))
        except OSError as e:
            raise Exit(1, f"failed to get attributes of {quoteaf(ref)}: {strerror(e)}") from None
        uid, gid = (None if group_only else me.name), me.name
    else:
        if not ops:
            raise _usage(inv, "missing operand")
        spec = ops.pop(0)
        if not ops:
            raise _usage(inv, f"missing operand after {quote(spec)}")
        uid, gid = _parse_spec(inv, me, spec, group_only)
    walker = _Walker(inv, me, uid, gid, group_only,
                     dereference=last_switch(opts.items, ("--dereference",),
                                            ("-h", "--no-dereference"), default=True),
                     verbose=opts.has("-v", "--verbose"), changes=opts.has("-c", "--changes"),
                     quiet=opts.has("-f", "--silent", "--quiet"),
                     recursive=opts.has("-R", "--recursive"))
    walker.untouched = not wanted_owner
    walker.traverse = _last_choice(opts.items, {"-H": "H", "-L": "L", "-P": "P"}, "P")
    preserve = last_switch(opts.items, ("--preserve-root",), ("--no-preserve-root",), False)
    for op in ops:
        path = inv.abs(op)
        if walker.recursive and preserve and _is_root(inv, path):
            same = "" if op == "/" else " (same as '/')"
            inv.error(f"it is dangerous to operate recursively on {quoteaf(op)}{same}")
            inv.error("use --no-preserve-root to override this failsafe")
            walker.status = 1
            continue
        walker.one(op, path)
    return walker.status


def _is_root(inv: Invocation, path: str) -> bool:
    try:
        return inv.fs.realpath(path) == "/"
    except (OSError, AttributeError):
        return path == "/"


def _last_choice(items: list[tuple[str, str | None]], choices: dict[str, str], default: str
                 ) -> str:
    value = default
    for key, _ in items:
        value = choices.get(key, value)
    return value


class _Walker:
    """Visits each operand (and with -R its tree, children before the directory, as GNU)."""

    def __init__(self, inv: Invocation, me: _Identity, uid: str | None, gid: str | None,
                 group_only: bool, *, dereference: bool, verbose: bool, changes: bool,
                 quiet: bool, recursive: bool) -> None:
        self.dereference = dereference
        self.inv, self.me, self.uid, self.gid = inv, me, uid, gid
        self.group_only = group_only
        self.verbose, self.changes, self.quiet, self.recursive = verbose, changes, quiet, recursive
        self.status = 0
        self.what = "group" if uid is None else "ownership"
        self.untouched = False  # --from named another owner: nothing is changed
        self.traverse = "P"  # -R and symlinks: P never follows, H on the command line, L all

    def one(self, shown: str, path: str, top: bool = True) -> None:
        inv = self.inv
        inv.cancel.check()
        try:
            lst = inv.fs.lstat(path)
        except OSError as e:
            if not self.quiet:
                inv.error(f"cannot access {quoteaf(shown)}: {strerror(e)}")
            self.status = 1
            return
        is_dir = st.S_ISDIR(lst.st_mode)
        if st.S_ISLNK(lst.st_mode) and self._follows(top):
            try:
                is_dir = st.S_ISDIR(inv.fs.stat(path).st_mode)
            except OSError as e:
                if not self.quiet:
                    inv.error(f"cannot dereference {quoteaf(shown)}: {strerror(e)}")
                self.status = 1
                return
        if self.recursive and is_dir:
            try:
                names = list(inv.fs.listdir(path))  # directory order, as fts reads it
            except OSError as e:
                inv.error(f"cannot read directory {quoteaf(shown)}: {strerror(e)}")
                self.status = 1
                names = []
            for name in names:
                child = child_name(shown, name)
                self.one(child, path.rstrip("/") + "/" + name, top=False)
        self._change(shown)

    def _follows(self, top: bool) -> bool:
        """Whether a symlink met here is followed (GNU: -R goes by -H/-L/-P, else -h)."""
        if not self.recursive:
            return self.dereference
        return self.traverse == "L" or (self.traverse == "H" and top)

    def _change(self, shown: str) -> None:
        me = self.me
        wanted = [me.user(t) for t in (self.uid, self.gid) if t is not None]
        if self.untouched or me.uid == 0 or all(n == me.uid for n in wanted):
            if self.verbose:
                write_line(self.inv, f"{self.what} of {quoteaf(shown)} retained as "
                                     f"{self._shape(me.name, me.name)}")
            return
        if not self.quiet:
            self.inv.error(f"changing {self.what} of {quoteaf(shown)}: Operation not permitted")
        if self.verbose:
            write_line(self.inv, f"failed to change {self.what} of {quoteaf(shown)} from "
                                 f"{self._shape(me.name, me.name)} to "
                                 f"{self._shape(self.uid, self.gid)}")
        self.status = 1

    def _shape(self, user: str | None, group: str | None) -> str:
        """GNU names owners in -v lines as the request does: user, user:group or group."""
        if self.uid is not None and self.gid is not None:
            return f"{user}:{group}"
        return str(user if self.uid is not None else group)
