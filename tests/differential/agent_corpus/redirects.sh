# 2>/dev/null, 2>&1, &> and friends, as agents use them.

### case: devnull_missing_cmd
nosuchtool --version 2>/dev/null || echo "nosuchtool not installed"

### case: devnull_missing_file
cat nothere.txt 2>/dev/null || echo "no file"

### case: merge_into_pipe
ls nothere 2>&1 | sed 's/^/LOG: /'

### case: merge_cmd_not_found
nosuch 2>&1 | head -1

### case: amp_redirect_file
{ echo out; echo err >&2; } &> all.log
cat all.log

### case: append_both
echo first > log.txt
{ echo second; echo third >&2; } >> log.txt 2>&1
cat log.txt

### case: stderr_to_file
ls nope 2> err.txt; echo "status=$?"
cat err.txt

### case: swap_streams
{ echo to-stdout; echo to-stderr >&2; } 3>&1 1>&2 2>&3 | tr a-z A-Z

### case: command_v_check
if command -v jq >/dev/null 2>&1; then echo "jq available"; else echo "jq missing"; fi

### case: command_v_missing
if command -v definitely-not-here >/dev/null 2>&1; then echo yes; else echo "not found"; fi

### case: type_check
type -t cat >/dev/null && echo "cat is available"

### case: group_stderr_capture
{ nosuch; } 2> err.log; echo "rc=$?"
wc -l < err.log

### case: capture_stderr_var
msg=$(cat missing 2>&1) || true
echo "captured: $msg"

### case: unbound_to_devnull
( set -u; echo "$UNSET_VAR" ) 2>/dev/null; echo "rc=$?"

### case: noclobber
set -o noclobber
echo a > f.txt
echo b > f.txt 2>/dev/null || echo "refused to clobber"
echo c >| f.txt
cat f.txt

### case: exec_redirect_log
exec 3> build.log
echo "step 1" >&3
echo "step 2" >&3
exec 3>&-
cat build.log

### case: exec_stdout_to_file
exec > out.txt
echo "captured line"
echo "another"

### case: here_string_redirect
tr '[:lower:]' '[:upper:]' <<< "make me loud" > loud.txt
cat loud.txt

### case: devnull_read
read -r line < /dev/null || echo "empty read rc=$?"

### case: tee_log
echo "build ok" | tee build.log | tr a-z A-Z
cat build.log

### case: tee_append
echo one | tee -a t.log >/dev/null
echo two | tee -a t.log >/dev/null
cat t.log

### case: stderr_only_pipe
{ echo keep; echo drop >&2; } 2>/dev/null | cat

### case: redirect_missing_dir
echo x > nodir/file.txt
echo "rc=$?"

### case: input_missing
wc -l < nofile.txt
echo "rc=$?"

### case: redirect_order
ls nope > out.txt 2>&1
cat out.txt
ls nope 2>&1 > out2.txt | sed 's/^/piped: /'
