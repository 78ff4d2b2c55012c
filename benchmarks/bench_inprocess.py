"""In-process speed of vshell next to bashkit (Rust, on PyPI) and just-bash-py (pure Python).

Why: issue 19 asks vshell to be at most 0.5x the pure-Python peer on every case and within
5x of the Rust one on the geometric mean.  The cases follow the categories of bashkit's own
benchmark (start-up, variables, arithmetic, control flow, strings, arrays, pipes, tools,
complex scripts, large inputs, subshells, I/O); the scripts are this project's own.

Each shell gets one warm session; every case runs its setup once, a few warm-up runs, then
rounds that alternate which shell goes first.  The figure is the median CPU time of one
``exec`` (``--wall`` for wall time).  The outputs of the three are compared per case and a
peer that differs from vshell is marked in the table, not left out.

    pip install -e '.[bench]'
    PYTHONPATH=$PWD python3 benchmarks/bench_inprocess.py [--rounds N] [--wall] [-k WORD]
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Runner = Callable[..., tuple[str, int]]


@dataclass(frozen=True)
class Case:
    """One script, timed per exec; ``setup`` runs once, untimed, in each shell."""

    category: str
    name: str
    script: str
    setup: str = ""


_WORDS = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu"

CASES: list[Case] = [
    # start-up: the cost of one exec with (almost) nothing to do
    Case("startup", "true", "true"),
    Case("startup", "echo", "echo hi"),
    Case("startup", "two_statements", "x=1; echo $x"),
    # variables
    Case("vars", "assign_many", "a=1 b=2 c=3 d=4; e=$a$b$c$d; echo $e"),
    Case("vars", "default_values", 'unset u; echo "${u:-none} ${u:=set} $u ${v-x}"'),
    Case("vars", "export_env", "export K=v1; K2=v2; echo $K $K2; unset K K2"),
    Case("vars", "local_scope",
         'f() { local x=in; echo "$x"; }; x=out; f; echo "$x"'),
    # arithmetic
    Case("arith", "basic", "echo $(( (7 + 3) * 4 / 2 - 1 ))"),
    Case("arith", "loop_sum", "s=0; for ((i=1; i<=300; i++)); do s=$((s + i)); done; echo $s"),
    Case("arith", "increment", "n=0; while ((n < 300)); do ((n++)); done; echo $n"),
    Case("arith", "mixed_ops",
         "x=0; for i in 1 2 3 4 5 6 7 8 9 10; do x=$(( (x * 31 + i) % 1000003 )); done; "
         "echo $x $((x << 2)) $((x ^ 255)) $((x > 5 ? 1 : 0))"),
    # control flow
    Case("control", "if_elif",
         'for v in 1 5 9 12; do if [ $v -lt 3 ]; then echo low; '
         'elif [[ $v -lt 10 ]]; then echo mid; else echo high; fi; done'),
    Case("control", "case_arith",
         "t=0; for ((i=0; i<300; i++)); do case $((i % 4)) in 0) t=$((t+1));; "
         "1|2) t=$((t+2));; *) t=$((t+3));; esac; done; echo $t"),
    Case("control", "nested_loops",
         "c=0; for a in 1 2 3 4 5 6 7 8 9 10; do for b in 1 2 3 4 5 6 7 8 9 10; do "
         "c=$((c + a * b)); done; done; echo $c"),
    Case("control", "functions_200",
         "inc() { n=$((n + 1)); }; n=0; for ((i=0; i<200; i++)); do inc; done; echo $n"),
    Case("control", "recursion",
         "fib() { if (( $1 < 2 )); then echo $1; return; fi; "
         "local a b; a=$(fib $(( $1 - 1 ))); b=$(fib $(( $1 - 2 ))); echo $((a + b)); }; fib 9"),
    Case("control", "break_continue",
         "for ((i=0; i<200; i++)); do ((i % 3 == 0)) && continue; ((i > 150)) && break; "
         "last=$i; done; echo $last"),
    # strings
    Case("strings", "param_ops_200",
         "s=hello_world_example; o=; for ((i=0; i<200; i++)); do "
         "o=${s^^}${s:3:4}${s/o/0}${s//_/-}${#s}${s%_*}${s#*_}; done; echo $o"),
    Case("strings", "concat_build",
         "s=; for ((i=0; i<200; i++)); do s+=x; done; echo ${#s}"),
    Case("strings", "printf_format",
         'for i in 1 2 3 4 5 6 7 8; do printf "%03d|%-5s|%x\\n" $i ab $((i*17)); done'),
    Case("strings", "pattern_match",
         "n=0; for w in " + _WORDS + "; do [[ $w == *a* ]] && n=$((n+1)); "
         "[[ $w =~ ^[a-e] ]] && n=$((n+10)); done; echo $n"),
    Case("strings", "quoting", "x='a b  c'; echo \"$x\" '$x' $x \"${x// /_}\""),
    # arrays
    Case("arrays", "create_len", "a=(one two three four five); echo ${#a[@]} ${a[2]}"),
    Case("arrays", "iterate",
         "a=(" + _WORDS + "); for w in \"${a[@]}\"; do echo -n $w.; done; echo"),
    Case("arrays", "append_index",
         "a=(); for ((i=0; i<200; i++)); do a+=($i); done; a[5]=x; "
         "echo ${#a[@]} ${a[5]} ${a[199]}"),
    Case("arrays", "slice_keys", "a=(a b c d e f g); echo ${a[@]:2:3} ${!a[@]}"),
    Case("arrays", "assoc",
         "declare -A m; for w in " + _WORDS + "; do m[$w]=${#w}; done; "
         "echo ${m[alpha]} ${m[lambda]} ${#m[@]}"),
    # pipes
    Case("pipes", "echo_cat", "echo hello | cat"),
    Case("pipes", "three_stage", "printf '%s\\n' c a b a c | sort | uniq -c"),
    Case("pipes", "loop_into_grep_wc",
         "for ((i=0; i<100; i++)); do echo line$i; done | grep 5 | wc -l"),
    Case("pipes", "while_read",
         "printf '%s\\n' 1 2 3 4 5 6 7 8 9 10 | while read n; do echo $((n*n)); done | tail -3"),
    # tools
    Case("tools", "grep_count", "grep -c a /tmp/words.txt", "printf '%s\\n' " + _WORDS +
         " > /tmp/words.txt"),
    Case("tools", "sed_subst", "sed 's/a/A/g; s/^/> /' /tmp/words.txt | head -4",
         "printf '%s\\n' " + _WORDS + " > /tmp/words.txt"),
    Case("tools", "awk_sum", "seq 1 200 | awk '{s += $1} END {print s}'"),
    Case("tools", "sort_uniq", "printf '%s\\n' b a c b a | sort | uniq"),
    Case("tools", "tr_cut", "echo 'a:b:c:d' | tr ':' ',' | cut -d, -f2,4"),
    Case("tools", "wc_head_tail", "seq 1 500 | head -300 | tail -5 | wc -l"),
    # complex scripts
    Case("complex", "fizzbuzz",
         "for ((i=1; i<=60; i++)); do if ((i % 15 == 0)); then echo FizzBuzz; "
         "elif ((i % 3 == 0)); then echo Fizz; elif ((i % 5 == 0)); then echo Buzz; "
         "else echo $i; fi; done | tail -4"),
    Case("complex", "subst_functions",
         "sq() { echo $(( $1 * $1 )); }; t=0; for ((i=0; i<100; i++)); do t=$((t + $(sq $i))); "
         "done; echo $t"),
    Case("complex", "word_freq",
         "echo '" + _WORDS + " alpha beta alpha' | tr ' ' '\\n' | sort | uniq -c | sort -rn "
         "| head -3"),
    Case("complex", "csv_report",
         "total=0; while IFS=, read -r name qty price; do total=$((total + qty * price)); "
         "done < /tmp/sales.csv; echo $total",
         "for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo item$i,$i,$((i*3)); done > /tmp/sales.csv"),
    # large inputs
    Case("large", "loop_1000", "n=0; for ((i=0; i<1000; i++)); do n=$((n + i % 7)); done; echo $n"),
    Case("large", "seq_10000_wc", "seq 1 10000 | wc -l"),
    Case("large", "grep_big_file", "grep -c 7 /tmp/big.txt", "seq 1 20000 > /tmp/big.txt"),
    Case("large", "sort_big_file", "sort -n -r /tmp/big.txt | head -2",
         "seq 1 20000 > /tmp/big.txt"),
    # subshells and substitutions
    Case("subshell", "command_subst", "x=$(echo inner); echo $x"),
    Case("subshell", "nested_subst", "echo $(echo $(echo $(echo deep)))"),
    Case("subshell", "paren_subshell", "x=1; (x=2; echo $x); echo $x"),
    Case("subshell", "subst_in_loop",
         "for i in 1 2 3 4 5 6 7 8 9 10; do y=$(echo $i); done; echo $y"),
    # I/O
    Case("io", "redirect_write_read", "echo data > /tmp/o.txt; cat /tmp/o.txt"),
    Case("io", "append_loop",
         "rm -f /tmp/ap.txt; for i in 1 2 3 4 5 6 7 8 9 10; do echo $i >> /tmp/ap.txt; done; "
         "wc -l < /tmp/ap.txt"),
    Case("io", "heredoc", "cat <<EOF\nline one $((1+1))\nline two\nEOF"),
    Case("io", "dev_null_stderr",
         "echo out; echo err >&2 2>/dev/null; ls /nonexistent 2>/dev/null; echo done"),
    Case("io", "read_file_lines",
         "n=0; while read -r line; do n=$((n + ${#line})); done < /tmp/words.txt; echo $n",
         "printf '%s\\n' " + _WORDS + " > /tmp/words.txt"),
]


def _vshell() -> Runner:
    from vshell import Sandbox

    sb = Sandbox()

    def run(script: str, setup: bool = False) -> tuple[str, int]:
        r = sb.exec(script)
        return r.stdout.decode("utf-8", "replace"), r.exit_code

    return run


def _bashkit() -> Runner:
    import bashkit

    # bashkit caps a session at 100000 commands and 1000 execs: a session at a cap is
    # replaced by a fresh one, which gets the case's setup again (untimed work is redone
    # inside the timed call then, a few times per run at most, which favours no one)
    box: dict[str, Any] = {"sh": bashkit.Bash(), "setup": ""}

    def run(script: str, setup: bool = False) -> tuple[str, int]:
        if setup:
            box["setup"] = script
        r = box["sh"].execute_sync(script)
        if r.error and "session" in str(r.error) and "limit exceeded" in str(r.error):
            box["sh"] = bashkit.Bash()
            if box["setup"]:
                box["sh"].execute_sync(box["setup"])
            r = box["sh"].execute_sync(script)
        return r.stdout, r.exit_code

    return run


def _just_bash() -> Runner:
    import just_bash

    # its command count is per session too: lifted, as the runs are the harness's own
    sh = just_bash.Bash(limits=just_bash.ExecutionLimits(max_command_count=10**12))

    def run(script: str, setup: bool = False) -> tuple[str, int]:
        r = sh.run(script)
        return r.stdout, r.exit_code

    return run


def _time_one(run: Runner, script: str, clock: Callable[[], float]) -> float:
    t0 = clock()
    run(script)
    return clock() - t0


def measure(runners: dict[str, Runner], case: Case, rounds: int, budget: float,
            clock: Callable[[], float]) -> tuple[dict[str, float], dict[str, tuple[str, int]]]:
    """Median ms per exec for each runner, and what each printed."""
    outputs: dict[str, tuple[str, int]] = {}
    for name, run in runners.items():
        if case.setup:
            run(case.setup, True)
        outputs[name] = run(case.script)
        run(case.script)  # warm
    samples: dict[str, list[float]] = {name: [] for name in runners}
    names = list(runners)
    start = time.perf_counter()
    i = 0
    while i < rounds or (i < 3 * rounds and time.perf_counter() - start < budget):
        order = names[i % len(names):] + names[:i % len(names)]
        for name in order:
            samples[name].append(_time_one(runners[name], case.script, clock))
        i += 1
        if time.perf_counter() - start > 4 * budget and i >= 5:
            break
    return {n: statistics.median(s) * 1000 for n, s in samples.items()}, outputs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=15, help="minimum rounds per case")
    ap.add_argument("--budget", type=float, default=0.4, help="seconds per case to aim for")
    ap.add_argument("--wall", action="store_true", help="wall time instead of CPU time")
    ap.add_argument("-k", default="", help="only cases whose name contains this")
    ap.add_argument("--only-vshell", action="store_true", help="time vshell alone (profiling)")
    ap.add_argument("--processes", type=int, default=1,
                    help="run the benchmark in this many fresh processes, one after the "
                         "other, and print each figure's median over them (with the "
                         "ratio's range): one process can run the same code up to twice as "
                         "fast as another on some machines")
    args = ap.parse_args(argv)
    if args.processes > 1:
        if args.only_vshell:
            ap.error("--processes compares the three shells: drop --only-vshell")
        each = ["--rounds", str(args.rounds), "--budget", str(args.budget), "-k", args.k]
        return _over_processes(args.processes, each + ["--wall"] * args.wall, args.wall)
    clock = time.perf_counter if args.wall else time.process_time
    runners: dict[str, Runner] = {"vshell": _vshell()}
    if not args.only_vshell:
        runners["just-bash"] = _just_bash()
        runners["bashkit"] = _bashkit()
    cases = [c for c in CASES if args.k in f"{c.category}/{c.name}"]
    kind = "wall" if args.wall else "CPU"
    print(f"{len(cases)} cases, median {kind} ms per exec, warm sessions, alternating order")
    head = f"| case | {' | '.join(runners)} |"
    if not args.only_vshell:
        head += " vshell/just-bash | vshell/bashkit | same output |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    ratios_jb: list[float] = []
    ratios_bk: list[float] = []
    worst = 0.0
    for case in cases:
        med, out = measure(runners, case, args.rounds, args.budget, clock)
        cells = [f"{med[n]:.3f}" for n in runners]
        line = f"| {case.category}/{case.name} | " + " | ".join(cells) + " |"
        if not args.only_vshell:
            rj = med["vshell"] / max(med["just-bash"], 1e-6)
            rb = med["vshell"] / max(med["bashkit"], 1e-6)
            ratios_jb.append(rj)
            ratios_bk.append(rb)
            worst = max(worst, rj)
            differ = [n for n in runners if n != "vshell" and out[n] != out["vshell"]]
            same = "yes" if not differ else "differs: " + ", ".join(differ)
            for n in differ:
                print(f"  {case.name}: {n} printed {out[n]!r:.120}, vshell {out['vshell']!r:.120}",
                      file=sys.stderr)
            line += f" {rj:.2f} | {rb:.2f} | {same} |"
        print(line, flush=True)
    if ratios_jb:
        def gmean(xs: list[float]) -> float:
            return math.exp(sum(math.log(x) for x in xs) / len(xs))

        print(f"\ngeometric mean vshell/just-bash: {gmean(ratios_jb):.2f} "
              f"(worst case {worst:.2f});  vshell/bashkit: {gmean(ratios_bk):.2f}")
    return 0


def _over_processes(count: int, argv: list[str], wall: bool) -> int:
    """Run this benchmark ``count`` times in fresh processes and print the medians."""
    import subprocess

    rows: dict[str, list[list[str]]] = {}
    for k in range(count):
        out = subprocess.run([sys.executable, __file__, *argv], capture_output=True,
                             text=True, check=True).stdout
        for line in out.splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if line.startswith("| ") and "/" in cells[0] and len(cells) == 7:
                rows.setdefault(cells[0], []).append(cells)
        print(f"process {k + 1}/{count} done", file=sys.stderr, flush=True)
    print(f"{len(rows)} cases, median {'wall' if wall else 'CPU'} ms per exec over {count} "
          "processes, "
          "warm sessions, alternating order")
    print("| case | vshell | just-bash | bashkit | vshell/just-bash | vshell/bashkit | "
          "same output |")
    print("|---|---|---|---|---|---|---|")
    ratios_jb: list[float] = []
    ratios_bk: list[float] = []
    for name, runs in rows.items():
        med = [statistics.median(float(r[i]) for r in runs) for i in (1, 2, 3, 4, 5)]
        jb = [float(r[4]) for r in runs]
        ratios_jb.append(med[3])
        ratios_bk.append(med[4])
        print(f"| {name} | {med[0]:.3f} | {med[1]:.3f} | {med[2]:.3f} | {med[3]:.2f} "
              f"({min(jb):.2f}–{max(jb):.2f}) | {med[4]:.2f} | {runs[0][6]} |")

    def gmean(xs: list[float]) -> float:
        return math.exp(sum(math.log(x) for x in xs) / len(xs))

    print(f"\ngeometric mean vshell/just-bash: {gmean(ratios_jb):.2f} "
          f"(worst case {max(ratios_jb):.2f});  vshell/bashkit: {gmean(ratios_bk):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
