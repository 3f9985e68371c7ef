/* agent.c - the agent loop: rounds of generate -> score on public tests (run_execute) -> best-of-k -> feedback; then the final scoring
 *
 * Processes: only the caller's, and those run_execute() starts for each
 * round (its pool of workers and their sandboxes) and the generator's (a
 * program per request, or libcurl's connections). The loop holds, per
 * task, its chat so far, its best candidate and its counts; the store
 * holds every scored candidate (one run per round).
 */
#define _GNU_SOURCE
#include "agent/agent.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent-internal.h"
#include "agent/prompt.h"
#include "base/jsonl.h"
#include "base/util.h"
#include "eval/breaker.h"
#include "eval/run.h"
#include "report/feedback.h"

/* The most of a plan or a diagnosis kept in the conversation. */
#define AGENT_THOUGHT_MAX (16u << 10)

static const char *const stop_names[] = { "solved", "rounds", "budget_tokens", "budget_usd", "budget_cpu",
					  "generator_error", "exhausted", "no_public_tests", "checkpoint_pending",
					  "rejected" };

const char *agent_stop_name(enum agent_stop s)
{
	return (unsigned)s < sizeof(stop_names) / sizeof(stop_names[0]) ? stop_names[s] : "?";
}

void agent_options_init(struct agent_options *o)
{
	memset(o, 0, sizeof(*o));
	o->k = 1;
	o->rounds = 1;
	o->temperature = 0.8;
	o->max_tokens = 512;
	o->feedback_lines = 5;
	evaluator_options_init(&o->eval);
}

void say(const struct loop *l, const char *fmt, ...)
{
	char text[1400];
	va_list ap;

	if (!l->o->event)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	l->o->event(l->o->arg, text);
}

/* The five templates: each from --templates DIR when that has the file,
 * else the one shipped in the runners directory (runners/agent/NAME.txt,
 * installed with the runners: docs/agent.md, "Prompts"). */
static int load_templates(struct loop *l, struct sd_error *err)
{
	static const char *const names[] = { "system", "act", "retry", "plan", "reflect" };
	const char *shipped = l->o->eval.runners_dir ? l->o->eval.runners_dir : evaluator_runners_dir();

	for (int i = 0; i < 5; i++) {
		char *path, *text = NULL;
		size_t len;

		if (l->o->templates_dir) {
			struct sd_error e = { 0 };

			path = xasprintf("%s/%s.txt", l->o->templates_dir, names[i]);
			if (!path)
				return sd_error_set(err, ENOMEM, "out of memory");
			if (read_file(path, 1 << 20, &text, &len, &e) < 0 && e.code != ENOENT) {
				free(path);
				*err = e;
				return -1;
			}
			free(path);
		}
		if (!text) {
			path = xasprintf("%s/agent/%s.txt", shipped, names[i]);
			if (!path)
				return sd_error_set(err, ENOMEM, "out of memory");
			if (read_file(path, 1 << 20, &text, &len, err) < 0) {
				sd_error_wrap(err, "the shipped template '%s' (set SANDEVAL_RUNNERS)", names[i]);
				free(path);
				return -1;
			}
			free(path);
		}
		l->tmpl[i] = text;
	}
	return 0;
}

static int add_message(json_t *messages, const char *role, const char *content)
{
	return json_array_append_new(messages, json_pack("{s:s, s:o}", "role", role, "content", json_text(content)));
}

static char *render(const struct loop *l, int which, const struct tstate *t, int round)
{
	char rbuf[16];
	const char *vars[] = {
		"prompt", t->task->prompt ? t->task->prompt : "",
		"entry_point", t->task->entry_point ? t->task->entry_point : "",
		"language", t->task->language ? t->task->language : "python",
		"task_id", t->task->id,
		"feedback", t->feedback ? t->feedback : "",
		"round", rbuf,
		NULL,
	};

	snprintf(rbuf, sizeof(rbuf), "%d", round);
	return prompt_render(l->tmpl[which], vars);
}

