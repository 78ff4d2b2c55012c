"""``vshell mcp``: the sandbox served over the Model Context Protocol.

This package must stay importable without the ``mcp`` SDK: only :mod:`vshell.mcp.server`
imports it, and only when the subcommand runs, so ``vshell -c`` never pays for it.
"""
