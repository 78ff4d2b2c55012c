"""The small languages every command shares: regex dialects, glob patterns, POSIX
character classes, C escapes, GNU quoting of names and the deny-path segment globs.

Dependency-free apart from the regex engine (RE2); nothing outside this package translates
or matches a user's pattern.  Modules are imported directly (``from vshell.text import
posix_class``) so that a command pays only for what it uses.
"""
