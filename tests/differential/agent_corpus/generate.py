"""Write the ``gen_*.sh`` corpus files: agent-style script templates times small data sets.

Run ``python tests/differential/agent_corpus/generate.py`` after editing a template; the
runner checks that the committed files are what this script writes.  Every template is a
script an agent would plausibly write; the parameters vary the data, flags and quoting.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).parent

DATASETS = {
    "sales": "region,product,units,price\nnorth,apple,10,1.5\nsouth,pear,4,2.25\n"
    "north,pear,7,2.25\neast,apple,3,1.5\nsouth,apple,12,1.5\n",
    "logs": "2024-01-01 INFO start\n2024-01-01 WARN disk 91%\n2024-01-02 ERROR failed job 7\n"
    "2024-01-02 INFO retry\n2024-01-03 ERROR failed job 9\n2024-01-03 INFO done\n",
    "users": "id,name,role,age\n1,ann,admin,34\n2,bob,dev,27\n3,cid,dev,45\n4,dee,ops,31\n",
    "deps": "requests==2.31.0\nnumpy>=1.26\n# pinned\nflask==3.0.0\n\npytest~=8.0\n",
    "words": "the quick brown fox\njumps over the lazy dog\nthe end\n",
    "paths": "src/main.py\nsrc/util/io.py\ntests/test_main.py\nREADME.md\nsetup.cfg\n",
    "scores": "alice 91\nbob 78\ncarol 85\ndave 62\neve 99\n",
    "env": "HOST=localhost\nPORT=8080\n# comment\nDEBUG=true\nNAME='my app'\n",
}

PIPELINES = [
    "wc -l < {f}",
    "head -n 3 {f}",
    "tail -n 2 {f}",
    "sort {f} | head -n 4",
    "sort -r {f} | tail -n 1",
    "grep -c . {f}",
    "grep -n 'e' {f} | head -n 3",
    "grep -v '^#' {f} | grep -v '^$' | wc -l",
    "cut -c1-5 {f}",
    "tr '[:lower:]' '[:upper:]' < {f} | head -n 2",
    "awk '{{print NR\": \"$0}}' {f} | tail -n 2",
    "awk '{{print length($0)}}' {f} | sort -n | tail -n 1",
    "awk 'END {{print NR}}' {f}",
    "sed -n '2p' {f}",
    "sed 's/a/A/g' {f} | head -n 3",
    "sed '1d' {f} | wc -l",
    "rev {f} | head -n 2",
    "tac {f} | head -n 2",
    "nl -ba {f} | tail -n 1",
    "sort {f} | uniq | wc -l",
    "fold -w 10 {f} | head -n 4",
    "cat -n {f} | head -n 2",
    "paste -sd'|' {f}",
    "while IFS= read -r line; do echo \"${{#line}}\"; done < {f}",
    "grep -o '[0-9]\\+' {f} | sort -n | uniq | head -n 5",
    "awk -F, 'NF > 1 {{print $2}}' {f}",
    "cut -d' ' -f1 {f} | sort | uniq -c",
    "tr -s ' ' < {f} | tr ' ' '\\n' | sort | uniq -c | sort -rn | head -n 3",
    "md5sum {f}",
    "od -c {f} | head -n 2",
]

CSV_TEMPLATES = [
    "tail -n +2 {f} | cut -d, -f{c} | sort | uniq -c",
    "awk -F, 'NR > 1 {{s += ${c}}} END {{print s + 0}}' {f}",
    "awk -F, -v OFS='\\t' 'NR > 1 {{print $1, ${c}}}' {f}",
    "tail -n +2 {f} | sort -t, -k{c},{c} | head -n 2",
    "head -1 {f} | tr ',' '\\n' | sed -n '{c}p'",
    "while IFS=, read -r a b c d; do echo \"$a|$b\"; done < {f} | head -n 3",
    "column -s, -t < {f}",
    "tail -n +2 {f} | awk -F, '{{print ${c}}}' | sort -u | paste -sd, -",
    "cut -d, -f1,{c} {f} | sed 's/,/ => /'",
    "awk -F, 'NR == 1 {{for (i = 1; i <= NF; i++) h[i] = $i; next}} "
    "{{printf \"%s=%s\\n\", h[{c}], ${c}}}' {f}",
]

VALUES = [
    "report.final.pdf", "/var/log/app/error.log", "my file.txt", "archive.tar.gz",
    "noext", "./rel/path/", "UPPER_lower", "a.b.c.d", "-dash-start", "trailing.",
    "spaces  inside  here", "x",
]

STRING_OPS = [
    'echo "${{v%.*}}"',
    'echo "${{v##*.}}"',
    'echo "${{v##*/}}"',
    'echo "${{v%/*}}"',
    'echo "${{#v}}"',
    'echo "${{v^^}}"',
    'echo "${{v,,}}"',
    'echo "${{v// /_}}"',
    'echo "${{v:0:4}}|${{v:2}}"',
    'echo "${{v/./[dot]}}"',
    'printf "%s\\n" "$v" | tr -d "."',
    'basename -- "$v"',
    'dirname -- "$v"',
    '[[ $v == *.* ]] && echo "has dot" || echo "no dot"',
    '[[ $v =~ ^[a-z] ]] && echo "lower start" || echo "other start"',
    'case $v in *.gz|*.pdf) echo binary ;; */*) echo path ;; *) echo plain ;; esac',
    'printf "[%s]\\n" $v',
    'printf "%q\\n" "$v"',
]

ARITH = [
    "3 + 4 * 2", "(3 + 4) * 2", "17 / 5", "17 % 5", "2 ** 8", "-9 / 2", "1 << 10",
    "0xff & 0x0f", "7 > 3 && 2 > 1", "5 == 5 ? 10 : 20", "x = 4, x * x", "10#08 + 1",
    "~5", "!0", "100 - 3 * (8 - 2) / 4", "0", "1 - 1", "2#1111",
]

ARITH_FORMS = [
    "echo $(( {e} ))",
    "(( r = {e} )); echo \"r=$r status=$?\"",
    "let 'r = {e}'; echo \"$r $?\"",
    "set -e; r=$(( {e} )); echo \"set -e ok: $r\"",
    "declare -i n; n='{e}'; echo $n",
]

PRINTF = [
    ("%5s|", ["ab", "abcdefg"]), ("%-8s|", ["left", "x"]), ("%05d", ["42", "-7"]),
    ("%.3s", ["truncate"]), ("%x %o", ["255", "64"]), ("%8.2f", ["3.14159", "-2.5"]),
    ("%+d", ["5", "-5"]), ("%c", ["word"]), ("%s=%s;", ["k", "v", "k2"]), ("%%d %s", ["lit"]),
    ("%10.4f|", ["1"]), ("%-5d|", ["12", "345"]), ("%e", ["123456"]), ("%#x", ["26"]),
    ("%s\\t%s", ["a", "b"]), ("%3d%%", ["50"]), ("[%*d]", ["6", "42"]), ("%i", ["0x10"]),
]

TESTS = [
    ("-f", "file.txt"), ("-d", "dir"), ("-e", "missing"), ("-s", "empty"), ("-s", "file.txt"),
    ("-x", "file.txt"), ("-r", "file.txt"), ("-L", "link"), ("-h", "file.txt"),
    ("-z", ""), ("-n", "text"), ("-d", "file.txt"),
]
BINARY_TESTS = [
    ("10", "-lt", "9"), ("10", "-gt", "9"), ("abc", "==", "abc"), ("abc", "!=", "abd"),
    ("5", "-eq", "05"), ("b", "<", "a"), ("-3", "-le", "-3"), ("file.txt", "-nt", "missing"),
    ("x", "=", "x"), ("", "==", ""),
]

JSON_DOCS = {
    "pkg": '{"name":"web","version":"2.3.1","deps":{"react":"18","vite":"5"},"private":true}',
    "list": '[{"id":1,"tag":"a","n":3},{"id":2,"tag":"b","n":0},{"id":3,"tag":"a","n":8}]',
    "nested": '{"a":{"b":{"c":[10,20,30]}},"s":"text","z":null}',
}
JQ_FILTERS = [
    ".", "-c .", "keys", "-r 'keys[]'", "length", "'.. | numbers'", "-r 'paths | join(\".\")'",
    "'[.. | strings] | length'", "-c 'to_entries? // \"no\"'", "type", "-c '[.[]?] | length'",
    "-r 'tostring'", "-S -c .", "'.[0]? // \"none\"'", "-c 'del(.a)? // .'",
]
JQ_PER_DOC = {
    "pkg": [".name", "-r .version", "-r '.deps | keys | join(\",\")'", ".private | not",
            "-r '\"\\(.name)@\\(.version)\"'", "'.missing // \"default\"'", "-e .missing"],
    "list": ["'map(.n) | add'", "-c 'map(select(.tag == \"a\")) | map(.id)'",
             "-r '.[] | \"\\(.id)\\t\\(.tag)\"'", "'group_by(.tag) | map(length)'",
             "-c 'sort_by(-.n) | .[0]'", "-r '.[] | select(.n > 0) | .id'", "'[.[].n] | max'"],
    "nested": [".a.b.c[1]", "'.a.b.c | add / length'", "-r .s", ".z", "-c '.a.b.c | reverse'",
               "'.a.b.c | map(. + 1)' -c", "-r '.a | to_entries[] | .key'"],
}

ERROR_IDIOMS = [
    "{cmd} 2>/dev/null || echo \"failed with $?\"",
    "if ! {cmd} >/dev/null 2>&1; then echo 'not ok'; else echo ok; fi",
    "out=$({cmd} 2>&1); echo \"status=$? out=$out\"",
    "{cmd} > out.log 2>&1; echo \"rc=$?\"; cat out.log",
    "{cmd} 2>&1 | head -n 1",
    "set +e; {cmd}; echo \"rc=$?\"",
]
ERROR_CMDS = [
    "cat missing.txt", "ls nosuchdir", "grep pattern nofile", "head -n 1 absent",
    "cd nowhere", "mkdir existing", "rm missing", "cp missing dest", "wc -l nope",
    "sort nope.txt", "test -f nofile", "false", "rmdir notempty", "mv nothere there",
    "touch nodir/file",
]

FILE_OPS = [
    "mkdir -p build/out && touch build/out/a.o && ls -R build",
    "cp file.txt copy.txt && cmp file.txt copy.txt && echo same",
    "mv file.txt renamed.txt && ls",
    "ln -s file.txt link.txt && readlink link.txt && cat link.txt",
    "rm -f file.txt && ls | wc -l",
    "mkdir -p a/b/c && rmdir -p a/b/c && ls",
    "cp -r dir dir2 && find dir2 | sort",
    "touch {{1..3}}.tmp && ls *.tmp && rm *.tmp && ls",
    "echo extra >> file.txt && tail -n 1 file.txt",
    "truncate -s 0 file.txt && wc -c file.txt",
    "install_dir=opt/app; mkdir -p \"$install_dir\" && cp file.txt \"$install_dir/\" && ls opt/app",
    "chmod +x file.txt && [ -x file.txt ] && echo executable",
    "du -s dir >/dev/null && echo measured",
    "ls -1 dir && ls -a dir | head -n 3",
    "find . -newer file.txt -name '*.none' | wc -l",
    "stat -c '%s %n' file.txt",
    "tar -cf a.tar file.txt dir && tar -tf a.tar | sort && rm a.tar",
    "gzip -k file.txt && ls file.txt* && zcat file.txt.gz && rm file.txt.gz",
    "mktemp -p . tmp.XXXXXX >/dev/null && ls tmp.* | wc -l && rm tmp.*",
    "split -l 1 file.txt piece. && ls piece.*",
]
FILE_SETUPS = [
    "printf 'alpha\\nbeta\\n' > file.txt; mkdir -p dir; echo inner > dir/x;"
    " mkdir -p notempty existing; touch notempty/f",
    "printf 'one line only\\n' > file.txt; mkdir -p dir/sub; touch dir/sub/deep;"
    " mkdir -p existing notempty; touch notempty/g",
]

CASE_INPUTS = ["start", "stop", "restart", "status", "--help", "-v", "deploy:prod",
               "v1.2.3", "", "UPPER", "file.json", "123"]
CASE_SCRIPTS = [
    """case "$1" in
  start|stop|restart) echo "service: $1" ;;
  status) echo "running" ;;
  -h|--help) echo "usage: svc {{start|stop}}" ;;
  *) echo "unknown: '$1'" >&2; exit 2 ;;
