"""awk: behaviour pinned without a reference binary (messages, sandbox I/O, edge cases)."""

from __future__ import annotations

import io
import time
from pathlib import Path

import pytest

from tests.cmdharness import make_fs, run_cmd
from vshell import commands as builtins
from vshell.command import Cancelled, CancelToken, Invocation
from vshell.interp.dispatch import call_command


def awk(root: Path, *argv: str, stdin: bytes = b"", env: dict | None = None):
    return run_cmd(root, ["awk", *argv], stdin, env=env)


def test_sum_column(tmp_path: Path) -> None:
    r = awk(tmp_path, "{ s += $3 } END { print s }", stdin=b"a b 1\nc d 2.5\ne f x\n")
    assert (r.status, r.stdout) == (0, b"3.5\n")


def test_syntax_error_gawk_style(tmp_path: Path) -> None:
    r = awk(tmp_path, "BEGIN { x = }")
    assert r.status == 1  # gawk 5.2 exits 1 on a parse error
    assert r.stderr == (
        b"awk: cmd. line:1: BEGIN { x = }\n"
        b"awk: cmd. line:1:             ^ syntax error\n"
    )


def test_syntax_error_on_second_line(tmp_path: Path) -> None:
    r = awk(tmp_path, "BEGIN {\n  print (1\n}")
    assert r.status == 1
    assert r.stderr.startswith(b"awk: cmd. line:3: }\n")


def test_unterminated_string(tmp_path: Path) -> None:
    r = awk(tmp_path, 'BEGIN { print "abc }')
    assert r.status == 1 and b"unterminated string" in r.stderr


def test_division_by_zero_is_fatal(tmp_path: Path) -> None:
    r = awk(tmp_path, "{ print 1 / $1 }", stdin=b"0\n")
    assert r.status == 2
    assert r.stderr == b"awk: cmd. line:1: (FILENAME=- FNR=1) fatal: division by zero attempted\n"


def test_usage_without_program(tmp_path: Path) -> None:
    r = awk(tmp_path)
    assert r.status == 1 and r.stderr.startswith(b"Usage: awk")


def test_invalid_option(tmp_path: Path) -> None:
    r = awk(tmp_path, "-z", "1")
    assert r.status == 1 and b"invalid option -- 'z'" in r.stderr


def test_missing_input_file(tmp_path: Path) -> None:
    r = awk(tmp_path, "{ print }", "nope.txt")
    assert r.status == 2
    assert b"fatal: cannot open file `nope.txt' for reading: No such file or directory" in r.stderr


def test_program_file_and_multiple_f(tmp_path: Path) -> None:
    (tmp_path / "a.awk").write_text("function twice(x) { return 2 * x }\n")
    (tmp_path / "b.awk").write_text("{ print twice($1) }\n")
    r = awk(tmp_path, "-f", "a.awk", "-f", "b.awk", stdin=b"21\n")
    assert r.stdout == b"42\n"


def test_output_redirection_through_vfs(tmp_path: Path) -> None:
    r = awk(tmp_path, '{ print $2 > ($1 ".out") } END { print "x" >> "a.out" }',
            stdin=b"a 1\nb 2\na 3\n")
    assert r.status == 0
    assert (tmp_path / "a.out").read_text() == "1\n3\nx\n"
    assert (tmp_path / "b.out").read_text() == "2\n"


def test_redirect_to_readonly_mount_fails(tmp_path: Path) -> None:
    out, err = io.BytesIO(), io.BytesIO()
    fs = make_fs(tmp_path, readonly=True)
    cmd = builtins.lookup("awk")
    assert cmd is not None
    inv = Invocation(name="awk", args=['BEGIN { print 1 > "f" }'], dir="/work",
                     stdin=io.BytesIO(), stdout=out, stderr=err, env={}, fs=fs,
                     cancel=CancelToken())
    assert call_command(cmd, inv) == 2
    assert b"can't redirect to `f'" in err.getvalue()


def test_deny_rules_apply_to_getline(tmp_path: Path) -> None:
    (tmp_path / "secret").write_text("s3cr3t\n")
    fs = make_fs(tmp_path, deny=["/work/secret"])
    r = run_cmd(tmp_path, ["awk", 'BEGIN { print (getline x < "secret"), x "|" }'], fs=fs)
    assert r.stdout == b"-1 |\n"