static int setup(struct loop *l, struct sd_error *err)
{
	const struct agent_options *o = l->o;
	struct agent_result *res = l->res;

	if (load_templates(l, err) < 0 || task_set_load(o->tasks_path, &l->tasks, err) < 0)
		return -1;
	l->ts = calloc(l->tasks.n + 1, sizeof(*l->ts));
	res->tasks = calloc(l->tasks.n + 1, sizeof(*res->tasks));
	if (!l->ts || !res->tasks)
		return sd_error_set(err, ENOMEM, "out of memory");
	res->n = l->tasks.n;
	for (size_t i = 0; i < l->tasks.n; i++) {
		struct tstate *t = &l->ts[i];
		struct agent_task *r = &res->tasks[i];
		char *sys;

		t->task = &l->tasks.tasks[i];
		if (prompt_public_task(t->task, &t->pub, &r->n_public, err) < 0)
			return -1;
		t->open = true;
		r->task_id = strdup(t->task->id);
		r->task_class = strdup(t->task->class ? t->task->class : "");
		r->public_score = NAN;
		t->messages = json_array();
		sys = render(l, 0, t, 1);
		if (!r->task_id || !r->task_class || !t->messages || !sys || add_message(t->messages, "system", sys) < 0) {
			free(sys);
			return sd_error_set(err, ENOMEM, "out of memory");
		}
		free(sys);
	}
	return 0;
}

/* ---- budgets ---- */

/* The most a request for K candidates with MESSAGES can spend: its prompt
 * estimated at 4 bytes a token (rounded up), each candidate at max_tokens. */
static void request_bound(const struct loop *l, json_t *messages, int k, long long *in, long long *out)
{
	char *text = json_dumps(messages, JSON_COMPACT);
	long long bytes = text ? (long long)strlen(text) : 0;

	free(text);
	*in = (long long)k * ((bytes + 3) / 4);
	*out = (long long)k * l->o->max_tokens;
}

static double cost_of(const struct agent_options *o, long long in, long long out)
{
	return (double)in / 1000.0 * o->price_in + (double)out / 1000.0 * o->price_out;
}

/* The budget the next request of T, for K answers, would pass, or -1 when it fits. */
static int budget_check(const struct loop *l, const struct tstate *t, int k)
{
	const struct agent_options *o = l->o;
	const struct agent_result *res = l->res;
	long long in, out;

	if (o->budget_cpu > 0 && (double)res->cpu_ms >= o->budget_cpu * 1000.0)
		return AGENT_STOP_BUDGET_CPU;
	if (o->budget_tokens <= 0 && o->budget_usd <= 0)
		return -1;
	request_bound(l, t->messages, k, &in, &out);
	if (o->budget_tokens > 0 && res->prompt_tokens + res->completion_tokens + in + out > o->budget_tokens)
		return AGENT_STOP_BUDGET_TOKENS;
	if (o->budget_usd > 0 && res->cost_usd + cost_of(o, in, out) > o->budget_usd + 1e-12)
		return AGENT_STOP_BUDGET_USD;
	return -1;
}

/* ---- one round ---- */

static void round_clear(struct tstate *t)
{
	for (size_t j = 0; j < t->n_round; j++) {
		free(t->answers[j]);
		free(t->codes[j]);
	}
	free(t->answers);
	free(t->codes);
	free(t->whole);
	t->answers = t->codes = NULL;
	t->whole = NULL;
	t->n_round = 0;
}

/* One request of task TI: the budgets checked, then asked (or taken from
 * the record), its tokens counted. 0: *a answered; 1: the task stopped (its
 * reason set); -1: *err. */
static int ask(struct loop *l, size_t ti, const struct generator_request *rq, struct generator_answer *a,
	       struct sd_error *err)
{
	const struct agent_options *o = l->o;
	struct tstate *t = &l->ts[ti];
	struct agent_task *r = &l->res->tasks[ti];
	struct sd_error gerr = { 0 };
	int b = budget_check(l, t, rq->k);

	if (b >= 0) {
		r->stop = (enum agent_stop)b;
		l->res->budget_hit = true;
		l->res->budget = (enum agent_stop)b;
		t->open = false;
		return 1;
	}
	switch (record_ask(l, rq, a, &gerr, err)) {
	case -1:
		return -1;
	case 0:
		break;
	default:
		say(l, "task %s, round %d, %s: %s", t->task->id, rq->round, rq->step, gerr.msg);
		r->stop = AGENT_STOP_GENERATOR_ERROR;
		r->error = strdup(gerr.msg);
		t->open = false;
		return 1;
	}
	r->requests += a->requests;
	r->prompt_tokens += a->prompt_tokens;
	r->completion_tokens += a->completion_tokens;
	r->cost_usd += cost_of(o, a->prompt_tokens, a->completion_tokens);
	l->res->prompt_tokens += a->prompt_tokens;
	l->res->completion_tokens += a->completion_tokens;
	l->res->cost_usd += cost_of(o, a->prompt_tokens, a->completion_tokens);
	return 0;
}

