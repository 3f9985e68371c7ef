#!/usr/bin/env bats
# image.bats: CLI tests of `sandeval image` (build, ls, rm, digest) and of running pinned images on the backend under test
#
# Images go to a store of this file's own (SANDEVAL_IMAGES). Most images are
# built from host files (fast); one test debootstraps a minimal Debian with
# python3 (about a minute, root only, native pass only: the gvisor pass runs
# the same built images through the other tests).

# shellcheck disable=SC2030,SC2031,SC2034 # bats runs each test in a subshell
load helpers

setup_file() {
	check_prerequisites
	export SANDEVAL_IMAGES=$BATS_FILE_TMPDIR/images
	IMG_SRC=$(mktemp -d /var/tmp/sandeval-image-test.XXXXXX 2>/dev/null || mktemp -d "$HOME/sandeval-image-test.XXXXXX")
	chmod 755 "$IMG_SRC"
	export IMG_SRC
}

teardown_file() {
	rm -rf "${IMG_SRC-}"
	[[ -d ${SANDEVAL_IMAGES-} ]] && chmod -R u+w "$SANDEVAL_IMAGES" 2>/dev/null
	rm -rf "${SANDEVAL_IMAGES-}"
}

# img ARGS...: run `sandeval image ARGS`; $out, $err, $rc
img() {
	out=$("$SANDEVAL" image "$@" 2>"$BATS_TEST_TMPDIR/img.err") && rc=0 || rc=$?
	err=$(cat "$BATS_TEST_TMPDIR/img.err")
}

# build_probe_image NAME [EXTRA,...]: an image of the static probe and /bin/sh
# (the probe from a directory outside /tmp, which the sandbox's own /tmp hides)
build_probe_image() {
	local src=$IMG_SRC/src-$1
	mkdir -p "$src"
	cp "$PROBE" "$src/probe"
	chmod -R a+rX "$src"
	img build "$1" --from-host "$src,/bin/sh${2:+,$2}"
	[[ $rc == 0 ]] || flunk "image build $1: exit $rc: $err"
	[[ $out =~ ^$1@sha256:[0-9a-f]{64}$ ]] || flunk "image build printed '$out'"
	REF=$out
	SRC=$src
}

@test "image build --from-host stores a read-only image under its digest, and ls lists it" {
	build_probe_image probeimg
	img ls --json
	[[ $rc == 0 ]] || flunk "image ls: $err"
	local row
	row=$(jq -c 'select(.name == "probeimg")' <<<"$out")
	[[ -n $row ]] || flunk "ls does not list probeimg: $out"
	assert_eq "$(jq -r '"\(.name)@\(.digest)"' <<<"$row")" "$REF" "listed reference"
	local rootfs
	rootfs=$(jq -r .rootfs <<<"$row")
	[[ -e $rootfs/.sandeval || -e $rootfs/work ]] && flunk "mount points were created in the stored image"
	[[ -x $rootfs/bin/sh || -L $rootfs/bin ]] || flunk "no /bin/sh in $rootfs"
	[[ -z $(find "$rootfs" -perm -u+w ! -type l 2>/dev/null | head -1) ]] || flunk "$rootfs has writable entries"
	jq -s -e 'map(select(.name == "host" and has("digest"))) | length == 1' <<<"$out" >/dev/null ||
		flunk "ls has no host line: $out"
	img digest "$REF"
	[[ $rc == 0 && $out == "$REF" ]] || flunk "digest recomputed: $out ($err)"
}

@test "a pinned image runs, and the result names it with its digest" {
	build_probe_image pinme
	sbx --image "$REF" -- "$SRC/probe" ls /
	expect_status ok
	assert_eq "$(j .image.name)" pinme "image.name"
	assert_eq "$(j .image.name)@$(j .image.digest)" "$REF" "image reference in the result"
	sbx --image "$REF" -- "$SRC/probe" ls /usr/bin
	out | grep -qx python3 && flunk "the host's /usr/bin/python3 is in the image"
	sbx --image "$REF" -- /bin/sh -c "echo from-image"
	expect_status ok
	assert_eq "$(out)" from-image "stdout of /bin/sh in the image"
	sbx --image pinme -- /bin/sh -c "exit 0"
	expect_status ok
	assert_eq "$(j .image.digest)" "${REF#*@}" "digest when run by name"
	img digest "$REF"
	[[ $rc == 0 ]] || flunk "the stored image changed after runs on it: $err"
}

