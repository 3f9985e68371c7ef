/* cmd-gate.c - `sandeval gate`: fail a CI job when a candidate run regresses against a baseline (exit 0/1/2) */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "eval/breaker.h"
#include "store/export.h"
#include "report/gate-report.h"
#include "score/gate.h"
#include "store/store.h"
#include "base/util.h"

static const char gate_usage[] =
	"usage: sandeval gate --baseline RUN_ID|FILE --candidate RUN_ID|FILE [--db PATH|URL]\n"
	"                     [--metric mean|pass@K|composite|lint] [--epsilon 0.01] [--per-class]\n"
	"                     [--junit FILE] [--json FILE] [--seed N] [--resamples N]\n"
	"\n"
	"Compare two runs of the same suite task by task (candidate - baseline) and\n"
	"fail on a regression. A run is a run id in the database or a file written by\n"
	"'sandeval export'. The mean difference gets a 95% bootstrap interval (tasks\n"
	"resampled with replacement); a regression is a mean difference below\n"
	"-epsilon whose interval lies below 0 (docs/ci.md).\n"
	"\n"
	"  --db PATH|URL     the store of runs: an SQLite file or a postgresql:// URL\n"
	"                    (docs/scale.md); default $SANDEVAL_DB, else sandeval.db\n"
	"  --metric M        per task: mean score (default), pass@K, composite\n"
	"                    (0.7 mean + 0.3 lint pass rate) or lint (lint pass rate)\n"
	"  --epsilon E       the drop that matters, in the metric's units (default 0.01)\n"
	"  --per-class       a task class that regresses fails the gate too\n"
	"  --junit FILE      the verdict as JUnit XML\n"
	"  --json FILE       the comparison as JSON ('-': standard output)\n"
	"  --seed N          seed of the bootstrap (default 20240601: the same verdict every time)\n"
	"  --resamples N     bootstrap resamples (default 10000)\n"
	"\n"
	"Exit status: 0 pass, 1 regression, 2 cannot judge (missing or unfinished run,\n"
	"no shared tasks, different suites or formula versions, pass@K with K > n,\n"
	"no lint results for lint/composite, harness errors only, bad usage). The last\n"
	"line printed is the verdict: 'gate: PASS', 'gate: REGRESSION' or 'gate: CANNOT JUDGE'.\n";

enum { OPT_DB = 256, OPT_BASELINE, OPT_CANDIDATE, OPT_METRIC, OPT_EPSILON, OPT_PER_CLASS, OPT_JUNIT,
       OPT_JSON, OPT_SEED, OPT_RESAMPLES, OPT_HELP };

static const struct option options[] = {
	{ "db", required_argument, NULL, OPT_DB },
	{ "baseline", required_argument, NULL, OPT_BASELINE },
	{ "candidate", required_argument, NULL, OPT_CANDIDATE },
	{ "metric", required_argument, NULL, OPT_METRIC },
	{ "epsilon", required_argument, NULL, OPT_EPSILON },
	{ "per-class", no_argument, NULL, OPT_PER_CLASS },
	{ "junit", required_argument, NULL, OPT_JUNIT },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "resamples", required_argument, NULL, OPT_RESAMPLES },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

/* One side of the comparison, loaded from the store or an export file. */
struct side {
	const char *role;		/* "baseline", "candidate" */
	const char *arg;
	char name[512];
	struct run_info info;
	struct sample_result *results;
	size_t n;
	bool from_file, loaded;
};

struct gate_cmd {
	const char *db, *junit, *json;
	struct gate_options opt;
	struct store *store;
	struct side base, cand;
};

/* ARG names a run (not a file) when no such file exists and it looks like
 * a run id: "r-" and hex, or a name given with --run-id (shard.h). */
