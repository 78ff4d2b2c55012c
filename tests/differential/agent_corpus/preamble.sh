# set -euo pipefail preambles and what they do to the rest of the script.

### case: euo_basic
set -euo pipefail
echo start
false
echo unreachable

### case: euo_pipefail_status
set -euo pipefail
printf 'a\nb\n' | grep -q z | wc -l
echo reached

### case: eo_pipefail_grouped
set -eo pipefail
false | wc -l
echo reached

### case: pipefail_positional_untouched
set -euo pipefail
echo "args=$#"

### case: euo_unbound
set -euo pipefail
echo "value: ${MISSING}"
echo after

### case: euo_unbound_default
set -euo pipefail
echo "value: ${MISSING:-default}"

### case: euo_or_true
set -euo pipefail
grep -q needle /dev/null || true
echo "grep miss tolerated"

### case: euo_if_guard
set -euo pipefail
if ! grep -q x <<< "abc"; then
  echo "no x"
fi
echo done

### case: euo_arith_zero
set -euo pipefail
count=0
((count++)) || true
echo "count=$count"

### case: euo_arith_zero_fatal
set -euo pipefail
count=0
((count++))
echo "not reached $count"

### case: euo_subshell_exit
set -euo pipefail
( exit 3 ) || echo "subshell failed with $?"

### case: euo_cmdsubst_fail
set -euo pipefail
out=$(false) || echo "capture failed"
echo "out=[$out]"

### case: euo_local_masks
set -euo pipefail
f() { local x=$(false); echo "local masks status"; }
f

### case: euo_and_list
set -euo pipefail
[[ -f nothing.txt ]] && echo exists
echo "and-list does not trip -e"

### case: euo_function_return
set -euo pipefail
check() { return 1; }
if check; then echo ok; else echo "check failed"; fi
check
echo not reached

### case: set_o_separate
set -e
set -u
set -o pipefail
true | false | true
echo never

### case: set_plus_e
set -e
set +e
false
echo "after +e status=$?"

### case: euxo_trace
set -euxo pipefail
x=1
echo "$x"

### case: errexit_in_loop
set -euo pipefail
for f in a b c; do
  echo "item $f"
  [[ $f == b ]] && break
done
echo end

### case: nounset_array_empty
set -euo pipefail
arr=()
echo "len=${#arr[@]}"
for x in "${arr[@]}"; do echo "$x"; done
echo ok

### case: nounset_positional
set -u
echo "${1:-none}"
echo "$1"
echo after

### case: shebang_file
### mode: file
#!/usr/bin/env bash
set -euo pipefail
name="${1:-world}"
echo "hello $name"

### case: file_fail_line
### mode: file
#!/bin/bash
set -euo pipefail
echo one
cat missing.txt
echo two

### case: file_unbound
### mode: file
#!/bin/bash
set -u
echo "$NOPE"

### case: stdin_script
### mode: stdin
set -euo pipefail
echo "from stdin"
x=$((2 * 21))
echo "x=$x"

### case: stdin_fail
### mode: stdin
set -e
echo before
false
echo after

### case: ifs_default_preamble
set -euo pipefail
IFS=$'\n\t'
words="a b c"
for w in $words; do echo "[$w]"; done

### case: trap_err_euo
set -euo pipefail
trap 'echo "error on line $LINENO" >&2' ERR
echo working
false
echo unreachable

### case: die_function
set -euo pipefail
die() { echo "error: $*" >&2; exit 1; }
[[ -d src ]] || die "src directory missing"
echo never

### case: readonly_const
set -euo pipefail
readonly VERSION="1.2.3"
echo "v$VERSION"
VERSION=2 2>/dev/null || echo "cannot change"
