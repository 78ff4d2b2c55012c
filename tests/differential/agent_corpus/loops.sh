# while-read loops, for loops, loops into head.

### case: while_read_file
printf 'alpha\nbeta\ngamma\n' > names.txt
while IFS= read -r name; do
  echo "name: $name"
done < names.txt

### case: while_read_no_trailing_newline
printf 'one\ntwo' > f.txt
while IFS= read -r line || [[ -n $line ]]; do echo "[$line]"; done < f.txt

### case: while_read_into_head
seq 1 100 | while read -r n; do echo "n=$n"; done | head -n 3

### case: infinite_writer_head
while :; do echo y; done | head -n 2

### case: yes_head
yes "ok" | head -n 3

### case: while_read_fields
printf 'alice 30 admin\nbob 25 dev\n' | while read -r user age role; do
  printf '%-6s %3d %s\n' "$user" "$age" "$role"
done

### case: while_read_csv
printf 'id,name\n1,foo\n2,bar\n' > data.csv
tail -n +2 data.csv | while IFS=, read -r id name; do echo "$id -> $name"; done

### case: for_glob_files
touch a.txt b.txt c.log
for f in *.txt; do echo "text file: $f"; done

### case: for_glob_nomatch
for f in *.md; do echo "got $f"; done

### case: for_glob_nullglob
shopt -s nullglob
for f in *.md; do echo "got $f"; done
echo "done"

### case: c_style_for
for ((i = 1; i <= 5; i++)); do printf '%d ' "$i"; done; echo

### case: seq_loop_sum
total=0
for n in $(seq 1 10); do total=$((total + n)); done
echo "total=$total"

### case: brace_range_loop
for i in {1..3}; do echo "iteration $i"; done

### case: until_loop
n=0
until [ "$n" -ge 3 ]; do echo "n=$n"; n=$((n + 1)); done

### case: retry_loop
attempt=0
until [[ $attempt -ge 3 ]]; do
  attempt=$((attempt + 1))
  echo "attempt $attempt"
  [[ $attempt -eq 2 ]] && { echo "succeeded"; break; }
done

### case: continue_skip
for f in a b c d; do
  [[ $f == b ]] && continue
  echo "$f"
done

### case: nested_break
for i in 1 2 3; do
  for j in 1 2 3; do
    if (( i * j == 4 )); then echo "found $i $j"; break 2; fi
  done
done

### case: read_loop_counter_subshell
count=0
printf 'a\nb\nc\n' | while read -r x; do count=$((count + 1)); done
echo "count after pipe: $count"

### case: read_loop_counter_procsub
count=0
while read -r x; do count=$((count + 1)); done < <(printf 'a\nb\nc\n')
echo "count: $count"

### case: read_loop_herestring
while read -r word; do echo "<$word>"; done <<< "$(printf 'x\ny\n')"

### case: lines_to_array_loop
mapfile -t lines < <(printf 'l1\nl2\nl3\n')
for i in "${!lines[@]}"; do echo "$i: ${lines[$i]}"; done

### case: loop_over_find
mkdir -p src/sub
touch src/a.py src/sub/b.py src/c.txt
find src -name '*.py' | sort | while read -r f; do echo "python: $f"; done

### case: loop_ifs_colon
IFS=: read -ra parts <<< "/usr/bin:/bin:/usr/local/bin"
for p in "${parts[@]}"; do echo "dir $p"; done

### case: loop_words_in_string
list="red green blue"
for color in $list; do echo "color=$color"; done

### case: loop_read_with_prompt_stdin
printf 'yes\n' | { read -r answer; echo "answer=$answer"; }

### case: while_true_break
i=0
while true; do
  i=$((i + 1))
  if [[ $i -gt 4 ]]; then break; fi
done
echo "i=$i"

### case: loop_printf_head
for i in $(seq 1 1000); do printf 'line %d\n' "$i"; done | head -n 2

### case: loop_output_to_file
for i in 1 2 3; do echo "row $i"; done > rows.txt
wc -l < rows.txt

### case: select_like_menu
options=(build test deploy)
for i in "${!options[@]}"; do printf '%d) %s\n' "$((i + 1))" "${options[$i]}"; done

### case: read_n_chars
printf 'abcdef' | { read -r -n 3 part; echo "$part"; }

### case: read_delim
printf 'a:b:c' | { while IFS= read -r -d : tok; do echo "tok=$tok"; done; echo "last=$tok"; }

### case: while_read_stdin_mode
### mode: stdin
while read -r x; do echo "inner $x"; done <<EOF
one
two
EOF
echo finished
