# awk, sed, sort, uniq, cut, tr, jq pipelines.

### case: sort_uniq_count
printf 'b\na\nb\nc\na\nb\n' | sort | uniq -c | sort -rn

### case: top_words
echo "the cat and the dog and the bird" | tr ' ' '\n' | sort | uniq -c | sort -k1,1nr -k2 | head -3

### case: cut_fields
printf 'root:x:0:0\nuser:x:1000:1000\n' | cut -d: -f1,3

### case: awk_sum_column
printf 'a 10\nb 20\nc 30\n' | awk '{s += $2} END {print "sum:", s}'

### case: awk_csv_filter
printf 'name,age\nann,31\nbob,17\ncid,45\n' > people.csv
awk -F, 'NR > 1 && $2 >= 18 {print $1}' people.csv

### case: awk_printf_table
printf 'x 1.5\ny 22.25\n' | awk '{printf "%-4s|%8.2f\n", $1, $2}'

### case: awk_group_by
printf 'dev 5\nops 3\ndev 2\nops 1\n' | awk '{t[$1] += $2} END {for (k in t) print k, t[k]}' | sort

### case: sed_replace_all
echo "foo bar foo" | sed 's/foo/baz/g'

### case: sed_delete_comments
printf '# comment\nkey=1\n\n# another\nkey2=2\n' | sed -e '/^#/d' -e '/^$/d'

### case: sed_extract_version
echo 'version = "3.4.1"' | sed -E 's/.*"([0-9.]+)".*/\1/'

### case: sed_n_range
seq 1 10 | sed -n '3,5p'

### case: sed_inplace_backup
echo 'color=red' > s.conf
sed -i.bak 's/red/blue/' s.conf
cat s.conf s.conf.bak

### case: tr_delete_squeeze
echo "a  b   c" | tr -s ' '
echo "h-e-l-l-o" | tr -d '-'

### case: tr_upper
echo "Mixed Case" | tr '[:lower:]' '[:upper:]'

### case: jq_select
echo '[{"n":"a","ok":true},{"n":"b","ok":false}]' | jq -r '.[] | select(.ok) | .n'

### case: jq_map_length
echo '{"items":[1,2,3]}' | jq '.items | map(. * 2) | length'

### case: jq_raw_keys
echo '{"b":1,"a":2}' | jq -r 'keys[]'

### case: jq_compact
echo '{"a": [1, 2], "b": {"c": null}}' | jq -c .

### case: jq_build_object
jq -n --arg name demo --argjson n 3 '{name: $name, count: $n}'

### case: jq_error_status
### xfail: command jq (not this branch): invalid JSON input exits 2 and words the error differently; jq 1.6 exits 4
echo 'not json' | jq . 2>/dev/null
echo "rc=$?"

### case: jq_e_flag
echo '{"a":null}' | jq -e .a >/dev/null
echo "rc=$?"

### case: jq_tsv
echo '[{"a":1,"b":"x"},{"a":2,"b":"y"}]' | jq -r '.[] | [.a, .b] | @tsv'

### case: jq_update_file
echo '{"version":"1.0"}' > v.json
jq '.version = "1.1"' v.json > v.tmp && mv v.tmp v.json
cat v.json

### case: head_tail_combo
seq 1 20 | head -n 15 | tail -n 3

### case: wc_multi
printf 'a b\nc\n' > w.txt
wc -l w.txt
wc -w < w.txt
wc -c w.txt

### case: sort_numeric_field
printf 'x 10\ny 2\nz 33\n' | sort -k2 -n

### case: sort_unique
printf 'b\na\nb\n' | sort -u

### case: uniq_d
printf 'a\na\nb\nc\nc\n' | uniq -d

### case: paste_columns
printf '1\n2\n' > a; printf 'x\ny\n' > b
paste a b
paste -d, a b

### case: column_t
printf 'name age\nalice 30\nbob 4\n' | column -t

### case: grep_count_invert
printf 'ok\nerror\nok\nwarn\n' | grep -vc ok

### case: grep_E_o
echo "ids: 12, 345, 6" | grep -oE '[0-9]+'

### case: grep_no_match_status
echo hello | grep -q bye; echo "rc=$?"

### case: awk_nr_fnr
printf 'a\nb\n' > one; printf 'c\n' > two
awk '{print FILENAME, NR, FNR, $0}' one two

### case: sed_append_line
printf 'line1\nline2\n' | sed '1a inserted'

### case: diff_unified_files
printf 'a\nb\nc\n' > old.txt; printf 'a\nB\nc\n' > new.txt
diff -u old.txt new.txt | tail -n +3
echo "rc=${PIPESTATUS[0]}"

### case: rev_basename
echo /path/to/file.tar.gz | rev | cut -d/ -f1 | rev

### case: nl_numbering
printf 'a\nb\n' | nl

### case: tac_lines
printf '1\n2\n3\n' | tac

### case: sha256_file
printf 'hello\n' > h.txt
sha256sum h.txt

### case: base64_roundtrip
echo "secret data" | base64 | tee enc.txt | base64 -d

### case: split_join
seq 1 10 > nums
split -l 4 nums part_
ls part_*
cat part_* | wc -l
