#!/usr/bin/env bats
# install.bats - `make install`: the binary, its runners and sandeval(1) under PREFIX; the installed binary finds its runners by itself
#
# It drives the Makefile of the source tree, so it runs in the root native
# pass only (the uid 65534 pass has a copy of tests/cli, not the tree).
# bats file_tags=native,root

TOP=$BATS_TEST_DIRNAME/../..
EX=$TOP/examples

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	[[ -f $TOP/Makefile ]] || skip "host: no source tree (Makefile) beside the tests"
}

@test "make install puts sandeval, its runners and sandeval(1) under DESTDIR/PREFIX; the installed binary runs without SANDEVAL_RUNNERS" {
	local dest=$BATS_TEST_TMPDIR/dest prefix=/opt/sandeval-test out
	make -s -C "$TOP" install DESTDIR="$dest" PREFIX="$prefix" >make.out 2>&1 || { cat make.out >&2; return 1; }
	[[ -x $dest$prefix/bin/sandeval ]] || { echo "no binary" >&2; return 1; }
	[[ -r $dest$prefix/share/sandeval/runners/driver.py && -r $dest$prefix/share/sandeval/runners/lint/lint.json ]] ||
		{ echo "no runners" >&2; return 1; }
	# the page renders, names every command and the runners' lookup
	out=$(MANWIDTH=100 man -l "$dest$prefix/share/man/man1/sandeval.1" 2>man.err) || { cat man.err >&2; return 1; }
	[[ ! -s man.err ]] || { echo "man: $(cat man.err)" >&2; return 1; }
	local cmd
	for cmd in exec run lint gc image gate export show report; do
		[[ $out == *"sandeval $cmd"* ]] || { echo "the page lacks 'sandeval $cmd'" >&2; return 1; }
	done
	[[ $out == *"share/sandeval/runners"* ]] || { echo "the page does not say where the runners are" >&2; return 1; }
	# moved elsewhere as a whole (a package's files land under a new root): still finds its runners
	mv "$dest$prefix" moved
	env -u SANDEVAL_RUNNERS ./moved/bin/sandeval run --tasks "$EX/tasks" --samples "$EX/samples/good.jsonl" \
		--db t.db --quiet --no-lint --out out.jsonl >run.out 2>&1 || { cat run.out >&2; return 1; }
	[[ $(jq -s 'map(select(.passed)) | length' out.jsonl) == 5 ]] || { cat out.jsonl >&2; return 1; }
	# -h is --help, for every command
	for cmd in exec run lint gc image gate export show report; do
		./moved/bin/sandeval "$cmd" -h >h.out 2>&1 || { echo "$cmd -h: exit $?: $(cat h.out)" >&2; return 1; }
		grep -q "^usage: sandeval $cmd" h.out || { echo "$cmd -h: $(head -3 h.out)" >&2; return 1; }
	done
	make -s -C "$TOP" uninstall DESTDIR="$dest" PREFIX="$prefix" >/dev/null 2>&1
}
