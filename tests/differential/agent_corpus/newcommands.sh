# numfmt, iconv, less/more, chown, ls -C, realpath and file, the way agents reach for them.

### case: numfmt_sizes_report
printf '%s\n' 512 2048 1048576 5368709120 | numfmt --to=iec --suffix=B

### case: numfmt_field_du_like
printf '4096\tsrc\n123456789\tdata\n' | numfmt --to=si --field=1

### case: numfmt_from_human
for s in 1K 2.5M 3G; do numfmt --from=si "$s"; done

### case: numfmt_header_table
printf 'SIZE NAME\n1500 a\n2500000 b\n' | numfmt --header --to=si --padding=6

### case: numfmt_invalid_status
echo "12abc" | numfmt --to=si 2>&1; echo "rc=$?"

### case: numfmt_format_percent
numfmt --format='%.2f' 3.14159

### case: iconv_latin1_to_utf8_file
printf 'caf\xe9\n' > latin1.txt
iconv -f ISO-8859-1 -t UTF-8 latin1.txt > utf8.txt
cat utf8.txt
wc -c < utf8.txt

### case: iconv_translit_ascii
printf 'Caf\xc3\xa9 \xe2\x80\x9cquoted\xe2\x80\x9d\n' | iconv -f UTF-8 -t ASCII//TRANSLIT

### case: iconv_strip_invalid
printf 'ok\xffbad\n' | iconv -c -f UTF-8 -t UTF-8

### case: iconv_error_check
if ! printf 'caf\xc3\xa9\n' | iconv -f UTF-8 -t ASCII >/dev/null 2>&1; then echo "not plain ascii"; fi

### case: iconv_utf16_roundtrip
printf 'hello\n' | iconv -f UTF-8 -t UTF-16 | iconv -f UTF-16 -t UTF-8

### case: less_as_cat
printf 'line1\nline2\n' > log.txt
less log.txt
cat log.txt | less -R

### case: less_flags_pipeline
seq 1 5 | less -FRSX | tail -n 2

### case: more_file
printf 'a\nb\n' > notes.txt
more notes.txt | tail -n 2

### case: chown_own_user
touch owned.txt
chown "$(id -u)" owned.txt && echo "chown ok"
chgrp "$(id -g)" owned.txt && echo "chgrp ok"

### case: chown_missing_file
chown "$(id -u)" missing.txt 2>&1 | sed 's/.*: //'
echo "rc=${PIPESTATUS[0]}"

### case: ls_columns_flag
touch alpha beta gamma delta epsilon zeta eta theta
ls -C
ls -x -w 30

### case: ls_commas
touch one two three
ls -m

### case: realpath_dotdot_symlink
mkdir -p pkg/lib/inner
ln -s pkg/lib/inner cur
realpath --relative-to=. cur/..
readlink -f cur/../.. | sed "s|$PWD|.|"

### case: realpath_script_dir
### mode: file
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ "$here" = "$(realpath .)" ] && echo "script dir resolved"

### case: file_detect_types
printf 'a,b,c\n1,2,3\n4,5,6\n' > data.csv
printf '{"k": [1, 2]}\n' > data.json
printf '#!/usr/bin/env python3\nprint(1)\n' > tool.py
file data.csv data.json tool.py

### case: curl_file_url
printf 'payload\n' > local.txt
curl -s "file://$PWD/local.txt"
curl -sS "file://$PWD/missing.txt"; echo "rc=$?"
