# string operations and [[ ]] tests.

### case: strip_ext
file="archive.tar.gz"
echo "${file%.*}"
echo "${file%%.*}"
echo "${file#*.}"
echo "${file##*.}"

### case: basename_dirname_params
path="/home/user/project/main.py"
echo "${path##*/}"
echo "${path%/*}"
basename "$path" .py
dirname "$path"

### case: substring
s="Hello, World"
echo "${s:0:5}"
echo "${s:7}"
echo "${s: -5}"
echo "${#s}"

### case: replace
s="one two one"
echo "${s/one/1}"
echo "${s//one/1}"
echo "${s/#one/START}"
echo "${s/%one/END}"

### case: case_conversion
s="Mixed Case"
echo "${s^^}"
echo "${s,,}"
w="word"; echo "${w^}"

### case: trim_whitespace
s="   padded text   "
trimmed="${s#"${s%%[![:space:]]*}"}"
trimmed="${trimmed%"${trimmed##*[![:space:]]}"}"
echo "[$trimmed]"

### case: dbl_bracket_pattern
for f in main.py test_main.py README.md; do
  [[ $f == test_* ]] && echo "$f is a test"
  [[ $f == *.md ]] && echo "$f is markdown"
done
true

### case: dbl_bracket_regex
for v in 1.2.3 v2.0 abc; do
  if [[ $v =~ ^v?([0-9]+)\.([0-9]+) ]]; then
    echo "$v major=${BASH_REMATCH[1]} minor=${BASH_REMATCH[2]}"
  else
    echo "$v no match"
  fi
done

### case: dbl_bracket_file_tests
touch exists.txt; mkdir -p adir
[[ -f exists.txt ]] && echo "file"
[[ -d adir ]] && echo "dir"
[[ -e nothing ]] || echo "missing"
[[ -s exists.txt ]] || echo "empty"
[[ -r exists.txt && -w exists.txt ]] && echo "rw"

### case: dbl_bracket_string_tests
a=""; b="x"
[[ -z $a ]] && echo "a empty"
[[ -n $b ]] && echo "b set"
[[ $a == "$b" ]] || echo "differ"
[[ abc < abd ]] && echo "lexical less"

### case: dbl_bracket_numeric
x=10
[[ $x -gt 5 ]] && echo gt
[[ $x -le 10 ]] && echo le
(( x == 10 )) && echo eq

### case: test_bracket_classic
if [ -n "$HOME" ] && [ "$HOME" != "/" ]; then echo "home ok"; fi
[ 1 -eq 1 -a 2 -eq 2 ] && echo "both"
[ ! -f nofile ] && echo "no file"

### case: string_contains
haystack="error: disk full"
if [[ $haystack == *"disk"* ]]; then echo "mentions disk"; fi
case $haystack in *error*) echo "is error" ;; esac

### case: string_split_read
IFS=. read -r major minor patch <<< "4.12.7"
echo "$major / $minor / $patch"

### case: string_repeat
printf -v line '%*s' 20 ''
echo "${line// /-}"

### case: string_default_assign
: "${CONFIG_DIR:=./config}"
echo "$CONFIG_DIR"
unset EMPTY; echo "${EMPTY:-fallback} ${EMPTY-unset-only}"

### case: string_length_check
pw="abc"
if (( ${#pw} < 8 )); then echo "too short (${#pw})"; fi

### case: string_indirect
name=GREETING
GREETING=hello
echo "${!name}"

### case: string_prefix_vars
APP_ONE=1 APP_TWO=2
export APP_ONE APP_TWO
echo "${!APP_@}"

### case: printf_quote
printf '%q\n' "it's a test" 'tab	here'

### case: string_compare_versions
ver() { printf '%s\n' "$@" | sort -V | head -n1; }
[[ $(ver 1.10 1.9) == 1.9 ]] && echo "1.9 < 1.10"

### case: string_at_Q
s="a'b"
echo "${s@Q}"

### case: string_escape_sequences
echo -e "col1\tcol2"
printf 'a\\nb\n'
echo $'line\nbreak'

### case: string_uppercase_first_each
s="hello big world"
out=""
for w in $s; do out+="${w^} "; done
echo "${out% }"

### case: string_hash_strip_leading_zero
n="007"
echo $((10#$n + 1))
