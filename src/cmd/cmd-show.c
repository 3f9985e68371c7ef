/* cmd-show.c - `sandeval show`: the per-test outcomes of a run's samples as feedback (text or JSON) */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/agent.h"
#include "cmd.h"
#include "report/feedback.h"
#include "store/store.h"
#include "base/util.h"

static const char show_usage[] =
	"usage: sandeval show RUN_ID [TASK_ID] [--db PATH|URL] [--json] [--holdout] [--lines N] [--bytes N]\n"
	"\n"
	"The outcome of each sample of a run (or of one task): its score, each failing\n"
	"test with its tier, status and the first lines of what went wrong (expected\n"
	"vs actual, the assertion, the error), passing tests as a count, lint\n"
	"findings. The feedback an agent loop consumes (docs/show.md). An agent run's id\n"
	"(a-...) shows its trajectory instead: each request (plan, act, reflect) with its\n"
	"tokens and the feedback it carried, checkpoints, stop reasons (docs/agent.md).\n"
	"\n"
	"  --db PATH|URL the store of runs: an SQLite file or a postgresql:// URL\n"
	"                (docs/scale.md); default $SANDEVAL_DB, else sandeval.db\n"
	"  --json        one JSON document (schema in docs/show.md)\n"
	"  --holdout     show the details of holdout tests too (withheld by default)\n"
	"  --lines N     lines of a failing test's detail shown (default 5)\n"
	"  --bytes N     bytes of a failing test's detail shown (default 500)\n"
	"\n"
	"Exit status: 0 when shown, 2 on an unknown run or task, or a bad option.\n";

enum { OPT_DB = 256, OPT_JSON, OPT_HOLDOUT, OPT_LINES, OPT_BYTES, OPT_HELP };

static const struct option options[] = {
	{ "db", required_argument, NULL, OPT_DB },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "holdout", no_argument, NULL, OPT_HOLDOUT },
	{ "lines", required_argument, NULL, OPT_LINES },
	{ "bytes", required_argument, NULL, OPT_BYTES },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

#define fail(...) cmd_fail("show", __VA_ARGS__)

static int cmp_result(const void *a, const void *b)
{
	const struct sample_result *x = *(const struct sample_result *const *)a;
	const struct sample_result *y = *(const struct sample_result *const *)b;
	int c = strcmp(x->task_id ? x->task_id : "", y->task_id ? y->task_id : "");

	return c ? c : strcmp(x->sample_id ? x->sample_id : "", y->sample_id ? y->sample_id : "");
}

static int show(const struct run_info *info, const char *task, struct sample_result *v, size_t n, bool json,
		const struct feedback_options *o)
{
	const struct sample_result **sel = malloc((n ? n : 1) * sizeof(*sel));
	size_t ns = 0;
	int ret = 0;

	if (!sel)
		return fail("out of memory");
	for (size_t i = 0; i < n; i++)
		if (!task || (v[i].task_id && strcmp(v[i].task_id, task) == 0))
			sel[ns++] = &v[i];
	if (task && ns == 0) {
		free(sel);
		return fail("run '%s' has no sample of task '%s'", info->id, task);
	}
	qsort(sel, ns, sizeof(*sel), cmp_result);
	if (json) {
		json_t *doc = feedback_json(info, task, sel, ns, o);

		if (!doc || json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(15)) < 0 ||
		    fputc('\n', stdout) == EOF)
			ret = fail("cannot write the JSON document: %s", doc ? "write error" : "out of memory");
		json_decref(doc);
	} else {
		printf("run %s, %zu sample%s%s%s%s\n", info->id, ns, ns == 1 ? "" : "s", task ? " of task '" : "",
		       task ? task : "", task ? "'" : "");
		for (size_t i = 0; i < ns; i++) {
			putchar('\n');
			feedback_sample_text(stdout, sel[i], o);
		}
	}
	if (fflush(stdout) != 0 && ret == 0)
		ret = fail("cannot write to standard output: %s", strerror(errno));
	free(sel);
	return ret;
}

int cmd_show(int argc, char **argv)
{
	const char *db = cmd_default_db(), *run_id, *task = NULL;
	char name[1024];
	struct feedback_options fo;
	struct sd_error err = { 0 };
	struct run_info info = { 0 };
	struct sample_result *v = NULL;
	size_t n = 0;
	bool json = false;
	struct store *st;
	int opt, ret;
	long num;

	feedback_options_init(&fo);
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
		switch (opt) {
		case OPT_DB: db = optarg; break;
		case OPT_JSON: json = true; break;
		case OPT_HOLDOUT: fo.holdout = true; break;
		case OPT_LINES:
			if (parse_long(optarg, 1, 10000, &num, &err) < 0)
				return fail("--lines: %s", err.msg);
			fo.max_lines = (size_t)num;
			break;
		case OPT_BYTES:
			if (parse_long(optarg, 16, 1 << 20, &num, &err) < 0)
				return fail("--bytes: %s", err.msg);
			fo.max_bytes = (size_t)num;
			break;
		case 'h':
		case OPT_HELP:
			fputs(show_usage, stdout);
			return 0;
		case ':':
			return fail("option '%s' needs a value", argv[optind - 1]);
		default:
			return fail("unknown option '%s' (see 'sandeval show --help')", argv[optind - 1]);
		}
	}
	if (optind == argc || argc - optind > 2)
		return fail("%s (see 'sandeval show --help')", optind == argc ? "a RUN_ID is required" :
			    "expected RUN_ID and at most one TASK_ID");
	run_id = argv[optind];
	if (argc - optind == 2)
		task = argv[optind + 1];
	st = store_open_existing(db, &err);
	if (!st && err.code == ENOENT)
		return fail("no database '%s' (--db): %s", store_url_display(db, name, sizeof(name)), strerror(ENOENT));
	if (!st)
		return fail("%s", err.msg);
	if (strncmp(run_id, "a-", 2) == 0) {
		/* an agent run: its trajectory */
		ret = agent_trajectory(stdout, st, run_id, task, json, &err) < 0 ? fail("%s", err.msg) : 0;
		store_close(st);
		return ret;
	}
	if (store_run_get(st, run_id, &info, &err) < 0 || store_samples_load(st, run_id, &v, &n, &err) < 0) {
		store_close(st);
		run_info_release(&info);
		return fail("%s", err.msg);
	}
	store_close(st);
	ret = show(&info, task, v, n, json, &fo);
	for (size_t i = 0; i < n; i++)
		sample_result_release(&v[i]);
	free(v);
	run_info_release(&info);
	return ret;
}
