/* eval.c - evaluate one sample: run its task's tests against it in a fresh sandbox, judge each
 *
 * The sandbox's main program is runners/driver.py, the trusted side: it gets
 * its plan (test code, expected values, how to start the candidate) on stdin,
 * which only it holds, and reports one JSON line per test on stdout. The
 * candidate runs in a child process of the driver, reached through a proxy
 * that passes plain data only. This file builds the plan and runs the
 * sandbox; verdict.c reads the driver's lines back and turns them, or the
 * sandbox's fate when the driver did not finish, into test results.
 */
#define _GNU_SOURCE
#include "eval/evaluator-internal.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "base/util.h"
#include "eval/verdict.h"
#include "sandbox/sandbox.h"
#include "sandbox/zygote.h"
#include "score/rouge.h"
#include "score/score.h"

#define DRIVER_DIR "/work/.sandeval"
#define MAX_WALL 600.0
#define REPORT_MAX (8u << 20)		/* a sample's verdict lines (details are cut at 1,000 bytes) */
/* An oracle's report holds the reference's answers: HumanEval+ 15's plus
 * inputs ask for strings of millions of characters. */
#define ORACLE_REPORT_MAX (256ull << 20)
/* A runner.json command with {dir}, {source}, {memory}, {memory_mb} filled in. */
static json_t *command(const json_t *tmpl, const char *source, uint64_t memory)
{
	json_t *out = json_array(), *v;
	size_t i;

	json_array_foreach(tmpl, i, v) {
		const char *in = json_string_value(v);
		char buf[1024];
		size_t n = 0;

		if (!in)
			continue;
		while (*in && n < sizeof(buf) - 64) {
			if (strncmp(in, "{dir}", 5) == 0) {
				n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s", DRIVER_DIR);
				in += 5;
			} else if (strncmp(in, "{source}", 8) == 0) {
				n += (size_t)snprintf(buf + n, sizeof(buf) - n, "/work/%s", source);
				in += 8;
			} else if (strncmp(in, "{memory_mb}", 11) == 0) {
				n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%llu", (unsigned long long)(memory >> 20));
				in += 11;
			} else if (strncmp(in, "{memory}", 8) == 0) {
				n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%llu", (unsigned long long)memory);
				in += 8;
			} else {
				buf[n++] = *in++;
			}
		}
		buf[n] = '\0';
		json_array_append_new(out, json_string(buf));
	}
	return out;
}

static size_t count_asserts(const char *code)
{
	size_t n = 0;

	for (const char *p = code; p && (p = strstr(p, "assert")); p += 6)
		n++;
	return n;
}

/* The candidate's whole program, as human-eval builds it; for a program
 * task (HumanEval-X, MultiPL-E), as its benchmark does, with the test code
 * after it: [setup "\n"] prompt completion "\n" test (task-multilang.c). */
static char *candidate_source(const struct task *t, const struct sample *s)
{
	if (t->format == TASK_PROGRAM)
		return xasprintf("%s%s%s%s\n%s", t->setup_code ? t->setup_code : "", t->setup_code ? "\n" : "",
				 s->is_completion && t->prompt ? t->prompt : "", s->code, t->test_code ? t->test_code : "");
	if (s->is_completion && t->prompt)
		return xasprintf("%s%s", t->prompt, s->code);
	return strdup(s->code);
}

