/* cmd-agent.c - `sandeval agent`: a code model in a generate -> evaluate -> retry loop, scored beside single-shot
 *
 * The loop is the library's (agent/agent.h, itself a front end on
 * eval/run.h); this file turns argv into agent_options and a generator,
 * opens the store, prints what the loop tells it and the summary.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <pwd.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/agent.h"
#include "agent/generator.h"
#include "base/util.h"
#include "cmd.h"
#include "suite/task.h"
#include "version.h"

static const char agent_usage[] =
	"usage: sandeval agent --tasks FILE|DIR\n"
	"                      (--replay FILE | --generator CMD | --model-url URL --model NAME)\n"
	"                      [--k N] [--rounds R] [--temperature T] [--max-tokens N] [--seed N]\n"
	"                      [--budget-tokens N] [--budget-usd X --price-in USD --price-out USD]\n"
	"                      [--budget-cpu SECONDS] [--templates DIR] [--feedback-lines N]\n"
	"                      [--no-plan] [--no-reflect]\n"
	"                      [--request-timeout SECONDS] [--retries N] [--backoff SECONDS]\n"
	"                      [--checkpoint CLASS[,CLASS...]] [--resume AGENT_ID]\n"
	"                      [--db PATH|URL] [--out FILE] [--json FILE] [--jobs N]\n"
	"                      [--timeout SECONDS] [--memory SIZE] [--backend native|gvisor] [--no-lint] [--quiet]\n"
	"\n"
	"Ask a generator for K candidates of each task, score each in a fresh sandbox\n"
	"against the task's public tests only, keep the best, and while it fails and\n"
	"rounds remain ask again with the failures as feedback. Then score the chosen\n"
	"candidate and the single-shot one (the first of round 1) on every test, and\n"
	"print both pass@1 (docs/agent.md).\n"
	"\n"
	"  --replay FILE         samples recorded earlier (JSONL): each request takes the\n"
	"                        next unused samples of its task, in file order\n"
	"  --generator CMD       a program (/bin/sh -c CMD) reading one JSON request on stdin\n"
	"                        and printing {\"completions\": [...], \"usage\": {...}}\n"
	"  --model-url URL       an OpenAI-compatible server: POST URL/chat/completions;\n"
	"                        the key from $SANDEVAL_API_KEY, else $OPENAI_API_KEY\n"
	"  --model NAME          the model to ask for (--model-url); a label otherwise\n"
	"  --k N                 candidates per request (default 1)\n"
	"  --rounds R            rounds per task (default 1)\n"
	"  --temperature T       default 0.8\n"
	"  --max-tokens N        per candidate (default 512)\n"
	"  --seed N              of the first request and of property inputs (default 0)\n"
	"  --budget-tokens N     stop before a request that could take the run past N tokens\n"
	"  --budget-usd X        the same in US dollars, with --price-in and --price-out\n"
	"                        (USD per 1000 prompt and completion tokens)\n"
	"  --budget-cpu SECONDS  stop once the candidates' sandboxes used this much CPU\n"
	"  --templates DIR       system.txt, act.txt, retry.txt, plan.txt, reflect.txt replacing\n"
	"                        the shipped prompts\n"
	"  --no-plan             no plan step (the model outlines its approach) before round 1\n"
	"  --no-reflect          no reflect step (the model diagnoses the feedback) after a\n"
	"                        failed round (a replay has neither)\n"
	"  --feedback-lines N    lines of a failing test's detail the model is shown (default 5)\n"
	"  --request-timeout S   per request, or per run of --generator (default 120)\n"
	"  --retries N           of an HTTP request on 429, 5xx, connection errors (default 4)\n"
	"  --backoff S           before the first retry, doubled each time (default 1)\n"
	"  --db PATH|URL         the store (default $SANDEVAL_DB, else sandeval.db)\n"
	"  --out FILE            one JSON line per task\n"
	"  --json FILE           the summary as JSON\n"
	"  --jobs N              candidates scored at once (default: the number of CPUs + 1)\n"
	"  --checkpoint CLASSES  tasks of these classes (and native tasks with \"risk\": \"high\")\n"
	"                        wait for a person: on a terminal agent asks y/n; else they stay\n"
	"                        pending ('sandeval approve', then --resume) and the exit status is 3\n"
	"  --resume AGENT_ID     go on with a stopped agent run (the same --tasks and kind of\n"
	"                        generator; its other settings are the run's): recorded answers\n"
	"                        are not asked again, scored candidates not scored again\n"
	"  --timeout SECONDS     per test (default 3)\n"
	"  --memory SIZE         of each candidate's sandbox (default 512M)\n"
	"  --backend NAME        the sandboxes' backend: native (default) or gvisor (docs/sandbox.md)\n"
	"  --no-lint             do not lint candidates (lint breaks ties between candidates)\n"
	"\n"
	"Exit status: 0 when the loop ran (a task that is not solved is a result, and so\n"
	"is a generator that failed on a task: its stop reason says so); 3 when candidates\n"
	"wait for approval; 2 on bad input, when the evaluator or the store failed, or when\n"
	"the generator failed on every task.\n";

enum { OPT_TASKS = 256, OPT_REPLAY, OPT_GENERATOR, OPT_MODEL_URL, OPT_MODEL, OPT_K, OPT_ROUNDS, OPT_TEMPERATURE,
       OPT_MAX_TOKENS, OPT_SEED, OPT_BUDGET_TOKENS, OPT_BUDGET_USD, OPT_PRICE_IN, OPT_PRICE_OUT, OPT_BUDGET_CPU,
       OPT_TEMPLATES, OPT_FEEDBACK_LINES, OPT_REQUEST_TIMEOUT, OPT_RETRIES, OPT_BACKOFF, OPT_DB, OPT_OUT, OPT_JSON,
       OPT_JOBS, OPT_TIMEOUT, OPT_MEMORY, OPT_NO_LINT, OPT_QUIET, OPT_HELP, OPT_RESUME, OPT_CHECKPOINT, OPT_NO_PLAN, OPT_NO_REFLECT, OPT_BACKEND };

static const struct option options[] = {
	{ "tasks", required_argument, NULL, OPT_TASKS },
	{ "replay", required_argument, NULL, OPT_REPLAY },
	{ "generator", required_argument, NULL, OPT_GENERATOR },
	{ "model-url", required_argument, NULL, OPT_MODEL_URL },
	{ "model", required_argument, NULL, OPT_MODEL },
	{ "k", required_argument, NULL, OPT_K },
	{ "rounds", required_argument, NULL, OPT_ROUNDS },
	{ "temperature", required_argument, NULL, OPT_TEMPERATURE },
	{ "max-tokens", required_argument, NULL, OPT_MAX_TOKENS },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "budget-tokens", required_argument, NULL, OPT_BUDGET_TOKENS },
	{ "budget-usd", required_argument, NULL, OPT_BUDGET_USD },
	{ "price-in", required_argument, NULL, OPT_PRICE_IN },
	{ "price-out", required_argument, NULL, OPT_PRICE_OUT },
	{ "budget-cpu", required_argument, NULL, OPT_BUDGET_CPU },
	{ "templates", required_argument, NULL, OPT_TEMPLATES },
	{ "feedback-lines", required_argument, NULL, OPT_FEEDBACK_LINES },
	{ "request-timeout", required_argument, NULL, OPT_REQUEST_TIMEOUT },
	{ "retries", required_argument, NULL, OPT_RETRIES },
	{ "backoff", required_argument, NULL, OPT_BACKOFF },
	{ "db", required_argument, NULL, OPT_DB },
	{ "out", required_argument, NULL, OPT_OUT },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "jobs", required_argument, NULL, OPT_JOBS },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "memory", required_argument, NULL, OPT_MEMORY },
	{ "no-lint", no_argument, NULL, OPT_NO_LINT },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "resume", required_argument, NULL, OPT_RESUME },
	{ "checkpoint", required_argument, NULL, OPT_CHECKPOINT },
	{ "no-plan", no_argument, NULL, OPT_NO_PLAN },
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "no-reflect", no_argument, NULL, OPT_NO_REFLECT },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

struct cmd_agent {
	struct agent_options o;
	const char *replay, *generator, *model_url, *model;
	const char *db, *out, *json;
	double request_timeout, backoff;
	int retries;
	bool quiet;
	char *classes;			/* --checkpoint's list, cut at the commas */
	const char *checkpoint[33];
	char approver[96];
};

