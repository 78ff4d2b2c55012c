"""The commands vshell ships, found by name and imported only when first run.

Each entry maps a command name to ``("module:function", description)``; the function is
``run(inv: Invocation) -> int | None`` (see :mod:`vshell.command`).  Importing a module
only when its command runs keeps ``vshell -c`` start-up small.
"""

from __future__ import annotations

import sys

from vshell.command import Command

_B = "vshell.commands."

REGISTRY: dict[str, tuple[str, str]] = {
    # --- files and text (coreutils family) ---
    "fmt": (_B + "fmt:run", "simple optimal text formatter"),
    "column": (_B + "column:run", "columnate lists"),
    "patch": (_B + "patch:run", "apply a diff file to an original"),
    "diff": (_B + "diff:run", "compare files line by line"),
    "hexdump": (_B + "hexdump:run", "display file contents in hex, decimal, octal, or ascii"),
    "strings": (_B + "strings:run", "print the sequences of printable characters in files"),
    "xxd": (_B + "xxd:run", "make a hex dump or do the reverse"),
    "fold": (_B + "fold:run", "wrap each input line to fit in specified width"),
    "expand": (_B + "tabs:expand", "convert tabs to spaces"),
    "unexpand": (_B + "tabs:unexpand", "convert spaces to tabs"),
    "join": (_B + "join:run", "join lines of two files on a common field"),
    "paste": (_B + "paste:run", "merge lines of files"),
    "comm": (_B + "comm:run", "compare two sorted files line by line"),
    "base64": (_B + "base64:run", "base64 encode/decode data and print to standard output"),
    "rev": (_B + "rev:run", "reverse lines characterwise"),
    "nl": (_B + "nl:run", "number lines of files"),
    "cksum": (_B + "cksum:run", "compute and verify file checksums"),
    "md5sum": (_B + "checksum:run", "compute and check MD5 message digest"),
    "sha1sum": (_B + "checksum:run", "compute and check SHA1 message digest"),
    "sha224sum": (_B + "checksum:run", "compute and check SHA224 message digest"),
    "sha256sum": (_B + "checksum:run", "compute and check SHA256 message digest"),
    "sha384sum": (_B + "checksum:run", "compute and check SHA384 message digest"),
    "sha512sum": (_B + "checksum:run", "compute and check SHA512 message digest"),
    "od": (_B + "od:run", "dump files in octal and other formats"),
    "uniq": (_B + "uniq:run", "report or omit repeated lines"),
    "sort": (_B + "sort:run", "sort lines of text files"),
    "cut": (_B + "cut:run", "remove sections from each line of files"),
    "tac": (_B + "tac:run", "concatenate and print files in reverse"),
    "tr": (_B + "tr:run", "translate or delete characters"),
    "seq": (_B + "seq:run", "print a sequence of numbers"),
    "wc": (_B + "wc:run", "print newline, word, and byte counts for each file"),
    "head": (_B + "headtail:head", "output the first part of files"),
    "tail": (_B + "headtail:tail", "output the last part of files"),
    "cat": (_B + "cat:run", "concatenate files and print on the standard output"),
    "ls": (_B + "ls:run", "list directory contents"),
    "mkdir": (_B + "mkdir:run", "make directories"),
    "rm": (_B + "rm:run", "remove files or directories"),
    "touch": (_B + "touch:run", "change file timestamps"),
    "basename": (_B + "basename:run", "strip directory and suffix from filenames"),
    "dirname": (_B + "dirname:run", "strip last component from file name"),
    "cp": (_B + "cp:run", "copy files and directories"),
    "mv": (_B + "mv:run", "move (rename) files"),
    "ln": (_B + "ln:run", "make links between files"),
    "chmod": (_B + "chmod:run", "change file mode bits"),
    "rmdir": (_B + "rmdir:run", "remove empty directories"),
    "mkfifo": (_B + "mkfifo:run", "make FIFOs (refused: no named pipes in the sandbox)"),
    "readlink": (_B + "readlink:run", "print resolved symbolic links or canonical file names"),
    "realpath": (_B + "realpath:run", "print the resolved path"),
    "stat": (_B + "stat:run", "display file or file system status"),
    "tee": (_B + "tee:run", "read from standard input and write to standard output and files"),
    "mktemp": (_B + "mktemp:run", "create a temporary file or directory"),
    "truncate": (_B + "truncate:run", "shrink or extend the size of a file"),
    "du": (_B + "du:run", "estimate file space usage"),
    "df": (_B + "df:run", "report the sandbox's mounts"),
    "tree": (_B + "tree:run", "list contents of directories in a tree-like format"),
    "file": (_B + "file:run", "determine file type"),
    "chown": (_B + "chown:chown", "change file owner and group (the sandbox user's own only)"),
    "chgrp": (_B + "chown:chgrp", "change group ownership (the sandbox user's own only)"),
    "less": (_B + "pager:less", "page through text (no terminal: copies its input)"),
    "more": (_B + "pager:more", "file perusal filter (no terminal: copies its input)"),
    "numfmt": (_B + "numfmt:run", "convert numbers from/to human-readable strings"),
    "iconv": (_B + "iconv:run", "convert text from one character encoding to another"),
    "find": (_B + "find:run", "search for files in a directory hierarchy"),
    "xargs": (_B + "xargs:run", "build and execute command lines from standard input"),
    "expr": (_B + "expr:run", "evaluate expressions"),
    "bc": (_B + "bc:run", "an arbitrary precision calculator language"),
    "date": (_B + "date:run", "print the system date and time"),
    "env": (_B + "env:run", "run a program in a modified environment"),
    "which": (_B + "which:run", "locate a command"),
    "timeout": (_B + "timeout:run", "run a command with a time limit"),
    "true": (_B + "sysinfo:true", "do nothing, successfully"),
    "false": (_B + "sysinfo:false", "do nothing, unsuccessfully"),
    "yes": (_B + "sysinfo:yes", "output a string repeatedly until killed"),
    "sleep": (_B + "sysinfo:sleep", "delay for a specified amount of time"),
    "whoami": (_B + "sysinfo:whoami", "print effective user name"),
    "hostname": (_B + "sysinfo:hostname", "show the system's host name"),
    "uname": (_B + "sysinfo:uname", "print system information"),
    "id": (_B + "sysinfo:id_", "print real and effective user and group IDs"),
    "nproc": (_B + "sysinfo:nproc", "print the number of processing units available"),
    "printenv": (_B + "sysinfo:printenv", "print all or part of environment"),
    "tar": (_B + "tar:run", "an archiving utility"),
    "gzip": (_B + "gzip:gzip", "compress or expand files"),
    "gunzip": (_B + "gzip:gunzip", "expand gzip-compressed files"),
    "zcat": (_B + "gzip:zcat", "decompress gzip files to standard output"),
    "cmp": (_B + "cmp:run", "compare two files byte by byte"),
    "shuf": (_B + "shuf:run", "generate random permutations"),
    "split": (_B + "split:run", "split a file into pieces"),
    # --- search and text engines (grep, sed, awk, jq) ---
    "grep": (_B + "grep:run", "print lines that match patterns"),
    "egrep": (_B + "grep:run", "print lines that match patterns (grep -E)"),
    "fgrep": (_B + "grep:run", "print lines that match fixed strings (grep -F)"),
    "sed": (_B + "sed.command:run", "stream editor for filtering and transforming text"),
    "awk": (_B + "awk:run", "pattern scanning and text processing language"),
    "jq": (_B + "jq:run", "command-line JSON processor"),
    "yq": (_B + "yq:run", "command-line YAML processor (jq over YAML, as Debian's yq 3)"),
    # --- python ---
    "python": (_B + "python:run", "run Python 3.15 (WASI) inside the sandbox"),
    "python3": (_B + "python:run", "run Python 3.15 (WASI) inside the sandbox"),
    # --- network ---
    "curl": (_B + "curl:run", "transfer a URL (through the sandbox allow list)"),
    "wget": (_B + "wget:run", "the non-interactive network downloader (allow list applies)"),
}

_cache: dict[str, Command] = {}


def names() -> list[str]:
    """Every shipped command name, sorted."""
    return sorted(REGISTRY)


def lookup(name: str) -> Command | None:
    """The shipped command called ``name``, importing its module on first use."""
    cmd = _cache.get(name)
    if cmd is not None:
        return cmd
    entry = REGISTRY.get(name)
    if entry is None:
        return None
    target, description = entry
    module_name, _, func_name = target.partition(":")
    __import__(module_name)  # importlib.import_module, without importing importlib
    module = sys.modules[module_name]
    cmd = Command(name, description, getattr(module, func_name))
    _cache[name] = cmd
    return cmd