static char *build_plan(const struct task *t, const struct runner *rn, const json_t *expected,
			const struct evaluator_options *o, bool oracle, const char *key)
{
	const char *source = json_string_value(json_object_get(rn->def, "source"));
	uint64_t memory = t->memory ? t->memory : o->memory;
	json_t *compile = json_object_get(rn->def, "compile");
	json_t *plan, *tests = json_array();
	/* Each test: the task's cpu_time, else --timeout, of CPU time. Active
	 * time (runners/watch.py: wall time less waiting for a CPU): the task's
	 * wall_time, else --timeout, for the whole problem where human-eval's
	 * harness times the whole problem (HumanEval's and MBPP's check code,
	 * a program task's one program), else for each test (EvalPlus's
	 * inputs, native tests). docs/fidelity.md, "Time". */
	double cpu = t->cpu_time > 0 ? t->cpu_time : o->timeout;
	double active = t->wall_time > 0 ? t->wall_time : o->timeout;
	bool per_problem = t->format == TASK_HUMANEVAL || t->format == TASK_MBPP || t->format == TASK_PROGRAM;

	plan = json_pack("{s:o, s:o, s:s, s:s?, s:s, s:s?, s:s?, s:f, s:{s:f, s:s}}",
			 "runner", command(json_object_get(rn->def, "run"), source, memory),
			 "compile", json_is_array(compile) ? command(compile, source, memory) : json_null(),
			 "language", t->language ? t->language : "python",
			 "signature", t->signature,
			 "entry_point", t->entry_point ? t->entry_point : "",
			 "prelude", t->format == TASK_HUMANEVAL ? t->prompt : t->setup_code,
			 "test_code", t->test_code,
			 "timeout", cpu,
			 "active", "limit", active, "per", per_problem ? "problem" : "test");
	if (!plan || !tests) {
		json_decref(plan);
		json_decref(tests);
		return NULL;
	}
	if (t->format == TASK_PROGRAM) {
		/* the program is the test: compiled (the task's own build, else the
		 * runner's), run (the runner's "program" run, else its "run"), judged
		 * by how it ends */
		json_t *build = t->build ? json_loads(t->build, 0, NULL) : NULL;
		json_t *prog = json_object_get(rn->def, "program");
		json_t *run = json_object_get(prog, "run") ? json_object_get(prog, "run") : json_object_get(rn->def, "run");

		if (build) {
			json_object_set_new(plan, "compile", command(build, source, memory));
			json_decref(build);
		}
		json_object_set_new(plan, "program", json_pack("{s:o, s:b}", "run", command(run, source, memory),
							       "quiet", t->quiet));
		json_object_del(plan, "test_code");
		json_object_del(plan, "prelude");
	}
	if (t->format == TASK_EVALPLUS) {
		/* each input's text as the file has it: only the driver's Python reads it (task-evalplus.c) */
		for (size_t i = 0; i < t->n_tests; i++)
			json_array_append_new(tests, json_pack("{s:s, s:s}", "name", t->tests[i].name,
							       "input", t->tests[i].args_json));
		json_object_set_new(plan, "evalplus", json_pack("{s:s, s:s, s:f}", "dataset",
			strcmp(t->class, "mbpp+") == 0 ? "mbpp" : "humaneval", "task", t->id, "atol", t->atol));
		json_object_del(plan, "prelude");
		json_object_del(plan, "test_code");
	}
	for (size_t i = 0; i < t->n_tests && t->format != TASK_EVALPLUS; i++) {
		const struct task_test *tt = &t->tests[i];
		json_t *args = tt->args_json ? json_loads(tt->args_json, 0, NULL) : json_array();
		json_t *exp = tt->expected_json ? json_loads(tt->expected_json, JSON_DECODE_ANY, NULL) : NULL;
		json_t *gen = tt->generator ? json_loads(tt->generator, 0, NULL) : NULL;

		json_array_append_new(tests, json_pack("{s:s, s:o, s:o, s:o, s:i}", "name", tt->name,
						       "args", args ? args : json_array(),
						       "expected", exp ? exp : json_null(),
						       "generator", gen ? gen : json_null(),
						       "cases", tt->cases > 0 ? tt->cases : 20));
	}
	json_object_set_new(plan, "tests", tests);
	if (t->test_split)
		json_object_set_new(plan, "split", json_loads(t->test_split, 0, NULL));
	json_object_set_new(plan, "seed", json_integer(o->seed));
	if (o->fail_fast && !oracle)
		json_object_set_new(plan, "fail_fast", json_true());
	json_object_set_new(plan, "mode", json_string(oracle ? "oracle" : "evaluate"));
	if (expected)
		json_object_set(plan, "expected", (json_t *)expected);
	json_object_set_new(plan, "key", json_string(key));
	char *text = json_dumps(plan, JSON_COMPACT);

	json_decref(plan);
	return text;
}

/* human-eval's "result": "passed", "timed out" or "failed: ..." of the first
 * test that did not pass (harness errors are sandeval's, not the sample's).
 * It says "passed" only when the sample passed: a sample whose every test
 * is a harness error was not judged, and says so. */
