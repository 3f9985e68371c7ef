#!/bin/sh
# deps.sh - install the Debian packages sandeval needs to build, test, demo and bench (only the missing ones)
set -eu

pkgs="gcc g++ make pkg-config libc6-dev libseccomp-dev libjansson-dev libcmocka-dev
      bats jq python3 python3-numpy util-linux time bubblewrap hyperfine libsqlite3-dev libxml2-utils libxml2-dev
      zlib1g-dev nettle-dev libssl-dev sqlite3 nodejs runsc debootstrap strace
      postgresql libpq-dev libpq5 libmicrohttpd-dev curl libcurl4-openssl-dev
      flake8 bandit cppcheck clang-tidy eslint
      chromium man-db"

missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps: missing Debian packages:$missing" >&2
	echo "deps: install them as root: apt-get install -y$missing" >&2
	exit 1
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