/* A plan or reflect step: the user message of template WHICH, one answer,
 * kept in the conversation. 0, 1 (the task stopped) or -1. */
static int think(struct loop *l, size_t ti, int round, const char *step, int which, struct sd_error *err)
{
	struct tstate *t = &l->ts[ti];
	char *text = render(l, which, t, round - (which == 4));
	struct generator_request rq = {
		.task = t->task, .prompt = t->task->prompt, .messages = t->messages, .k = 1, .round = round,
		.step = step, .feedback = t->feedback, .temperature = l->o->temperature, .max_tokens = l->o->max_tokens,
		.seed = l->o->seed + (long long)ti * l->o->rounds + round - 1,
	};
	struct generator_answer a;
	int ret;

	if (!text || add_message(t->messages, "user", text) < 0) {
		free(text);
		return sd_error_set(err, ENOMEM, "out of memory");
	}
	free(text);
	if ((ret = ask(l, ti, &rq, &a, err)) != 0)
		return ret;
	/* what is kept in the context is short: a plan, a diagnosis */
	if (a.n && strlen(a.completions[0]) > AGENT_THOUGHT_MAX)
		a.completions[0][AGENT_THOUGHT_MAX] = '\0';
	if (add_message(t->messages, "assistant", a.n ? a.completions[0] : "") < 0)
		ret = sd_error_set(err, ENOMEM, "out of memory");
	generator_answer_release(&a);
	return ret;
}

/* The conversation up to this round's request for code: round 1's plan
 * step and the task; later, the best candidate, a reflect step on its
 * feedback, and the request to correct it. */
static int converse(struct loop *l, size_t ti, int round, struct sd_error *err)
{
	struct tstate *t = &l->ts[ti];
	bool thinks = strcmp(generator_kind(l->o->gen), "replay") != 0;	/* a replay has no such step */
	char *text;
	int ret;

	if (round == 1) {
		if (thinks && !l->o->no_plan && (ret = think(l, ti, round, "plan", 3, err)) != 0)
			return ret;
		text = render(l, 1, t, round);
	} else if (t->have_best && t->feedback) {
		if (add_message(t->messages, "assistant", t->best_answer) < 0)
			return sd_error_set(err, ENOMEM, "out of memory");
		if (thinks && !l->o->no_reflect && (ret = think(l, ti, round, "reflect", 4, err)) != 0)
			return ret;
		text = render(l, 2, t, round - 1);
	} else {
		return 0;
	}
	if (!text || add_message(t->messages, "user", text) < 0) {
		free(text);
		return sd_error_set(err, ENOMEM, "out of memory");
	}
	free(text);
	return 0;
}

