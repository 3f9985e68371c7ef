#!/bin/sh
# exec-demo.sh - run the bundled example programs in sandboxes (sandeval exec) and show what happened to each
set -eu
cd "$(dirname "$0")/.."
S=${SANDEVAL:-./sandeval}
P=examples/programs
fails=0

run() {
	expect=$1
	label=$2
	shift 2
	out=$("$S" exec "$@") || true
	status=$(printf '%s' "$out" | jq -r .status)
	line=$(printf '%s' "$out" | jq -r '"\(.wall_ms) ms wall, \(.cpu_ms) ms cpu, \((.peak_memory_bytes // 0) / 1048576 | floor) MiB peak"')
	mark=ok
	[ "$status" = "$expect" ] || { mark="UNEXPECTED (wanted $expect)"; fails=$((fails + 1)); }
	if printf "%s" "$out" | jq -r .stdout | grep -q SUCCEEDED; then mark="ESCAPED"; fails=$((fails + 1)); fi
	printf '%-34s %-14s %-40s %s\n' "$label" "$status" "$line" "$mark"
	printf '%s' "$out" | jq -r '.stdout' | sed -n '1,10p' | sed 's/^/    | /'
}

printf '%-34s %-14s %-40s\n' "program" "status" "cost"
run ok "fizzbuzz.py (correct)" --file fizzbuzz.py=$P/fizzbuzz.py --stdin $P/fizzbuzz.in -- python3 fizzbuzz.py
run ok "hostile.py (every attempt fails)" --file hostile.py=$P/hostile.py -- python3 hostile.py
run cpu_limit "loop.py (infinite loop)" --cpu-time 1 --file loop.py=$P/loop.py -- python3 loop.py
run memory_limit "hog.py (memory bomb)" --memory 128M --file hog.py=$P/hog.py -- python3 hog.py
run ok "primes.c (gcc in the sandbox)" --cpu-time 10 --wall-time 20 --file primes.c=$P/primes.c -- \
	sh -c 'gcc -O2 -o /tmp/primes primes.c && /tmp/primes'
[ "$fails" = 0 ] && echo "demo: every program ended as expected" || { echo "demo: $fails unexpected result(s)"; exit 1; }
