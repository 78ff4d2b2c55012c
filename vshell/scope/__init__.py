"""Scopes: which persistent session a ``vshell run`` belongs to, and the server holding it.

A scope is the key of one session: the git worktree containing the cwd (the default), the
repository, or a session id a harness supplies.  Each scope is served by a vshell process
of its own over a Unix socket in a private runtime directory (``server``), started on
first use by the client (``client``, ``spawn``) and ended after an idle timeout or by
``vshell stop``.
"""