/* Ask T's generator for its candidates of ROUND; false when T stopped. */
static bool generate(struct loop *l, size_t ti, int round, struct sample_set *ss, struct sd_error *err)
{
	const struct agent_options *o = l->o;
	struct tstate *t = &l->ts[ti];
	struct agent_task *r = &l->res->tasks[ti];
	struct generator_request rq = {
		.task = t->task, .prompt = t->task->prompt, .messages = t->messages, .k = o->k, .round = round,
		.step = "act", .feedback = t->feedback, .temperature = o->temperature, .max_tokens = o->max_tokens,
		.seed = o->seed + ((long long)ti * o->rounds + round - 1) * o->k,
	};
	struct generator_answer a;

	/* without public tests one candidate is all the loop can use */
	if (r->n_public == 0)
		rq.k = 1;
	r->rounds = round;
	if (converse(l, ti, round, err) != 0 || ask(l, ti, &rq, &a, err) != 0)
		return false;
	if (a.n == 0) {
		r->stop = AGENT_STOP_EXHAUSTED;
		t->open = false;
		generator_answer_release(&a);
		return false;
	}
	t->answers = calloc(a.n, sizeof(*t->answers));
	t->codes = calloc(a.n, sizeof(*t->codes));
	t->whole = calloc(a.n, sizeof(*t->whole));
	if (!t->answers || !t->codes || !t->whole) {
		generator_answer_release(&a);
		sd_error_set(err, ENOMEM, "out of memory");
		return false;
	}
	for (size_t j = 0; j < a.n; j++) {
		struct sample *s;
		size_t len = strlen(a.completions[j]);

		if (len > PROMPT_COMPLETION_MAX) {
			say(l, "task %s, round %d: candidate %zu is %zu bytes, more than the %u MiB a candidate may "
			    "hold: not scored", t->task->id, round, j, len, PROMPT_COMPLETION_MAX >> 20);
			continue;
		}
		t->answers[t->n_round] = a.completions[j];
		a.completions[j] = NULL;
		t->codes[t->n_round] = prompt_clean(t->task, t->answers[t->n_round], &t->whole[t->n_round]);
		s = &ss->samples[ss->n];
		memset(s, 0, sizeof(*s));
		s->task_id = strdup(t->task->id);
		s->sample_id = xasprintf("%s/r%d/c%zu", t->task->id, round, t->n_round);
		s->code = t->codes[t->n_round] ? strdup(t->codes[t->n_round]) : NULL;
		s->is_completion = !t->whole[t->n_round];
		t->n_round++;
		ss->n++;
		if (!s->task_id || !s->sample_id || !s->code) {
			generator_answer_release(&a);
			sd_error_set(err, ENOMEM, "out of memory");
			return false;
		}
		if (round == 1 && !t->single_code) {
			t->single_code = strdup(t->codes[0]);
			t->single_whole = t->whole[0];
		}
	}
	generator_answer_release(&a);
	if (r->n_public == 0 && t->n_round) {
		/* nothing can judge the candidates: the first is chosen, unscored here */
		while (t->n_round) {
			t->n_round--;
			ss->n--;
			free(ss->samples[ss->n].task_id);
			free(ss->samples[ss->n].sample_id);
			free(ss->samples[ss->n].code);
		}
		t->best_answer = steal_pointer(&t->answers[0]);
		t->best_code = steal_pointer(&t->codes[0]);
		t->best_whole = t->whole[0];
		t->best_round = round;
		t->have_best = true;
		round_clear(t);
		r->stop = AGENT_STOP_NO_PUBLIC;
		t->open = false;
		return false;
	}
	return true;
}

static void on_run_event(void *arg, const struct run *run, const struct run_event *ev)
{
	struct loop *l = arg;

	if (ev->kind == RUN_WARNING)
		say(l, "warning: %s", ev->text);
	/* the run is recorded: a resumed agent run resumes it rather than score again */
	if (ev->kind == RUN_STARTED && !ev->resumed && !l->record_failed &&
	    record_step(l, "run", NULL, 0, json_pack("{s:s, s:s}", "label", l->label, "run_id", run_info(run)->id),
			&l->record_err) < 0)
		l->record_failed = true;
}

/* Score SS (moved) against TASKS' copies (PUBLIC: the public views, else
 * the tasks) in one run of the pipeline labelled LABEL; its id in RUN_ID
 * and its results in *out. */
static int score(struct loop *l, struct sample_set *ss, bool public, const char *label, char *run_id,
		 struct sample_result **out, size_t *n, struct sd_error *err)
{
	const struct agent_options *o = l->o;
	struct task_set copy = { .n = 0, .format = l->tasks.format };
	struct run_options ro;
	struct run *run = NULL;
	static const int ks[] = { 1 };
	int ret = -1;