static void he_result(struct sample_result *r)
{
	const struct test_result *first = NULL, *harness = NULL;

	for (size_t i = 0; i < r->n_tests && !first; i++) {
		if (r->tests[i].status == TS_HARNESS_ERROR && !harness)
			harness = &r->tests[i];
		else if (r->tests[i].status != TS_PASSED && r->tests[i].status != TS_HARNESS_ERROR)
			first = &r->tests[i];
	}
	if (first && first->status == TS_TIMEOUT)
		r->he_result = strdup("timed out");
	else if (first)
		r->he_result = xasprintf("failed: %s", first->detail ? first->detail : test_status_name(first->status));
	else if (r->passed)
		r->he_result = strdup("passed");
	else
		r->he_result = xasprintf("not judged: harness error: %s",
					 harness && harness->detail ? harness->detail : "no test ran");
}

/* Run the driver on SOURCE with PLAN in a fresh sandbox, each test held to
 * TIMEOUT, its report held to OUTPUT bytes. */
static int run_driver(struct evaluator *ev, const struct task *task, const struct runner *rn, const char *source,
		      const char *plan, double timeout, uint64_t output, struct sandbox_result *sr,
		      struct sd_error *err)
{
	const struct evaluator_options *o = &ev->o;
	char mem[32], src[300];
	/* python: the driver forks the runner before it reads its plan (see driver.py) */
	char *argv[] = { "python3", "-I", "-S", DRIVER_DIR "/start.py", rn->lang, src, mem, NULL };
	struct sandbox_file files[sizeof(rn->files) / sizeof(rn->files[0]) + 1];
	char dests[sizeof(rn->files) / sizeof(rn->files[0]) + 1][256];
	struct sandbox_config cfg;
	size_t units = count_asserts(task->test_code) + 1, n = 0;
	double budget;

	for (size_t i = 0; i < task->n_tests; i++)
		units += task->tests[i].generator ? (size_t)(task->tests[i].cases > 0 ? task->tests[i].cases : 20) : 1;
	for (size_t i = 0; i < rn->n_files; i++, n++) {
		snprintf(dests[n], sizeof(dests[n]), ".sandeval/%s", rn->files[i].name);
		files[n] = (struct sandbox_file){ .dest = dests[n], .src = rn->files[i].name,
						  .data = rn->files[i].text, .len = rn->files[i].len,
						  .shared = true };
	}
	snprintf(dests[n], sizeof(dests[n]), "%s", json_string_value(json_object_get(rn->def, "source")));
	files[n] = (struct sandbox_file){ .dest = dests[n], .src = dests[n], .data = source, .len = strlen(source) };
	n++;
	snprintf(mem, sizeof(mem), "%llu", (unsigned long long)(task->memory ? task->memory : o->memory));
	snprintf(src, sizeof(src), "/work/%s", json_string_value(json_object_get(rn->def, "source")));
	sandbox_config_init(&cfg);
	cfg.backend = o->backend;
	if (task->image || o->image)
		cfg.image = task->image ? task->image : o->image;
	cfg.argv = argv;
	cfg.files = files;
	cfg.n_files = n;
	cfg.stdin_data = plan;
	cfg.stdin_len = strlen(plan);
	cfg.memory = task->memory ? task->memory : o->memory;
	/* The driver holds each test to its limits (build_plan); these are the
	 * backstops (plus time to compile, for compiled languages). */
	budget = fmax(task->cpu_time > 0 ? task->cpu_time : timeout, task->wall_time > 0 ? task->wall_time : timeout) *
		 (double)units + 5.0 + (json_is_array(json_object_get(rn->def, "compile")) ? 30.0 : 0.0);
	cfg.wall_time = budget > MAX_WALL ? MAX_WALL : budget;
	cfg.cpu_time = cfg.wall_time;
	cfg.output = output;
	cfg.pids = 128;
	cfg.zygote = evaluator_zygote(ev, task);
	cfg.pool = evaluator_pool(ev);
	cfg.log_path = ev->o.log_path;
	cfg.cancel_fd = ev->cancel_fd;
	return eval_sandbox_run(&cfg, sr, err);
}

/* A failed oracle's record is an object with one member named "", which no
 * test can be (test names have 1 to 128 characters): why it failed. */
