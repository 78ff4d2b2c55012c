"""Why a well-known host program is missing, and what works instead.

vshell never starts a host process, so ``git``, ``pip`` or ``node`` cannot exist. bash's
``command not found`` line (status 127) stays as it is; one short line after it gives the
reason, because an agent recovers from a reason and loops on a bare "not found".
"""

from __future__ import annotations

_NO_HOST = "vshell runs no host programs"

_HINTS: dict[str, str] = {}  # filled once below, at import: a table, never changed by a run


def _add(names: str, advice: str) -> None:
    for name in names.split():
        _HINTS[name] = advice


_add("pip pip3 pipx uv poetry conda",
     "nothing is installed here; packages in a directory mounted at "
     "/lib/python/site-packages are importable by python3")
_add("node nodejs npm npx yarn pnpm deno bun",
     "there is no JavaScript runtime; python3 is built in (python3 -m json.tool for JSON), "
     "and jq")
_add("git hg svn",
     "there is no version control; the files are in the sandbox's filesystem (diff and patch "
     "work on them)")
_add("sudo su doas",
     "there are no users or privileges to gain; run the command itself")
_add("apt apt-get aptitude dpkg yum dnf rpm apk brew pacman snap",
     "nothing can be installed; the commands at hand are built in")
_add("docker podman kubectl nerdctl",
     "there are no containers")
_add("gcc cc g++ c++ clang clang++ make cmake ninja cargo rustc go javac java mvn gradle "
     "dotnet ruby gem perl php lua",
     "there are no compilers or other language runtimes; python3 is built in")
_add("ssh scp sftp rsync telnet nc netcat",
     "there is no remote access; curl reaches the hosts the sandbox allows")
_add("vi vim nvim nano emacs less more",
     "there is no terminal editor or pager; write files with cat <<'EOF' > file, sed -i or "
     "python3")
_add("systemctl service crontab",
     "there are no services")


def hint(name: str) -> str | None:
    """The line to print after ``name: command not found``, or None for other names."""
    base = name.rpartition("/")[2]
    advice = _HINTS.get(base)
    if advice is None:
        return None
    return f"vshell: {base}: {_NO_HOST}; {advice}\n"
