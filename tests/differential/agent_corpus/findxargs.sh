# find -exec, find | xargs and friends.

### case: find_exec_wc
mkdir -p src; printf 'a\nb\n' > src/one.py; printf 'c\n' > src/two.py
find src -name '*.py' -exec wc -l {} \; | sort

### case: find_exec_plus
mkdir -p src; printf 'x\n' > src/a.txt; printf 'y\n' > src/b.txt
find src -type f -name '*.txt' -exec cat {} + | sort

### case: find_xargs_grep
mkdir -p lib; echo 'TODO: fix' > lib/a.js; echo ok > lib/b.js
find lib -name '*.js' | sort | xargs grep -l TODO

### case: find_print0_xargs0
mkdir -p docs; touch 'docs/a file.md' docs/b.md
find docs -name '*.md' -print0 | sort -z | xargs -0 -n1 echo "doc:"

### case: find_delete
mkdir -p cache; touch cache/1.pyc cache/2.pyc cache/keep.py
find cache -name '*.pyc' -delete
ls cache

### case: find_maxdepth
mkdir -p a/b/c; touch a/f1 a/b/f2 a/b/c/f3
find a -maxdepth 2 -type f | sort

### case: find_mindepth_type_d
mkdir -p p/q/r
find p -mindepth 1 -type d | sort

### case: find_not_path
mkdir -p proj/node_modules/x proj/src; touch proj/node_modules/x/i.js proj/src/m.js
find proj -name '*.js' -not -path '*/node_modules/*'

### case: find_prune
mkdir -p r/.git/objects r/src; touch r/.git/objects/o r/src/s
find r -name .git -prune -o -type f -print

### case: find_size_empty
mkdir -p t; touch t/empty; echo data > t/full
find t -type f -empty
find t -type f -size +0 | sort

### case: find_iname_or
mkdir -p m; touch m/A.JPG m/b.png m/c.txt
find m \( -iname '*.jpg' -o -name '*.png' \) | sort

### case: find_exec_sh
mkdir -p s; echo hi > s/a; echo there > s/b
find s -type f -exec sh -c 'echo "$1: $(cat "$1")"' _ {} \; | sort

### case: find_count
mkdir -p n; touch n/{1..7}.log
find n -name '*.log' | wc -l

### case: xargs_n
echo 1 2 3 4 5 | xargs -n 2 echo

### case: xargs_I
printf 'a\nb\n' | xargs -I{} echo "item-{}"

### case: xargs_mkdir
printf 'dir1\ndir2\n' | xargs mkdir -p
ls -d dir*

### case: xargs_empty_input
printf '' | xargs -r echo "should not print"
echo "rc=$?"

### case: xargs_rm
touch r1.tmp r2.tmp keep.txt
ls *.tmp | xargs rm -f
ls

### case: xargs_sh_c
printf '3\n1\n2\n' | xargs -I % sh -c 'echo $((% * 10))'

### case: xargs_failure_status
printf 'nofile\n' | xargs cat 2>/dev/null
echo "rc=$?"

### case: find_newer_names
mkdir -p out; touch out/a.o out/b.o
find out -name '*.o' -printf '%f\n' | sort

### case: find_exec_rename
mkdir -p imgs; touch imgs/a.jpeg imgs/b.jpeg
find imgs -name '*.jpeg' -exec sh -c 'mv "$1" "${1%.jpeg}.jpg"' _ {} \;
ls imgs

### case: find_missing_dir
find nowhere -type f
echo "rc=$?"

### case: find_sed_inplace
mkdir -p cfg; echo 'host=old' > cfg/a.conf; echo 'host=old' > cfg/b.conf
find cfg -name '*.conf' -exec sed -i 's/old/new/' {} +
cat cfg/*.conf

### case: grep_r_include
mkdir -p code/sub; echo 'import os' > code/a.py; echo 'import sys' > code/sub/b.py; echo 'import x' > code/c.txt
grep -rn --include='*.py' import code | sort

### case: grep_rl
mkdir -p g; echo needle > g/1; echo hay > g/2; echo needle > g/3
grep -rl needle g | sort
