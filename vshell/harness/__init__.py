"""Coding agents' shell tools, routed into vshell (issue 20).

``vshell hook HARNESS`` reads one hook event on stdin and answers in that harness's own
format: the command rewritten to ``vshell run -c '…'`` (mode ``rewrite``), denied with a
pointer to the ``vshell mcp`` bash tool (mode ``tool``), or left alone (mode ``off``, and
lines whose programs need the host, unless ``strict``).  Any failure answers in the
harness's deny form: never a traceback, never a silent pass to the host.
``vshell install|uninstall HARNESS`` edit the harness's settings file; ``vshell doctor``
says what is set up and whether the hook answers.
"""