json_t *eval_oracle_failure(const char *why)
{
	return json_pack("{s:s}", "", why);
}

static const char *oracle_failed(const json_t *expected)
{
	return json_string_value(json_object_get(expected, ""));
}

int eval_tests(struct evaluator *ev, const struct task *task, const struct sample *sample,
	       const json_t *expected, struct sample_result *out, struct sd_error *err)
{
	cleanup_free char *source = candidate_source(task, sample);
	cleanup_free char *plan = NULL;
	const struct runner *rn;
	struct sandbox_result sr;
	struct sd_error e = { 0 };
	char key[2 * VERDICT_KEY_BYTES + 1];

	if (evaluator_result_start(out, task, sample) < 0 || !source) {
		sample_result_release(out);
		return sd_error_errno(err, ENOMEM, "eval");
	}
	out->rouge_l = task->reference && sample->code ? rouge_l(sample->code, task->reference) : NAN;
	rn = evaluator_runner(ev, task->language ? task->language : "python", &e);
	plan = rn && random_hex(key, VERDICT_KEY_BYTES, &e) == 0 ? build_plan(task, rn, expected, &ev->o, false, key) : NULL;
	if (oracle_failed(expected)) {
		sample_result_add_test(out, "(oracle)", TS_HARNESS_ERROR, oracle_failed(expected), false, NULL);
	} else if (!rn || !plan || run_driver(ev, task, rn, source, plan, ev->o.timeout, REPORT_MAX, &sr, &e) < 0) {
		if (e.code == EINTR) {	/* no verdict: nothing of it is kept */
			sample_result_release(out);
			return sd_error_set(err, EINTR, "%s", e.msg);
		}
		sample_result_add_test(out, "(sandbox)", TS_HARNESS_ERROR, e.msg, false, NULL);
	} else {
		out->sandbox_ids = strdup(sr.id);
		out->latency_ms = sr.wall_ms;
		out->cpu_ms = sr.cpu_ms;
		evaluator_add_costs(out, &sr);
		out->peak_memory_bytes = sr.peak_memory_bytes;
		out->tripwires = sr.tripwires;
		verdict_read(task, &sr, key, out);
		sandbox_result_release(&sr);
	}
	out->finished_ms = evaluator_now_ms();
	if (out->n_tests == 0)
		sample_result_add_test(out, "(no tests)", TS_HARNESS_ERROR, "the task has no tests", false, NULL);
	out->harness_error = true;
	for (size_t i = 0; i < out->n_tests; i++)
		if (out->tests[i].status != TS_HARNESS_ERROR)
			out->harness_error = false;
	score_sample(out);
	he_result(out);
	if (task->format == TASK_EVALPLUS && sample_result_evalplus(out) < 0) {
		sample_result_release(out);
		return sd_error_errno(err, ENOMEM, "eval");
	}
	return 0;
}

static bool needs_oracle(const struct task *t)
{
	for (size_t i = 0; i < t->n_tests; i++)
		if (!t->tests[i].expected_json || t->tests[i].generator)
			return true;
	return false;
}

