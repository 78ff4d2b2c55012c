# traps for cleanup, errors and exit codes.

### case: trap_exit_cleanup
tmpfile=work.tmp
trap 'rm -f "$tmpfile"; echo cleaned' EXIT
echo data > "$tmpfile"
echo "wrote $(cat "$tmpfile")"

### case: trap_exit_on_error
set -e
trap 'echo "exit with $?"' EXIT
echo step1
false
echo step2

### case: trap_exit_status_kept
trap 'echo "trap sees $?"' EXIT
exit 4

### case: trap_err_lineno
trap 'echo "ERR trap at line $LINENO"' ERR
true
false
echo continues

### case: trap_multiple_signals
trap 'echo caught' INT TERM
echo "trap installed"
trap - INT TERM
echo "trap removed"

### case: trap_cleanup_dir
workdir=build.tmp
mkdir -p "$workdir"
cleanup() { rm -rf "$workdir"; echo "removed $workdir"; }
trap cleanup EXIT
touch "$workdir/artifact"
ls "$workdir"

### case: trap_in_function_exit
f() { trap 'echo "leaving script"' EXIT; echo in f; }
f
echo after f

### case: trap_return_value_of_exit
trap 'rc=$?; echo "final rc=$rc"; exit $rc' EXIT
(exit 0)
false

### case: trap_reset_exit
trap 'echo first' EXIT
trap 'echo second' EXIT
echo body

### case: trap_err_function
set -E
trap 'echo "failed: $BASH_COMMAND"' ERR
run() { false; }
run || true
echo end

### case: trap_exit_subshell
( trap 'echo sub exit' EXIT; echo in sub )
echo parent

### case: trap_exit_in_cmdsubst
out=$(trap 'echo trapped' EXIT; echo body)
echo "[$out]"

### case: trap_print
trap 'echo bye' EXIT
trap -p EXIT
trap - EXIT

### case: trap_exit_file_mode
### mode: file
trap 'echo "cleanup from file"' EXIT
echo "main work"
exit 2

### case: trap_temp_files_glob
trap 'rm -f part.*' EXIT
for i in 1 2 3; do echo "$i" > "part.$i"; done
cat part.* | paste -sd+ | bc

### case: trap_err_exit_code
set -e
trap 'echo "error $? at line $LINENO" >&2' ERR
ls missing-dir >/dev/null 2>&1
echo never
