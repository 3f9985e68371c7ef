/* feedback.h - a sample's test outcomes as short, structured feedback (for people and agent loops) */
#ifndef SANDEVAL_FEEDBACK_H
#define SANDEVAL_FEEDBACK_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "suite/result.h"
#include "store/store.h"

struct feedback_options {
	size_t max_lines;	/* of a failing test's detail kept (default 5) */
	size_t max_bytes;	/* of a failing test's detail kept (default 500) */
	size_t max_findings;	/* lint findings listed per sample (default 20) */
	bool holdout;		/* show the details of holdout tests (default: withheld) */
};

void feedback_options_init(struct feedback_options *o);

/* The start of DETAIL: at most MAX_LINES lines and MAX_BYTES bytes, cut on a
 * character boundary, invalid UTF-8 as U+FFFD, NUL bytes dropped, trailing
 * newlines removed. *cut_lines gets the number of lines left out (at least 1
 * when anything was: a line cut short counts). malloc'd; NULL on ENOMEM. */
char *feedback_excerpt(const char *detail, size_t max_lines, size_t max_bytes, size_t *cut_lines);

/* One sample as a JSON object (docs/show.md); NULL on ENOMEM. */
json_t *feedback_sample_json(const struct sample_result *r, const struct feedback_options *o);
/* The same as text; control characters of untrusted text are shown as '?',
 * but tab, and newline in details and lint messages, whose lines go on
 * indented: untrusted text never starts a line of its own. */
void feedback_sample_text(FILE *f, const struct sample_result *r, const struct feedback_options *o);

/* The whole document of `sandeval show --json`: the run, TASK_ID (may be
 * NULL) and the samples, in the order given. NULL on ENOMEM. */
json_t *feedback_json(const struct run_info *run, const char *task_id, const struct sample_result *const *v,
		      size_t n, const struct feedback_options *o);

#endif
