"""awk against gawk: the same program, input and files must give the same output and status.

gawk runs as ``awk`` (a symlink) so its messages carry the same name.  ``system()``,
``cmd | getline`` and ``print | cmd`` run through a sandbox over the same directory.
"""

from __future__ import annotations

import io
import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from vshell import commands as builtins
from vshell.command import CancelToken, Invocation
from vshell.interp.dispatch import call_command

GAWK = shutil.which("gawk")
pytestmark = pytest.mark.skipif(GAWK is None, reason="gawk not installed")
ENV = {"LC_ALL": "C.UTF-8", "TZ": "UTC", "PATH": "/usr/bin:/bin", "HOME": "/work"}

FILES = {
    "data.txt": "alice 30 london\nbob 25 paris\ncarol 35 london\ndave 40 berlin\n",
    "nums.txt": "3\n1\n4\n1\n5\n9\n2\n6\n",
    "csv.txt": "name,qty,price\nwidget,3,2.50\ngadget,10,0.99\n",
    "para.txt": "a b\nc d\n\n\ne f\ng\n\nh\n",
    "crlf.txt": "a b\r\nc d\r\n",
    "empty.txt": "",
}

_MANY = "".join(f"{i % 97} x{i}\n" for i in range(30000))  # several batches of records
# ``{ total += $N }`` alone runs a whole batch of records at once (compiler add_batch)
COLUMN_SUMS: list[tuple[list[str], str]] = [
    (["{ s += $1 } END { print s, NR, NF, $0 }"], "1\n2.5\n\n x 7\n-0\n1e3\n"),
    (["{ s += $2 } END { print s; print $0 }"], "a 1\nb\nc 0x10\nd 1_000\ne +5\nf .5e1x\n"),
    (["{ s += $1 } END { print s }"], "inf\n-inf\nnan\n+nan\n3\n"),
    (["{ s += $1 } END { print s, length(s) }"], ""),
    (["{ s += $1 } END { printf \"%.17g\\n\", s }"], "0.1\n0.2\n0.3\n1e16\n-1e16\n"),
    (["{ t += $1 } END { print t, NR, $2 }"], _MANY),
    (["-F:", "{ s += $3 } END { print s }"], "a:b:3\nc:d:4:e\n::x\n"),
    (["BEGIN { s = \"5x\" } { s += $1 } END { print s }"], "1\n"),
    (["{ s += $1 } END { print s + 0 == s }"], "-0\n"),
    (["{ s += $1; print s }"], "1\n2\n"),
]
CASES: list[tuple[list[str], str]] = COLUMN_SUMS + [
    (["{ print $1 }", "data.txt"], ""),
    (["{ s += $2 } END { print s, s / NR }", "data.txt"], ""),
    (["$3 == \"london\" { n++ } END { print n }", "data.txt"], ""),
    (["NR % 2", "data.txt"], ""),
    (["/bob/,/carol/", "data.txt"], ""),
    (["-F,", "NR > 1 { t += $2 * $3 } END { printf \"%.2f\\n\", t }", "csv.txt"], ""),
    (["-F", ",", "-v", "OFS=|", "{ $1 = $1; print }", "csv.txt"], ""),
    (["{ print NF, $NF }", "data.txt"], ""),
    (["{ $2 = \"\"; print; print NF }", "data.txt"], ""),
    (["{ NF = 2; print }", "data.txt"], ""),
    (["{ $6 = \"x\"; print; print NF }", "data.txt"], ""),
    (["BEGIN { RS = \"\" } { print NR \": \" $1 \"/\" NF }", "para.txt"], ""),
    (["BEGIN { RS = \"\"; FS = \"\\n\" } { print $1 \"|\" $2 }", "para.txt"], ""),
    (["BEGIN { RS = \"[0-9]\" } { print NR, $0, RT }"], "a1b22c3d"),
    (["BEGIN { RS = \";\" } { print }"], "x;y;z\n"),
    (["{ print length($0), length }", "crlf.txt"], ""),
    (["{ print $2 \"|\" }", "crlf.txt"], ""),
    (["-F", "[:,]+", "{ print $2, NF }"], "a:,:b,c\n::x\n"),
    (["-F", "", "{ print $1, $3, NF }"], "abc\n"),
    (["-F", "\\t", "{ print $2 }"], "a\tb c\td\n"),
    (["-Ft", "{ print $2 }"], "a\tb c\td\n"),
    (["{ a[$3]++ } END { for (k in a) print k, a[k] | \"sort\"; close(\"sort\") }", "data.txt"],
     ""),
    (["{ n = split($0, p, /[ ,]+/, seps); print n, p[1], p[n], seps[1] }"], "a, b  c,d\n"),
    (["BEGIN { n = split(\"\", a); print n, length(a) }"], ""),
    (["{ gsub(/o/, \"[&]\"); print } ", "data.txt"], ""),
    (["{ sub(/[0-9]+/, \"<\\\\&>\"); print }", "data.txt"], ""),
    (["{ print gensub(/([a-z]+) ([0-9]+)/, \"\\\\2:\\\\1\", \"g\") }", "data.txt"], ""),
    (["{ if (match($0, /[0-9]+/)) print RSTART, RLENGTH, substr($0, RSTART, RLENGTH) }",
      "data.txt"], ""),
    (["BEGIN { print substr(\"hello\", 2), substr(\"hello\", 0, 2), substr(\"hello\", -1, 3),"
      " substr(\"hello\", 2, 100), substr(\"hello\", 1.5, 2.7) \"|\" }"], ""),
    (["BEGIN { print index(\"foobar\", \"bar\"), index(\"foo\", \"\"), tolower(\"ÀB\"),"
      " toupper(\"àb\"), length(\"日本語\") }"], ""),
    (["BEGIN { printf \"%d|%i|%5d|%-5d|%05d|%+d|% d|%x|%X|%o|%u|%c|%c|%%\\n\", 42.9, -3.2,"
      " 7, 7, 7, 7, 7, 255, 255, 8, 3, 65, \"hi\" }"], ""),
    (["BEGIN { printf \"%e|%E|%f|%.2f|%10.3f|%-10.1e|%g|%G|%.3g|%#x|%#o\\n\", 1234.5678,"
      " 0.000123, 3.14159, 2.675, 3.14159, 12345, 0.0000123, 1e20, 3.14159, 255, 8 }"], ""),
    (["BEGIN { printf \"%s|%10s|%-10s|%.2s|%*d|%-*d|%.*f\\n\", \"abc\", \"abc\", \"abc\","
      " \"abc\", 5, 42, 5, 42, 2, 3.14159 }"], ""),
    (["BEGIN { x = sprintf(\"%c%c%c\", 72, 105, 256); print x, length(x) }"], ""),
    (["BEGIN { print 1/3, 100000 * 100000, 2^53, 2^53 + 1, 1e300 * 1e300, -1e300 * 1e300,"
      " 0.1 + 0.2, 1e-5, 123456789012 }"], ""),
    (["BEGIN { CONVFMT = \"%.2g\"; a = 3.14159; b = a \"\"; print b; OFMT = \"%.3f\";"
      " print a, 10, a \"\" }"], ""),
    (["BEGIN { x[1.0] = \"one\"; x[\"1\"] = x[\"1\"] \"!\"; print x[1]; CONVFMT = \"%.2f\";"
      " y[0.1] = 1; for (k in y) print k }"], ""),
    (["BEGIN { print (\"10\" < \"9\"), (10 < 9), (\"abc\" < \"abd\"), (2 == 2.0),"
      " (\"a\" == \"a \") }"], ""),
    (["{ print ($1 < $2), ($1 == 10), ($2 == \"010\") }"], "9 10\n10 010\nabc 1e1\n"),
    (["{ x = $1; print (x == 1), (x \"\" == \"1.0\") }"], "1.0\n+1\n0x1\n"),
    (["BEGIN { if (u == 0 && u == \"\") print \"both\"; print length(u), u + 0 }"], ""),
    (["BEGIN { print 7 % 3, -7 % 3, 7 % -3, 2 ^ 0.5, 2 ** 3 ** 2, -2 ^ 2, int(-3.9),"
      " int(\"4.7xyz\") }"], ""),
    (["BEGIN { x = 5; x += 2; x -= 1; x *= 3; x /= 4; x %= 3; x ^= 2; print x; y++; ++y;"
      " print y--, y, --y }"], ""),
    (["BEGIN { print 1 \" \" -1; print 1 - 1; print \"a\" (1 > 0) \"b\" }"], ""),
    (["BEGIN { print length() }"], "hello\n"),
    (["{ print; getline; print \"after getline:\", $0, NR }"], "1\n2\n3\n"),
    (["{ while ((getline line < \"nums.txt\") > 0) s += line; close(\"nums.txt\") }"
      " END { print s }"], "x\ny\n"),
    (["BEGIN { while ((getline < \"data.txt\") > 0) print $2, NF, NR }"], ""),
    (["BEGIN { \"echo one two\" | getline; print $2, NR; \"echo x\" | getline v; print v,"
      " NR }"], ""),
    (["BEGIN { r = system(\"exit 3\"); print \"status\", r }"], ""),
    (["BEGIN { print \"b\\na\" | \"sort\"; r = close(\"sort\"); print \"closed\", r }"], ""),
    (["BEGIN { print \"x\" > \"out.txt\"; print \"y\" >> \"out.txt\"; close(\"out.txt\");"
      " while ((getline l < \"out.txt\") > 0) print \"read\", l }"], ""),
    (["BEGIN { print \"err\" > \"/dev/stderr\"; print \"out\" }"], ""),
    (["function fact(n) { return n <= 1 ? 1 : n * fact(n - 1) } BEGIN { print fact(10),"
      " fact(20) }"], ""),
    (["function fill(a, n,   i) { for (i = 1; i <= n; i++) a[i] = i * i }"
      " BEGIN { fill(sq, 5); print length(sq), sq[3]; print i \"|\" }"], ""),
    (["function f(x) { x = 5 } BEGIN { y = 1; f(y); print y }"], ""),
    (["function g(a) { a[\"k\"] = 1 } function f(a) { g(a) } BEGIN { f(arr);"
      " print arr[\"k\"] }"], ""),
    (["BEGIN { a[1,2] = 3; for (k in a) { split(k, p, SUBSEP); print p[1], p[2] };"
      " if ((1,2) in a) print \"in\" }"], ""),
    (["BEGIN { a[\"x\"]; delete a; print length(a); a[1]; delete a[1]; print length(a) }"], ""),
    (["BEGIN { for (i = 0; i < 10; i++) { if (i == 2) continue; if (i == 5) break;"
      " printf \"%d \", i }; print \"\"; do { j++ } while (j < 3); print j }"], ""),
    (["BEGIN { while (1) { if (++n > 3) break }; print n }"], ""),
    (["NR == 2 { next } { print } END { print NR }", "data.txt"], ""),
    (["{ print FILENAME, FNR, NR }", "data.txt", "nums.txt"], ""),
    (["FNR == 2 { nextfile } { print FILENAME, $1 }", "data.txt", "nums.txt"], ""),
    (["BEGINFILE { print \"begin\", FILENAME } ENDFILE { print \"end\", FNR }",
      "data.txt", "empty.txt"], ""),
    (["{ print v, $1 }", "v=1", "data.txt", "v=2", "nums.txt"], ""),
    (["BEGIN { print ARGC; for (i = 0; i < ARGC; i++) print i, ARGV[i] }", "a", "b=c"], ""),
    (["BEGIN { ARGV[1] = \"\" } { print }", "missing.txt", "nums.txt"], ""),
    (["-v", "x=a\\tb", "BEGIN { print x; print length(x) }"], ""),
    (["BEGIN { print ENVIRON[\"TZ\"] }"], ""),
    (["BEGIN { exit 3 } END { print \"end runs\" }"], ""),
    (["{ exit } END { print \"end\", NR; exit 4 }", "data.txt"], ""),
    (["BEGIN { IGNORECASE = 1 } /ALICE/ { print \"match\", $0 }", "data.txt"], ""),
    (["BEGIN { print toupper(substr(\"abc\", 2)) tolower(\"XyZ\") }"], ""),
    (["BEGIN { print strftime(\"%Y-%m-%d %H:%M:%S\", 86400 * 365), mktime(\"2020 01 01 00 00"
      " 00\") }"], ""),
    (["BEGIN { print and(12, 10), or(12, 10), xor(12, 10), lshift(1, 4), rshift(256, 2) }"],
     ""),
    (["BEGIN { n = split(\"c a b\", v); asort(v); print v[1] v[2] v[3]; m = asorti(ENVIRON,"
      " e); print (m > 0) }"], ""),
    (["{ $3 = sprintf(\"%05.1f\", $2); print }", "data.txt"], ""),
    (["/^a/ && !/x/ || $2 > 30", "data.txt"], ""),
    (["$2 ~ /^3/ { print $1 } $2 !~ /^3/ { print \"-\" $1 }", "data.txt"], ""),
    (["{ print $(NF - 1), $(1 + 1) }", "data.txt"], ""),
    (["BEGIN { s = \"aaa\"; n = gsub(/x*/, \"-\", s); print n, s; t = \"abc\";"
      " gsub(//, \"-\", t); print t }"], ""),
    (["BEGIN { s = \"hello\"; gsub(/l/, \"\\\\\\\\&\", s); print s }"], ""),
    (["BEGIN { printf \"%s %d %s\\n\", \"only\" }"], ""),
    (["BEGIN { getline line < \"nosuch\"; print (getline line < \"nosuch\") }"], ""),
    (["{ print $1 > ($3 \".out\") } END { close(\"london.out\"); while ((getline l <"
      " \"london.out\") > 0) print \"L:\", l }", "data.txt"], ""),
    (["BEGIN { OFS = \"-\"; ORS = \"|\\n\" } { print $1, $2 }", "data.txt"], ""),
    (["BEGIN { printf \"%.3s|%5.1s|\\n\", \"日本語です\", \"日本\" }"], ""),
    (["BEGIN { print 1e1000, -1e1000, log(0) }"], ""),
    (["BEGIN { print substr(\"abc\", 2, -1) \"|\" substr(\"\", 1) \"|\" }"], ""),
    (["BEGIN { x = \"A\"; y = x++; print x, y; z = \"3x\"; z++; print z }"], ""),
    (["{ print $0 + 0, $1 * 2 }"], "12abc\n  7  \n.5e1\n-0x10\n"),
    (["{ c[length($1)]++ } END { for (n = 1; n <= 5; n++) print n, c[n] + 0 }",
      "data.txt"], ""),
    (["BEGIN { while ((\"cat nums.txt\" | getline n) > 0) s += n; print s }"], ""),
    # leftmost-longest with alternatives of different lengths
    (["BEGIN { s = \"ab abcd x\"; n = gsub(/a|ab|abcd/, \"<&>\", s); print n, s;"
      " print match(\"xxabcd\", /ab|abcd/), RLENGTH }"], ""),
    (["-F", "x|xy", "{ print $2, NF }"], "1xy2x3\n"),
    (["{ print gensub(/(a|ab)(c|bcd)/, \"[\\\\1|\\\\2]\", \"g\") }"], "abcd\n"),
]


