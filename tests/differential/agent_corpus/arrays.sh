# indexed and associative arrays.

### case: array_basic
files=(main.py utils.py "my file.py")
echo "count: ${#files[@]}"
for f in "${files[@]}"; do echo "- $f"; done

### case: array_append
arr=()
arr+=(one)
arr+=("two three")
printf '[%s]\n' "${arr[@]}"

### case: array_slice
nums=(10 20 30 40 50)
echo "${nums[@]:1:3}"
echo "${nums[@]: -2}"

### case: array_indices
a=(x y z)
echo "${!a[@]}"
unset 'a[1]'
echo "${!a[@]} -> ${a[*]}"

### case: array_join
parts=(usr local bin)
IFS=/; echo "/${parts[*]}"; unset IFS

### case: array_join_printf
items=(a b c)
joined=$(printf '%s,' "${items[@]}")
echo "${joined%,}"

### case: assoc_basic
declare -A ports=([http]=80 [https]=443 [ssh]=22)
for k in http https ssh; do echo "$k -> ${ports[$k]}"; done
echo "n=${#ports[@]}"

### case: assoc_sorted_keys
declare -A count
for w in apple banana apple cherry banana apple; do
  count[$w]=$(( ${count[$w]:-0} + 1 ))
done
for k in "${!count[@]}"; do echo "$k ${count[$k]}"; done | sort

### case: assoc_exists
declare -A cfg=([debug]=1)
[[ -v cfg[debug] ]] && echo "debug set"
[[ -v cfg[trace] ]] || echo "trace unset"

### case: array_from_command
mapfile -t lines < <(printf 'c\na\nb\n' | sort)
echo "${lines[0]} ${lines[2]}"

### case: array_read_a
read -ra words <<< "the quick brown fox"
echo "${#words[@]} ${words[3]}"

### case: array_contains
contains() { local x; for x in "${@:2}"; do [[ $x == "$1" ]] && return 0; done; return 1; }
list=(alpha beta gamma)
contains beta "${list[@]}" && echo "has beta"
contains delta "${list[@]}" || echo "no delta"

### case: array_length_element
a=(short "much longer")
echo "${#a[1]}"

### case: array_replace_elements
a=(file1.txt file2.txt)
echo "${a[@]/.txt/.md}"
echo "${a[@]/#/src/}"

### case: array_sort
arr=(pear apple fig)
IFS=$'\n' sorted=($(sort <<<"${arr[*]}")); unset IFS
echo "${sorted[@]}"

### case: array_reverse
a=(1 2 3 4)
for ((i=${#a[@]}-1; i>=0; i--)); do printf '%s ' "${a[i]}"; done; echo

### case: array_declare_p
declare -a list=(a "b c")
declare -p list

### case: assoc_declare_p
declare -A m=([one]=1)
declare -p m

### case: array_unset_whole
a=(1 2 3); unset a; echo "len=${#a[@]}"

### case: array_of_paths_find
mkdir -p d1 d2; touch d1/x d2/y
mapfile -t found < <(find . -type f | sort)
printf '%s\n' "${found[@]}"

### case: array_negative_index
a=(first middle last)
echo "${a[-1]} ${a[-2]}"

### case: array_in_arith
a=(3 4 5)
echo $(( a[0] * a[1] + a[2] ))

### case: array_pass_to_function
show() { echo "$# args: $*"; }
a=("x y" z)
show "${a[@]}"
show ${a[@]}
