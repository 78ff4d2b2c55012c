"""Signals and jobs: ``trap``, ``wait``, ``kill``, ``jobs`` and the signal table they share."""

from __future__ import annotations

from typing import TYPE_CHECKING

from vshell.interp.builtins.base import out
from vshell.interp.builtins.opts import OptionError, parse_flags

if TYPE_CHECKING:
    from typing import Any

    from vshell.interp.shell import Shell


# --- traps, jobs, misc ---------------------------------------------------------------------------
SIGNALS = ("EXIT", "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE", "KILL", "USR1",
           "SEGV", "USR2", "PIPE", "ALRM", "TERM", "STKFLT", "CHLD", "CONT", "STOP", "TSTP",
           "TTIN", "TTOU", "URG", "XCPU", "XFSZ", "VTALRM", "PROF", "WINCH", "IO", "PWR", "SYS")


def _sig_name(spec: str) -> str | None:
    s = spec.upper()
    if s.isdigit():
        n = int(s)
        return SIGNALS[n] if 0 <= n < len(SIGNALS) else None
    if s.startswith("SIG"):
        s = s[3:]
    if s in ("ERR", "DEBUG", "RETURN") or s in SIGNALS:
        return s
    return None


def signal_table() -> str:
    """``kill -l`` / ``trap -l`` as bash prints them: five ``NN) SIGNAME`` a line."""
    entries = [(i, s) for i, s in enumerate(SIGNALS) if i]
    entries.append((34, "RTMIN"))
    entries += [(34 + k, f"RTMIN+{k}") for k in range(1, 16)]
    entries += [(64 - k, f"RTMAX-{k}") for k in range(14, 0, -1)]
    entries.append((64, "RTMAX"))
    out = []
    for n, (num, sig) in enumerate(entries, 1):
        out.append(f"{num:2d}) SIG{sig}" + ("\n" if n % 5 == 0 else "\t"))
    return "".join(out) + ("" if len(entries) % 5 == 0 else "\n")


def _trap_line(sig: str, handler: str) -> str:
    q = handler.replace("'", "'\\''")
    label = sig if sig in ("EXIT", "ERR", "DEBUG", "RETURN") else "SIG" + sig
    return f"trap -- '{q}' {label}\n"


def b_trap(sh: Shell, name: str, args: list[str]) -> int:
    st = sh.state
    try:
        flags, args = parse_flags(sh, "trap", args, "lp", "trap [-lp] [[arg] signal_spec ...]")
    except OptionError as e:
        return e.status
    if "l" in flags:
        out(sh, signal_table())
        return 0
    if not args or "p" in flags:
        status = 0
        if not args:
            for trapped, handler in st.traps.items():
                out(sh, _trap_line(trapped, handler))
            return 0
        for spec in args:
            sig = _sig_name(spec)
            if sig is None:
                sh.err(f"trap: {spec}: invalid signal specification")
                status = 1
            elif sig in st.traps:
                out(sh, _trap_line(sig, st.traps[sig]))
        return status
    if len(args) == 1 and _sig_name(args[0]) is None:
        sh.err(f"trap: {args[0]}: invalid signal specification")
        sh.write_err("trap: usage: trap [-lp] [[arg] signal_spec ...]\n")
        return 2
    if len(args) == 1 or (args[0].isdigit() and _sig_name(args[0])):
        action = "-"
        specs = args if len(args) == 1 or args[0].isdigit() else args[1:]
    else:
        action = args[0]
        specs = args[1:]
    status = 0
    for spec in specs:
        sig = _sig_name(spec)
        if sig is None:
            sh.err(f"trap: {spec}: invalid signal specification")
            status = 1
            continue
        if sig in getattr(st, "ignored_at_entry", ()) and "i" not in sh.extra_flags:
            continue  # ignored when this shell started: it stays ignored
        if action == "-":
            st.traps.pop(sig, None)
        else:
            st.traps[sig] = action
    return status


def job_text(job: Any) -> str:
    """The command line a job runs, as ``jobs`` shows it."""
    if not job.command and job.source is not None:
        from vshell.interp.printer import andor_text

        job.command = andor_text(job.source)
    return str(job.command)


def _named_jobs(sh: Shell, rest: str) -> list[int]:
    """The jobs ``%rest`` names by their command: ``%name`` (it starts so), ``%?text``."""
    table = sh.ctx.jobs
    if rest.startswith("?"):
        return [p for p in sorted(table) if rest[1:] in job_text(table[p])]
    return [p for p in sorted(table) if job_text(table[p]).startswith(rest)]


def _job_pid(sh: Shell, spec: str) -> int | None:
    """A pid or job spec (``%N``, ``%+``, ``%%``, ``%-``, ``%name``: the job whose command
    starts with name, ``%?text``: the one whose command holds text) as a pid; None if
    unknown (or ambiguous)."""
    jobs = sorted(sh.ctx.jobs)
    if spec.startswith("%"):
        rest = spec[1:]
        if rest in ("", "+", "%"):
            return jobs[-1] if jobs else None
        if rest == "-":
            return jobs[-2] if len(jobs) > 1 else (jobs[-1] if jobs else None)
        if rest.isdigit():
            k = int(rest)
            return jobs[k - 1] if 0 < k <= len(jobs) else None
        hits = _named_jobs(sh, rest)
        return hits[0] if len(hits) == 1 else None
    try:
        return int(spec)
    except ValueError:
        return None


