#!/bin/sh
# check-layers.sh - a lower layer of src/lib never includes a higher one (docs/internals.md)
#
# Each folder of src/lib is a layer; a file may include headers of its own
# layer and of the layers listed for it here, nothing else. Every include of
# a library header names its layer ("sandbox/sandbox.h"). Prints each
# violation as FILE:LINE: and exits 1 when there is any.
cd "$(dirname "$0")/.." || exit 2

allowed() {
	case $1 in
	base) echo "base" ;;
	sandbox) echo "base sandbox" ;;
	suite) echo "base suite" ;;
	store) echo "base suite store" ;;
	score) echo "base suite store score" ;;
	eval) echo "base sandbox suite store score eval" ;;
	report) echo "base suite store score report" ;;
	serve) echo "base sandbox suite store score eval report serve" ;;
	agent) echo "base sandbox suite store score eval report agent" ;;
	redteam) echo "base sandbox suite store score eval report redteam" ;;
	*) echo "?" ;;
	esac
}

layers=$(cd src/lib && ls -d */ | tr -d /)
bad=0
for dir in $layers; do
	[ "$(allowed "$dir")" != "?" ] || { echo "src/lib/$dir: a folder this check does not know (add its rule)"; bad=1; }
done
for f in $(find src/lib -name '*.[ch]' | sort); do
	layer=$(echo "$f" | cut -d/ -f3)
	ok=$(allowed "$layer")
	grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" | while IFS= read -r line; do
		n=${line%%:*}
		inc=$(echo "$line" | sed 's/.*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/')
		case $inc in
		*/*) to=${inc%%/*} ;;
		sysfilter-bpf.h) continue ;;	# generated, beside sysfilter.c's build
		*) echo "$f:$n: '$inc' does not name its layer"; echo x >>"${TMPDIR:-/tmp}/layers.$$"; continue ;;
		esac
		case " $ok " in
		*" $to "*) ;;
		*) echo "$f:$n: layer '$layer' includes '$inc' of layer '$to' (allowed: $ok)"; echo x >>"${TMPDIR:-/tmp}/layers.$$" ;;
		esac
	done
done
if [ -s "${TMPDIR:-/tmp}/layers.$$" ]; then
	bad=1
fi
rm -f "${TMPDIR:-/tmp}/layers.$$"
[ "$bad" = 0 ] && echo "layers: every include of src/lib keeps to its layer's rule"
exit "$bad"