@test "a digest that does not match refuses to run, with a clear message" {
	build_probe_image strict
	sbx --image "strict@sha256:$(printf '0%.0s' {1..64})" -- /bin/sh -c "exit 0"
	[[ $rc == 2 ]] || flunk "exit $rc, want 2"
	[[ $err == *"pinned"*"refusing"* ]] || flunk "message: $err"
	[[ -z $json ]] || flunk "a result was printed: $json"
	sbx --image nosuchimage -- /bin/true
	[[ $rc == 2 && $err == *"no image 'nosuchimage'"* ]] || flunk "unknown image: exit $rc: $err"
	sbx --image 'Bad@Name' -- /bin/true
	[[ $rc == 2 && $err == *"image"* ]] || flunk "bad reference: exit $rc: $err"
}

@test "rebuilding a name rotates: a new digest, the old one still runs when pinned" {
	build_probe_image rot
	local old=$REF
	echo changed >"$BATS_TEST_TMPDIR/extra-file"
	chmod a+r "$BATS_TEST_TMPDIR/extra-file"
	build_probe_image rot "$BATS_TEST_TMPDIR/extra-file"
	local new=$REF
	[[ $old != "$new" ]] || flunk "a changed rebuild kept digest $old"
	sbx --image rot -- /bin/sh -c "exit 0"
	assert_eq "$(j .image.digest)" "${new#*@}" "the name alone runs the newest"
	sbx --image "$old" -- /bin/sh -c "exit 0"
	expect_status ok
	assert_eq "$(j .image.digest)" "${old#*@}" "the old pin still runs its own build"
	img rm "$old"
	[[ $rc == 0 ]] || flunk "image rm $old: $err"
	sbx --image "$old" -- /bin/true
	[[ $rc == 2 ]] || flunk "a removed build still ran"
	img rm rot
	[[ $rc == 0 ]] || flunk "image rm rot: $err"
	img ls --json
	jq -e 'select(.name == "rot")' <<<"$out" >/dev/null && flunk "rot still listed"
	img rm rot
	[[ $rc == 2 && $err == *"no image"* ]] || flunk "removing it twice: exit $rc: $err"
}

@test "the same files built twice give the same digest" {
	build_probe_image same
	local first=$REF
	build_probe_image same
	assert_eq "$REF" "$first" "digest of an identical rebuild"
}

@test "image usage errors exit 2 and name what is wrong" {
	local line want args
	while IFS='|' read -r want line; do
		eval "args=($line)"
		img "${args[@]}"
		[[ $rc == 2 ]] || { case_fail "image $line: exit $rc, want 2"; continue; }
		[[ $err == *"$want"* ]] || case_fail "image $line: message does not name '$want': $err"
	done <<-'EOF'
		subcommand|
		frob|frob
		NAME|build
		Host|build Host --from-host /bin/sh
		host|build host --from-host /bin/sh
		/nonexistent|build x --from-host /nonexistent/x
		relative|build x --from-host relative/path
		mix|build x --packages python3 --from-host /bin/sh
		bogus|build x --bogus
		NAME|rm
		no image|rm nosuch
	EOF
	report_cases
}

