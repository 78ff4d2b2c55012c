# here-docs writing files, configs, templates.

### case: heredoc_write_config
cat > config.ini <<EOF
[server]
port=8080
host=localhost
EOF
cat config.ini

### case: heredoc_expansion
name=app
version=2.1
cat > info.txt <<EOF
name: $name
version: ${version}
build: $((3 * 7))
EOF
cat info.txt

### case: heredoc_quoted
cat > script.sh <<'EOF'
#!/bin/bash
echo "$HOME and $(date)"
EOF
cat script.sh

### case: heredoc_tabs
cat <<-EOF
	indented with tabs
		twice
	EOF

### case: heredoc_python_file
cat > main.py <<'PY'
def main():
    print("hello")

if __name__ == "__main__":
    main()
PY
grep -c def main.py
head -1 main.py

### case: heredoc_json
cat > package.json <<EOF
{
  "name": "demo",
  "version": "1.0.0",
  "scripts": {"test": "pytest"}
}
EOF
jq -r .name package.json
jq -r '.scripts.test' package.json

### case: heredoc_to_pipe
cat <<EOF | sort
zebra
apple
mango
EOF

### case: heredoc_into_while
while read -r k v; do echo "$k=$v"; done <<EOF
host example
port 80
EOF

### case: heredoc_append
echo "# log" > notes.md
cat >> notes.md <<EOF
- item one
- item two
EOF
cat notes.md

### case: heredoc_in_function
usage() {
  cat <<EOF
Usage: tool [options]
  -h  show help
  -v  verbose
EOF
}
usage

### case: heredoc_multiple_files
mkdir -p app
cat > app/a.txt <<EOF
A
EOF
cat > app/b.txt <<EOF
B
EOF
cat app/*.txt

### case: heredoc_escaped_dollar
cost=5
cat <<EOF
price: \$$cost
literal: \$HOME
EOF

### case: heredoc_command_subst
cat <<EOF
files: $(printf '%s ' a b c)
upper: $(echo hi | tr a-z A-Z)
EOF

### case: heredoc_empty
cat <<EOF > empty.txt
EOF
wc -c < empty.txt

### case: heredoc_to_variable
read -r -d '' msg <<'EOF' || true
line one
line two
EOF
printf '%s' "$msg" | wc -l

### case: heredoc_var_cat
text=$(cat <<EOF
alpha
beta
EOF
)
echo "$text" | tail -1

### case: heredoc_sed_edit
cat > app.conf <<EOF
debug=false
level=info
EOF
sed -i 's/debug=false/debug=true/' app.conf
cat app.conf

### case: heredoc_quoted_delim_double
cat <<"END"
$not_expanded `nor this`
END

### case: heredoc_yaml
cat > ci.yml <<'EOF'
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - run: make test
EOF
grep -n 'run:' ci.yml
awk '/runs-on/ {print $2}' ci.yml

### case: heredoc_makefile_tabs
printf 'all:\n\techo build\n' > Makefile
cat -A Makefile

### case: heredoc_file_mode
### mode: file
cat > out.txt <<EOF
written from a file script
EOF
cat out.txt
