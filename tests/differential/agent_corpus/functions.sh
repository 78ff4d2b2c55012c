# functions with local, return codes, case dispatch, logging helpers.

### case: log_helpers
log() { printf '[%s] %s\n' "$1" "${*:2}"; }
info() { log INFO "$@"; }
warn() { log WARN "$@" >&2; }
info "starting up"
warn "disk almost full"
info done

### case: local_scope
x=global
f() { local x=local; echo "in f: $x"; g; }
g() { echo "in g: $x"; }
f
echo "outside: $x"

### case: return_status
is_even() { (( $1 % 2 == 0 )); }
for n in 1 2 3 4; do
  if is_even "$n"; then echo "$n even"; else echo "$n odd"; fi
done

### case: function_output_capture
get_name() { echo "service-$1"; }
name=$(get_name api)
echo "name=$name"

### case: recursive_factorial
fact() { if (( $1 <= 1 )); then echo 1; else echo $(( $1 * $(fact $(( $1 - 1 ))) )); fi; }
fact 6

### case: case_dispatch
cmd_build() { echo "building"; }
cmd_test() { echo "testing"; }
for action in build test clean; do
  case $action in
    build) cmd_build ;;
    test) cmd_test ;;
    *) echo "unknown action: $action" >&2 ;;
  esac
done

### case: case_patterns
for f in a.tar.gz b.zip c.txt README; do
  case "$f" in
    *.tar.gz|*.tgz) echo "$f: tarball" ;;
    *.zip) echo "$f: zip" ;;
    *.txt) echo "$f: text" ;;
    *) echo "$f: other" ;;
  esac
done

### case: case_char_class
for v in 42 abc 3x ""; do
  case $v in
    '') echo "empty" ;;
    *[!0-9]*) echo "$v: not a number" ;;
    *) echo "$v: number" ;;
  esac
done

### case: case_yes_no
for answer in y Yes N no maybe; do
  case ${answer,,} in
    y|yes) echo "$answer -> yes" ;;
    n|no) echo "$answer -> no" ;;
    *) echo "$answer -> ?" ;;
  esac
done

### case: function_args_count
count_args() { echo "$#"; }
count_args
count_args a "b c" d

### case: function_default_args
greet() { local name=${1:-world} greeting=${2:-Hello}; echo "$greeting, $name!"; }
greet
greet Alice
greet Bob Hi

### case: function_modifies_global
counter=0
inc() { counter=$((counter + 1)); }
inc; inc; inc
echo "counter=$counter"

### case: function_local_array
f() { local -a items=(x y); items+=(z); echo "${#items[@]}"; }
f

### case: function_nameref
set_var() { local -n ref=$1; ref="set by function"; }
set_var result
echo "$result"

### case: function_exists_check
myfn() { :; }
declare -F myfn >/dev/null && echo "myfn defined"
declare -F nofn >/dev/null || echo "nofn undefined"

### case: function_return_code_var
check() { return 3; }
check; rc=$?
echo "rc=$rc"

### case: main_function_pattern
### mode: file
#!/usr/bin/env bash
set -euo pipefail

main() {
  local mode=${1:-default}
  echo "mode: $mode"
  helper
}

helper() { echo "helper called"; }

main "$@"

### case: function_stdin
upper() { tr '[:lower:]' '[:upper:]'; }
echo "shout" | upper

### case: function_pipe_chain
filter() { grep -v '^#'; }
count() { wc -l; }
printf '#a\nb\nc\n' | filter | count

### case: require_command
require() { command -v "$1" >/dev/null 2>&1 || { echo "missing: $1" >&2; return 1; }; }
require cat && echo "cat ok"
require not-a-real-tool || echo "handled missing"

### case: retry_function
attempts=0
flaky() { attempts=$((attempts + 1)); (( attempts >= 3 )); }
retry() { local n=0; until "$@"; do n=$((n + 1)); (( n >= 5 )) && return 1; done; }
retry flaky && echo "succeeded after $attempts"

### case: function_unset
f() { echo hi; }
f
unset -f f
f 2>/dev/null || echo "f gone"

### case: function_local_ifs
split() { local IFS=,; set -- $1; echo "$#"; }
split "a,b,c"
x="a b"; set -- $x; echo "$#"
