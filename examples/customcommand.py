"""A host command written in Python: ``wordfreq`` counts the words of files or stdin.

Registered on a sandbox, it is dispatched exactly like a builtin: it reads the sandbox
filesystem through ``inv.fs``, takes part in pipelines, and its exit status is the
script's.  Run it: ``python examples/customcommand.py``.
"""

from __future__ import annotations

import re
import sys
from collections import Counter

from vshell import Exit, Invocation, MemoryMount, Sandbox, command
from vshell.command import describe_oserror

_WORD = re.compile(rb"[A-Za-z0-9']+")


@command("wordfreq", "count the words of files (or standard input), one 'COUNT WORD' a line")
def wordfreq(inv: Invocation) -> int:
    """``wordfreq [-i] [FILE...]``: -i folds case; ``-`` or no FILE reads standard input."""
    fold = False
    files: list[str] = []
    for arg in inv.args:
        if arg == "-i":
            fold = True
        elif arg.startswith("-") and arg != "-":
            raise Exit(2, f"invalid option -- '{arg[1:]}'")  # printed as "wordfreq: ..."
        else:
            files.append(arg)
    counts: Counter[bytes] = Counter()
    status = 0
    for name in files or ["-"]:
        inv.cancel.check()  # a long job stops promptly on timeout or Ctrl-C
        if name == "-":
            data = inv.stdin.read()
        else:
            try:
                # inv.fs is the sandbox filesystem: mounts, read-only and deny rules apply
                with inv.fs.open(inv.abs(name), "rb") as f:
                    data = f.read()
            except OSError as e:
                e.filename = name  # name the file as the user wrote it, as GNU tools do
                inv.error(describe_oserror(e))  # report it and go on, like cat
                status = 1
                continue
        words = _WORD.findall(data.lower() if fold else data)
        counts.update(words)
    for word, n in counts.items():
        inv.stdout.write(b"%d %s\n" % (n, word))
    return status


NOTES = b"""The quick brown fox jumps over the lazy dog.
The dog sleeps; the fox does not.
A quick word about foxes: quick, quick, quick.
"""

SCRIPT = """
cd /work
echo '== top words in notes.txt'
cat notes.txt | wordfreq -i | sort -rn | head -3
echo '== files and stdin together, redirected'
echo 'fox fox' | wordfreq - missing.txt > counts.txt; echo "status $?"
sort -rn counts.txt
"""


def main() -> int:
    mounts = [MemoryMount("/work", files={"notes.txt": NOTES})]
    with Sandbox(mounts=mounts, commands=[wordfreq]) as sb:
        print("registered:", ", ".join(c.name for c in sb.commands()))
        res = sb.exec(SCRIPT)
    sys.stdout.write(res.stdout_text)
    sys.stderr.write(res.stderr_text)
    return res.exit_code


if __name__ == "__main__":
    raise SystemExit(main())
