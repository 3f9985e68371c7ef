/* agent-internal.h - what the loop (agent.c) shares with its record in the store (agent-record.c) */
#ifndef SANDEVAL_AGENT_INTERNAL_H
#define SANDEVAL_AGENT_INTERNAL_H

#include <jansson.h>

#include "agent/agent.h"
#include "suite/task.h"

/* One task's loop. */
struct tstate {
	const struct task *task;
	struct task pub;		/* the task with its public tests only */
	json_t *messages;
	bool open;			/* still in the loop */
	char *best_answer;		/* the best candidate's answer as the model gave it */
	char *best_code;
	char *prev_code;		/* the best before it (a checkpoint's diff) */
	int best_round;
	bool best_whole;
	bool have_best;
	bool best_passed;
	double best_score;
	int best_lint;			/* 1 lint passed, 0 not or none */
	int64_t best_cpu;
	char *single_code;
	bool single_whole;
	char *feedback;
	/* this round's candidates: answers and cleaned code, by index */
	char **answers;
	char **codes;
	bool *whole;
	size_t n_round;
};

struct loop {
	struct agent_options opt;	/* the caller's, or a resumed run's settings */
	const struct agent_options *o;	/* &opt */
	struct store *st;
	struct task_set tasks;
	struct tstate *ts;
	struct agent_result *res;
	char *tmpl[5];			/* system, act, retry, plan, reflect */
	/* the record (agent-record.c) */
	json_t *answers;		/* a resumed run's answers: "ROUND TASK_ID" -> the answer step's body */
	json_t *runs;			/* its runs: label -> run id */
	json_t *decisions;		/* its approvals: task id -> {decision, by, note} */
	json_t *selects;		/* its selections recorded: "ROUND TASK_ID" -> true */
	json_t *pending;		/* its pending checkpoints: task id -> true */
	json_t *class_doc;		/* its checkpoint classes, and them as opt.checkpoint */
	const char **classes;
	const char *label;		/* of the run being scored */
	struct sd_error record_err;	/* a "run" step that could not be recorded */
	bool record_failed;
};

/* Tell the front end (progress, warnings). */
void say(const struct loop *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A new agent run: its id and its "start" step (the settings). With
 * opt.resume: the run's steps read back, its settings put in l->opt, its
 * answers and runs kept for the loop to take again. */
int record_start(struct loop *l, struct sd_error *err);
/* Record a step (BODY taken over; NULL: {}). */
int record_step(struct loop *l, const char *kind, const char *task_id, int round, json_t *body, struct sd_error *err);
/* The answer to RQ: taken from a resumed run's record, else asked of the
 * generator and recorded. 0: *a filled; 1: the generator failed (*gerr);
 * -1: the store failed (*err). */
int record_ask(struct loop *l, const struct generator_request *rq, struct generator_answer *a, struct sd_error *gerr,
	       struct sd_error *err);
/* A resumed run's answer to TASK_ID's STEP ("plan", "act", "reflect") in
 * ROUND, or NULL (borrowed). */
json_t *record_answer(const struct loop *l, const char *task_id, int round, const char *step);
/* Record round ROUND's selection for TASK_ID (BODY taken over), unless a
 * resumed run holds it already. */
int record_select(struct loop *l, const char *task_id, int round, json_t *body, struct sd_error *err);
/* A resumed run's run of LABEL, or NULL. */
const char *record_run(const struct loop *l, const char *label);
void record_release(struct loop *l);
/* The human checkpoints, once the rounds are done: decisions recorded are
 * taken, the front end asked (opt.approve), the rest left pending. */
int checkpoints(struct loop *l, struct sd_error *err);

#endif