def b_wait(sh: Shell, name: str, args: list[str]) -> int:
    jobs = sh.ctx.jobs
    flags = [a for a in args if a.startswith("-") and a != "-"]
    rest = [a for a in args if not (a.startswith("-") and a != "-")]
    if "-n" in flags:
        pending = [p for p in rest] or None
        pids = sorted(jobs) if pending is None else [
            p for p in (_job_pid(sh, x) for x in pending) if p is not None and p in jobs]
        if not pids:
            return 127
        while True:
            sh.check()
            sh.ctx.cancel.waiting()
            for pid in pids:
                job = jobs[pid]
                if not job.thread.is_alive():
                    jobs.pop(pid, None)
                    return job.status if job.status is not None else 0
            jobs[pids[0]].thread.join(0.02)
    status = 0
    if rest:
        for a in rest:
            wanted = _job_pid(sh, a)
            if wanted is None and not a.startswith("%") and not a.lstrip("-").isdigit():
                sh.err(f"wait: `{a}': not a pid or valid job spec")
                status = 2
                continue
            found = jobs.get(wanted) if wanted is not None else None
            if found is None:
                if a.startswith("%"):
                    sh.err(f"wait: {a}: no such job")
                else:
                    sh.err(f"wait: pid {a} is not a child of this shell")
                status = 127
                continue
            while found.thread.is_alive():
                sh.check()
                sh.ctx.cancel.waiting()
                found.thread.join(0.05)
            status = found.status if found.status is not None else 0
            jobs.pop(found.pid, None)
        return status
    for pid in sorted(jobs):
        job = jobs[pid]
        while job.thread.is_alive():
            sh.check()
            sh.ctx.cancel.waiting()
            job.thread.join(0.05)
    jobs.clear()
    return 0


IGNORED_BY_DEFAULT = frozenset(("CHLD", "CONT", "URG", "WINCH"))


_TERMINATING = frozenset(SIGNALS[1:]) - IGNORED_BY_DEFAULT - {"STOP", "TSTP", "TTIN", "TTOU"}


KILL_USAGE = ("kill: usage: kill [-s sigspec | -n signum | -sigspec] pid | jobspec ... "
              "or kill -l [sigspec]\n")


def b_kill(sh: Shell, name: str, args: list[str]) -> int:
    if not args or args == ["--"]:
        sh.write_err(KILL_USAGE)
        return 2
    if args == ["-l"] or args == ["-L"]:
        out(sh, signal_table())
        return 0
    if args[0] in ("-s", "-n") and len(args) == 1:
        sh.err(f"kill: {args[0]}: option requires an argument")
        return 1
    if args[0].startswith(("-s", "-n")) and len(args[0]) > 2 and not args[0][1:].isupper():
        args = [args[0][:2], args[0][2:], *args[1:]]  # -sTERM: grouped, as bash's getopt
    if len(args) == 2 and args[0] in ("-s", "-n") or (
            len(args) == 1 and args[0].startswith("-") and args[0] != "--"):
        sh.write_err(KILL_USAGE)  # a signal but no pid
        return 2
    sig = "TERM"
    if args and args[0] in ("-s", "-n") and len(args) > 1:
        spec, args = args[1], args[2:]
    elif args and args[0].startswith("-") and args[0] != "--" and len(args[0]) > 1:
        spec, args = args[0][1:], args[1:]
    else:
        spec = ""
    if spec:
        found = _sig_name(spec)
        if found == "EXIT":  # signal 0: only whether the process is there (`kill -0 $pid`)
            found = "0"
        if found is None or found in ("ERR", "DEBUG", "RETURN"):
            sh.err(f"kill: {spec}: invalid signal specification")
            return 1
        sig = found
    pids = [a for a in args if a != "--"]
    status = 0
    for p in pids:
        if p in sh.ctx.shells and sig != "0":  # a shell of this run (its $$): it acts
            sh.ctx.signals.setdefault(p, []).append(sig)  # between commands
            continue
        if p.startswith("%"):
            pid = _job_pid(sh, p)
            if pid is None and len(_named_jobs(sh, p[1:])) > 1:
                sh.err(f"kill: {p[1:]}: ambiguous job spec")
                status = 1
                continue
            if pid is None or pid not in sh.ctx.jobs:
                sh.err(f"kill: {p}: no such job")
                status = 1
                continue
        else:
            try:
                pid = int(p)
            except ValueError:
                sh.err(f"kill: {p}: arguments must be process or job IDs")
                status = 1
                continue
        if p in sh.ctx.shells:
            continue  # `kill -0 $$`: this shell is there
        job = sh.ctx.jobs.get(pid)
        if job is None or not job.thread.is_alive():  # (an ended one is reaped already)
            sh.err(f"kill: ({pid}) - No such process")
            status = 1
            continue
        if job.cancel is not None and sig in _TERMINATING:
            job.killed = SIGNALS.index(sig)
            job.cancel.cancel("killed")
    return status


def b_jobs(sh: Shell, name: str, args: list[str]) -> int:
    """``[N]+  Running                 cmd &`` a job, as bash prints them (``-l`` adds the
    pid, ``-p`` prints only pids); ``+`` marks the current job, ``-`` the one before."""
    table = sorted(sh.ctx.jobs.items())
    for i, (pid, job) in enumerate(table, 1):
        if "-p" in args:
            out(sh, f"{pid}\n")
            continue
        running = job.thread.is_alive()
        if running:
            state = "Running"
        elif job.killed:
            state = "Killed" if job.killed == 9 else "Terminated"
        else:
            state = "Done" if not job.status else f"Exit {job.status}"
        mark = "+" if i == len(table) else "-" if i == len(table) - 1 else " "
        where = f" {pid} " if "-l" in args else "  "
        out(sh, f"[{i}]{mark}{where}{state:<24}{job_text(job)}{' &' if running else ''}\n")
    return 0
