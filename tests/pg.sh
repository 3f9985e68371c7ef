#!/bin/sh
# pg.sh - a throwaway PostgreSQL cluster for the tests (Debian's postgresql package): initdb into DIR, listen on DIR's socket and 127.0.0.1
#
#   tests/pg.sh start DIR   create the cluster in DIR (once) and start it; prints, for eval,
#                           the exports of SANDEVAL_PG_URL (unix socket in DIR, trust),
#                           SANDEVAL_PG_TCP_URL (127.0.0.1:PORT, user sandeval_pw with a
#                           password) and SANDEVAL_PG_DIR
#   tests/pg.sh stop DIR    stop it at once (connections are cut: -m fast)
#   tests/pg.sh kill DIR    stop it as a crash would (-m immediate)
#
# The server runs as the postgres user when called as root (as the caller
# otherwise), with its data, log and socket in DIR and nothing outside: no
# port but a random one on 127.0.0.1, so that several clusters (another
# engineer's, another check) never meet. The socket's directory is readable
# by all, so that the uid 65534 pass can connect. tests/run.sh and
# tests/heavy/run.sh start one and stop it when they exit.
set -eu

usage() {
	echo "usage: tests/pg.sh start|stop|kill DIR" >&2
	exit 2
}
[ $# -eq 2 ] || usage
cmd=$1
dir=$2

bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [ -z "$bindir" ] || [ ! -x "$bindir/initdb" ]; then
	echo "pg.sh: no PostgreSQL server in /usr/lib/postgresql/*/bin (apt-get install postgresql)" >&2
	exit 1
fi

# as_owner CMD...: run as the cluster's owner (postgres refuses to run as root)
as_owner() {
	if [ "$(id -u)" = 0 ]; then
		setpriv --reuid=postgres --regid=postgres --init-groups env -i PATH=/usr/bin:/bin HOME="$dir" LC_ALL=C.UTF-8 "$@"
	else
		env LC_ALL=C.UTF-8 "$@"
	fi
}

psql_admin() {
	as_owner psql -X -q -v ON_ERROR_STOP=1 -h "$dir" -p "$(cat "$dir/port")" -U postgres -d postgres "$@"
}

case $cmd in
start)
	mkdir -p "$dir"
	chmod 755 "$dir"
	[ "$(id -u)" != 0 ] || chown postgres: "$dir"
	if [ ! -s "$dir/data/PG_VERSION" ]; then
		as_owner "$bindir/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 ||
			{ cat "$dir/initdb.log" >&2; exit 1; }
		# the socket: trust; 127.0.0.1: a password (the path a Kubernetes Secret's URL takes)
		cat >"$dir/data/pg_hba.conf" <<-EOF
			local all all trust
			host all postgres 127.0.0.1/32 trust
			host all all 127.0.0.1/32 scram-sha-256
		EOF
	fi
	# a free port on 127.0.0.1, kept for restarts
	if [ ! -s "$dir/port" ]; then
		python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' >"$dir/port"
		[ "$(id -u)" != 0 ] || chown postgres: "$dir/port"
	fi
	port=$(cat "$dir/port")
	as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
		-o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c unix_socket_permissions=0777" start >/dev/null ||
		{ tail -20 "$dir/server.log" >&2; exit 1; }
	if [ ! -e "$dir/created" ]; then
		psql_admin -c "CREATE DATABASE sandeval_test" \
			-c "CREATE ROLE sandeval_pw LOGIN SUPERUSER PASSWORD 'pg-test-s3cret'" >/dev/null
		touch "$dir/created"
	fi
	echo "export SANDEVAL_PG_URL='postgresql://postgres@/sandeval_test?host=$dir&port=$port'"
	echo "export SANDEVAL_PG_TCP_URL='postgresql://sandeval_pw:pg-test-s3cret@127.0.0.1:$port/sandeval_test'"
	echo "export SANDEVAL_PG_DIR='$dir'"
	;;
stop | kill)
	[ -s "$dir/data/postmaster.pid" ] || exit 0
	mode=fast
	[ "$cmd" = kill ] && mode=immediate
	as_owner "$bindir/pg_ctl" -D "$dir/data" -m "$mode" -w -t 60 stop >/dev/null
	;;
*)
	usage
	;;
esac