static bool looks_like_run(const char *arg)
{
	struct stat sb;

	if (stat(arg, &sb) == 0)
		return false;
	return *arg && *arg != '-' && strlen(arg) <= STORE_RUN_ID_MAX && !strstr(arg, ".json") &&
	       strspn(arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == strlen(arg);
}

static int load_side(struct gate_cmd *g, struct side *s, struct sd_error *err)
{
	if (!looks_like_run(s->arg)) {
		s->from_file = true;
		snprintf(s->name, sizeof(s->name), "'%s'", s->arg);
		if (export_load(s->arg, &s->info, &s->results, &s->n, err) < 0)
			return sd_error_wrap(err, "%s", s->role);
		s->loaded = true;
		return 0;
	}
	snprintf(s->name, sizeof(s->name), "run '%s'", s->arg);
	if (!g->store) {
		char name[1024];

		g->store = store_open_existing(g->db, err);
		if (!g->store && err->code == ENOENT)
			return sd_error_errno(err, ENOENT, "%s run '%s': no database '%s' (--db)", s->role, s->arg,
					      store_url_display(g->db, name, sizeof(name)));
		if (!g->store)
			return sd_error_wrap(err, "%s", s->role);
		/* a store whose candidates tried to escape is judged by no one until reset */
		if (breaker_check(g->store, err) < 0)
			return -1;
	}
	if (store_run_get(g->store, s->arg, &s->info, err) < 0 ||
	    store_samples_load(g->store, s->arg, &s->results, &s->n, err) < 0)
		return sd_error_wrap(err, "%s", s->role);
	s->loaded = true;
	return 0;
}

static void side_release(struct side *s)
{
	run_info_release(&s->info);	/* all NULL when nothing was read */
	export_results_free(s->results, s->n);
}

/* Usage errors are a verdict too: "gate: CANNOT JUDGE: ..." and exit 2. */
__attribute__((format(printf, 1, 2)))
static int usage_error(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cmd_error("gate: %s", msg);
	printf("gate: CANNOT JUDGE: %s\n", msg);
	return GATE_CANNOT_JUDGE;
}

static int parse_options(int argc, char **argv, struct gate_cmd *g)
{
	struct sd_error err = { 0 };
	int opt;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+:h", options, NULL)) != -1) {
		const char *v = optarg;
		char *end;

		switch (opt) {
		case OPT_DB: g->db = v; break;
		case OPT_BASELINE: g->base.arg = v; break;
		case OPT_CANDIDATE: g->cand.arg = v; break;
		case OPT_PER_CLASS: g->opt.per_class = true; break;
		case OPT_JUNIT: g->junit = v; break;
		case OPT_JSON: g->json = v; break;
		case OPT_METRIC:
			if (gate_metric_parse(v, &g->opt, &err) < 0)
				return usage_error("--metric: %s", err.msg);
			break;
		case OPT_EPSILON:
			errno = 0;
			g->opt.epsilon = strtod(v, &end);
			if (end == v || *end || errno || !(g->opt.epsilon >= 0 && g->opt.epsilon <= 1))
				return usage_error("--epsilon '%s': expected a number from 0 to 1", v);
			break;
		case OPT_SEED: {
			unsigned long long n;

			errno = 0;
			n = strtoull(v, &end, 10);
			if (end == v || *end || errno || v[0] == '-')
				return usage_error("--seed '%s': expected a non-negative integer", v);
			g->opt.seed = n;
			break;
		}
		case OPT_RESAMPLES: {
			long n;

			if (parse_long(v, 100, 1000000, &n, &err) < 0)
				return usage_error("--resamples: %s", err.msg);
			g->opt.resamples = (size_t)n;
			break;
		}
		case 'h':
		case OPT_HELP:
			fputs(gate_usage, stdout);
			return -1;
		case ':':
			return usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			return usage_error("unknown option '%s' (see 'sandeval gate --help')", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s' (see 'sandeval gate --help')", argv[optind]);
	if (!g->base.arg || !g->cand.arg)
		return usage_error("--baseline and --candidate are required (see 'sandeval gate --help')");
	return 0;
}

/* Write the files asked for; on failure the verdict becomes "cannot judge". */
static void write_outputs(struct gate_cmd *g, struct gate_result *res, const struct gate_run *b,
			  const struct gate_run *c)
{
	struct sd_error err = { 0 };

	for (int attempt = 0; attempt < 2; attempt++) {
		err.msg[0] = '\0';
		if ((g->json && gate_write_json(g->json, res, &g->opt, b, c, &err) < 0) ||
		    (g->junit && gate_write_junit(g->junit, res, &g->opt, &err) < 0)) {
			if (res->verdict == GATE_CANNOT_JUDGE && attempt)
				return;
			gate_result_release(res);
			gate_result_cannot_judge(res, "%s", err.msg);
			continue;	/* once more, with the new verdict */
		}
		return;
	}
}

int cmd_gate(int argc, char **argv)
{
	struct gate_cmd g = { .db = cmd_default_db(), .base = { .role = "baseline" }, .cand = { .role = "candidate" } };
	struct gate_run b = { 0 }, c = { 0 };
	struct gate_result res;
	struct sd_error err = { 0 };
	FILE *out;
	int ret;

	gate_options_init(&g.opt);
	ret = parse_options(argc, argv, &g);
	if (ret)
		return ret < 0 ? 0 : ret;
	out = g.json && strcmp(g.json, "-") == 0 ? stderr : stdout;
	if (load_side(&g, &g.base, &err) < 0 || load_side(&g, &g.cand, &err) < 0) {
		gate_result_cannot_judge(&res, "%s", err.msg);
	} else {
		b = (struct gate_run){ .name = g.base.name, .info = &g.base.info, .results = g.base.results,
				       .n = g.base.n };
		c = (struct gate_run){ .name = g.cand.name, .info = &g.cand.info, .results = g.cand.results,
				       .n = g.cand.n };
		if (gate_compare(&b, &c, &g.opt, &res, &err) < 0)
			gate_result_cannot_judge(&res, "%s", err.msg);
	}
	if (!b.info && g.base.loaded)
		b = (struct gate_run){ .name = g.base.name, .info = &g.base.info, .results = g.base.results,
				       .n = g.base.n };
	write_outputs(&g, &res, g.base.loaded ? &b : NULL, g.cand.loaded ? &c : NULL);
	gate_print(out, &res, &g.opt, g.base.loaded ? &b : NULL, g.cand.loaded ? &c : NULL);
	fflush(out);
	ret = (int)res.verdict;
	gate_result_release(&res);
	side_release(&g.base);
	side_release(&g.cand);
	if (g.store)
		store_close(g.store);
	return ret;
}