#define fail(...) cmd_fail("agent", __VA_ARGS__)

static const char *option_name(int opt)
{
	for (const struct option *p = options; p->name; p++)
		if (p->val == opt)
			return p->name;
	return "?";
}

static int parse_double(const char *name, const char *v, double min, double max, double *out)
{
	char *end;
	double d = strtod(v, &end);

	if (end == v || *end || !(d >= min && d <= max))
		return fail("%s '%s': expected a number from %g to %g", name, v, min, max);
	*out = d;
	return 0;
}

static int parse_options(int argc, char **argv, struct cmd_agent *c)
{
	struct agent_options *o = &c->o;
	struct sd_error err = { 0 };
	int opt, generators;
	long n;
	double d;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+:h", options, NULL)) != -1) {
		const char *v = optarg;

		switch (opt) {
		case OPT_TASKS: o->tasks_path = v; break;
		case OPT_REPLAY: c->replay = v; break;
		case OPT_GENERATOR: c->generator = v; break;
		case OPT_MODEL_URL: c->model_url = v; break;
		case OPT_MODEL: c->model = v; break;
		case OPT_TEMPLATES: o->templates_dir = v; break;
		case OPT_DB: c->db = v; break;
		case OPT_OUT: c->out = v; break;
		case OPT_JSON: c->json = v; break;
		case OPT_NO_LINT: o->eval.lint = false; break;
		case OPT_QUIET: c->quiet = true; break;
		case OPT_RESUME: o->resume = v; break;
		case OPT_NO_PLAN: o->no_plan = true; break;
		case OPT_BACKEND: o->eval.backend = v; break;
		case OPT_NO_REFLECT: o->no_reflect = true; break;
		case OPT_CHECKPOINT: {
			size_t m = 0;

			free(c->classes);
			if (!(c->classes = strdup(v)))
				return fail("out of memory");
			for (char *p = c->classes, *e; p; p = e) {
				if ((e = strchr(p, ',')))
					*e++ = '\0';
				if (!*p || m == 32)
					return fail("--checkpoint '%s': expected 1 to 32 task classes, comma-separated", v);
				c->checkpoint[m++] = p;
			}
			c->checkpoint[m] = NULL;
			o->checkpoint = c->checkpoint;
			break;
		}
		case OPT_K:
		case OPT_ROUNDS:
		case OPT_MAX_TOKENS:
		case OPT_FEEDBACK_LINES:
		case OPT_JOBS:
		case OPT_RETRIES:
			if (parse_long(v, opt == OPT_RETRIES ? 0 : 1, opt == OPT_MAX_TOKENS ? 1000000 : 1000, &n, &err) < 0)
				return fail("--%s: %s", option_name(opt), err.msg);
			if (opt == OPT_K)
				o->k = (int)n;
			else if (opt == OPT_ROUNDS)
				o->rounds = (int)n;
			else if (opt == OPT_MAX_TOKENS)
				o->max_tokens = (int)n;
			else if (opt == OPT_FEEDBACK_LINES)
				o->feedback_lines = (size_t)n;
			else if (opt == OPT_JOBS)
				o->jobs = (size_t)n;
			else
				c->retries = (int)n;
			break;
		case OPT_SEED:
			if (parse_long(v, 0, 0x7fffffffffffL, &n, &err) < 0)
				return fail("--seed: %s", err.msg);
			o->seed = n;
			o->seed_given = true;
			break;
		case OPT_BUDGET_TOKENS:
			if (parse_long(v, 1, 0x7fffffffffffL, &n, &err) < 0)
				return fail("--budget-tokens: %s", err.msg);
			o->budget_tokens = n;
			break;
		case OPT_TEMPERATURE:
			if (parse_double("--temperature", v, 0, 2, &o->temperature) < 0)
				return -2;
			break;
		case OPT_BUDGET_USD:
			if (parse_double("--budget-usd", v, 1e-9, 1e9, &o->budget_usd) < 0)
				return -2;
			break;
		case OPT_PRICE_IN:
			if (parse_double("--price-in", v, 0, 1e6, &o->price_in) < 0)
				return -2;
			break;
		case OPT_PRICE_OUT:
			if (parse_double("--price-out", v, 0, 1e6, &o->price_out) < 0)
				return -2;
			break;
		case OPT_BUDGET_CPU:
			if (parse_double("--budget-cpu", v, 1e-3, 1e9, &o->budget_cpu) < 0)
				return -2;
			break;
		case OPT_BACKOFF:
			if (parse_double("--backoff", v, 1e-3, 600, &c->backoff) < 0)
				return -2;
			break;
		case OPT_REQUEST_TIMEOUT:
			if (parse_double("--request-timeout", v, 1e-3, 86400, &d) < 0)
				return -2;
			c->request_timeout = d;
			break;
		case OPT_TIMEOUT:
			if (parse_seconds(v, 3600, &o->eval.timeout, &err) < 0)
				return fail("--timeout: %s", err.msg);
			break;
		case OPT_MEMORY:
			if (parse_size(v, &o->eval.memory, &err) < 0 || o->eval.memory < (16u << 20))
				return fail("--memory: %s", err.msg[0] ? err.msg : "at least 16M");
			break;
		case 'h':
		case OPT_HELP:
			fputs(agent_usage, stdout);
			return -1;
		case ':':
			return fail("option '%s' needs a value", argv[optind - 1]);
		default:
			return fail("unknown option '%s' (see 'sandeval agent --help')", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return fail("unexpected argument '%s' (see 'sandeval agent --help')", argv[optind]);
	if (!o->tasks_path)
		return fail("--tasks is required (see 'sandeval agent --help')");
	generators = (c->replay != NULL) + (c->generator != NULL) + (c->model_url != NULL);
	if (generators != 1)
		return fail("give one generator: --replay FILE, --generator CMD or --model-url URL --model NAME");
	if (c->model_url && !c->model)
		return fail("--model-url needs --model NAME");
	if (o->budget_usd > 0 && o->price_in == 0 && o->price_out == 0)
		return fail("--budget-usd needs --price-in and --price-out (USD per 1000 tokens)");
	return 0;
}

static void on_event(void *arg, const char *text)
{
	const struct cmd_agent *c = arg;

	if (!c->quiet || strncmp(text, "warning: ", 9) == 0)
		fprintf(stderr, "sandeval: agent: %s\n", text);
}

/* On a terminal: show the candidate, its scores and what changed since the
 * round before (diff -u), and take y or n. */
static int ask(void *arg, const struct agent_checkpoint *cp, const char **note)
{
	char prev[] = "/tmp/sandeval-agent-prev.XXXXXX", cur[] = "/tmp/sandeval-agent-cur.XXXXXX", line[64];
	int fp = mkstemp(prev), fc = mkstemp(cur);

	(void)arg;
	*note = NULL;
	fprintf(stderr, "\n== checkpoint: task %s (class %s), the candidate of round %d: public tests %s",
		cp->task_id, cp->task_class ? cp->task_class : "?", cp->round,
		cp->n_public == 0 ? "none" : cp->public_passed ? "all passed" : "not all passed");
	if (!isnan(cp->public_score))
		fprintf(stderr, " (score %.3f of %zu)", cp->public_score, cp->n_public);
	fprintf(stderr, "\n%s\n", cp->completion);
	if (cp->previous && fp >= 0 && fc >= 0 && write_all(fp, cp->previous, strlen(cp->previous)) == 0 &&
	    write_all(fc, cp->completion, strlen(cp->completion)) == 0) {
		pid_t pid;

		fprintf(stderr, "-- against the best of the round before:\n");
		fflush(stderr);
		if ((pid = fork()) == 0) {
			dup2(2, 1);
			execlp("diff", "diff", "-u", "--label", "before", "--label", "now", prev, cur, (char *)NULL);
			_exit(127);
		}
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
	if (fp >= 0)
		close(fp), unlink(prev);
	if (fc >= 0)
		close(fc), unlink(cur);
	for (;;) {
		fprintf(stderr, "accept this candidate? [y/n] ");
		fflush(stderr);
		if (!fgets(line, sizeof(line), stdin))
			return -1;
		if (line[0] == 'y' || line[0] == 'Y')
			return 1;
		if (line[0] == 'n' || line[0] == 'N')
			return 0;
	}
}

static void print_summary(const struct agent_result *res)
{
	size_t passed = 0, single = 0, errors = 0, cands = 0;

	printf("%-24s %6s %6s %5s %10s %9s  %s\n", "task", "agent", "single", "round", "candidates", "tokens", "stop");
	for (size_t i = 0; i < res->n; i++) {
		const struct agent_task *r = &res->tasks[i];

		passed += r->passed;
		single += r->single_passed;
		errors += r->stop == AGENT_STOP_GENERATOR_ERROR;
		cands += r->candidates;
		printf("%-24.24s %6s %6s %5d %10zu %9lld  %s\n", r->task_id, r->passed ? "pass" : "fail",
		       r->single_passed ? "pass" : "fail", r->solved_round, r->candidates,
		       r->prompt_tokens + r->completion_tokens, agent_stop_name(r->stop));
	}
	printf("\n%zu tasks, %zu candidates scored: agent pass@1 %.4f (%zu), single-shot pass@1 %.4f (%zu)\n", res->n,
	       cands, res->n ? (double)passed / (double)res->n : 0.0, passed,
	       res->n ? (double)single / (double)res->n : 0.0, single);
	printf("tokens %lld prompt + %lld completion, cost $%.4f, sandbox CPU %.1f s\n", res->prompt_tokens,
	       res->completion_tokens, res->cost_usd, (double)res->cpu_ms / 1000.0);
	if (res->budget_hit)
		printf("stopped by %s\n", agent_stop_name(res->budget));
	for (size_t i = 0; i < res->n; i++)
		if (res->tasks[i].stop == AGENT_STOP_CHECKPOINT_PENDING)
			printf("waits for approval: %s ('sandeval approve %s %s --accept|--reject --by NAME', then "
			       "'sandeval agent --resume %s' with the same --tasks and generator)\n", res->tasks[i].task_id,
			       res->agent_id, res->tasks[i].task_id, res->agent_id);
	printf("agent run %s\n", res->agent_id);
	if (res->agent_run[0])
		printf("runs: chosen %s, single-shot %s ('sandeval report %s' compares them)\n", res->agent_run,
		       res->single_run, res->agent_run);
	if (errors)
		printf("generator errors: %zu task%s\n", errors, errors == 1 ? "" : "s");
}

int cmd_agent(int argc, char **argv)
{
	struct cmd_agent c = { .db = cmd_default_db(), .retries = 4, .backoff = 1, .request_timeout = 120 };
	struct sd_error err = { 0 };
	struct task_set tasks = { 0 };
	struct store *st = NULL;
	struct agent_result res = { 0 };
	int ret;

	agent_options_init(&c.o);
	c.o.version = SANDEVAL_VERSION;
	c.o.event = on_event;
	c.o.arg = &c;
	ret = parse_options(argc, argv, &c);
	if (ret)
		return free(c.classes), ret == -1 ? 0 : EXIT_USAGE;
	c.o.model = c.model;
	if (isatty(0) && isatty(2)) {
		const struct passwd *pw = getpwuid(getuid());
		const char *user = getenv("USER") ? getenv("USER") : pw ? pw->pw_name : NULL;

		snprintf(c.approver, sizeof(c.approver), "terminal:%s", user && *user ? user : "?");
		c.o.approve = ask;
		c.o.approver = c.approver;
	}
	if ((c.out && check_writable(c.out, false, &err) < 0) || (c.json && check_writable(c.json, false, &err) < 0) ||
	    (!strstr(c.db, "://") && check_writable(c.db, true, &err) < 0))
		return fail("%s", err.msg);
	if (c.replay) {
		/* the replay's samples are checked against the tasks before any work */
		if (task_set_load(c.o.tasks_path, &tasks, &err) < 0)
			return fail("%s", err.msg);
		c.o.gen = generator_replay_new(c.replay, &tasks, &err);
	} else if (c.generator) {
		c.o.gen = generator_command_new(c.generator, c.request_timeout, &err);
	} else {
		struct generator_http_options ho = {
			.url = c.model_url, .model = c.model, .timeout = c.request_timeout, .retries = c.retries,
			.backoff = c.backoff,
			.api_key = getenv("SANDEVAL_API_KEY") ? getenv("SANDEVAL_API_KEY") : getenv("OPENAI_API_KEY"),
		};

		c.o.gen = generator_http_new(&ho, &err);
	}
	if (!c.o.gen) {
		ret = fail("%s", err.msg);
		goto out;
	}
	cmd_auto_gc();
	if (!(st = store_open(c.db, &err)) || agent_run(&c.o, st, &res, &err) < 0) {
		if (res.agent_id[0] && !strstr(err.msg, "no agent run"))
			ret = fail("%s; resume it with --resume %s", err.msg, res.agent_id);
		else
			ret = fail("%s", err.msg);
		goto out;
	}
	if (!c.quiet)
		print_summary(&res);
	if ((c.out && agent_write_jsonl(c.out, &res, &err) < 0) || (c.json && agent_write_summary(c.json, &res, &err) < 0))
		ret = fail("%s", err.msg);
	if (ret == 0 && res.pending)
		ret = 3;
	if (ret == 0 && res.n) {
		size_t bad = 0;

		while (bad < res.n && res.tasks[bad].stop == AGENT_STOP_GENERATOR_ERROR)
			bad++;
		if (bad == res.n)
			ret = fail("the generator failed on every task (the first: %s)",
				   res.tasks[0].error ? res.tasks[0].error : "?");
	}
out:
	agent_result_release(&res);
	store_close(st);
	generator_free(c.o.gen);
	task_set_release(&tasks);
	free(c.classes);
	return ret;
}