def _ids() -> list[str]:
    return [" ".join(argv)[:60] for argv, _ in CASES]


def _ours(root: Path, argv: list[str], stdin: bytes) -> tuple[int, bytes, bytes]:
    from vshell.sandbox import HostMount, Sandbox
    from vshell.vfs import VFS, HostBackend, Mount

    cmd = builtins.lookup("awk")
    assert cmd is not None
    out, err, inp = io.BytesIO(), io.BytesIO(), io.BytesIO(stdin)
    fs = VFS(mounts=[Mount("/work", HostBackend(str(root)), readonly=False)], deny=[])

    def run_command(cmdv: list[str], stdin=None, stdout=None, stderr=None, **_kw) -> int:
        with Sandbox(mounts=[HostMount(str(root), "/work")], cwd="/work", env=ENV) as sb:
            res = sb.exec(shlex.join(cmdv), stdin=stdin if stdin is not None else b"",
                          stdout=stdout, stderr=stderr)
        return res.exit_code

    inv = Invocation(
        name="awk", args=argv, dir="/work", stdin=inp, stdout=out, stderr=err, env=dict(ENV),
        fs=fs.bind({0: inp, 1: out, 2: err}), cancel=CancelToken(), run_command=run_command,
    )
    status = call_command(cmd, inv)
    return status, out.getvalue(), err.getvalue()


