/* generator.h - where the agent loop's candidates come from: a replayed sample file, a program, an OpenAI-compatible server
 *
 * One table of functions per kind (generator-replay.c, generator-command.c,
 * generator-http.c), one call for the loop: generator_generate() asks for
 * K candidates of one task and answers with their texts and the tokens
 * spent. The parsers of what a program or a server answers are public so
 * that they are tested and fuzzed on their own: both take untrusted bytes.
 */
#ifndef SANDEVAL_GENERATOR_H
#define SANDEVAL_GENERATOR_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "suite/task.h"

/* The most a program's or a server's answer may hold. */
#define GENERATOR_ANSWER_MAX (64u << 20)

struct generator;

struct generator_request {
	const struct task *task;
	const char *prompt;		/* the task's prompt, as given */
	json_t *messages;		/* the chat so far: [{role, content}...] */
	int k;				/* candidates asked for */
	int round;			/* 1-based */
	const char *step;		/* "plan", "act" (the candidates), "reflect" */
	const char *feedback;		/* the last round's feedback; NULL in round 1 */
	long long seed;			/* of the first candidate; the next ones seed + 1, ... */
	double temperature;
	int max_tokens;
};

struct generator_answer {
	char **completions;		/* n of them, malloc'd */
	size_t n;
	long long prompt_tokens, completion_tokens;
	bool usage;			/* the generator reported them */
	int requests;			/* requests sent (HTTP: attempts included) */
};

void generator_answer_release(struct generator_answer *a);

struct generator_http_options {
	const char *url;		/* base: POST {url}/chat/completions */
	const char *model;
	const char *api_key;		/* may be NULL; sent as a bearer token, never shown */
	double timeout;			/* seconds per attempt (default 120) */
	int retries;			/* after the first attempt, on 429, 5xx and connection errors (default 4) */
	double backoff;			/* seconds before the first retry, doubled each time (default 1) */
};

/* A replay of PATH's samples (sample_set_load's format) of TASKS: each
 * request draws the next unused samples of its task, in file order. */
struct generator *generator_replay_new(const char *path, const struct task_set *tasks, struct sd_error *err);
/* A program run by /bin/sh -c CMD per request: one JSON object on stdin,
 * one on stdout ({completions, usage?}); killed after TIMEOUT seconds. */
struct generator *generator_command_new(const char *cmd, double timeout, struct sd_error *err);
/* An OpenAI-compatible chat completions endpoint (libcurl, loaded when
 * first needed). */
struct generator *generator_http_new(const struct generator_http_options *o, struct sd_error *err);
void generator_free(struct generator *g);
/* A resumed agent run took N answers of task T from its record: a replay
 * moves past those samples (the others have nothing to skip). */
void generator_skip(struct generator *g, const struct task *t, size_t n);
/* "replay", "command", "http" */
const char *generator_kind(const struct generator *g);

/* Ask for RQ->k candidates. 0 with *a filled (n may be below k: a replay
 * that ran out), or -1 with *err (the generator failed: nothing usable). */
int generator_generate(struct generator *g, const struct generator_request *rq, struct generator_answer *a,
		       struct sd_error *err);

/* The request body of the chat completions API for RQ (model MODEL; seed
 * SEED). NULL on ENOMEM. */
json_t *generator_chat_body(const struct generator_request *rq, const char *model, long long seed);
/* The body of a chat completions answer: every choices[].message.content
 * (a null content is an empty completion; NUL bytes dropped) and usage.prompt_tokens and
 * .completion_tokens, added to *a. -1 with *err naming what is wrong. */
int generator_parse_chat(const char *body, size_t len, struct generator_answer *a, struct sd_error *err);
/* A program's answer: {"completions": [string...], "usage": {"prompt_tokens": N,
 * "completion_tokens": N}?}, added to *a. -1 with *err naming what is wrong. */
int generator_parse_command(const char *body, size_t len, struct generator_answer *a, struct sd_error *err);
/* The JSON object a program gets on stdin for RQ. NULL on ENOMEM. */
json_t *generator_command_input(const struct generator_request *rq);

#endif
