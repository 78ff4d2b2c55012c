"""A subshell is a copy of its parent: neither sees what the other changes, as in bash.

vshell makes the copy lazily (the variables are shared until one side changes one, see
``vshell.interp.state.Owner``), so every kind of change is tried here, in both directions,
through every way a shell forks: ``( )``, pipeline stages, ``$( )``, ``&``, coprocesses and
process substitutions.  Each script runs in bash too and the outputs must agree; the scripts
also run under ``cowguard``, which fails when a variable shared by a fork was changed in place.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from cowguard import watching
from tools import needs

from vshell import HostMount, Sandbox

pytestmark = needs("bash")

# Each block starts from this (so a change that leaked would show in its check).
SETUP = (
    "x=1; a=(p q r); declare -A m=([k]=v [j]=w); declare -i n=5; e=exp; export e; u=low; "
    "r=ro; f() { echo f1; }; declare -n ref=x; set -- one two; ulimit -n 512; "
    "trap 'echo u1' USR1; set +eu; shopt -u nullglob; IFS=$' \\t\\n'; OPTIND=1; "
    'cd "$start"; umask 022; hash -r'
)

# (a change, what shows whether it happened)
CHANGES = [
    ("x=2", "echo $x"),
    ("x+=9", "echo $x"),
    ("a[1]=Z", "echo ${a[@]}"),
    ("a+=(s t)", "echo ${a[@]} ${#a[@]}"),
    ("unset 'a[0]'", "echo ${a[@]} ${!a[@]}"),
    ("m[k]=Z", "echo ${m[k]} ${m[j]}"),
    ("m[new]=1", "echo ${#m[@]}"),
    ("unset 'm[k]'", "echo ${#m[@]} ${m[k]}"),
    ("a=(only)", "echo ${a[@]}"),
    ("unset a", "echo ${a[@]}"),
    ("n+=3", "echo $n"),
    ("n='2*3'", "echo $n"),
    ("declare -i x; x=4+4", "x=3+3; echo $x"),
    ("declare -u u; u=abc", "u=def; echo $u"),
    ("declare -l x; x=ABC", "x=XYZ; echo $x"),
    ("declare -a x", "declare -p x"),
    ("export x", "env | grep -c '^x='"),
    ("export -n e", "env | grep -c '^e='"),
    ("declare +x e", "env | grep -c '^e='"),
    ("ref=77", "echo $x"),
    ("declare -n ref=u", "echo $ref"),
    ("unset -n ref", "echo $ref"),
    ("f() { echo f2; }", "f"),
    ("unset -f f", "f"),
    ("set -e", "false; echo after-set-e"),
    ("set -u", "echo ${nosuch}ok"),
    ("set -- c d e", 'echo "$@"'),  # (not $#: vshell's parser misreads it inside <( ))
    ("shift", "echo $1"),
    ("shopt -s nullglob", "echo nomatch*"),
    ("trap 'echo trapped' INT", "trap -p INT; echo t"),
    ("trap 'echo t2' USR2; trap - USR1", "trap -p USR1 USR2"),
    ("cd /", '[ "$PWD" = "$start" ] && [ "$(pwd)" = "$start" ] && echo same-dir'),
    ("false | true", "echo ${PIPESTATUS[@]}"),
    ("echo last-arg >/dev/null", "echo $_"),
    ("IFS=:", "v='a b'; echo $v"),
    ("OPTIND=5", "echo $OPTIND"),
    ("getopts ab: o -b val", "echo $OPTIND ${OPTARG-unset}"),
    ("read x <<< readval", "echo $x"),
    ("read -a a <<< 'r1 r2'", "echo ${a[@]}"),
    ("mapfile -t a <<< $'m1\\nm2'", "echo ${a[@]}"),
    ("printf -v x %s pv", "echo $x"),
    ("printf -v 'a[1]' %s pv", "echo ${a[@]}"),
    ("x=5 true; unset x", "echo $x"),
    ("x=7 f >/dev/null; export x", "echo ${x-unset}; env | grep -c '^x='"),
    ("let x=40+2", "echo $x"),
    ("(( x = 8 ))", "echo $x"),
    ("for x in i1 i2; do :; done", "echo $x"),
    ("pushd / >/dev/null", "dirs -p | wc -l"),
    ("umask 077", "umask"),
    ("ulimit -n 100", "ulimit -n"),
    ("hash -p /nowhere mycmd", "hash -t mycmd >/dev/null 2>&1 && echo hashed || echo not-hashed"),
    ("readonly x", "x=9; echo $x"),
    ("declare -r r", "r=2; echo $r"),
]

# how a script starts a child shell running BODY (the parent runs on after it)
FORKS = {
    "paren": "( {body} )",
    "stage": "{{ {body}; }} | cat",
    "first_stage": "{{ {body}; }} | cat >/dev/null",
    "cmdsub": "out=$( {body} ); printf '%s\\n' \"$out\"",
    "background": "{{ {body}; }} & wait",
    "coproc": "coproc {{ {body}; }}; wait",
    "procsub_in": "cat <( {body} )",
    "procsub_out": "echo | tee >( {body} >/dev/null ) >/dev/null; wait",
}

# a child that reads a little later, while the parent (or a sibling stage) changes things
READ_LATER = {
    "background": "{{ sleep 0.05; {check}; }} & {change}; wait",
    "sibling_stage": "{{ {change}; }} | {{ sleep 0.05; {check}; }}",
    "procsub": "{{ {change}; cat; }} < <(sleep 0.05; {check})",
}


def _child_changes(fork: str) -> str:
    blocks = ["start=$PWD"]
    for change, check in CHANGES:
        body = FORKS[fork].format(body=change)
        blocks.append(f"{SETUP}\n{body}\necho '-- {change}'; {check}")
    return "\n".join(blocks)


def _parent_changes(fork: str) -> str:
    blocks = ["start=$PWD"]
    for change, check in CHANGES:
        if change.startswith("trap"):  # `trap -p` in a subshell: bash shows the parent's
            continue
        body = READ_LATER[fork].format(change=change, check=check)
        blocks.append(f"echo '-- {change}'; ( {SETUP}\n{body} )")
    return "\n".join(blocks)


def _bash(tmp: Path, script: str) -> tuple[int, bytes]:
    p = subprocess.run(["bash", "-c", script], cwd=tmp, capture_output=True, timeout=60,
                       env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "HOME": "/"})
    return p.returncode, p.stdout


def _vshell(tmp: Path, script: str) -> tuple[int, bytes, bytes]:
    with watching(), Sandbox(mounts=[HostMount(str(tmp), "/work")], timeout=60) as sb:
        res = sb.exec(script)
    return res.exit_code, res.stdout, res.stderr


def _same(tmp: Path, script: str) -> None:
    (tmp / "b").mkdir()
    (tmp / "v").mkdir()
    want_status, want = _bash(tmp / "b", script)
    status, got, err = _vshell(tmp / "v", script)
    assert got.decode().splitlines() == want.decode().splitlines(), err.decode()[-2000:]
    assert status == want_status
    assert b"Traceback" not in err


@pytest.mark.parametrize("fork", sorted(FORKS))
def test_a_child_change_stays_in_the_child(tmp_path: Path, fork: str) -> None:
    _same(tmp_path, _child_changes(fork))


@pytest.mark.parametrize("fork", sorted(READ_LATER))
def test_a_later_parent_change_does_not_reach_a_running_child(tmp_path: Path,
                                                               fork: str) -> None:
    _same(tmp_path, _parent_changes(fork))


FUNCTION_SCRIPTS = [
    # a function's locals, changed by a child, then by the function while a child reads
    "g() { local v=in; local -a la=(1 2); local -A lm=([k]=1); "
    "( v=c; la[1]=Z; lm[k]=Z; unset 'la[0]'; declare -x v ); echo $v ${la[@]} ${lm[k]}; "
    "{ sleep 0.05; echo bg $v ${la[@]} ${lm[k]}; } & v=p; la[0]=P; lm[k]=P; wait; "
    "echo $v ${la[@]} ${lm[k]}; }; v=out; g; echo $v",
    # a local named like a global, a nameref to a local, and a dynamic-scope write
    "h() { local x=hl; declare -n rr=x; ( rr=child; x+=c ); echo $x $rr; "
    "out=$(rr=sub; echo $x); echo $out $x; }; x=g; h; echo $x",
    "k() { y=set-in-k; }; y=0; ( k ); echo $y; echo $(k; echo $y) $y; k & wait; echo $y",
    # recursion through command substitutions, each level with its own locals
    "fib() { local n=$1 a b; if ((n < 2)); then echo $n; return; fi; "
    "a=$(fib $((n-1))); b=$(fib $((n-2))); echo $((a+b)); }; fib 10; echo ${n-unset}",
    # positional parameters of a function and of a subshell
    "p() { ( set -- z; shift ); echo $# $1; echo $(shift; echo $1) $1; }; p a b",
    # variables the shell sets itself
    "true | false; ( true | true ); echo ${PIPESTATUS[@]}; (exit 3) | true; "
    "echo ${PIPESTATUS[@]}; { false; } & wait; echo ${PIPESTATUS[@]}",
    "echo one >/dev/null; ( echo two >/dev/null ); echo $_; "
    "x=$(echo three >/dev/null; echo $_); echo $x $_",
    "echo $BASHPID >/dev/null; a=$BASHPID; b=$(echo $BASHPID); [ $a != $b ] && echo differ; "
    "[ $a = $BASHPID ] && echo kept",
    # many children at once, each changing the same variables as the parent
    "x=0; a=(0); for i in 1 2 3 4 5 6; do { x=$i; a[0]=$i; a+=($i); sleep 0.01; "
    "echo \"$i:$x:${a[0]}:${#a[@]}\"; } & done; x=p; a[0]=p; wait; echo $x ${a[@]}",
    "for i in 1 2 3; do { y=$i; echo $y; } | { read z; echo got$z; y=s$i; echo $y; }; done; "
    "echo ${y-unset}",
    # an element set through a nameref
    "declare -n e1=arr[1]; arr=(a b c); ( e1=Z; echo ${arr[@]} ); e1=P; echo ${arr[@]}",
    # aliases (a script that names them is read line by line: kept short here)
    "( alias ll=echo ); alias ll || echo noalias; x=$(alias l2=echo); alias l2 || echo none; "
    "alias l3=true; ( unalias l3 ); alias l3",
    # prefix bindings of builtins and functions inside and around children
    "z=1; z=2 eval '( z=3 ); echo $z'; echo $z; f() { echo $z; }; z=4 f | cat; echo $z",
]


@pytest.mark.parametrize("script", FUNCTION_SCRIPTS)
def test_scopes_and_shell_variables_stay_apart(tmp_path: Path, script: str) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "v").mkdir()
    want_status, want = _bash(tmp_path / "b", script)
    status, got, err = _vshell(tmp_path / "v", script)
    lines, want_lines = got.decode().splitlines(), want.decode().splitlines()
    if "for i in 1 2 3 4 5 6" in script:  # the jobs print in any order
        lines, want_lines = sorted(lines), sorted(want_lines)
    assert lines == want_lines, err.decode()[-2000:]
    assert status == want_status


# The environment a command gets is kept between changes (ShellState.exported): every way to
# change it, each followed by a command that shows it.  (A local over an exported variable
# has a test of its own below.)
ENV_SCRIPT = r"""
export A=1; env | grep ^A=; A=2; env | grep ^A=; B=3; env | grep -c ^B=; export B; env | grep ^B=
A=tmp env | grep ^A=; env | grep ^A=
unset A; env | grep -c ^A=
declare -x D=d; env | grep ^D=; declare +x D; env | grep -c ^D=
export E=e; E+=f; env | grep ^E=; E=(arr); env | grep -c ^E=; E[0]=back; env | grep -c ^E=
set -a; F=f; env | grep ^F=; set +a; F2=no; env | grep -c ^F2=
export G=g; readonly G; env | grep ^G=
h() { H=in env | grep ^H=; }; h; env | grep -c ^H=
export I=1; (I=2; env | grep ^I=); env | grep ^I=; echo $(I=3; env | grep ^I=); I=4 | env | grep ^I=
declare -n R=J; export J=j; R=k; env | grep ^J=
export K=k; unset -v K; env | grep -c ^K=
export L; env | grep -c ^L=; L=now; env | grep ^L=
declare -x -i M=1+2; env | grep ^M=; M+=1; env | grep ^M=
declare -u N=abc; export N; N=xyz; env | grep ^N=
for O in 1 2; do export O; env | grep ^O=; done
read P <<< rp; export P; read P <<< rq; env | grep ^P=; printf -v P %s pv; env | grep ^P=
export T=t; t() { unset T; env | grep -c ^T=; }; t; env | grep -c ^T=
x=1 eval 'env | grep ^x='; env | grep -c ^x=
export V=v; V=w command env | grep ^V=; env | grep ^V=
W=1 W2=2 env | grep ^W; env | grep -c ^W
export Y=y; y() { env | grep ^Y=; Y=iny; env | grep ^Y=; }; Y=pre y; env | grep ^Y=
z() { local -x Z=z1; zz; env | grep ^Z=; }; zz() { Z=z2; env | grep ^Z=; }; z; env | grep -c ^Z=
export AA=a; : ${AA:=b} ${AB:=c}; env | grep ^A[AB]=; export AB; env | grep ^AB=
export AC=1; (( AC++ )); env | grep ^AC=; let AC+=5; env | grep ^AC=
export AD=x; declare -n AE=AD; AE+=y; env | grep ^AD=; unset -n AE; env | grep ^AD=
export AF=1; shift 2>/dev/null; getopts a AF 2>/dev/null; env | grep ^AF=
export _; echo hi >/dev/null; env | grep -c '^_='
"""


def test_the_environment_follows_every_change(tmp_path: Path) -> None:
    _same(tmp_path, ENV_SCRIPT)


def test_a_kept_environment_is_never_stale_inside_functions(tmp_path: Path) -> None:
    # locals over exported variables: checked by cowguard's fresh build at every command,
    # stable from run to run, and bash's answers (a local over an exported variable is
    # exported; one that is not, or has no value, hides nothing)
    script = ("export A=g; f() { local A=loc; env | grep -c ^A=; local -x C=c; "
              "env | grep ^C=; unset C; env | grep -c ^C=; }; f; env | grep ^A=; "
              "g() { local A; A=set; env | grep -c ^A=; }; g; env | grep ^A=; "
              "u() { local U=lu; unset U; env | grep -c ^U=; }; export U=u; u; env | grep ^U=")
    with watching(), Sandbox(timeout=30) as sb:
        first = sb.exec(script)
        assert first.stdout == sb.exec(script).stdout
        assert first.stdout == b"1\nC=c\n0\nA=g\n1\nA=g\n1\nU=u\n", first.stderr
    _same(tmp_path, script)
