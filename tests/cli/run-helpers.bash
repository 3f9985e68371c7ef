# run-helpers.bash - what the bats files that drive `sandeval run` share:
# the pass's backend, run_eval, flunk. Load it with `load run-helpers`;
# a file that wants options on every run sets RUN_EVAL_OPTS first
# (e.g. RUN_EVAL_OPTS=(--no-lint)).

# shellcheck disable=SC2034 # used by the files that load this one
BACKEND=${SANDEVAL_BACKEND:-native}
BACKEND_OPTS=()
[[ $BACKEND == native ]] || BACKEND_OPTS=(--backend "$BACKEND")

# run_eval ARG...: sandeval run --db t.db ARG... in the test's directory;
# $rc (its exit status), $out (stdout), $err (stderr)
run_eval() {
	"$SANDEVAL" run "${BACKEND_OPTS[@]}" --db t.db "${RUN_EVAL_OPTS[@]}" "$@" >stdout.txt 2>stderr.txt && rc=0 || rc=$?
	out=$(cat stdout.txt)
	err=$(cat stderr.txt)
}

# flunk MESSAGE: fail, showing the last command's exit status, stderr and stdout
flunk() {
	{
		echo "FAIL: $*"
		echo "--- exit ${rc-}; stderr:"
		[[ ! -f stderr.txt ]] || tail -c 3000 stderr.txt
		echo "--- stdout:"
		[[ ! -f stdout.txt ]] || tail -c 3000 stdout.txt
	} >&2
	return 1
}
