"""A host command that composes builtins instead of reimplementing them: ``tally``.

``tally FILE [FIELD]`` counts the values of one CSV column by running
``cut | sort | uniq -c | sort -rn`` back inside the sandbox with ``inv.run_nested``.  The
child gets the caller's filesystem, deny rules and working directory, and exactly the
environment named in ``env`` (plus HOME and PWD).  Run it: ``python examples/nestedcommand.py``.
"""

from __future__ import annotations

import sys

from vshell import Exit, Invocation, MemoryMount, Outcome, Sandbox, command, exitf

# Values travel as variables, never pasted into the script: a file called '; rm -rf /'
# stays data.
TALLY = 'set -o pipefail; cut -d, -f"$FIELD" -- "$FILE" | sort | uniq -c | sort -rn'


@command("tally", "count the values of a CSV column: tally FILE [FIELD]")
def tally(inv: Invocation) -> int:
    if not 1 <= len(inv.args) <= 2:
        raise Exit(2, "usage: tally FILE [FIELD]")
    field = inv.args[1] if len(inv.args) == 2 else "1"
    if not field.isdigit() or field == "0":
        raise exitf(2, "invalid field %r", field)
    res = inv.run_nested(script=TALLY, env=[f"FIELD={field}", f"FILE={inv.args[0]}"],
                         timeout=10)
    if res.error is not None:  # a request that makes no sense, or the sandbox failing
        raise exitf(1, "%s", res.error)
    inv.stdout.write(res.stdout)
    inv.stderr.write(res.stderr)  # the child's own diagnostics (e.g. cut's)
    if res.outcome is not Outcome.COMPLETED:
        raise exitf(1, "counting stopped: %s", res.outcome)
    if not res.ok():
        raise exitf(1, "counting failed with status %d", res.exit_code)
    return 0


DATA = b"""id,colour,size
1,red,S
2,blue,M
3,red,L
4,green,M
5,red,M
6,blue,S
"""

SCRIPT = """
cd /work
echo '== colours'
tail -n +2 data.csv > rows.csv
tally rows.csv 2
echo '== the most common size'
tally rows.csv 3 | head -1
echo '== a missing file'
tally nope.csv 2; echo "status $?"
"""


def main() -> int:
    with Sandbox(mounts=[MemoryMount("/work", files={"data.csv": DATA})],
                 commands=[tally]) as sb:
        res = sb.exec(SCRIPT)
    sys.stdout.write(res.stdout_text)
    sys.stderr.write(res.stderr_text)
    return res.exit_code


if __name__ == "__main__":
    raise SystemExit(main())
