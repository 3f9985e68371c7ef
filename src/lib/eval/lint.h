/* lint.h - lint a candidate in a sandbox (flake8, bandit, cppcheck, clang-tidy, eslint), parse, judge, summarize */
#ifndef SANDEVAL_LINT_H
#define SANDEVAL_LINT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/error.h"
#include "suite/result.h"
#include "suite/task.h"

/* The program that is linted: HumanEval's prompt + completion, else the
 * sample's code as given (MBPP solution, native source). malloc'd; NULL on ENOMEM. */
char *lint_source(const struct task *task, const struct sample *sample);

/* Turn what the lint sandbox printed (TEXT: the driver's JSON envelope,
 * untrusted) into r->lint, r->lint_detail and r->findings, for the linters
 * LANG declares (a language object of lint.json: "source", "tools"). FATE
 * says how the sandbox ended, for the message when the envelope is not
 * there. Findings on lines before FIRST_LINE are the task's, not the
 * candidate's (HumanEval's prompt, above the completion): they are left
 * out and counted in the detail. 0, or -1 on ENOMEM. */
int lint_read_envelope(const char *text, size_t len, const char *fate, const json_t *lang,
		       enum lint_severity threshold, int first_line, struct sample_result *r, struct sd_error *err);
/* The first line of lint_source() that is the candidate's: 1, or the line
 * after HumanEval's prompt. */
int lint_first_line(const struct task *task, const struct sample *sample);

/* Findings parsed from one tool's output (untrusted text). */
struct lint_findings {
	struct lint_finding *v;
	size_t n, cap;
	size_t dropped;		/* findings past LINT_MAX_PARSED, counted only */
	size_t n_by_severity[LINT_SEV_ERROR + 1];	/* findings at each severity, dropped ones included */
};
#define LINT_MAX_PARSED 10000	/* findings kept per sample while parsing */
#define LINT_MAX_KEPT 100	/* findings recorded per sample, the most severe first */

void lint_findings_release(struct lint_findings *fs);

/* Parse what TOOL ("flake8", "bandit", "cppcheck", "clang-tidy", "eslint")
 * printed (OUT: the output it reports findings on; for cppcheck that is its
 * stderr) with exit status EXIT_CODE into FS, for the candidate file SOURCE
 * ("/work/candidate.py"). 0; -1 when the output makes no sense for that exit
 * status (the tool failed: *err says how), or on ENOMEM. Findings parsed
 * before a failure stay in FS. */
int lint_parse(const char *tool, const char *out, size_t len, int exit_code, const char *source,
	       struct lint_findings *fs, struct sd_error *err);
/* The tools lint_parse knows, NULL-terminated. */
extern const char *const lint_tools[];

/* LINT_PASSED when no finding of FS is at or above THRESHOLD, else LINT_FAILED. */
enum lint_status lint_judge(const struct lint_findings *fs, enum lint_severity threshold);

#endif
