/* cmd-export.c - `sandeval export`: a recorded run as a versioned JSON document (a baseline for `sandeval gate`) */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "store/export.h"
#include "store/store.h"
#include "base/util.h"

static const char export_usage[] =
	"usage: sandeval export RUN_ID [--db PATH|URL] [-o FILE] [--tests]\n"
	"\n"
	"Write a run (its suite hash, formula version, and every sample's score,\n"
	"verdict, lint status and composite) as a versioned JSON document, e.g. a\n"
	"baseline to commit for 'sandeval gate --baseline FILE' (docs/ci.md).\n"
	"\n"
	"  --db PATH|URL the store of runs: an SQLite file or a postgresql:// URL\n"
	"                (docs/scale.md); default $SANDEVAL_DB, else sandeval.db\n"
	"  -o FILE       where to write (default: standard output); written whole or not at all\n"
	"  --tests       add each sample's tests (name, tier, weight, visibility, status, detail)\n"
	"\n"
	"Exit status: 0 when written, 2 on a missing run or database, or a write error.\n";

enum { OPT_DB = 256, OPT_TESTS, OPT_HELP };

static const struct option options[] = {
	{ "db", required_argument, NULL, OPT_DB },
	{ "output", required_argument, NULL, 'o' },
	{ "tests", no_argument, NULL, OPT_TESTS },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

#define fail(...) cmd_fail("export", __VA_ARGS__)

/* Write to PATH.tmp, then rename: a baseline is never left half written. */
static int write_to(const char *path, const struct run_info *run, const struct sample_result *v, size_t n,
		    bool tests)
{
	struct sd_error err = { 0 };
	cleanup_free char *tmp = NULL;
	FILE *f;
	int ret;

	if (!path || strcmp(path, "-") == 0) {
		ret = export_write(stdout, "standard output", run, v, n, tests, &err);
		if (ret == 0 && fflush(stdout) != 0)
			return fail("cannot write to standard output: %s", strerror(errno));
		return ret < 0 ? fail("%s", err.msg) : 0;
	}
	tmp = xasprintf("%s.tmp", path);
	if (!tmp)
		return fail("out of memory");
	f = fopen(tmp, "wxe");
	if (!f && errno == EEXIST && unlink(tmp) == 0)	/* left by a killed export */
		f = fopen(tmp, "wxe");
	if (!f)
		return fail("cannot create '%s': %s", tmp, strerror(errno));
	ret = export_write(f, path, run, v, n, tests, &err);
	if (ferror(f) && ret == 0)
		ret = sd_error_set(&err, EIO, "cannot write '%s': write error", path);
	if ((fflush(f) != 0 || fsync(fileno(f)) != 0) && ret == 0)
		ret = sd_error_errno(&err, errno, "cannot write '%s'", path);
	if (fclose(f) != 0 && ret == 0)
		ret = sd_error_errno(&err, errno, "cannot write '%s'", path);
	if (ret == 0 && rename(tmp, path) < 0)
		ret = sd_error_errno(&err, errno, "cannot rename '%s' to '%s'", tmp, path);
	if (ret < 0) {
		unlink(tmp);
		return fail("%s", err.msg);
	}
	return 0;
}

int cmd_export(int argc, char **argv)
{
	const char *db = cmd_default_db(), *out = NULL, *run_id;
	char name[1024];
	bool tests = false;
	struct sd_error err = { 0 };
	struct run_info info = { 0 };
	struct sample_result *v = NULL;
	size_t n = 0;
	struct store *st;
	int opt, ret;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":o:h", options, NULL)) != -1) {
		switch (opt) {
		case OPT_DB: db = optarg; break;
		case 'o': out = optarg; break;
		case OPT_TESTS: tests = true; break;
		case 'h':
		case OPT_HELP:
			fputs(export_usage, stdout);
			return 0;
		case ':':
			return fail("option '%s' needs a value", argv[optind - 1]);
		default:
			return fail("unknown option '%s' (see 'sandeval export --help')", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return fail("%s (see 'sandeval export --help')", optind == argc ? "a RUN_ID is required" :
			    "one RUN_ID only");
	run_id = argv[optind];
	st = store_open_existing(db, &err);
	if (!st && err.code == ENOENT)
		return fail("no database '%s' (--db): %s", store_url_display(db, name, sizeof(name)), strerror(ENOENT));
	if (!st)
		return fail("%s", err.msg);
	if (store_run_get(st, run_id, &info, &err) < 0 || store_samples_load(st, run_id, &v, &n, &err) < 0) {
		store_close(st);
		run_info_release(&info);
		return fail("%s", err.msg);
	}
	store_close(st);
	if (info.finished_ms == 0 && info.n_samples > 0)
		fprintf(stderr, "sandeval: export: warning: run '%s' is unfinished: %lld of %lld samples recorded; "
			"'sandeval gate' will not judge it\n", run_id, (long long)info.n_recorded, (long long)info.n_samples);
	else if (info.finished_ms == 0)
		fprintf(stderr, "sandeval: export: warning: run '%s' is unfinished; 'sandeval gate' will not judge it\n",
			run_id);
	ret = write_to(out, &info, v, n, tests);
	for (size_t i = 0; i < n; i++)
		sample_result_release(&v[i]);
	free(v);
	run_info_release(&info);
	return ret;
}
