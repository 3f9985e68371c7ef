/* task.h - what is evaluated: tasks (HumanEval, MBPP, EvalPlus, HumanEval-X, MultiPL-E, native suites) and the samples to score */
#ifndef SANDEVAL_TASK_H
#define SANDEVAL_TASK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "base/error.h"

/* TASK_PROGRAM: HumanEval-X's and MultiPL-E's C++ and JavaScript tasks,
 * whose test is a program appended to the candidate's (docs/tasks.md). */
enum task_format { TASK_HUMANEVAL, TASK_MBPP, TASK_NATIVE, TASK_EVALPLUS, TASK_PROGRAM };
enum test_tier { TIER_CANONICAL, TIER_EDGE, TIER_PROPERTY };
enum test_visibility { VIS_PUBLIC, VIS_HOLDOUT };

/* A test a native suite declares, or one input of an EvalPlus task ("base/3",
 * "plus/17"). (HumanEval and MBPP tests are code: the evaluator splits them
 * into tests at run time, see eval.h.) */
struct task_test {
	char *name;
	enum test_tier tier;
	double weight;			/* defaults: canonical 1.0, edge 1.5, property 1.0 */
	enum test_visibility visibility;
	char *args_json;		/* JSON array of arguments, or NULL. EvalPlus: the input's text as
					 * the file has it, read by Python's json (integers of any size,
					 * NaN, Infinity): not for jansson */
	char *expected_json;		/* JSON value, or NULL: the reference solution's answer */
	char *generator;		/* property tests: generator spec (see docs/tasks.md), or NULL */
	int cases;			/* property tests: how many inputs to generate */
};

struct task {
	char *id;
	char *class;			/* for per-class aggregates ("humaneval", "mbpp", or the manifest's) */
	char *language;			/* "python", "c", "javascript", "cpp" (program tasks) */
	enum task_format format;
	char *prompt;
	char *entry_point;		/* the function under test */
	char *signature;		/* C tasks: the entry point's prototype, "long gcd(long a, long b)"; else NULL */
	char *reference;		/* HumanEval canonical_solution (a body); MBPP code; native reference source */
	char *test_code;		/* HumanEval "test" (def check...); MBPP asserts, one a line */
	char *setup_code;		/* MBPP test_setup_code / test_imports; NULL when none */
	struct task_test *tests;	/* native suites */
	size_t n_tests;
	double cpu_time, wall_time;	/* per-task limits; 0 = the run's defaults */
	uint64_t memory;
	char *image;			/* native manifests: the image its tests need, NAME[@sha256:HEX]; NULL: the run's */
	char *origin;			/* "FILE:LINE" or the task's directory, for messages */
	char *test_split;		/* test_code taken apart, as JSON (eval_prepare); NULL: the
					 * driver parses test_code itself. Owned by eval_prepare's caller */
	double atol;			/* EvalPlus: absolute tolerance of float comparisons (0: exact) */
	char *contract;			/* EvalPlus: the inputs' preconditions (kept, not run); else NULL */
	/* Program tasks: the program is [setup_code "\n"] prompt completion "\n"
	 * test_code; it passes when it exits with 0 (or, QUIET, writes nothing) */
	char *build;			/* the compiler's argv as a JSON array ({source}: the program's
					 * file); NULL: the language's runner's */
	bool quiet;			/* passes only by writing nothing (HumanEval-X's JavaScript) */
	bool high_risk;			/* native task.json "risk": "high": a person approves what the
					 * agent loop chose (docs/agent.md, checkpoints) */
};

struct task_set {
	struct task *tasks;
	size_t n;
	enum task_format format;
	char hash[65];			/* sha256 hex over the task data as loaded (the "suite hash") */
};

/* Load tasks from PATH: a HumanEval .jsonl/.jsonl.gz, MBPP mbpp.jsonl or
 * sanitized-mbpp.json, EvalPlus's HumanEval+ or MBPP+ .jsonl[.gz], HumanEval-X's
 * or MultiPL-E's C++ or JavaScript file, or a directory of native tasks (one
 * directory per task with task.json). The format is detected from the content. Every
 * problem found is reported as "FILE:LINE: field 'X': ..."; returns -1 on
 * the first one (nothing is half-loaded). */
int task_set_load(const char *path, struct task_set *set, struct sd_error *err);
void task_set_release(struct task_set *set);
/* EvalPlus's Mini file beside PATH (--mini): "HumanEvalPlus-v0.1.10.jsonl.gz"
 * -> "HumanEvalPlus-Mini-v0.1.10.jsonl.gz" in the same directory, malloc'd in
 * *OUT. -1 when PATH is no EvalPlus file name or there is no such file. */
int task_mini_path(const char *path, char **out, struct sd_error *err);
const struct task *task_set_find(const struct task_set *set, const char *id);
/* A deep copy of FROM in *TO (freed with task_release, or with the set it is put
 * in); -1 on ENOMEM, *TO untouched. */
int task_copy(const struct task *from, struct task *to);
/* Release what one task holds (a task_copy that is not in a set). */
void task_release(struct task *t);

struct sample {
	char *task_id;
	char *sample_id;		/* given, or "<task_id>/<n>" counting per task from 0 */
	char *model;			/* NULL when not given */
	char *code;			/* the completion or the solution (sanitized with --sanitize) */
	char *given;			/* --sanitize changed the code: the code as given; else NULL */
	bool is_completion;		/* "completion" (appended to the prompt) vs "solution" (whole program) */
	size_t line;			/* 1-based line in the samples file */
	bool task_id_int;		/* the file gave task_id as an integer (MBPP's): TASK_ID_NUM */
	long long task_id_num;
};

struct sample_set {
	struct sample *samples;
	size_t n;
	bool sanitized;			/* sample_set_sanitize went over it (suite/sanitize.h) */
};

/* How a sharded run splits a sample set (docs/scale.md): shard I of N
 * holds the samples at positions I, I + N, I + 2N, ... of the file, so
 * that each shard gets every task's samples in equal measure. */
static inline bool sample_in_shard(size_t i, int shard, int shards)
{
	return shards > 0 && i % (size_t)shards == (size_t)shard;
}

static inline int64_t sample_shard_size(int64_t n, int shard, int shards)
{
	return shards > 0 && n > shard ? (n - shard + shards - 1) / shards : 0;
}

/* Load samples (JSONL, plain or gzip): task_id, and completion or solution;
 * optional sample_id, model. Unknown task ids (when TASKS is given) are
 * errors. Returns -1 on the first malformed line ("FILE:LINE: field ..."). */
int sample_set_load(const char *path, const struct task_set *tasks, struct sample_set *set,
		    struct sd_error *err);
void sample_set_release(struct sample_set *set);

/* The same, given as JSON values (a service's request) rather than files:
 * the same fields, checks and messages, each naming where it is found from
 * WHERE ("tasks[2]: field 'entry_point': missing"). Tasks: one task object
 * or an array of them, each a HumanEval or MBPP record or a native task in
 * task.json's format (its "id" required, every text inline: a field naming
 * a file is refused). Samples: an array of sample_set_load's objects. 0, or
 * -1 on the first problem (nothing is half-loaded). */
int task_set_from_json(json_t *v, const char *where, struct task_set *set, struct sd_error *err);
int sample_set_from_json(json_t *v, const char *where, const struct task_set *tasks, struct sample_set *set,
			 struct sd_error *err);

const char *test_tier_name(enum test_tier t);
const char *test_visibility_name(enum test_visibility v);

#endif
