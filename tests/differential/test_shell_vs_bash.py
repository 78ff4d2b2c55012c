"""The shell core against GNU bash: each script runs in both, stdout and status must agree.

Scripts run in a fresh directory (bash: a host temp dir; vshell: the same kind of dir
mounted at /work), so they must not print absolute paths.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from tools import needs

from vshell import HostMount, Sandbox

pytestmark = needs("bash")

SCRIPTS = [
    # quoting and expansion
    "echo 'single $x' \"double $HOME_X\" $'ansi\\tc' \\$esc",
    "x='a  b'; echo $x; echo \"$x\"; printf '[%s]\\n' $x",
    "set -- 'a b' c; for a in \"$@\"; do echo \"<$a>\"; done; echo $#",
    "set -- x y z; echo \"$*\"; IFS=:; echo \"$*\"",
    "a=:a::b:; IFS=:; printf '<%s>' $a; echo",
    "x=hello; echo ${x:1:3} ${x: -2} ${#x} ${x^^} ${x/l/L} ${x//l/L} ${x#h} ${x%lo}",
    "f=path/to/file.tar.gz; echo ${f##*/} ${f%%.*} ${f%.*} ${f#*.}",
    "unset u; echo ${u:-def} ${u-def2} ${u:+alt}; e=; echo ${e:-d} ${e-d} [${e:+a}]",
    "unset u; : ${u:=set}; echo $u",
    "echo $(( 2 + 3 * 4 )) $(( (2+3)*4 )) $(( 7 / 2 )) $(( -7 % 3 )) $(( 2 ** 10 ))",
    "i=0; while (( i < 3 )); do echo $i; (( i++ )); done",
    "for ((i=0; i<3; i++)); do printf '%d ' $i; done; echo",
    "echo {a,b}{1,2} {1..5} {5..1..2} {a..c}",
    "echo $(echo $(echo nested)) `echo back`",
    "x=$(printf 'a\\n\\n\\n'); echo \"[$x]\"",
    "a=(one two three); echo ${a[1]} ${#a[@]} ${a[@]:1}; a+=(four); echo ${a[-1]}",
    "declare -A m=([k]=v [x]=y); echo ${m[k]} ${#m[@]}",
    "echo ~ | grep -c /",
    # control flow
    "if false; then echo a; elif true; then echo b; else echo c; fi",
    "case abc in a*) echo star;; *) echo other;; esac",
    "case x in y) echo 1;; x) echo 2;& z) echo 3;; esac",
    "for i in 1 2 3; do [ $i = 2 ] && continue; echo $i; done",
    "for i in 1 2 3; do for j in a b; do [ $j = b ] && break 2; echo $i$j; done; done",
    "f() { echo \"args: $# $1\"; return 3; }; f x y; echo $?",
    "f() { local v=inner; echo $v; }; v=outer; f; echo $v",
    "g() { echo $FUNCNAME; }; g",
    "true && echo yes || echo no; false && echo yes || echo no",
    "! false; echo $?; ! true; echo $?",
    "(exit 7); echo $?; { echo grp; }; (cd /; pwd)",
    "set -e; false || true; echo survived",
    "set -e; f() { false; echo notreached; }; f || echo caught",
    "set -o pipefail; false | true; echo $?",
    "true | false | true; echo ${PIPESTATUS[@]}",
    "set -u; (echo $nosuch) 2>/dev/null; echo $?",
    "x=1; readonly x; (x=2) 2>/dev/null; echo $?",
    # redirections and here-docs
    "echo out > f.txt; echo more >> f.txt; cat f.txt; cat < f.txt | wc -l",
    "cat <<EOF\nline $((1+1))\n  indented\nEOF",
    "cat <<'EOF'\nno $expansion here\nEOF",
    "cat <<-EOF\n\ttabbed\n\tEOF",
    "cat <<< 'here string'",
    "{ echo to-err >&2; } 2>&1 | cat",
    "echo a 2>/dev/null >&2 | cat; echo b",
    "exec 3>fd3.txt; echo via3 >&3; exec 3>&-; cat fd3.txt",
    "while read -r line; do echo \"got $line\"; done <<EOF\na b\nc\nEOF",
    "printf 'a b c\\n' | { read x y; echo \"$y|$x\"; }",
    "IFS=, read -r a b <<< 'x,y,z'; echo $a/$b",
    "read -a arr <<< '1 2 3'; echo ${arr[2]}",
    # builtins
    "printf '%5s|%-5s|%05d|%x|%o|%.2f|%c\\n' ab cd 42 255 8 3.14159 xyz",
    "printf '%s-%s\\n' a b c d e",
    "printf '%q\\n' 'a b' \"it's\"",
    "echo -e 'a\\tb\\nc'; echo -n x; echo y",
    "type echo cd; type -t ls",
    "x=5; let 'x += 2'; echo $x",
    "declare -i n=2+3; echo $n",
    "shopt -s extglob\ncase foo.txt in @(*.txt|*.md)) echo match;; esac",
    "[[ abc == a* ]] && echo glob; [[ abc =~ ^a(b)c$ ]] && echo ${BASH_REMATCH[1]}",
    "[[ -n x && ! -z x ]] && echo both; [ 3 -lt 10 ] && echo lt; test -d / && echo dir",
    "getopts 'ab:' o -a; echo $o; OPTIND=1;"
    " while getopts 'ab:' o -a -b val; do echo $o${OPTARG:+=$OPTARG}; done",
    "eval 'x=evaluated'; echo $x",
    "echo 'echo sourced $1' > s.sh; . ./s.sh arg; source s.sh",
    "trap 'echo bye' EXIT; echo main",
    "shift 2>/dev/null; set -- a b c; shift; echo $@",
    "mkdir -p d/e; touch d/e/f; cd d; pwd | sed 's,.*/,,'; cd -  >/dev/null; ls d/e",
    "touch b a c; echo *; echo ?; echo nomatch*",
    "touch .hidden vis; echo *; shopt -s dotglob; echo *",
    "x=`echo a`; echo $x",
    "echo $((16#ff)) $((2#101)) $((010)) $((0x10))",
    "a=(x y z); for i in \"${!a[@]}\"; do echo $i=${a[i]}; done",
    "s='a b'; arr=($s c); echo ${#arr[@]}",
    "bash -c 'echo $0 $1' zero one",
    "sh -c 'exit 5'; echo $?",
    "nosuchcmd 2>/dev/null; echo $?",
    "echo $(( 1 > 2 ? 10 : 20 ))",
    "x=abc; echo ${x@Q}",
    "f() { echo in f; }; declare -F f",
    "mapfile -t lines <<EOF\nl1\nl2\nEOF\necho ${#lines[@]} ${lines[1]}",
    "echo 'a\nb\nc' | while read l; do echo $l; done | tail -1",
    "yes | head -3",
    # added with the interpreter's later features
    "shopt -s expand_aliases\nalias hi='echo hello'\nhi there",
    "shopt -s expand_aliases\nalias LEFT='{'\nLEFT echo one; echo two; }",
    "trap 'echo err at $LINENO' ERR\nfalse\necho after",
    "f() { return 3; }; trap 'echo ret' RETURN; f; echo $?",
    "printf '[%#o][%#x][%5.1f][%-3s][%c]\\n' 8 255 2.25 ab xyz",
    "printf '%s\\n' \"$(printf 'a\\0b')\" | od -c | head -1",
    "echo hi > f; x=$(< f); echo \"[$x]\"",
    "cat <(echo from-procsub); tac < <(printf '1\\n2\\n')",
    "{ sleep 0.2; exit 3; } & { exit 5; } & wait -n; echo $?; wait; echo done",
    "/bin/echo via-bin; /usr/bin/printf '%s\\n' via-usr-bin",
    "set -- a b c; echo ${@:2} ${#@} ${*: -1}",
    "a=(1 2 3); unset 'a[1]'; echo ${#a[@]} ${!a[@]}",
    "declare -A m; m[x]=1; m[y]=2; for k in \"${!m[@]}\"; do echo $k; done | sort",
    "x=abc; declare -n r=x; r=def; echo $x",
    "echo $'tab\\there' | cat -A",
    "case foo in f*|g*) echo one;;& *o) echo two;; esac",
    "i=0; until [ $i -ge 3 ]; do i=$((i+1)); done; echo $i",
    "v=$(exit 4); echo $?; x=1 y=$((x+1)); echo $y",
    "read -r a b <<< 'one two three'; echo \"$b\"",
    "echo ${PWD##*/} | wc -c",
    "seq 5 | tac 2>/dev/null | head -1 || echo",
    # IFS and the joining of $@ / $* (split where bash splits, IFS[0] where it does not)
    "pa() { printf '<%s>' \"$@\"; echo \" $#\"; }; IFS=x; set -- '' a ''; pa $@; pa $*;"
    " pa x$@y; a=('' b); pa ${a[@]}; IFS=' x'; pa $@; IFS=; pa $@ $*",
    "IFS=:; set -- x 'y z'; s=$*; echo \"[$s]\"; s=$@; echo \"[$s]\"; a=(p q); s=${a[*]};"
    " echo \"$s\"; cat <<< $*; case $* in 'x:y z') echo c;; esac; [[ $* == 'x:y z' ]] && echo d",
    "pa() { printf '<%s>' \"$@\"; echo \" $#\"; }; e=(); set --; pa \"${e[@]+P}\";"
    " pa \"${@+P}\"; pa \"${e[*]+P}\"; o=(''); pa \"${o[@]+P}\" \"${o[@]:+P}\"",
    "echo ${x:-{a}b} \"${x:-{a}b}\"; X=abc; echo ${X/b/{x}y} ${x:-{}}",
    "touch f.- f.C; echo *.[C\\-D]; case - in [a\"-\"z]) echo dash;; esac; rm f.- f.C",
    # builtins' corner statuses
    "set a; set + -; echo \"$@\" $#; set -; echo $#; set +; echo $#",
    "y=5; unset 'y[1]'; echo $? $y; unset 'y[0]'; echo $? ${y-gone}; unset 'n[1]'; echo $?",
    "readonly r=1; f() { local r=2; echo \"$? $r\"; }; f; declare r=3; echo $?",
    "printf '[%d]' ' -42' ' -42 ' ' ' ''; echo \" $?\"; printf '[%f]' ' 1.5 '; echo \" $?\"",
    "true; ( return 3; ); echo $?",
    "set -o posix; export() { :; }; echo not-reached",
    # extended globs, pattern substitution and subscripts
    "shopt -s extglob\nmkdir d; touch d/ab d/ac d/bb d/cb 'd/a b'; echo d/!(b)@(b|c);"
    " echo d/a@(!(c|d)); echo d/@(a b|cb); shopt -s nullglob; echo d/@(no|match); rm -r d",
    "x=a/b/c; echo ${x///z} ${x////z} ${x///} ${x/#//z}; H=/f/b; echo ${H////\\/}",
    "(( )); echo $?; a=(1 2 3); echo \"[${a[-5]}]\" $?; a[0]=(3 4); echo no\necho $? ${a[@]}",
    "a=(1); a[]=2; echo not-reached\necho after $?",
    "echo ${x!}; echo not-reached\necho after $?",
    "x=abc; echo \"[${x: }]\" \"[${x::}]\" \"[${x::2}]\"",
    "echo $((1+)); echo no\nx=$((1/0)); echo no\necho after $?",
    "export a[1]=2 1x=3; echo $?; declare -A A; printf -v 'A[\"k\"]' %s v; k2=q;"
    " read 'A[$k2]' <<< w; echo ${A[k]} ${A[q]}",
    # associative arrays list in bash's hash order; namerefs
    "declare -A M=([a]=1 [zz]=2 [k]=3 [hello]=4 [b]=5); M[q]=6; unset 'M[zz]'; M[zz]=7;"
    " echo \"${!M[@]}\"; echo \"${M[@]}\"; declare -p M; echo \"${M[@]@K}\";"
    " declare -A N; for i in {1..3000}; do N[k$i]=$i; done; echo \"${!N[@]}\" | md5sum",
    "f() { local -n arr=$1; arr+=(x); echo ${#arr[@]} \"${arr[@]}\"; }; a=(1 2); f a;"
    " declare -n r=a[1]; r=Q; echo ${a[@]}; declare -n u; u=w; w=5; echo \"$u ${!u}\";"
    " foo=FOO; x=foo; ref=x; typeset -n ref; echo \"$ref ${!ref}\"; b=1; typeset -n b; echo $?;"
    " y=Y; typeset -n -r yr=y; yr=Z; echo $y",
    # prefix bindings of a function call are its own scope (bash's temporary context)
    "v=global; f() { local v; echo \"${v-(unset)}\"; local v=l; unset v; echo \"${v-(unset)}\"; };"
    " v=tmp f; g() { unset v; }; h() { local v=1; g; echo \"$v\"; }; h;"
    " q() { local z=q; z=tz r; echo \"q z=$z\"; }; r() { unset z; echo \"r z=${z-(unset)}\"; }; q;"
    " f2() { x=mut; local x=loc; unset x; echo \"x=$x\"; }; x=glob; x=tb f2; echo \"x=$x\"",
    # process substitution: the writer's end closes when its command ends
    "{ echo 1; echo 2; } > >(tac); wait; echo end",
    "tee >(tr a-z A-Z) >/dev/null <<< hi; wait; echo end; paste <(seq 2) <(seq 3 4)",
    "while read -r x; do echo \"got $x\"; done < <(seq 2); diff <(echo a) <(echo b); echo $?",
    # traps: ERR at a pipeline's line, kept by subshells under -E; RETURN after source
    "set -o errtrace; trap 'echo line=$LINENO' ERR\nfalse | false\n( false; echo sub )\n"
    "{ false; } & wait\necho x > r.sh; trap 'echo ret' RETURN; . ./r.sh; trap - RETURN ERR",
    # umask applies to what the script creates, whatever the host process's umask
    "umask 077; echo x > f1; touch f2; mkdir d1; cp f1 f3; umask 0; echo > f4; mkdir d2;"
    " mkdir -m 751 d3; umask 027; f=$(mktemp -p .); ls -ld f1 f2 f3 f4 d1 d2 d3 $f | cut -c1-10",
    "umask 022; umask g-w,o-w; umask; umask u=rwx,g=rx,o=; umask; umask a+w; umask -S;"
    " umask o+x-w; echo $?; umask 9; echo $?; umask g=z; echo $?; umask",
    # signals sent to $$ run the trap between commands, or end the shell
    "trap 'echo USR1 $?' USR1; sh -c \"kill -USR1 $$\"; echo after=$?; trap 'echo URG' URG;"
    " kill -URG $$; { sleep 0.05; echo child; } & kill -URG $!; wait; echo w=$?; trap - URG;"
    " kill -URG $$; echo still; sh -c 'echo in; kill -s TERM $$; echo no'; echo inner=$?;"
    " test $$ != \"$(sh -c 'echo $$')\" && echo own-pid",
    # declaration builtins: arguments expand before the builtin (and its prefix bindings)
    "unset a; declare a=1 b=$a; echo \"[$b]\"; f() { local c=2 d=$c; echo \"[$d]\"; }; f;"
    " FOO=foo export v=$FOO; echo \"[$v]\"; readonly r=1; r=2 echo run; echo $?; r=2 true; echo $?",
    # the directory stack
    "b=$(pwd); mkdir -p a b c; { pushd a; pushd ../b; pushd ../c; dirs; pushd +1; pushd -0;"
    " dirs +1; dirs -1; pushd +9; echo s=$?; popd +1; popd -1; pushd -n /; popd -n; dirs -v;"
    " pushd -z; echo s=$?; popd zzz; echo s=$?; dirs -z; echo s=$?; popd; popd; echo s=$?; }"
    " 2>&1 | sed \"s#$b#B#g; s/^[a-z]*: line [0-9]*: //\"",
    # GLOBIGNORE with bracket classes; declare -a of a quoted compound value
    "touch _t.py p.toml 2023.log .env 'h s.doc'; GLOBIGNORE=[[:alnum:]]*; echo *.*;"
    " GLOBIGNORE=*[[:space:]]*:*.py; echo *.*; unset GLOBIGNORE; declare -a 'x=(5 6)';"
    " echo ${#x[@]}",
    # DEBUG before each simple command of a pipeline (run by the parent), and for (( ))
    "trap 'echo dbg $LINENO' DEBUG\nfalse | false\n{ echo a; } | cat\nfor ((i=0; i<2; i++)); do\n"
    ":\ndone\ntrap - DEBUG",
    # the call stack: FUNCNAME, BASH_SOURCE, BASH_LINENO and caller, in -c and in a file
    "f() { echo \"${FUNCNAME[*]}|${BASH_SOURCE[*]}|${BASH_LINENO[*]}\"; caller; }; f; caller;"
    " echo $?",
    "printf 'g() { echo \"G ${FUNCNAME[*]}|${BASH_SOURCE[*]}|${BASH_LINENO[*]}\"; caller 0; }\\n"
    "echo \"S ${BASH_SOURCE[*]}|${BASH_LINENO[*]}\"\\n' > lib.sh;"
    " printf 'f() { g; }\\nsource ./lib.sh\\nf\\ncaller\\n' > main.sh; bash main.sh",
    # printf %(...)T: an expansion of 128 bytes or more does not fit bash's buffer (empty)
    "for n in 1 31 32 40; do f=$(printf '%%Y%.0s' $(seq $n)); printf \"%($f)T\" 0 | wc -c; done;"
    " printf '[%(%Y)T][%-6(%Y)T][%.2(%Y)T]\\n' 0 0 0",
    # a new shell keeps an inherited $PWD only when it names the working directory
    "mkdir -p t; ln -s t l; cd l; bash -c 'basename $(pwd); basename $PWD'; unset PWD;"
    " bash -c 'basename $(pwd)'; PWD=/nonexistent bash -c 'basename $PWD';"
    " PWD=rel bash -c 'basename $PWD'; cd ..; PWD=$PWD/l bash -c 'cd t; basename $(pwd)'",
    # /tmp is world-writable and sticky, as on Linux
    "test -k /tmp; echo $?; stat -c '%a %A' /tmp; test -k .; echo $?",
    # /usr/bin and /bin list the commands as executable files; such a path runs the command
    "ls -d /bin /usr/bin; ls /bin/ls /usr/bin/ls; [ -d /usr/bin ] && [ -d /bin ] && echo dirs",
    "test -x /bin/sh && echo sh-x; test -x /usr/bin/env && echo env-x; [ -f /bin/ls ] && echo f",
    "PATH=/bin; { which ls; }; PATH=/usr/bin; which cat sed; command -v cat",
    "PATH=/bin; command -v cat; PATH=/bin:/usr/bin; type -P grep; echo ${x:-$(ls -d /bin)}",
    "echo ${foo:-$({ ls /bin/ls; })}; type -P ls; command -v ls",
    "for t in ls cat sed awk grep sort sh bash; do [ -x /usr/bin/$t ] && echo $t; done",
    "ls /usr/bin | grep -x -e ls -e sed -e sh; ls /bin | grep -c -x cat",
    "cd /bin && pwd && ls -d ls; find /usr/bin -maxdepth 1 -name ls",
    "/bin/echo hi; /usr/bin/printf '%s\\n' x y; /usr/bin/env X=1 /bin/sh -c 'echo $X'",
    "echo() { builtin echo fn; }; /bin/echo hi; ls() { builtin echo fn; }; /usr/bin/ls -d /",
    "hash -r; ls >/dev/null; hash | grep -c ls; /bin/nosuch 2>/dev/null; echo $?",
    # named pipes: open waits for the other end, <> for neither, EOF once writers are gone
    "mkfifo p; test -p p; echo $?; [ -f p ] || echo not-file; ls; find . -type p",
    "mkfifo p; exec 8<> p; echo a >&8; echo b >&8; read x <&8; read y <&8; echo $x $y",
    "mkfifo p; { echo one; echo two; } > p & cat p; wait; cat p > out & seq 3 > p; wait; cat out",
    "mkfifo p; seq 100000 > p & wc -l < p; wait; head -1 < p & seq 100000 > p; echo $?; wait",
    "mkfifo p; mkfifo p 2>&1; echo $?; rm p; test -e p || echo gone; mkfifo no/p 2>&1",
    "umask 022; mkfifo p; mkfifo -m 600 q; stat -c '%A %F' p q; ls -l p | cut -c1-10",
    "mkfifo p; exec 3<> p; echo x >&3; exec 3>&-; mkdir d; mkfifo d/f; rmdir d 2>/dev/null;"
    " echo $?; rm d/f; rmdir d; echo $?",
    "mkfifo p; mv p q; test -p q && test ! -e p && echo moved; echo x > f; mkfifo r; mv r f;"
    " test -p f && echo replaced; mkdir d; mv f d; mkfifo s; mv s d/; ls d; ls",
    # `n>&m-` onto a closed n: after a builtin, function or compound command m stays closed
    # (bash's undo list lacks it); a subshell, pipeline or program leaves m open
    *[f"f() {{ :; }}; exec 7>f.txt; {c}; echo w >&7 2>/dev/null && echo open || echo closed"
      for c in (": 6>&7-", "(:) 6>&7-", "{ :; } 6>&7-", "f 6>&7-", "cat </dev/null 6>&7-",
                ": 6>&7- | cat", "while false; do :; done 6>&7-", "6>&7-", "x=1 6<&7-",
                "echo x 1>&7-", ": 6>&7 7>&-", ": 6>&7- 7>/dev/null", "eval ': 6>&7-'")],
]


def _bash(tmp: Path, script: str) -> tuple[int, bytes]:
    p = subprocess.run(["bash", "-c", script], cwd=tmp, capture_output=True, timeout=30,
                       env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "HOME": "/"})
    return p.returncode, p.stdout


def _vshell(tmp: Path, script: str) -> tuple[int, bytes, bytes]:
    with Sandbox(mounts=[HostMount(str(tmp), "/work")], timeout=30) as sb:
        res = sb.exec(script)
    return res.exit_code, res.stdout, res.stderr


@pytest.mark.parametrize("script", SCRIPTS)
def test_same_as_bash(tmp_path: Path, script: str) -> None:
    a = tmp_path / "bash"
    b = tmp_path / "vshell"
    a.mkdir()
    b.mkdir()
    want_status, want_out = _bash(a, script)
    got_status, got_out, got_err = _vshell(b, script)
    assert got_out == want_out, (got_out, want_out, got_err)
    assert got_status == want_status, (got_status, want_status, got_err)
    assert b"Traceback" not in got_err
