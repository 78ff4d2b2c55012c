"""Shell syntax: ``parse(source) -> ast.Script`` and friends.

Importing this package is cheap; bashlex is loaded on the first parse.
"""

from vshell.syntax.parser import ParseError, is_complete, parse, parse_partial

__all__ = ["ParseError", "is_complete", "parse", "parse_partial"]
