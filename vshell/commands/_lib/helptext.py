"""The commands' ``--help`` and ``--version`` texts, byte-identical to the reference tools'.

Every ``--help`` text is a data file, ``vshell/commands/help/NAME.txt`` (package data),
read when the command's module loads; tests compare them with the GNU tools' output, so
the files are kept exactly as those tools print them (trailing spaces included).

The ``--version`` texts of the tools vshell mirrors are built from one table (tool,
package, authors) the way gnulib's ``version_etc`` builds them; the two that follow no
pattern (GNU patch, binutils' strings) are data files too, ``help/NAME.version.txt``.
"""

from __future__ import annotations

import errno
import os
from functools import cache

from vshell.records import record

__all__ = ["find_help", "find_version", "help_text", "version_text", "written_by"]

# os.path, not pathlib: most commands import this module, and pathlib (with urllib.parse
# and ipaddress) would cost ~5 ms of every ``vshell -c`` that runs one (issue 19)
_HELP_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "help")


def help_text(name: str) -> str:
    """The text of ``help/NAME.txt`` exactly as stored (UTF-8, newlines untranslated)."""
    return _read(f"{name}.txt")


def find_help(name: str) -> str | None:
    """``help_text(name)``, or None when the command has no ``--help`` text of its own."""
    try:
        return help_text(name)
    except FileNotFoundError:
        return None


def _read(file_name: str) -> str:
    text = _read_cached(file_name)
    if text is None:
        raise FileNotFoundError(errno.ENOENT, "No such file or directory",
                                os.path.join(_HELP_DIR, file_name))
    return text


@cache
def _read_cached(file_name: str) -> str | None:
    """A help file's text, read once: every run of a command parses its options with its
    ``--help`` text at hand, and opening the file each time cost more than most runs."""
    try:
        with open(os.path.join(_HELP_DIR, file_name), encoding="utf-8", newline="") as f:
            return f.read()
    except FileNotFoundError:
        return None


@record(frozen=True)
class Package:
    """A release of the package a mirrored tool comes from."""

    name: str  # "GNU coreutils"
    version: str
    year: str = ""  # of the copyright line; "" for util-linux, which prints one line
    packager: str = ""  # "Packaged by ..." under the first line
    epilogue: str = ""  # what follows the authors


_GPL = (
    "License GPLv3+: GNU GPL version 3 or later <https://gnu.org/licenses/gpl.html>.\n"
    "This is free software: you are free to change and redistribute it.\n"
    "There is NO WARRANTY, to the extent permitted by law.\n"
)

COREUTILS = Package("GNU coreutils", "9.1", "2022")
DIFFUTILS = Package("GNU diffutils", "3.8", "2021")
GREP = Package("GNU grep", "3.8", "2022")
SED = Package("GNU sed", "4.9", "2022", packager="Debian", epilogue=(
    "\n"
    "This sed program was built with SELinux support.\n"
    "SELinux is disabled on this system.\n"
    "\n"
    "GNU sed home page: <https://www.gnu.org/software/sed/>.\n"
    "General help using GNU software: <https://www.gnu.org/gethelp/>.\n"
    "E-mail bug reports to: <bug-sed@gnu.org>.\n"
))
UTIL_LINUX = Package("util-linux", "2.38.1")

_DIGESTS = ("Ulrich Drepper", "Scott Miller", "David Madore")
_MACKENZIE = ("David MacKenzie",)

RELEASES: dict[str, tuple[Package, tuple[str, ...]]] = {
    "head": (COREUTILS, ("David MacKenzie", "Jim Meyering")),
    "tail": (COREUTILS, ("Paul Rubin", "David MacKenzie", "Ian Lance Taylor", "Jim Meyering")),
    "wc": (COREUTILS, ("Paul Rubin", "David MacKenzie")),
    "seq": (COREUTILS, ("Ulrich Drepper",)),
    "tr": (COREUTILS, ("Jim Meyering",)),
    "tac": (COREUTILS, ("Jay Lepreau", "David MacKenzie")),
    "cut": (COREUTILS, ("David M. Ihnat", "David MacKenzie", "Jim Meyering")),
    "sort": (COREUTILS, ("Mike Haertel", "Paul Eggert")),
    "uniq": (COREUTILS, ("Richard M. Stallman", "David MacKenzie")),
    "od": (COREUTILS, ("Jim Meyering",)),
    "md5sum": (COREUTILS, _DIGESTS),
    "sha1sum": (COREUTILS, _DIGESTS),
    "sha224sum": (COREUTILS, _DIGESTS),
    "sha256sum": (COREUTILS, _DIGESTS),
    "sha384sum": (COREUTILS, _DIGESTS),
    "sha512sum": (COREUTILS, _DIGESTS),
    "cksum": (COREUTILS, ("Padraig Brady", "Q. Frank Xia")),
    "base64": (COREUTILS, ("Simon Josefsson",)),
    "nl": (COREUTILS, ("Scott Bartram", "David MacKenzie")),
    "paste": (COREUTILS, ("David M. Ihnat", "David MacKenzie")),
    "comm": (COREUTILS, ("Richard M. Stallman", "David MacKenzie")),
    "join": (COREUTILS, ("Mike Haertel",)),
    "fold": (COREUTILS, _MACKENZIE),
    "fmt": (COREUTILS, ("Ross Paterson",)),
    "expand": (COREUTILS, _MACKENZIE),
    "unexpand": (COREUTILS, _MACKENZIE),
    "diff": (DIFFUTILS, ("Paul Eggert", "Mike Haertel", "David Hayes", "Richard Stallman",
                         "Len Tower")),
    "grep": (GREP, ("Mike Haertel",
                    "others; see\n<https://git.sv.gnu.org/cgit/grep.git/tree/AUTHORS>")),
    "sed": (SED, ("Jay Fenlason", "Tom Lord", "Ken Pizzini", "Paolo Bonzini", "Jim Meyering",
                  "Assaf Gordon")),
    "rev": (UTIL_LINUX, ()),
    "column": (UTIL_LINUX, ()),
    "hexdump": (UTIL_LINUX, ()),
}

_VERBATIM = frozenset({"patch", "strings"})


def written_by(authors: tuple[str, ...]) -> str:
    """gnulib's "Written by" sentence: "and" before the last name, three names to a line."""
    if len(authors) <= 2:
        return "Written by " + " and ".join(authors) + ".\n"
    words = [name + "," for name in authors[:-1]] + ["and " + authors[-1]]
    lines = [" ".join(words[k : k + 3]) for k in range(0, len(words), 3)]
    return "Written by " + "\n".join(lines) + ".\n"


def find_version(tool: str) -> str | None:
    """``version_text(tool)``, or None for a tool without a mirrored release."""
    if tool in _VERBATIM or tool in RELEASES:
        return version_text(tool)
    return None


def version_text(tool: str) -> str:
    """What ``TOOL --version`` prints (KeyError: not a tool vshell mirrors a release of)."""
    if tool in _VERBATIM:
        return _read(f"{tool}.version.txt")
    package, authors = RELEASES[tool]
    if not package.year:
        return f"{tool} from {package.name} {package.version}\n"
    packaged = f"Packaged by {package.packager}\n" if package.packager else ""
    return (
        f"{tool} ({package.name}) {package.version}\n{packaged}"
        f"Copyright (C) {package.year} Free Software Foundation, Inc.\n{_GPL}\n"
        + written_by(authors) + package.epilogue
    )
