/* export.h - a run as a versioned JSON document (a baseline to commit to a repository) and back */
#ifndef SANDEVAL_EXPORT_H
#define SANDEVAL_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/error.h"
#include "suite/result.h"
#include "store/store.h"

#define EXPORT_FORMAT "sandeval-run"
#define EXPORT_VERSION 1		/* the newest this sandeval writes and reads (docs/ci.md) */
#define EXPORT_FILE_MAX (256u << 20)	/* bytes of an export file read */

/* RUN and its N RESULTS as an export document on F (PATH names it in
 * messages); WITH_TESTS adds each sample's tests (name, tier, weight,
 * visibility, status, detail). */
int export_write(FILE *f, const char *path, const struct run_info *run, const struct sample_result *results,
		 size_t n, bool with_tests, struct sd_error *err);

/* Parse an export document of LEN bytes, NAME naming it in messages
 * ("'NAME': samples[3].score: expected a number or null, got a string").
 * It is untrusted input: every field is checked. On success *run
 * (run_info_release) and *results (export_results_free) are filled. */
int export_parse(const char *buf, size_t len, const char *name, struct run_info *run,
		 struct sample_result **results, size_t *n, struct sd_error *err);
/* export_parse() of the file at PATH (at most EXPORT_FILE_MAX bytes). */
int export_load(const char *path, struct run_info *run, struct sample_result **results, size_t *n,
		struct sd_error *err);
void export_results_free(struct sample_result *results, size_t n);

#endif
