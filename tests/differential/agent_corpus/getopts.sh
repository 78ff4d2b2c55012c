# getopts parsing in scripts and functions.

### case: getopts_basic
set -- -v -o out.txt input.txt
verbose=0; output=
while getopts "vo:" opt; do
  case $opt in
    v) verbose=1 ;;
    o) output=$OPTARG ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
echo "verbose=$verbose output=$output rest=$*"

### case: getopts_grouped
set -- -vx -n 5 file
while getopts "vxn:" o; do echo "opt=$o arg=${OPTARG:-}"; done
shift $((OPTIND - 1)); echo "rest=$1"

### case: getopts_attached_arg
set -- -n5 -fname
while getopts "n:f:" o; do echo "$o=$OPTARG"; done

### case: getopts_invalid
set -- -z
while getopts "ab" o; do echo "got $o"; done

### case: getopts_silent_invalid
set -- -z -a
while getopts ":ab" o; do
  case $o in
    \?) echo "unknown option -$OPTARG" ;;
    *) echo "opt $o" ;;
  esac
done

### case: getopts_missing_arg
set -- -o
while getopts ":o:" o; do
  case $o in
    :) echo "option -$OPTARG needs a value" ;;
    o) echo "o=$OPTARG" ;;
  esac
done

### case: getopts_missing_arg_loud
set -- -o
while getopts "o:" o; do echo "o=$o"; done

### case: getopts_double_dash
set -- -a -- -b file
while getopts "ab" o; do echo "opt $o"; done
shift $((OPTIND - 1)); echo "operands: $*"

### case: getopts_function
parse() {
  local OPTIND opt
  while getopts "hq" opt; do
    case $opt in h) echo help ;; q) echo quiet ;; esac
  done
  shift $((OPTIND - 1))
  echo "args: $*"
}
parse -q one two
parse -h three

### case: getopts_file_args
### mode: file
usage() { echo "usage: $0 [-d] name" >&2; exit 2; }
debug=false
while getopts "d" o; do case $o in d) debug=true ;; *) usage ;; esac; done
shift $((OPTIND - 1))
echo "debug=$debug name=${1:-unset}"

### case: manual_long_options
set -- --name=foo --verbose -- extra
while [[ $# -gt 0 ]]; do
  case $1 in
    --name=*) name=${1#*=}; shift ;;
    --verbose) verbose=1; shift ;;
    --) shift; break ;;
    *) echo "unknown $1"; exit 1 ;;
  esac
done
echo "name=$name verbose=$verbose rest=$*"

### case: manual_option_with_value
set -- -f config.yml -n 3
while [ $# -gt 0 ]; do
  case "$1" in
    -f) file="$2"; shift 2 ;;
    -n) num="$2"; shift 2 ;;
    *) shift ;;
  esac
done
echo "file=$file num=$num"

### case: getopts_optind_reset
set -- -a
getopts a o; echo "$o $OPTIND"
OPTIND=1
set -- -b
getopts ab o; echo "$o $OPTIND"