int eval_oracle(struct evaluator *ev, const struct task *task, json_t **expected, struct sd_error *err)
{
	cleanup_free char *plan = NULL, *source = NULL;
	const struct runner *rn;
	struct sandbox_result sr;
	json_t *values = NULL;
	struct verdict_reader vr;
	char key[2 * VERDICT_KEY_BYTES + 1];
	bool done = false;

	*expected = NULL;
	if (!needs_oracle(task))
		return 0;
	if (!task->reference)
		return sd_error_set(err, EINVAL, "task '%s': tests without an expected value need a reference solution", task->id);
	rn = evaluator_runner(ev, task->language ? task->language : "python", err);
	if (!rn)
		return sd_error_wrap(err, "task '%s'", task->id);
	if (random_hex(key, VERDICT_KEY_BYTES, err) < 0)
		return sd_error_wrap(err, "task '%s': oracle", task->id);
	plan = build_plan(task, rn, NULL, &ev->o, true, key);
	/* EvalPlus runs prompt + canonical_solution (a body in HumanEval+) */
	source = task->format == TASK_EVALPLUS && task->prompt ? xasprintf("%s%s", task->prompt, task->reference)
							     : strdup(task->reference);
	if (!plan || !source)
		return sd_error_set(err, ENOMEM, "task '%s': oracle: out of memory", task->id);
	if (run_driver(ev, task, rn, source, plan, ev->o.timeout, ORACLE_REPORT_MAX, &sr, err) < 0)
		return sd_error_wrap(err, "task '%s': oracle", task->id);
	values = json_object();
	verdict_reader_open(&vr, sr.stdout_buf, sr.stdout_len, key);
	for (char *line = verdict_next(&vr); line; line = verdict_next(&vr)) {
		json_t *l = json_loads(line, 0, NULL);
		const char *status = json_string_value(json_object_get(l, "status"));

		if (json_is_true(json_object_get(l, "done")))
			done = true;
		if (status && strcmp(status, "passed") != 0) {
			sd_error_set(err, EINVAL, "task '%s': the reference solution fails test '%s': %s", task->id,
				     json_string_value(json_object_get(l, "test")),
				     json_string_value(json_object_get(l, "detail")) ? json_string_value(json_object_get(l, "detail")) : status);
			json_decref(l);
			json_decref(values);
			sandbox_result_release(&sr);
			return -1;
		}
		json_object_update(values, json_object_get(l, "values"));
		json_decref(l);
	}
	if (!done) {
		sd_error_set(err, EIO, "task '%s': the oracle did not finish (%s%s%s)", task->id,
			     sandbox_status_name(sr.status), sr.error[0] ? ": " : "", sr.error);
		json_decref(values);
		sandbox_result_release(&sr);
		return -1;
	}
	sandbox_result_release(&sr);
	*expected = values;
	return 0;
}

int eval_prepare(struct evaluator *ev, struct task *tasks, size_t n, struct sd_error *err)
{
	struct task none = { .id = "(split)", .language = "python", .format = TASK_HUMANEVAL };
	cleanup_free char *plan = NULL;
	const struct runner *rn;
	struct sandbox_result sr;
	json_t *texts = json_array(), *p;
	size_t *index = calloc(n + 1, sizeof(*index)), m = 0;
	char *save = NULL;
	bool done = false;

	if (!texts || !index) {
		json_decref(texts);
		free(index);
		return sd_error_errno(err, ENOMEM, "preparing tests");
	}
	for (size_t i = 0; i < n; i++) {
		if (tasks[i].test_code && (!tasks[i].language || strcmp(tasks[i].language, "python") == 0)) {
			json_array_append_new(texts, json_string(tasks[i].test_code));
			index[m++] = i;
		}
	}
	p = json_pack("{s:s, s:o}", "mode", "split", "texts", texts);
	plan = p ? json_dumps(p, JSON_COMPACT) : NULL;
	json_decref(p);
	if (m == 0) {
		free(index);
		return 0;
	}
	rn = evaluator_runner(ev, "python", err);
	/* some 2 ms a task; the backstop is generous (a slow, loaded machine) */
	if (!rn || !plan || run_driver(ev, &none, rn, "", plan, 10.0 + (double)m * 0.05, REPORT_MAX, &sr, err) < 0) {
		free(index);
		return sd_error_wrap(err, "preparing the tests of %zu tasks", m);
	}
	for (char *line = sr.stdout_buf ? strtok_r(sr.stdout_buf, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		json_t *l = json_loads(line, 0, NULL), *v = json_object_get(l, "value");
		json_int_t k = json_integer_value(json_object_get(l, "split"));

		if (json_is_true(json_object_get(l, "done")))
			done = true;
		if (json_is_object(v) && json_is_integer(json_object_get(l, "split")) && k >= 0 && (size_t)k < m) {
			struct task *t = &tasks[index[k]];

			free(t->test_split);
			t->test_split = json_dumps(v, JSON_COMPACT);
		}
		json_decref(l);
	}
	if (!done) {
		const char *why = sr.stderr_buf && *sr.stderr_buf ? sr.stderr_buf : sr.error;
		size_t len = strlen(why);

		sd_error_set(err, EIO, "preparing the tests of %zu tasks: the driver did not finish (%s%s%s)", m,
			     sandbox_status_name(sr.status), *why ? ": " : "", len > 300 ? why + len - 300 : why);
	}
	sandbox_result_release(&sr);
	free(index);
	return done ? 0 : -1;
}
