# arithmetic and printf reports.

### case: arith_basic
a=7 b=3
echo "$((a + b)) $((a - b)) $((a * b)) $((a / b)) $((a % b)) $((a ** b))"

### case: arith_increment
i=0
((i++)); ((i += 5)); ((i *= 2))
echo "$i"

### case: arith_ternary
x=5
echo $(( x > 3 ? 1 : 0 ))

### case: arith_hex_octal
echo $((0xff)) $((010)) $((2#1010)) $((36#zz))

### case: arith_let
let "n = 4 * 5"
echo "$n"

### case: arith_compare_loop
max=0
for v in 3 9 2 7; do (( v > max )) && max=$v; done
echo "max=$max"

### case: arith_percent
done_=37 total=120
pct=$(( done_ * 100 / total ))
echo "progress: ${pct}%"

### case: arith_div_zero
echo $(( 1 / 0 ))
echo "rc=$?"

### case: arith_bc_float
echo "scale=2; 10 / 3" | bc

### case: arith_awk_float
awk 'BEGIN {printf "%.3f\n", 22/7}'

### case: printf_table
printf '%-10s %5s\n' NAME SIZE
printf '%-10s %5d\n' alpha 12 beta 340 gamma 5

### case: printf_padding_zero
for i in 1 22 333; do printf 'id-%04d\n' "$i"; done

### case: printf_floats
printf '%.2f %8.3f %e\n' 3.14159 2.5 12345.678

### case: printf_hex_char
printf '%x %X %o %c\n' 255 255 8 A

### case: printf_v
printf -v msg 'hello %s' world
echo "$msg"

### case: printf_report
pass=12 fail=3
printf 'Tests: %d passed, %d failed (%d%%)\n' "$pass" "$fail" $(( pass * 100 / (pass + fail) ))

### case: printf_reuse_format
printf '%s=%s\n' a 1 b 2 c

### case: printf_separator_line
printf '=%.0s' {1..30}; echo

### case: printf_invalid_number
printf '%d\n' abc
echo "rc=$?"

### case: printf_b_escapes
printf '%b\n' 'tab\there' 'nl\\n'

### case: arith_seq_sum_awk
seq 1 100 | awk '{s+=$1} END {print s}'

### case: arith_expr_cmd
expr 6 \* 7
expr length "hello"

### case: arith_random_seeded_shape
RANDOM=42
n=$RANDOM
[[ $n =~ ^[0-9]+$ ]] && echo "random is numeric"

### case: arith_negative_mod
echo $(( -7 % 3 )) $(( 7 % -3 ))

### case: arith_bit_ops
echo $(( 5 & 3 )) $(( 5 | 3 )) $(( 5 ^ 3 )) $(( 1 << 4 )) $(( 256 >> 2 )) $(( ~0 ))

### case: arith_comma_assign
(( a = 2, b = a * 3 ))
echo "$a $b"

### case: printf_column_report
### mode: file
declare -A sizes=([src]=120 [tests]=45 [docs]=8)
for k in docs src tests; do printf '%-6s %4d KB\n' "$k" "${sizes[$k]}"; done
printf '%-6s %4d KB\n' total $(( sizes[src] + sizes[tests] + sizes[docs] ))
