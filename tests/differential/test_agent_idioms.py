"""Scripts as coding agents write them, against GNU bash byte for byte: stdout, stderr, status.

Each case runs in a fresh directory (bash: a host temp dir; vshell: one mounted at /work) with
the same stdin. vshell names itself where bash says ``bash:``; stderr is compared with that one
word swapped. A case whose stderr bash words differently on purpose (none yet) would say so.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from vshell import HostMount, Sandbox

REPO = Path(__file__).resolve().parents[2]

# (script, stdin)
CASES: list[tuple[str, bytes]] = [
    # option grouping: each o of a group takes the next word
    ('set -euo pipefail; echo "$#"; false | wc -l; echo reached', b""),
    ("set -eo pipefail; false | wc -l; echo reached", b""),
    ("set -oo pipefail nounset; shopt -po pipefail; set -o | grep -E '^(nounset|pipefail)'", b""),
    ("set -euo pipefail a b; echo $#:$1", b""),
    # a subshell's, a pipeline stage's and a substitution's command finds stay their own
    ("ls >/dev/null; true </dev/null | sort; (uniq </dev/null); x=$(wc </dev/null); hash", b""),
    # FUNCNEST: the call past it fails, the rest of its line is dropped, the next line runs
    ("FUNCNEST=5; f(){ echo $1; f $(($1+1)); }; f 1; echo same line\necho next $?", b""),
    ("FUNCNEST=3; g(){ g; }; x=$(g; echo in); echo \"[$x] $?\"", b""),
    # nesting bash takes without a limit
    ("( " * 150 + "echo deep" + " )" * 150, b""),
    ("if true; then " * 100 + "echo ifs" + "; fi" * 100, b""),
    # the whole option tables, in bash's order and with its defaults
    ("shopt; shopt -p; set -o; set +o", b""),
    # shopt lists: -s / -u alone pick the options, -p alone picks the reusable format
    ("set -e; shopt -s -o; shopt -u -o | head -3; shopt -ps -o; shopt -so nounset;"
     " shopt -o nounset", b""),
    ("shopt -s extglob; shopt -s | grep -E '^(extglob|extquote)'; shopt -s -p | grep extglob;"
     " shopt -sp nullglob; shopt nullglob", b""),
    ("set -o nosuch; echo $?", b""),
    ("set -eo nosuch x; echo $? $#", b""),
    ("set +eo pipefail; set -o | grep pipe", b""),
    ("read -rp 'x' v; echo $v", b"hi\n"),
    ("printf 'a\\0b\\0' | { read -rd '' x; echo $x; }", b""),
    ("declare -ga arr=(1 2); echo ${arr[1]}", b""),
    ("f(){ local -ia a=(1 2); echo ${a[@]}; }; f", b""),
    ("printf -vx %s hi; echo $x", b""),
    ("printf 'a,b,' | { mapfile -td, l; echo ${#l[@]} ${l[1]}; }", b""),
    ("mapfile -tn1 l; echo ${#l[@]} ${l[0]}", b"a\nb\n"),
    ("mapfile -x; echo $?", b""),
    ("command -Vp echo; command -x; echo $?", b""),
    ("type -ta echo; type -x; echo $?", b""),
    ('trap "echo a" EXIT; trap -pl | head -2; trap -p EXIT INT; trap -x; echo $?; trap -- ;'
     " echo $?; trap -p -- EXIT", b""),
    ("kill; echo $?", b""),
    # a server started in the background and stopped: kill by $!, by %N, by %name (each job
    # has its own cancel token), the status 128+signal, jobs as bash lists them
    ("sleep 10 & p=$!; kill $p; echo k=$?; wait $p; echo st=$?", b""),
    ("sleep 10 & jobs; jobs -p | wc -l; kill %1; echo k=$?; wait; echo st=$?", b""),
    ("sleep 5 & sleep 6 & jobs; kill %sle; echo $?; kill %2 %1; wait %1; echo $?", b""),
    ("sleep 10 & kill -0 $!; echo alive=$?; kill -s TERM %sleep; wait $!; echo $?;"
     " kill -0 $! 2>/dev/null; echo gone=$?", b""),
    ("{ sleep 10; echo after; } & kill %1; wait %1; echo $?; kill %7; echo $?", b""),
    ("true & sleep 0.2; kill $! 2>/dev/null; echo $?; kill 99999; echo $?", b""),
    # a descriptor opened on a process substitution by exec stays open after the line
    # (the substitution's own descriptor goes, as in bash; closing 3 or 4 ends it)
    ('exec 3< <(echo hi; echo there); read -u 3 x; echo "[$x]"; cat <&3; exec 3<&-', b""),
    ("exec 3< <(seq 3); exec 4<&3; read -u 4 a; read -u 3 b; echo $a $b", b""),
    ("exec 4> >(tr a-z A-Z); echo hello >&4; exec 4>&-; sleep 0.3", b""),
    # a local over an exported variable is exported (`local PATH=…` reaches the commands);
    # a local that is not exported, or has no value, hides nothing from the environment
    ("export A=1; f() { local A=2; declare -p A; env | grep ^A=; }; f; env | grep ^A=;"
     " g() { local A; declare -p A; env | grep ^A=; }; g", b""),
    ("export A=1; h() { local +x A=3; env | grep ^A=; }; h; export C=1;"
     " m() { local C=2; unset C; env | grep ^C=; }; m; B=5; k() { local B=6; env | grep -c ^B=; };"
     " k; f() { local E=1; export E; env | grep ^E=; }; f; env | grep -c ^E=", b""),
    ("kill -l | tail -2; trap -l | head -1", b""),
    ("while getopts ab:c o -ab1 -c; do echo $o $OPTARG; done", b""),
    ("getopts -x; echo $?; cd -LP /; pwd -LP; pwd -PL; pwd -x; echo $?", b""),
    ("f(){ :; }; unset -fv f; type -t f; echo $?; x=1; unset -v x; echo ${x-gone}; unset -x;"
     " echo $?; declare -n r=q; q=1; unset -n r; echo $q ${r-none}", b""),
    ("ls>/dev/null; cat </dev/null; hash; hash -l; hash -t ls cat; hash -t nosuch; echo $?;"
     " hash -d ls; hash -t ls; echo $?; hash -p /x/y zz; hash -t zz; hash -r; hash; echo $?;"
     " hash -d; echo $?", b""),
    ("kill -s; echo $?; kill -n 15; echo $?; kill -sTERM; echo $?; kill --; echo $?;"
     " kill -sTERM 99999; echo $?", b""),
    ("x=1; export -pn x; echo $?; shopt -pq extglob; echo $?; read -ers x <<< 'a\\b';"
     " echo \"$x\"; f(){ declare -gri G=3; }; f; echo $G", b""),
    # messages of the shell itself go where the command's stderr goes
    ("nosuch 2>/dev/null; echo $?", b""),
    ("nosuch 2>&1 | grep -c found", b""),
    ("{ nosuch; } 2>err; sed 's/^[a-z]*:/sh:/' err", b""),
    ("nosuch &>log; sed 's/^[a-z]*:/sh:/' log", b""),
    ('x=$(nosuch 2>&1); echo "${x#*: }"', b""),
    ("f(){ nosuch; }; f 2>/dev/null; echo $?", b""),
    ("touch x; ./x 2>/dev/null; echo $?; mkdir d; ./d 2>/dev/null; echo $?", b""),
    ("./nosuch 2>/dev/null; echo $?", b""),
    ('x="a b"; echo hi 2>/dev/null > $x; echo $?', b""),
    ('x="a b"; echo hi > $x 2>/dev/null; echo $?', b""),
    ("echo hi 2>/dev/null > /nonexist/f; echo $?", b""),
    ("{ echo hi > /nonexist/f; } 2>/dev/null; echo $?", b""),
    ("echo ${x!y} 2>/dev/null; echo $?", b""),
    ("set -x; echo a 2>/dev/null", b""),
    ("set -x; { echo a; } 2>err; cat err", b""),
    # fatal errors: 127 in a command string, 1 under set -e, in subshells and script files
    ("set -eu; echo $U; echo no", b""),
    ("set -euo pipefail\necho \"v: ${MISSING}\"\necho after", b""),
    ("set -e; x=${X:?oops}; echo no", b""),
    ("set -u -o pipefail; echo $U", b""),
    ("set -u; echo $U; echo no", b""),
    ("echo ${X:?m}; echo no", b""),
    ("(set -u; echo $U); echo $?", b""),
    ("{ set -u; echo $U; } | cat; echo ${PIPESTATUS[0]}", b""),
    ("x=$(set -u; echo $U); echo $?", b""),
    ("set -u; x=$U; echo no", b""),
    ("set -u; : $((U+1)); echo no", b""),
    ("set -u; for i in $U; do :; done; echo no", b""),
    ("set -u; [[ $U ]]; echo no", b""),
    ("{ echo ${X:?msg}; } 2>/dev/null; echo $?", b""),
    ("echo ${x!y}; echo no", b""),
    ("echo $((1/0)); echo no", b""),
    ("printf 'set -u\\necho $U\\necho no\\n' > f.sh; bash f.sh; echo $?", b""),
    # writers into a closed pipe end at once (SIGPIPE, 141)
    ("while :; do echo x; done | head -n 1; echo ${PIPESTATUS[@]}", b""),
    ("f(){ while :; do printf 'y\\n'; done; }; f | head -2; echo ${PIPESTATUS[@]}", b""),
    ("seq 100000 > n; while read l; do echo $l; done < n | head -1; echo ${PIPESTATUS[@]}",
     b""),
    ("(while :; do echo x; done; echo after >&2) | head -1; echo ${PIPESTATUS[@]}", b""),
    ("x=$(while :; do echo x; done | head -1); echo $x", b""),
    ("for i in $(seq 100000); do echo $i; done | head -1; echo ${PIPESTATUS[@]}", b""),
    ("trap '' PIPE; for i in 1 2 3; do echo $i; sleep 0.05; done | (read x; echo $x);"
     " echo ${PIPESTATUS[@]}", b""),
    # traps and subshells
    ("x=$(trap 'echo bye' EXIT; echo hi); echo \"[$x]\"", b""),
    ("x=$(trap 'echo bye' EXIT; exit 3); echo \"[$x] $?\"", b""),
    ("{ trap 'echo t' EXIT; echo a; } | cat; echo ${PIPESTATUS[@]}", b""),
    ("(trap 'echo sub' EXIT; exit 4); echo $?", b""),
    ("echo $(trap 'echo sub' EXIT) end", b""),
    ("trap 'echo a' EXIT; trap 'echo b' INT; trap -p; trap", b""),
    ("trap 'echo hup' 1; trap -p HUP; trap -p SIGHUP; trap - 1; trap", b""),
    ('f(){ trap "echo r" RETURN; }; f; echo A; g(){ :; }; g; echo B; trap -p RETURN', b""),
    ('trap "echo outer" RETURN; f(){ trap -p RETURN; echo in; }; f; echo D', b""),
    ('f(){ trap "echo r" RETURN; }; g(){ f; echo ing; }; g; echo E', b""),
    ("set -T; trap 'echo ret' RETURN; f(){ :; }; g(){ f; }; g", b""),
    # scripts read from stdin, by bash/sh inside the shell
    ("printf 'echo a\\nif then\\necho b\\n' | bash; echo \"rc=$?\"", b""),
    ("printf 'read x; echo \"got $x\"\\nhello\\necho $LINENO\\n' | bash", b""),
    ("printf 'trap \"echo bye\" EXIT\\necho one\\nnosuch\\necho $LINENO\\n' | bash; echo $?",
     b""),
    ("printf 'while read l; do echo \"[$l]\"; done\\nA\\nB\\n' | bash", b""),
    ("printf 'echo a \\\\\\n b\\nhead -1\\nline1\\nline2\\n' | bash", b""),
    ("printf 'set -u\\necho $U\\necho no\\n' | bash; echo $?", b""),
    # set -x
    ('x=2; y="a b"; set -x; (( $x + 1 )); [[ $y == "a b" ]]; [[ $y == a* ]];'
     " [[ -f $y || $x -gt 1 ]]; [[ ! -z $x ]]; [[ $y =~ ^a ]]; [[ ( $x == 2 ) ]]; [[ $x ]]", b""),
    ("set -x; ((x=1)); for ((i=0;i<2;i++)); do :; done; y=a; case $y in a) :;; esac;"
     ' for v in $y "b c"; do :; done', b""),
    ("set -x; for (( i=0 ; i<1 ; i++ )); do :; done; x=1; for ((i=$x;i<2;i++)); do :; done",
     b""),
    ("set -x; for a; do :; done; set -- 1; for a; do :; done", b""),
    ("PS4='+${LINENO}: '; set -x; for i in 1; do echo $i; done", b""),
    ("set -x; select s in p q; do break; done", b"1\n"),
    # select, coproc, exec inside eval, help, kill, enable
    ('select x in a b; do echo "[$x][$REPLY]"; done; echo "st=$?"', b"1\n\n3\nx\n"),
    ('PS3="pick: "; select x in a b; do echo "$x"; break; done; echo "st=$?"', b"2\n"),
    ("select x; do :; done; echo st=$?", b""),
    ("set -- p q; select x; do echo $x; break; done", b"2\n"),
    ("coproc cat; echo hi >&${COPROC[1]}; read l <&${COPROC[0]}; echo $l ${COPROC[@]}", b""),
    ('coproc NAME { cat; }; echo hi >&${NAME[1]}; read l <&${NAME[0]}; echo $l;'
     ' [ -n "$NAME_PID" ] && echo pid', b""),
    ('coproc UP { tr a-z A-Z; }; echo hello >&"${UP[1]}"; eval "exec ${UP[1]}>&-";'
     ' cat <&"${UP[0]}"; wait $UP_PID; echo $?', b""),
    ("coproc B { echo from-b; exit 3; }; read x <&${B[0]}; echo $x; wait $B_PID; echo $?", b""),
    ("coproc cat; c=${COPROC[1]}; exec {c}>&-; wait $COPROC_PID; echo $?", b""),
    ("eval 'exec 3>f'; echo hi >&3; exec 3>&-; cat f", b""),
    ("f(){ exec 4>g; }; f; echo via4 >&4; exec 4>&-; cat g", b""),
    ("{ exec 5>h; } 2>/dev/null; echo five >&5; cat h", b""),
    ("{ exec 3>f; } 3>g; echo x >&3; echo $?", b""),
    ("exec 3>f; echo a >&3; (exec 3>&-; echo b >&3); echo c >&3; cat f", b""),
    ("exec 2>/dev/null; nosuch; echo $?", b""),
    ("x=$(exec 3>f; echo hi >&3; echo ok); echo $x; cat f", b""),
    ("cd --help; echo $?", b""),
    ("help cd; help -s cd; help -d cd read; help nosuch; echo $?", b""),
    ("help 'pu*' | head -3; echo --help; true --help; echo $?; test --help; echo $?", b""),
    ("read --help | head -2; set --help | tail -1; declare --help >/dev/null; echo $?", b""),
    ("kill; echo $?; kill -l | head -1", b""),
    ("enable -n echo; echo hi; type echo; (enable echo; type echo); type -t echo", b""),
    ("enable -n cd pwd; enable -n; enable nosuch; echo $?", b""),
    ("type -ta echo; type -at ls; type -pa ls; type -Pa echo; type -a cat", b""),
    ("command -v ls; command -V ls; type ls; PATH=/bin; command -v ls; type -P ls", b""),
    ('alias x=y; type -p x; echo $?; type -p if; echo $?; f(){ :; }; type -p f; echo $?;'
     " type -p cd; echo $?; type -P cd; echo $?", b""),
    ("ls >/dev/null; type ls; type -a ls; command -V ls; type -p ls; hash -r; type ls", b""),
    # ulimit as bash parses it
    ("ulimit -f -n | sed 's/[0-9]*$//'; ulimit -f -n 999; echo $?; ulimit -n;"
     " ulimit -f $(( (1 << 62) + 1 )); echo $?; ulimit -S -H -t 100; ulimit -S -t 105; echo $?;"
     " ulimit -H -t 200; echo $?; ulimit -t; ulimit -Ht; ulimit -x; ulimit -f abc; echo $?", b""),
    ("ulimit -c 5; echo $?; ulimit -c unlimited; echo $?; ulimit -Hc; ulimit -f hard; echo $?;"
     " ulimit -n -5; echo $?; ulimit -a | sed 's/[0-9]*$//'; ulimit -f -a | wc -l; ulimit 100;"
     " ulimit -f", b""),
    # {var}> descriptors stay open; errors inside functions name the defining file
    ("{ echo; } {abc}<<< walrus; cat <&$abc", b""),
    ("echo {abc}>f hi; echo x >&$abc; cat f; exec {abc}>&-; echo y >&$abc; echo $?", b""),
    ("f(){ nosuch; }\ng(){ f; }\ng", b""),
    ("printf 'f(){ nosuch; }\\nf\\n' > s1.sh; bash s1.sh; source ./s1.sh;"
     " echo 'f(){ nosuch; }; f' | bash", b""),
    ("f(){ echo ${X:?m}; }; f; echo no", b""),
    ("f(){ echo ${x!y}; echo in-f; }; f; echo same-line\necho next $?", b""),
    # nested shells, signals, aliases, namerefs
    ("bash -c 'trap \"echo usr1\" USR1; sleep 0.3' & sleep 0.05; kill -USR1 $!; wait;"
     " echo status=$?", b""),
    ("printf 'echo one \\0 echo two\\n' > nul.sh; bash nul.sh; echo $?", b""),
    ("bash --rcfile /dev/null -i -c 'test -o emacs; echo $?' 2>/dev/null;"
     " bash -c 'test -o emacs; echo $?'", b""),
    ("shopt -s expand_aliases\nalias e_='echo '\nalias one='ONE '\nalias two='TWO '\n"
     "e_ one \\\n two one \\\n one", b""),
    ("declare -A A=(['K']=val); declare -n ref='A[\"K\"]'; echo $ref; ref=v2; key=K;"
     " declare -n r2='A[$key]'; echo $r2; r2=v3; echo ${A[@]}", b""),
    ("typeset -n ref1=ref2; typeset -n ref2=ref1; echo ref1=$ref1\nref1=z; echo mutated $?\n"
     "echo next $?", b""),
    ('array=(X Y Z); typeset -n ref="array[0]"; ref[0]=foo; echo status=$?\n'
     "echo ${array[@]} $?; ref=Q; echo ${array[@]}", b""),
    ("B=(b b) printenv B; B=(b \"c d\") printenv B; f(){ declare -p a; }; a=(1 2) f", b""),
    ("a=(1 2 3); echo ${a[]}; echo same-line\necho next $?; echo \"${a[ ]}\" $?", b""),
    ("x=\u00df; echo ${x^} ${x^^} ${x@U}; y=\u0130stanbul; echo ${y,,}; z=abc; echo ${z^^} ${z^}",
     b""),
    ('declare -A A=(["x"]=y); echo x=${!A[@]@a}; echo x=${!A@a}\nx="a b"; echo ${!x}; echo s\n'
     "unset x; echo ${!x}; echo same\necho next $?", b""),
    ("f() { echo o1; echo o2; sleep 0.1; { echo e1; echo warning: e2; } >&2; };"
     " f 2> >(grep warning) | tac > out.txt; wait $!; echo OUT; cat out.txt", b""),
    ("bash -c 'trap \"echo int\" INT; sleep 0.3' & sleep 0.05; kill -INT $!; wait;"
     " echo status=$?", b""),
]


def _bash(tmp: Path, script: str, stdin: bytes) -> tuple[int, bytes, bytes]:
    p = subprocess.run(["bash", "-c", script], cwd=tmp, input=stdin, capture_output=True,
                       timeout=30, env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8",
                                        "HOME": "/"})
    return p.returncode, p.stdout, p.stderr


def _vshell(tmp: Path, script: str, stdin: bytes) -> tuple[int, bytes, bytes]:
    with Sandbox(mounts=[HostMount(str(tmp), "/work")], timeout=20) as sb:
        res = sb.exec(script, stdin=stdin)
    err = b"\n".join(b"bash:" + line[len(b"vshell:"):] if line.startswith(b"vshell:") else line
                     for line in res.stderr.split(b"\n"))
    return res.exit_code, res.stdout, err


@pytest.mark.skipif(shutil.which("bash") is None, reason="GNU bash (the oracle) is not installed")
@pytest.mark.parametrize(("script", "stdin"), CASES, ids=[f"{i:03d}" for i in range(len(CASES))])
def test_agent_idiom_same_as_bash(tmp_path: Path, script: str, stdin: bytes) -> None:
    a = tmp_path / "bash"
    b = tmp_path / "vshell"
    a.mkdir()
    b.mkdir()
    want = _bash(a, script, stdin)
    got = _vshell(b, script, stdin)
    assert got == want, script


# The CLI reading its script from a pipe, as `printf … | bash` does.
PIPED = [
    "echo a\nif then\necho b\n",
    'read x; echo "got $x"\nhello\necho $LINENO\n',
    "x=1\nexit 3\necho no\n",
    "f() {\n echo in f\n}\nf\nset -u\necho $U\necho no\n",
    'trap "echo bye" EXIT\necho one\nnosuch\necho $LINENO $-\n',
    'while read l; do echo "[$l]"; done\nA\nB\n',
    "echo a\nif true; then\n",
    'trap "echo bye; exit 4" EXIT\nfalse\n',
    "cat <<EOF\nhd $((1+1))\nEOF\necho after\n",
]


@pytest.mark.skipif(shutil.which("bash") is None, reason="GNU bash (the oracle) is not installed")
@pytest.mark.parametrize("script", PIPED, ids=[f"piped{i}" for i in range(len(PIPED))])
def test_piped_script_same_as_bash(tmp_path: Path, script: str) -> None:
    env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "HOME": "/"}
    want = subprocess.run(["bash"], input=script.encode(), capture_output=True, timeout=30,
                          cwd=tmp_path, env=env)
    got = subprocess.run([sys.executable, "-m", "vshell"], input=script.encode(),
                         capture_output=True, timeout=30, cwd=tmp_path,
                         env={**env, "PYTHONPATH": str(REPO)})
    err = got.stderr.replace(b"vshell:", b"bash:")
    assert (got.returncode, got.stdout, err) == (want.returncode, want.stdout, want.stderr)


HOST_TOOLS = ["git status", "pip install requests", "npm ci", "node -e 1", "sudo ls",
              "apt-get install -y jq", "docker ps", "make", "cargo build", "ssh host"]


@pytest.mark.parametrize("line", HOST_TOOLS)
def test_host_programs_say_why_they_are_missing(line: str) -> None:
    """bash's own line and status, then one line with the reason (bash may have git: the
    first line is bash's wording for a missing command, checked literally)."""
    name = line.split()[0]
    with Sandbox() as sb:
        res = sb.exec(f"{line}; echo $?; x=$({line} 2>&1); echo \"$x\" | wc -l")
    first, second, *rest = res.stderr.decode().splitlines()
    assert first == f"vshell: line 1: {name}: command not found"
    assert second.startswith(f"vshell: {name}: vshell runs no host programs; ")
    assert rest == []
    assert res.stdout == b"127\n2\n"  # the reason goes where stderr goes


def test_enable_is_per_session() -> None:
    with Sandbox() as a, Sandbox() as b:
        a.exec("enable -n cd")
        assert a.exec("type -t cd").stdout == b""
        assert b.exec("type -t cd").stdout == b"builtin\n"