def _gawk(root: Path, argv: list[str], stdin: bytes) -> tuple[int, bytes, bytes]:
    bindir = root.parent / "bin"
    bindir.mkdir(exist_ok=True)
    awk = bindir / "awk"
    if not awk.exists():
        os.symlink(GAWK, awk)  # type: ignore[arg-type]
    p = subprocess.run([str(awk), *argv], input=stdin, capture_output=True, cwd=root,
                       env=ENV, timeout=30)
    return p.returncode, p.stdout, p.stderr


def _setup(tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    root.mkdir()
    for fname, text in FILES.items():
        (root / fname).write_text(text)
    return root


@pytest.mark.parametrize(("argv", "stdin"), CASES, ids=_ids())
def test_same_as_gawk(tmp_path: Path, argv: list[str], stdin: str) -> None:
    want = _gawk(_setup(tmp_path, "g"), argv, stdin.encode())
    got = _ours(_setup(tmp_path, "v"), argv, stdin.encode())
    assert got[1] == want[1], (argv, got, want)
    assert got[0] == want[0], (argv, got, want)
    if b"warning" not in want[2] and b"fatal" not in want[2]:
        assert got[2] == want[2], (argv, got, want)
    # files written by the program are the same
    for path in (tmp_path / "g").iterdir():
        other = tmp_path / "v" / path.name
        assert other.exists() and other.read_bytes() == path.read_bytes(), path.name
