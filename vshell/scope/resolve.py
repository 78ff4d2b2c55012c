"""Scope resolution: from a directory to the worktree, the repository and the scope key.

Git's layout is read from files, never by running git: a worktree's root holds ``.git``,
a directory for the main worktree or a file ``gitdir: PATH`` for a linked one, whose
git dir holds ``commondir`` (the repository's shared ``.git``).  Linked worktrees are
listed in ``<common>/worktrees/*/gitdir``.
"""

from __future__ import annotations

import hashlib
import os

from vshell.records import field, record


@record
class Scope:
    kind: str  # "worktree", "repo", "session" or "dir" (no git worktree around the cwd)
    key: str  # what identifies the session (a path, or "session:<id>:<path>")
    worktree: str  # the worktree (or directory) containing the cwd
    repo_root: str  # the repository's main worktree (== worktree outside git)
    roots: list[str] = field(default_factory=list)  # the host directories to mount

    @property
    def ident(self) -> str:
        """A short, file-name-safe name for this scope (the socket's name)."""
        digest = hashlib.sha256(self.key.encode("utf-8", "surrogateescape")).hexdigest()
        return f"{self.kind}-{digest[:20]}"


def find_worktree(start: str) -> tuple[str, str | None]:
    """(worktree root, git dir) for the nearest ``.git`` above ``start``; (start, None)
    when there is none."""
    here = os.path.realpath(start)
    d = here
    while True:
        dot = os.path.join(d, ".git")
        if os.path.isdir(dot):
            return d, dot
        if os.path.isfile(dot):
            gitdir = _read_gitdir(dot)
            if gitdir is not None:
                return d, gitdir
        parent = os.path.dirname(d)
        if parent == d:
            return here, None
        d = parent


def _read_gitdir(dotgit_file: str) -> str | None:
    try:
        with open(dotgit_file, encoding="utf-8", errors="surrogateescape") as f:
            first = f.readline().strip()
    except OSError:
        return None
    if not first.startswith("gitdir:"):
        return None
    target = first[len("gitdir:"):].strip()
    return os.path.realpath(os.path.join(os.path.dirname(dotgit_file), target))


def common_dir(gitdir: str) -> str:
    """The repository's shared git dir (``commondir`` of a linked worktree's git dir)."""
    try:
        with open(os.path.join(gitdir, "commondir"), encoding="utf-8") as f:
            rel = f.readline().strip()
    except OSError:
        return gitdir
    return os.path.realpath(os.path.join(gitdir, rel)) if rel else gitdir


def repo_root_of(gitdir: str) -> str:
    common = common_dir(gitdir)
    if os.path.basename(common) == ".git":
        return os.path.dirname(common)
    # a submodule (<super>/.git/modules/x) or a bare repository: its worktree is the one
    # that pointed here
    return common


def linked_worktrees(gitdir: str) -> list[str]:
    """The roots of the repository's linked worktrees (from ``worktrees/*/gitdir``)."""
    base = os.path.join(common_dir(gitdir), "worktrees")
    roots = []
    try:
        names = sorted(os.listdir(base))
    except OSError:
        return []
    for name in names:
        try:
            with open(os.path.join(base, name, "gitdir"), encoding="utf-8") as f:
                dotgit = f.readline().strip()
        except OSError:
            continue
        root = os.path.dirname(os.path.realpath(os.path.join(base, name, dotgit)))
        if os.path.isdir(root):
            roots.append(root)
    return roots


def resolve_scope(cwd: str, isolation: str = "worktree", session_id: str | None = None) -> Scope:
    """The scope ``cwd`` belongs to under ``isolation`` (session falls back to worktree
    when the harness gave no id; repo falls back to the worktree outside git)."""
    worktree, gitdir = find_worktree(cwd)
    if gitdir is None:
        return Scope("dir", worktree, worktree, worktree, [worktree])
    repo = repo_root_of(gitdir)
    if isolation == "session" and session_id:
        return Scope("session", f"session:{session_id}:{worktree}", worktree, repo, [worktree])
    if isolation == "repo":
        roots = [repo] if os.path.isdir(repo) else []
        for root in [worktree, *linked_worktrees(gitdir)]:
            if root not in roots and not _inside(root, roots):
                roots.append(root)
        return Scope("repo", repo, worktree, repo, roots)
    return Scope("worktree", worktree, worktree, repo, [worktree])


def _inside(path: str, roots: list[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)