	memcpy(copy.hash, l->tasks.hash, sizeof(copy.hash));
	if (!(copy.tasks = calloc(l->tasks.n + 1, sizeof(*copy.tasks)))) {
		sample_set_release(ss);
		return sd_error_set(err, ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < l->tasks.n; i++, copy.n++) {
		if (task_copy(public ? &l->ts[i].pub : &l->tasks.tasks[i], &copy.tasks[i]) < 0) {
			task_set_release(&copy);
			sample_set_release(ss);
			return sd_error_set(err, ENOMEM, "out of memory");
		}
	}
	run_options_init(&ro);
	ro.tasks_path = o->tasks_path;
	ro.samples_path = label;
	ro.tasks = &copy;
	ro.samples = ss;
	ro.model = o->model ? o->model : generator_kind(o->gen);
	ro.holdout = RUN_HOLDOUT_INCLUDE;
	ro.partial = true;	/* a round scores the tasks still open; the agent counts the rest itself */
	if (o->jobs)
		ro.jobs = o->jobs;
	ro.seed = o->seed;
	ro.seed_given = true;
	ro.ks = ks;
	ro.n_ks = 1;
	ro.eval = o->eval;
	ro.version = o->version;
	ro.event = on_run_event;
	ro.arg = l;
	ro.resume = record_run(l, label);
	l->label = label;
	if (!(run = run_new(&ro, err)) || run_execute(run, l->st, err) < 0)
		goto out;
	if (l->record_failed) {
		*err = l->record_err;
		goto out;
	}
	snprintf(run_id, STORE_RUN_ID_MAX + 1, "%s", run_info(run)->id);
	ret = store_samples_load(l->st, run_id, out, n, err);
out:
	run_free(run);
	task_set_release(&copy);
	sample_set_release(ss);
	return ret;
}

/* Is candidate A better than B? Passed, then public score, then lint, then
 * CPU time -- only a real difference of CPU time (twice as much and 100 ms
 * more), so that the noise of measuring never decides and a run is
 * reproducible; the caller gives ties to the earlier candidate. */
static bool better(bool ap, double as, int al, int64_t ac, bool bp, double bs, int bl, int64_t bc)
{
	as = isnan(as) ? -1 : as;
	bs = isnan(bs) ? -1 : bs;
	if (ap != bp)
		return ap;
	if (as != bs)
		return as > bs;
	if (al != bl)
		return al > bl;
	return bc >= 2 * ac && bc - ac >= 100;
}

/* "TASK/rR/cJ" -> J, when TASK is T's and R is ROUND; else -1 */
static long candidate_of(const char *sample_id, const char *task_id, int round)
{
	size_t n = strlen(task_id);
	char tail[32];
	long j;
	int used = 0;

	if (strncmp(sample_id, task_id, n) != 0)
		return -1;
	snprintf(tail, sizeof(tail), "/r%d/c", round);
	if (strncmp(sample_id + n, tail, strlen(tail)) != 0)
		return -1;
	if (sscanf(sample_id + n + strlen(tail), "%ld%n", &j, &used) != 1 || sample_id[n + strlen(tail) + used])
		return -1;
	return j;
}

/* The round's results: each task's best so far, and what it is told next. */
static int select_best(struct loop *l, int round, const struct sample_result *rs, size_t n, struct sd_error *err)
{
	struct feedback_options fo;

	feedback_options_init(&fo);
	fo.max_lines = l->o->feedback_lines;
	fo.holdout = false;
	for (size_t ti = 0; ti < l->tasks.n; ti++) {
		struct tstate *t = &l->ts[ti];
		struct agent_task *r = &l->res->tasks[ti];
		const struct sample_result *best = NULL;
		long best_j = -1;

		if (!t->open)
			continue;
		for (size_t i = 0; i < n; i++) {
			const struct sample_result *x = &rs[i];
			long j = candidate_of(x->sample_id, t->task->id, round);
			int lint = x->lint == LINT_PASSED;

			if (j < 0 || (size_t)j >= t->n_round || strcmp(x->task_id, t->task->id) != 0)
				continue;
			r->candidates++;
			r->cpu_ms += x->cpu_ms;
			l->res->cpu_ms += x->cpu_ms;
			if (x->harness_error)
				continue;
			if (!best || better(x->passed, x->score_public, lint, x->cpu_ms, best->passed, best->score_public,
					    best->lint == LINT_PASSED, best->cpu_ms) ||
			    (!better(best->passed, best->score_public, best->lint == LINT_PASSED, best->cpu_ms, x->passed,
				     x->score_public, lint, x->cpu_ms) && j < best_j)) {
				best = x;
				best_j = j;
			}
		}
		if (best && (!t->have_best || better(best->passed, best->score_public, best->lint == LINT_PASSED,
						     best->cpu_ms, t->best_passed, t->best_score, t->best_lint,
						     t->best_cpu))) {
			free(t->best_answer);
			free(t->prev_code);
			t->prev_code = t->best_code;
			t->best_answer = steal_pointer(&t->answers[best_j]);
			t->best_code = steal_pointer(&t->codes[best_j]);
			t->best_whole = t->whole[best_j];
			t->best_passed = best->passed;
			t->best_round = round;
			t->best_score = best->score_public;
			t->best_lint = best->lint == LINT_PASSED;
			t->best_cpu = best->cpu_ms;
			t->have_best = true;
			r->public_score = best->score_public;
			if (best->passed)
				r->solved_round = round;
			/* what the next round is told: this candidate's failures */
			free(t->feedback);
			t->feedback = NULL;
			if (!best->passed) {
				size_t len = 0;
				FILE *f = open_memstream(&t->feedback, &len);

				if (!f)
					return sd_error_set(err, ENOMEM, "out of memory");
				feedback_sample_text(f, best, &fo);
				if (fclose(f) != 0)
					return sd_error_set(err, ENOMEM, "out of memory");
			}
		}
		if (t->n_round && record_select(l, t->task->id, round, json_pack("{s:o, s:b, s:o, s:b, s:i}", "best",
				json_text(best ? best->sample_id : NULL), "passed", best && best->passed, "public_score",
				json_number_or_null(best ? best->score_public : NAN), "kept", t->best_round == round,
				"candidates", (int)t->n_round), err) < 0)
			return -1;
		round_clear(t);
		if (t->have_best && t->best_passed) {
			r->stop = AGENT_STOP_SOLVED;
			t->open = false;
		} else if (round >= l->o->rounds) {
			r->stop = AGENT_STOP_ROUNDS;
			t->open = false;
		}
	}
	return 0;
}

static void results_free(struct sample_result *rs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sample_result_release(&rs[i]);
	free(rs);
}

static int run_round(struct loop *l, int round, struct sd_error *err)
{
	struct sample_set ss = { 0 };
	struct sample_result *rs = NULL;
	size_t n = 0, open = 0;
	char label[64];
	int ret;

	for (size_t ti = 0; ti < l->tasks.n; ti++)
		open += l->ts[ti].open;
	if (!open)
		return 0;
	if (!(ss.samples = calloc(open * (size_t)l->o->k + 1, sizeof(*ss.samples))))
		return sd_error_set(err, ENOMEM, "out of memory");
	say(l, "round %d: %zu task%s open", round, open, open == 1 ? "" : "s");
	for (size_t ti = 0; ti < l->tasks.n; ti++) {
		if (!l->ts[ti].open)
			continue;
		if (!generate(l, ti, round, &ss, err) && err->msg[0]) {
			sample_set_release(&ss);
			return -1;
		}
	}
	if (!ss.n) {
		/* no candidate to score (every one refused): the round still counts */
		sample_set_release(&ss);
		return select_best(l, round, NULL, 0, err);
	}
	snprintf(label, sizeof(label), "agent round %d", round);
	l->res->round_runs[round - 1] = malloc(STORE_RUN_ID_MAX + 1);
	if (!l->res->round_runs[round - 1]) {
		sample_set_release(&ss);
		return sd_error_set(err, ENOMEM, "out of memory");
	}
	l->res->n_rounds = round;
	if (score(l, &ss, true, label, l->res->round_runs[round - 1], &rs, &n, err) < 0)
		return sd_error_wrap(err, "round %d", round);
	ret = select_best(l, round, rs, n, err);
	results_free(rs, n);
	return ret;
}

/* ---- the end: every test ---- */

static int final_run(struct loop *l, bool single, struct sd_error *err)
{
	struct agent_result *res = l->res;
	struct sample_set ss = { 0 };
	struct sample_result *rs = NULL;
	size_t n = 0;

	if (!(ss.samples = calloc(l->tasks.n + 1, sizeof(*ss.samples))))
		return sd_error_set(err, ENOMEM, "out of memory");
	for (size_t ti = 0; ti < l->tasks.n; ti++) {
		const struct tstate *t = &l->ts[ti];
		const char *code = single ? t->single_code : t->best_code;
		struct sample *s = &ss.samples[ss.n];

		if (!code)
			continue;
		s->task_id = strdup(t->task->id);
		s->sample_id = xasprintf("%s/%s", t->task->id, single ? "single" : "agent");
		s->code = strdup(code);
		s->is_completion = !(single ? t->single_whole : t->best_whole);
		ss.n++;
		if (!s->task_id || !s->sample_id || !s->code) {
			sample_set_release(&ss);
			return sd_error_set(err, ENOMEM, "out of memory");
		}
	}
	if (!ss.n) {
		sample_set_release(&ss);
		return 0;
	}
	if (score(l, &ss, false, single ? "agent single-shot" : "agent chosen", single ? res->single_run : res->agent_run,
		  &rs, &n, err) < 0)
		return sd_error_wrap(err, "scoring the %s candidates", single ? "single-shot" : "chosen");
	for (size_t i = 0; i < n; i++) {
		for (size_t ti = 0; ti < l->tasks.n; ti++) {
			struct agent_task *r = &res->tasks[ti];

			if (strcmp(rs[i].task_id, r->task_id) != 0)
				continue;
			if (single) {
				r->single_passed = rs[i].passed;
				r->single_score = rs[i].score;
			} else {
				r->passed = rs[i].passed;
				r->score = rs[i].score;
				free(r->result);
				r->result = rs[i].he_result ? strdup(rs[i].he_result) : NULL;
			}
			break;
		}
	}
	results_free(rs, n);
	return 0;
}

int agent_run(const struct agent_options *opt, struct store *st, struct agent_result *res, struct sd_error *err)
{
	struct loop l = { .opt = *opt, .st = st, .res = res };
	const struct agent_options *o = &l.opt;
	int ret = -1;

	l.o = o;
	memset(res, 0, sizeof(*res));
	/* a tripped store refuses before anything is asked or recorded (each round's run checks again) */
	if (breaker_check(st, err) < 0)
		return -1;
	if (record_start(&l, err) < 0)
		goto out;
	if (o->k < 1 || o->rounds < 1) {
		sd_error_set(err, EINVAL, "k and rounds must be at least 1");
		goto out;
	}
	if (!(res->round_runs = calloc((size_t)o->rounds + 1, sizeof(*res->round_runs)))) {
		sd_error_set(err, ENOMEM, "out of memory");
		goto out;
	}
	if (setup(&l, err) < 0)
		goto out;
	for (int round = 1; round <= o->rounds; round++)
		if (run_round(&l, round, err) < 0)
			goto out;
	if (checkpoints(&l, err) < 0)
		goto out;
	if (res->pending) {
		say(&l, "%zu task%s wait%s for approval: no final scoring yet", res->pending,
		    res->pending == 1 ? "" : "s", res->pending == 1 ? "s" : "");
	} else {
		say(&l, "scoring the single-shot and the chosen candidates on every test");
		if (final_run(&l, true, err) < 0 || final_run(&l, false, err) < 0)
			goto out;
	}
	for (size_t ti = 0; ti < l.tasks.n; ti++) {
		struct agent_task *r = &res->tasks[ti];

		r->completion = steal_pointer(&l.ts[ti].best_code);
		r->single = steal_pointer(&l.ts[ti].single_code);
		if (record_step(&l, "stop", r->task_id, r->rounds, json_pack("{s:s, s:b, s:b, s:i, s:I, s:o}", "reason",
				agent_stop_name(r->stop), "passed", r->passed, "single_shot_passed", r->single_passed,
				"solved_round", r->solved_round, "candidates", (json_int_t)r->candidates, "error",
				json_text(r->error)), err) < 0)
			goto out;
	}
	if (record_step(&l, "done", NULL, 0, json_pack("{s:s, s:s}", "agent_run", res->agent_run, "single_shot_run",
							 res->single_run), err) < 0)
		goto out;
	ret = 0;
out:
	record_release(&l);
	if (l.ts) {
		for (size_t ti = 0; ti < l.tasks.n; ti++) {
			struct tstate *t = &l.ts[ti];

			round_clear(t);
			task_release(&t->pub);
			json_decref(t->messages);
			free(t->best_answer);
			free(t->best_code);
			free(t->prev_code);
			free(t->single_code);
			free(t->feedback);
		}
	}
	free(l.ts);
	for (int i = 0; i < 5; i++)
		free(l.tmpl[i]);
	task_set_release(&l.tasks);
	return ret;
}

void agent_result_release(struct agent_result *res)
{
	for (size_t i = 0; i < res->n; i++) {
		struct agent_task *r = &res->tasks[i];

		free(r->task_id);
		free(r->task_class);
		free(r->completion);
		free(r->single);
		free(r->error);
		free(r->result);
	}
	free(res->tasks);
	for (int i = 0; res->round_runs && i < res->n_rounds; i++)
		free(res->round_runs[i]);
	free(res->round_runs);
	memset(res, 0, sizeof(*res));
}
