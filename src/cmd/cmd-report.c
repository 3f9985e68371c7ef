/* cmd-report.c - `sandeval report`: a run against the previous one on the terminal, and the HTML dashboard */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cmd.h"
#include "report/report-status.h"
#include "report/report-trend.h"
#include "store/store.h"
#include "base/util.h"

static const char report_usage[] =
	"usage: sandeval report [--db PATH|URL] [RUN_ID] [--against RUN_ID] [--html FILE] [--last N]\n"
	"\n"
	"Compare a run (default: the newest) with another (default: the one before it):\n"
	"mean, median, p10, pass@k, lint pass rate, composite and cost, overall and per\n"
	"task class, each with its change (arrows: better, worse, same).\n"
	"\n"
	"  --db PATH|URL     the store of runs: an SQLite file or a postgresql:// URL\n"
	"                    (docs/scale.md); default $SANDEVAL_DB, else sandeval.db\n"
	"  --against RUN_ID  the run to compare with (default: the run before RUN_ID)\n"
	"  --html FILE       also write the dashboard, one self-contained HTML page\n"
	"                    (trends, score distribution, lint findings, failing and slow\n"
	"                    tasks, ROUGE-L against the functional score); '-' for stdout\n"
	"  --last N          runs on the dashboard's trend lines (default 20)\n"
	"\n"
	"Exit status: 0 when the report was written; 2 on bad usage, an unknown run or\n"
	"an unreadable database. docs/report.md explains every figure.\n";

enum { OPT_DB = 256, OPT_AGAINST, OPT_HTML, OPT_LAST, OPT_HELP };

static const struct option options[] = {
	{ "db", required_argument, NULL, OPT_DB },
	{ "against", required_argument, NULL, OPT_AGAINST },
	{ "html", required_argument, NULL, OPT_HTML },
	{ "last", required_argument, NULL, OPT_LAST },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

#define fail(...) cmd_fail("report", __VA_ARGS__)

/* Arrows as UTF-8 only on a terminal whose locale says UTF-8. */
static bool utf8_terminal(void)
{
	const char *names[] = { "LC_ALL", "LC_CTYPE", "LANG" };

	if (!isatty(STDOUT_FILENO))
		return false;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *v = getenv(names[i]);

		if (v && *v)
			return strcasestr(v, "utf-8") || strcasestr(v, "utf8");
	}
	return false;
}

int cmd_report(int argc, char **argv)
{
	const char *db = cmd_default_db(), *run_id = NULL, *against = NULL, *html = NULL;
	char incomplete[200];
	long last = TREND_LAST_DEFAULT;
	struct sd_error err = { 0 };
	struct trend t;
	struct store *st;
	int opt, ret = 0;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
		switch (opt) {
		case OPT_DB: db = optarg; break;
		case OPT_AGAINST: against = optarg; break;
		case OPT_HTML: html = optarg; break;
		case OPT_LAST:
			if (parse_long(optarg, 1, 100000, &last, &err) < 0)
				return fail("--last: %s", err.msg);
			break;
		case 'h':
		case OPT_HELP:
			fputs(report_usage, stdout);
			return 0;
		case ':':
			return fail("option '%s' needs a value", argv[optind - 1]);
		default:
			return fail("unknown option '%s' (see 'sandeval report --help')", argv[optind - 1]);
		}
	}
	if (optind < argc)
		run_id = argv[optind++];
	if (optind < argc)
		return fail("unexpected argument '%s' (see 'sandeval report --help')", argv[optind]);
	st = store_open_existing(db, &err);
	if (!st)
		return fail("%s", err.msg);
	if (trend_load(st, store_name(st), run_id, against, (size_t)last, &t, &err) < 0) {
		store_close(st);
		return fail("%s", err.msg);
	}
	store_close(st);
	if (t.n_runs && !t.runs[t.n_runs - 1].info.finished_ms)
		fprintf(stderr, "sandeval: report: warning: %s: its figures are of the samples recorded so far\n",
			report_incomplete(&t.runs[t.n_runs - 1].info, incomplete, sizeof(incomplete)));
	if (!html || strcmp(html, "-") != 0)
		report_compare(stdout, &t, utf8_terminal());
	if (html && report_html(html, &t, &err) < 0)
		ret = fail("%s", err.msg);
	trend_release(&t);
	if (fflush(stdout) != 0 || ferror(stdout))
		ret = fail("cannot write the report: %s", strerror(errno ? errno : EIO));
	return ret;
}
