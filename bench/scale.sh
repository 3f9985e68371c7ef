#!/bin/sh
# bench/scale.sh - samples per second of 1, 2 and 4 shard processes against one PostgreSQL store, and the store's own write rate
#
#   sh bench/scale.sh [SANDEVAL]          (make bench-scale)
#
# Starts a throwaway PostgreSQL cluster (tests/pg.sh) in a temporary
# directory and stops it at the end. Environment:
#   SAMPLES=FILE      the samples (default: 5 of each HumanEval task's 100
#                     CodeGen-16B samples, 820, from $SANDEVAL_DATA)
#   PROCS="1 2 4"     shard processes, each --jobs 1, one store
#   WRITERS="1 2 4 8" writer processes of the store benchmark (build/bench/store-put)
#   WRITE_SECONDS=10  how long each store benchmark writes
# Prints one line per measurement, with the load average before it (the
# machine may be shared). docs/scale.md has the figures measured here.
set -eu
cd "$(dirname "$0")/.."
SANDEVAL=${1:-./sandeval}
DATA=${SANDEVAL_DATA:-../shared/data}
HE=$DATA/humaneval/HumanEval.jsonl.gz
PROCS=${PROCS:-1 2 4}
WRITERS=${WRITERS:-1 2 4 8}
WRITE_SECONDS=${WRITE_SECONDS:-10}
B=${B:-build}

tmp=$(mktemp -d /tmp/sandeval-bench-scale.XXXXXX)
pgdir=$(mktemp -d /tmp/sandeval-pg.XXXXXX)	# its own: the server's user must reach it
trap 'sh tests/pg.sh stop "$pgdir" >/dev/null 2>&1; rm -rf "$tmp" "$pgdir"' EXIT
trap 'exit 130' INT TERM
pgenv=$(sh tests/pg.sh start "$pgdir") || exit 1
eval "$pgenv"

if [ -z "${SAMPLES-}" ]; then
	SAMPLES=$tmp/samples.jsonl
	zcat "$DATA/samples/codet_codegen16b/humaneval_codegen16B_n100_samples.jsonl.gz" |
		awk 'NR % 100 == 1 || NR % 100 == 21 || NR % 100 == 41 || NR % 100 == 61 || NR % 100 == 81' >"$SAMPLES"
fi
n=$(zcat -f "$SAMPLES" | wc -l)

db_url() {
	PGOPTIONS='-c client_min_messages=warning' psql -X -q "$SANDEVAL_PG_URL" -c "DROP DATABASE IF EXISTS $1 WITH (FORCE)" -c "CREATE DATABASE $1" >/dev/null
	echo "$SANDEVAL_PG_URL" | sed -E "s#^(postgres(ql)?://[^/?]*)/[^?]*#\1/$1#"
}

load() { cut -d' ' -f1 /proc/loadavg; }

# P shard processes on one store: PostgreSQL for each of PROCS, then SQLite (one file, one machine)
echo "== sandboxes: $n samples, P shard processes (--jobs 1 each), one store ($(nproc) CPUs)"
for run in $(for p in $PROCS; do echo "pg:$p"; done) sqlite:1 sqlite:2; do
	p=${run#*:}
	if [ "${run%%:*}" = pg ]; then
		url=$(db_url "bench_p$p")
		store=PostgreSQL
	else
		url=$tmp/shards-$p.db
		store=SQLite
	fi
	l=$(load)
	t0=$(date +%s.%N)
	i=0
	pids=
	while [ "$i" -lt "$p" ]; do
		"$SANDEVAL" run --db "$url" --run-id bench --shard "$i/$p" --tasks "$HE" --samples "$SAMPLES" \
			--no-lint --seed 1 --jobs 1 --quiet >/dev/null 2>"$tmp/shard-$p-$i.err" &
		pids="$pids $!"
		i=$((i + 1))
	done
	for pid in $pids; do wait "$pid" || { cat "$tmp"/shard-"$p"-*.err >&2; exit 1; }; done
	t1=$(date +%s.%N)
	rec=$("$SANDEVAL" run --db "$url" --run-id bench --status | sed -n 's/.*complete: \([0-9]*\) samples.*/\1/p')
	echo "$store $p $rec $t0 $t1 $l" | awk '{ printf "%s, %d process%s: %d samples in %.1f s: %.1f samples/s (load before: %s)\n", \
		$1, $2, $2 == 1 ? "" : "es", $3, $5 - $4, $3 / ($5 - $4), $6 }'
done

echo "== the store alone: samples recorded per second by W writer processes (9 tests each)"
make -s "$B/bench/store-put" >/dev/null
for w in $WRITERS; do
	url=$(db_url "bench_w$w")
	printf 'PostgreSQL, load %s: ' "$(load)"
	"$B/bench/store-put" "$url" "$w" "$WRITE_SECONDS"
done
for w in $WRITERS; do
	printf 'SQLite, load %s: ' "$(load)"
	"$B/bench/store-put" "$tmp/w$w.db" "$w" "$WRITE_SECONDS"
done