esac""",
    """case $1 in
  -*) echo "option ${{1#-}}" ;;
  *:*) echo "target ${{1%%:*}} env ${{1#*:}}" ;;
  v[0-9]*) echo "version ${{1#v}}" ;;
  *[0-9]*) echo "has digits" ;;
  ?*) echo "word of ${{#1}}" ;;
  *) echo "empty" ;;
esac""",
    """shopt -s nocasematch
case "$1" in
  upper|start) echo "matched ignoring case" ;;
  *.json) echo "json file" ;;
  *) echo "no match" ;;
esac""",
    """case ${{1:-none}} in
  [a-m]*) echo "first half" ;;&
  *t*) echo "contains t" ;;
  none) echo "nothing given" ;;
esac""",
]

LOOP_DATA = {
    "kv": "a=1\nb=2\nc=3\n",
    "tsv": "x\t1\ny\t2\nz w\t3\n",
    "spaced": "  lead\ntrail  \n  both  \n",
    "blank": "first\n\nthird\n",
    "noeol": "one\ntwo",
}
LOOP_SCRIPTS = [
    "while read -r line; do echo \"[$line]\"; done < data",
    "while IFS= read -r line; do echo \"[$line]\"; done < data",
    "while IFS='=' read -r k v; do echo \"$k -> ${{v:-?}}\"; done < data",
    "while IFS=$'\\t' read -r a b; do echo \"a=$a b=$b\"; done < data",
    "n=0; while read -r _; do n=$((n+1)); done < data; echo \"lines=$n\"",
    "while IFS= read -r line || [ -n \"$line\" ]; do printf '%s|' \"$line\"; done < data; echo",
    "mapfile -t arr < data; echo \"${{#arr[@]}}: ${{arr[*]}}\"",
    "cat data | while read -r a b; do echo \"${{b:-none}}\"; done",
    "for w in $(cat data); do echo \"<$w>\"; done",
    "while read -r line; do [[ -z $line ]] && continue; echo \"${{line^^}}\"; done < data",
    "grep -n '' data | while IFS=: read -r n rest; do echo \"$n:$rest\"; done",
    "while read -r line; do echo \"$line\"; done < data | sort | head -n 2",
]


def cases() -> dict[str, list[tuple[str, str, list[str]]]]:
    """File stem -> [(case name, script, directive lines)]."""
    out: dict[str, list[tuple[str, str, list[str]]]] = {}

    def setup(name: str) -> str:
        return f"cat > {name}.txt <<'EOF'\n{DATASETS[name]}EOF\n"

    rows = []
    for ds in DATASETS:
        for i, t in enumerate(PIPELINES):
            rows.append((f"{ds}_{i:02d}", setup(ds) + t.format(f=f"{ds}.txt") + "\n", []))
    out["gen_pipelines"] = rows

    rows = []
    for ds in ("sales", "users"):
        for c in (2, 3, 4):
            for i, t in enumerate(CSV_TEMPLATES):
                body = setup(ds) + t.format(f=f"{ds}.txt", c=c)
                rows.append((f"{ds}_c{c}_{i:02d}", body + "\n", []))
    out["gen_csv"] = rows

    rows = []
    for vi, v in enumerate(VALUES):
        q = "'" + v.replace("'", "'\\''") + "'"
        for i, t in enumerate(STRING_OPS):
            rows.append((f"v{vi:02d}_{i:02d}", f"v={q}\n{t.format()}\n", []))
    out["gen_strings"] = rows

    rows = []
    for ei, e in enumerate(ARITH):
        for fi, form in enumerate(ARITH_FORMS):
            rows.append((f"e{ei:02d}_f{fi}", form.format(e=e) + "\n", []))
    out["gen_arith"] = rows

    rows = []
    for pi, (fmt, args) in enumerate(PRINTF):
        quoted = " ".join(f"'{a}'" for a in args)
        rows.append((f"p{pi:02d}_plain", f"printf '{fmt}\\n' {quoted}\n", []))
        rows.append((f"p{pi:02d}_var", f"printf -v out '{fmt}' {quoted}; echo \"[$out]\"\n", []))
        rows.append((f"p{pi:02d}_loop", f"for a in {quoted}; do printf '{fmt}\\n' \"$a\"; done\n",
                     []))
    out["gen_printf"] = rows

    rows = []
    pre = "printf 'data\\n' > file.txt; : > empty; mkdir -p dir; ln -sf file.txt link\n"
    for ti, (op, arg) in enumerate(TESTS):
        rows.append((f"u{ti:02d}_dbl", pre + f"[[ {op} '{arg}' ]] && echo yes || echo no\n", []))
        rows.append((f"u{ti:02d}_single", pre + f"[ {op} '{arg}' ]; echo \"rc=$?\"\n", []))
        rows.append((f"u{ti:02d}_if", pre + f"if test ! {op} '{arg}'; then echo negated; fi\n",
                     []))
    for ti, (a, op, b) in enumerate(BINARY_TESTS):
        rows.append((f"b{ti:02d}_dbl", pre + f"[[ '{a}' {op} '{b}' ]]; echo \"rc=$?\"\n", []))
        sop = {"==": "=", "<": "\\<"}.get(op, op)
        rows.append((f"b{ti:02d}_single", pre + f"[ '{a}' {sop} '{b}' ]; echo \"rc=$?\"\n", []))
    out["gen_tests"] = rows

    rows = []
    for name, doc in JSON_DOCS.items():
        setup_json = f"cat > {name}.json <<'EOF'\n{doc}\nEOF\n"
        for fi, flt in enumerate(JQ_FILTERS + JQ_PER_DOC[name]):
            rows.append((f"{name}_{fi:02d}", setup_json + f"jq {flt} {name}.json; echo \"rc=$?\"\n",
                         []))
        rows.append((f"{name}_pipe", setup_json + f"cat {name}.json | jq -c . | wc -c\n", []))
    out["gen_jq"] = rows

    rows = []
    pre = "mkdir -p existing notempty; touch notempty/f\n"
    for ci, cmd in enumerate(ERROR_CMDS):
        for ii, idiom in enumerate(ERROR_IDIOMS):
            rows.append((f"c{ci:02d}_i{ii}", pre + idiom.format(cmd=cmd) + "\n", []))
    out["gen_errors"] = rows

    rows = []
    for si, s in enumerate(FILE_SETUPS):
        for oi, op in enumerate(FILE_OPS):
            rows.append((f"s{si}_op{oi:02d}", s + "\n" + op.format() + "\necho \"rc=$?\"\n", []))
    out["gen_files"] = rows

    rows = []
    for si, body in enumerate(CASE_SCRIPTS):
        for ii, arg in enumerate(CASE_INPUTS):
            script = f"set -- '{arg}'\n" + body.format() + "\n"
            rows.append((f"sw{si}_in{ii:02d}", script, []))
    out["gen_case"] = rows

    rows = []
    for dn, data in LOOP_DATA.items():
        setup_data = "printf '" + data.replace("\t", "\\t").replace("\n", "\\n") + "' > data\n"
        for li, loop in enumerate(LOOP_SCRIPTS):
            rows.append((f"{dn}_{li:02d}", setup_data + loop.format() + "\n", []))
    out["gen_loops"] = rows

    rows = []
    modes = ["file", "stdin", "file", "stdin"]
    for i, (name, script, _) in enumerate(out["gen_loops"][:40]):
        rows.append((f"{modes[i % 4]}_{name}", script, [f"### mode: {modes[i % 4]}"]))
    for name, script, _ in out["gen_case"][:12:3]:
        rows.append((f"cli_c_{name}", script, ["### mode: cli-c"]))
    for name, script, _ in out["gen_loops"][:12:4]:
        rows.append((f"cli_stdin_{name}", script, ["### mode: cli-stdin"]))
    out["gen_modes"] = rows
    return out


def render(rows: list[tuple[str, str, list[str]]], marks: dict[str, list[str]]) -> str:
    lines = ["# Generated by generate.py from its templates; edit those, not this file.\n"]
    for name, script, directives in rows:
        lines.append(f"\n### case: {name}\n")
        for d in directives + marks.get(name, []):
            lines.append(d + "\n")
        lines.append(script)
    return "".join(lines)


def existing_marks(path: Path) -> dict[str, list[str]]:
    """The xfail/stderr lines kept by hand in a generated file (they survive regeneration)."""
    marks: dict[str, list[str]] = {}
    name = None
    if not path.exists():
        return marks
    for line in path.read_text().splitlines():
        if line.startswith("### case: "):
            name = line[len("### case: "):].strip()
        elif name and (line.startswith("### xfail:") or line.startswith("### stderr:")):
            marks.setdefault(name, []).append(line)
    return marks


def outputs() -> Iterator[tuple[Path, str]]:
    for stem, rows in cases().items():
        path = HERE / f"{stem}.sh"
        yield path, render(rows, existing_marks(path))


def main() -> int:
    for path, text in outputs():
        path.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