def test_getline_forms(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x 1\ny 2\n")
    prog = ('NR == 1 { getline; print "after:", $0, NR; getline v; print "v:", v, NR, $0 } '
            'END { while ((getline line < "f") > 0) print "file:", line, NR }')
    r = awk(tmp_path, prog, stdin=b"a\nb\nc\nd\n")
    assert r.stdout == b"after: b 2\nv: c 3 b\nfile: x 1 4\nfile: y 2 4\n"


def test_commands_without_a_shell_report(tmp_path: Path) -> None:
    r = awk(tmp_path, 'BEGIN { r = system("true"); print r }')
    assert r.stdout == b"127\n"
    assert b"not available" in r.stderr


def test_system_and_pipes_use_run_command(tmp_path: Path) -> None:
    calls: list[tuple[list[str], bytes]] = []

    def run_command(argv, stdin=None, stdout=None, stderr=None, **_kw) -> int:
        data = stdin if isinstance(stdin, bytes) else b""
        calls.append((argv, data))
        if stdout is not None:
            stdout.write(b"out of " + argv[2].encode() + b"\n")
        return 3

    out, err = io.BytesIO(), io.BytesIO()
    cmd = builtins.lookup("awk")
    assert cmd is not None
    prog = ('BEGIN { print "hi"; r = system("c1"); "c2" | getline x; print r, x;'
            ' print "to c3" | "c3"; print "closed", close("c3") }')
    inv = Invocation(name="awk", args=[prog], dir="/work", stdin=io.BytesIO(), stdout=out,
                     stderr=err, env={}, fs=make_fs(tmp_path), cancel=CancelToken(),
                     run_command=run_command)
    assert call_command(cmd, inv) == 0
    assert out.getvalue() == b"hi\nout of c1\n3 out of c2\nout of c3\nclosed 3\n"
    assert [c[0] for c in calls] == [["sh", "-c", "c1"], ["sh", "-c", "c2"], ["sh", "-c", "c3"]]
    assert calls[2][1] == b"to c3\n"


def test_uninitialised_and_strnum(tmp_path: Path) -> None:
    r = awk(tmp_path, '{ print ($1 == 1), ($1 == "1.0"), (u == 0), (u == ""), ($9 == 0) }',
            stdin=b"1.0\n")
    assert r.stdout == b"1 1 1 1 0\n"


def test_integer_and_float_output(tmp_path: Path) -> None:
    r = awk(tmp_path, "BEGIN { print 3.0, 1e6, 1/4, 2^53, 1e30, -0, 0.1 + 0.2; x = 0.1; "
            "CONVFMT = \"%.2f\"; y = x \"\"; print y }")
    assert r.stdout == (
        b"3 1000000 0.25 9007199254740992 1000000000000000019884624838656 0 0.3\n0.10\n"
    )


def test_special_values(tmp_path: Path) -> None:
    r = awk(tmp_path, "BEGIN { print log(-1), -log(0), log(0) }")
    assert r.stdout == b"-nan +inf -inf\n"


def test_printf_conversions(tmp_path: Path) -> None:
    r = awk(tmp_path, 'BEGIN { printf "%i|%c|%c|%5.1f|%-4s|%x|%lu\\n", 3.9, 65, "xyz", 2.25, "a", '
            "-1, 7 }")
    assert r.stdout == b"3|A|x|  2.2|a   |ffffffffffffffff|7\n"


def test_printf_missing_argument_is_fatal(tmp_path: Path) -> None:
    r = awk(tmp_path, 'BEGIN { printf "%s %s\\n", "a" }')
    assert r.status == 2 and b"not enough arguments to satisfy format string" in r.stderr


def test_field_assignment_rebuilds_record(tmp_path: Path) -> None:
    r = awk(tmp_path, 'BEGIN { OFS = ":" } { $5 = "e"; print; print NF; NF = 2; print }',
            stdin=b"a  b   c\n")
    assert r.stdout == b"a:b:c::e\n5\na:b\n"


def test_default_fs_keeps_carriage_return(tmp_path: Path) -> None:
    r = awk(tmp_path, '{ print $2 "|" length($2) }', stdin=b"a b\r\n")
    assert r.stdout == b"b\r|2\n"


def test_regex_fs_and_empty_fs(tmp_path: Path) -> None:
    assert awk(tmp_path, "-F", "[0-9]+", "{ print $2 }", stdin=b"a12b3c\n").stdout == b"b\n"
    assert awk(tmp_path, "-F", "", "{ print $2, NF }", stdin=b"xyz\n").stdout == b"y 3\n"


def test_record_separators(tmp_path: Path) -> None:
    assert awk(tmp_path, 'BEGIN { RS = "" } { print NR ":" $0 }',
               stdin=b"\n\na\nb\n\n\nc\n").stdout == b"1:a\nb\n2:c\n"
    assert awk(tmp_path, 'BEGIN { RS = "-+" } { printf "%s.", $0 } END { print NR }',
               stdin=b"a-b--c").stdout == b"a.b.c.3\n"
    assert awk(tmp_path, 'BEGIN { RS = "x" } END { print NR, $0 }', stdin=b"1x2x3").stdout \
        == b"3 3\n"


def test_rs_change_mid_stream(tmp_path: Path) -> None:
    r = awk(tmp_path, 'NR == 1 { RS = ";" } { print NR ": " $0 }', stdin=b"a\nb;c;d\n")
    assert r.stdout == b"1: a\n2: b\n3: c\n4: d\n\n"


def test_csv_mode(tmp_path: Path) -> None:
    r = awk(tmp_path, "--csv", '{ print NF ": " $2 }', stdin=b'a,"b,c",d\n"x\ny",z\n')
    assert r.stdout == b"3: b,c\n2: z\n"


def test_ignorecase_and_dynamic_regex(tmp_path: Path) -> None:
    r = awk(tmp_path, 'BEGIN { IGNORECASE = 1; re = "^AB" } $0 ~ re { n++ } END { print n }',
            stdin=b"abc\nABd\nxab\n")
    assert r.stdout == b"2\n"


def test_sub_gsub_backslashes(tmp_path: Path) -> None:
    r = awk(tmp_path, r'{ a = b = c = $0; sub(/b/, "[&]", a); gsub(/b/, "\\&", b); '
            r'gsub(/b/, "\\\\&", c); print a, b, c }', stdin=b"abc\n")
    assert r.stdout == b"a[b]c a&c a\\bc\n"


def test_user_functions_arrays_by_reference(tmp_path: Path) -> None:
    prog = ("function add(arr, k, v) { arr[k] = v } function count(arr,  n, k) "
            "{ for (k in arr) n++; return n } "
            "BEGIN { add(a, 1, \"x\"); add(a, 2, \"y\"); print count(a), a[2] }")
    assert awk(tmp_path, prog).stdout == b"2 y\n"


def test_recursion_depth(tmp_path: Path) -> None:
    r = awk(tmp_path, "function f(n) { return n ? 1 + f(n - 1) : 0 } BEGIN { print f(2000) }")
    assert r.stdout == b"2000\n"


def test_multidimensional_in(tmp_path: Path) -> None:
    r = awk(tmp_path, 'BEGIN { a[1, "x"] = 1; print ((1, "x") in a), ((2, "x") in a) }')
    assert r.stdout == b"1 0\n"


def test_for_in_order_follows_onetrue_awk(tmp_path: Path) -> None:
    r = awk(tmp_path, 'BEGIN { split("a b c d e", v); for (k in v) printf "%s", v[k]; print "" }')
    assert r.stdout == b"bcdea\n"


def test_delete_inside_for_in(tmp_path: Path) -> None:
    r = awk(tmp_path, "BEGIN { for (i = 0; i < 5; i++) a[i]; for (k in a) delete a; "
            "print length(a) }")
    assert r.stdout == b"0\n"


def test_assignment_operands_and_v(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("1\n")
    r = awk(tmp_path, "-v", "a=x\\ty", "{ print a, b, $0 }", "b=2", "f")
    assert r.stdout == b"x\ty 2 1\n"


def test_environ_is_the_invocation_env(tmp_path: Path) -> None:
    r = awk(tmp_path, 'BEGIN { print ENVIRON["ONLY_HERE"], length(ENVIRON) }',
            env={"ONLY_HERE": "yes"})
    assert r.stdout == b"yes 1\n"


def test_beginfile_endfile_nextfile(tmp_path: Path) -> None:
    (tmp_path / "a").write_text("1\n2\n")
    (tmp_path / "b").write_text("3\n")
    prog = 'BEGINFILE { printf "[%s]", FILENAME } FNR == 2 { nextfile } { printf "%s", $0 } ' \
           'ENDFILE { printf "(%d)", FNR } END { print "" }'
    assert awk(tmp_path, prog, "a", "b").stdout == b"[a]1(2)[b]3(1)\n"


def test_exit_status(tmp_path: Path) -> None:
    assert awk(tmp_path, "BEGIN { exit 3 }").status == 3
    r = awk(tmp_path, "{ exit 4 } END { print NR }", stdin=b"a\nb\n")
    assert (r.status, r.stdout) == (4, b"1\n")


def test_invalid_utf8_passes_through(tmp_path: Path) -> None:
    r = awk(tmp_path, "{ print $2, length($2) }", stdin=b"a \xff\xfeb\n")
    assert r.stdout == b"\xff\xfeb 3\n"


def test_c_locale_counts_bytes(tmp_path: Path) -> None:
    r = awk(tmp_path, "{ print length($0) }", stdin="é\n".encode(), env={"LC_ALL": "C"})
    assert r.stdout == b"2\n"


def test_gensub_and_match_array(tmp_path: Path) -> None:
    r = awk(tmp_path, 'BEGIN { s = gensub(/([a-z])([0-9])/, "\\\\2\\\\1", "g", "a1b2"); '
            'match("foo123", /([a-z]+)([0-9]+)/, m); print s, m[1], m[2], m[2, "start"] }')
    assert r.stdout == b"1a2b foo 123 4\n"


def test_strftime_uses_tz_from_env(tmp_path: Path) -> None:
    r = awk(tmp_path, 'BEGIN { print strftime("%H:%M %Z", 0) }', env={"TZ": "UTC"})
    assert r.stdout == b"00:00 UTC\n"


def test_cancel_stops_infinite_loop(tmp_path: Path) -> None:
    cmd = builtins.lookup("awk")
    assert cmd is not None
    token = CancelToken(time.monotonic() + 0.3)
    inv = Invocation(name="awk", args=["BEGIN { while (1) x++ }"], dir="/work",
                     stdin=io.BytesIO(), stdout=io.BytesIO(), stderr=io.BytesIO(), env={},
                     fs=make_fs(tmp_path), cancel=token)
    start = time.monotonic()
    with pytest.raises(Cancelled):
        call_command(cmd, inv)
    assert time.monotonic() - start < 5


def test_large_input_fast_path(tmp_path: Path) -> None:
    data = b"".join(b"k%d %d\n" % (i % 7, i) for i in range(50000))
    r = awk(tmp_path, "{ s[$1] += $2; n++ } END { print n, s[\"k3\"] }", stdin=data)
    assert r.stdout == b"50000 178575000\n"


def test_character_classes_cover_unicode_letters(tmp_path: Path) -> None:
    r = awk(tmp_path, "{ print /^[[:alpha:]]+$/, /^[[:upper:]]/, /^[^[:alpha:]]/ }",
            stdin="été\nÉcole\n1a\n".encode())
    assert r.stdout == b"1 0 0\n1 1 0\n0 0 1\n"


def test_leftmost_longest_alternation(tmp_path: Path) -> None:
    r = awk(tmp_path, 'BEGIN { s = "abcd"; sub(/ab|abcd/, "X", s); print s, '
            'match("xabc", /a|abc/), RLENGTH }')
    assert r.stdout == b"X 2 3\n"


def test_program_text_reused_across_runs(tmp_path: Path) -> None:
    """A program is parsed once per text (awk/command.py): later runs of the same text
    get their own variables, arrays and ranges, and a syntax error is reported each time."""
    prog = "function f(a, k) { a[k] = 1 } /b/,/c/ { n++ } { f(seen, $1) } " \
           "END { for (k in seen) m++; print n + 0, m + 0, NR }"
    for data, want in ((b"a\nb\nc\nd\n", b"2 4 4\n"), (b"b\nb\n", b"2 1 2\n"), (b"", b"0 0 0\n")):
        r = run_cmd(tmp_path, ["awk", prog], stdin=data)
        assert (r.status, r.stdout) == (0, want)
    for _ in range(2):
        r = run_cmd(tmp_path, ["awk", "{ print $1"], stdin=b"x\n")
        assert r.status == 1 and b"unexpected newline or end of string" in r.stderr


def test_same_program_in_two_stages_at_once() -> None:
    from vshell import Sandbox

    prog = "'NR % 2 { c++; print } END { print \"n\", c + 0 > \"/dev/stderr\" }'"
    with Sandbox() as sb:
        for _ in range(3):
            res = sb.exec(f"seq 1 9 | awk {prog} | awk {prog}")
            assert res.stdout == b"1\n5\n9\n"
            assert sorted(res.stderr.split(b"\n")) == [b"", b"n 3", b"n 5"]