# Heavy: it hashes all of /usr (~30 s here); the sanitizer pass leaves it out
# (image-digest.c runs there on the debootstrapped image, below, and in test-image).
# bats test_tags=native,root,heavy
@test "the host image: its digest is computed on request, cached, and reported by runs" {
	[[ $BACKEND == native ]] || skip "native: backend-independent, covered in the native pass"
	is_root || skip "root: digesting the host image reads all of /usr, some of which only root may read"
	img digest host
	[[ $rc == 0 && $out =~ ^host@sha256:[0-9a-f]{64}$ ]] || flunk "image digest host: $out ($err)"
	local want=${out#host@}
	probe -- exit 0
	expect_status ok
	assert_eq "$(j .image.name)" host "image.name"
	assert_eq "$(j .image.digest)" "$want" "the cached host digest in the result"
}

# bats test_tags=native,root
@test "debootstrap: a minimal Debian with python3 builds, pins and runs" {
	is_root || skip "root: debootstrap needs root"
	[[ $BACKEND == native ]] || skip "native: built once, in the native pass"
	opted_out debootstrap && skip "debootstrap: SANDEVAL_SKIP names it"
	command -v debootstrap >/dev/null || skip "deps: debootstrap is not installed"
	img build deb --packages python3
	[[ $rc == 0 && $out =~ ^deb@sha256:[0-9a-f]{64}$ ]] || flunk "debootstrap build: exit $rc: ${err: -2000}"
	local ref=$out b
	for b in native gvisor; do
		command -v runsc >/dev/null || [[ $b == native ]] || continue
		json=$("$SANDEVAL" exec --backend "$b" --image "$ref" -- python3 -c 'import sys; print(sys.version_info[0])' \
			2>"$BATS_TEST_TMPDIR/e" </dev/null) && rc=0 || rc=$?
		err=$(cat "$BATS_TEST_TMPDIR/e")
		expect_status ok
		assert_eq "$(out)" 3 "python3 in the debootstrapped image ($b)"
		assert_eq "$(j .image.digest)" "${ref#*@}" "digest in the result ($b)"
	done
	img digest "$ref"
	[[ $rc == 0 ]] || flunk "the stored image changed after runs on it: $err"

	# sandeval run on that image: pinned, recorded, and a task's own pin is obeyed
	local tasks=$BATS_TEST_TMPDIR/tasks db=$BATS_TEST_TMPDIR/run.db
	mkdir -p "$tasks" && cp -r "$BATS_TEST_DIRNAME/../../examples/tasks/fib" "$tasks/"
	grep '"fib"' "$BATS_TEST_DIRNAME/../../examples/samples/good.jsonl" >"$BATS_TEST_TMPDIR/s.jsonl"
	"$SANDEVAL" run --tasks "$tasks" --samples "$BATS_TEST_TMPDIR/s.jsonl" --db "$db" --image deb --no-lint \
		--jobs 1 --quiet --out "$BATS_TEST_TMPDIR/out.jsonl" 2>"$BATS_TEST_TMPDIR/e" ||
		flunk "run --image deb: $(cat "$BATS_TEST_TMPDIR/e")"
	assert_eq "$(jq -s 'map(select(.passed)) | length' "$BATS_TEST_TMPDIR/out.jsonl")" 1 "fib passes on the image"
	assert_eq "$(sqlite3 "$db" "select json_extract(config_json, '$.image') from runs")" "$ref" \
		"the run records the build it was pinned to"
	jq --arg img "$ref" '. + {image: $img}' "$tasks/fib/task.json" >"$tasks/fib/t" && mv "$tasks/fib/t" "$tasks/fib/task.json"
	"$SANDEVAL" run --tasks "$tasks" --samples "$BATS_TEST_TMPDIR/s.jsonl" --db "$db" --no-lint --jobs 1 --quiet \
		--out "$BATS_TEST_TMPDIR/out2.jsonl" 2>"$BATS_TEST_TMPDIR/e" || flunk "task image: $(cat "$BATS_TEST_TMPDIR/e")"
	assert_eq "$(jq -s 'map(select(.passed)) | length' "$BATS_TEST_TMPDIR/out2.jsonl")" 1 "fib passes on its own image"
}

@test "sandeval run: an image pin that matches no build stops the run before any sample, naming the task" {
	build_probe_image pinned
	local ref=$out tasks=$BATS_TEST_TMPDIR/tasks db=$BATS_TEST_TMPDIR/run.db wrong
	wrong="${ref%@*}@sha256:$(printf '0%.0s' {1..64})"
	mkdir -p "$tasks" && cp -r "$BATS_TEST_DIRNAME/../../examples/tasks/fib" "$tasks/"
	grep '"fib"' "$BATS_TEST_DIRNAME/../../examples/samples/good.jsonl" >"$BATS_TEST_TMPDIR/s.jsonl"
	run_sd() { "$SANDEVAL" run --tasks "$tasks" --samples "$BATS_TEST_TMPDIR/s.jsonl" --db "$db" --no-lint --quiet "$@" \
		2>"$BATS_TEST_TMPDIR/e" && rc=0 || rc=$?; err=$(cat "$BATS_TEST_TMPDIR/e"); }
	run_sd --image "$wrong"
	assert_eq "$rc" 2 "exit status of --image with a wrong digest"
	[[ $err == *"image 'pinned' is pinned to sha256:0000"*"refusing to run another image"* ]] || flunk "message: $err"
	run_sd --image nosuch-image
	assert_eq "$rc" 2 "exit status of --image naming no image"
	[[ $err == *"no image 'nosuch-image'"* ]] || flunk "message: $err"
	jq --arg img "$wrong" '. + {image: $img}' "$tasks/fib/task.json" >"$tasks/fib/t" && mv "$tasks/fib/t" "$tasks/fib/task.json"
	run_sd
	assert_eq "$rc" 2 "exit status of a task pinned to a missing build"
	[[ $err == *"task 'fib'"*"is pinned to sha256:0000"* ]] || flunk "message: $err"
	[[ ! -s $db ]] || assert_eq "$(sqlite3 "$db" 'select count(*) from samples')" 0 "samples recorded"
	jq '.image = "Not An Image!"' "$tasks/fib/task.json" >"$tasks/fib/t" && mv "$tasks/fib/t" "$tasks/fib/task.json"
	run_sd
	assert_eq "$rc" 2 "exit status of a malformed task image"
	[[ $err == *"task.json"*"image"*"expected NAME or NAME@sha256:"* ]] || flunk "message: $err"
}
