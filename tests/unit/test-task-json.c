/* test-task-json.c - unit tests of tasks and samples given as JSON values (task-json.c, sample_set_from_json) */
#include "fixture.h"

#include <jansson.h>

#include "suite/task.h"

static json_t *parse(const char *text)
{
	json_error_t e;
	json_t *v = json_loads(text, JSON_DECODE_ANY, &e);

	if (!v)
		fail_msg("bad test JSON: %s: %s", e.text, text);
	return v;
}

/* The directory example task fib, inline: the same task, the same suite hash. */
static void test_native_inline_equals_directory(void **state)
{
	struct task_set dir = { 0 }, in = { 0 };
	struct sd_error err = { 0 };
	char *prompt = fx_read_len("examples/tasks/fib/prompt.md", NULL);
	char *ref = fx_read_len("examples/tasks/fib/reference.py", NULL);
	char *task = fx_read_len("examples/tasks/fib/task.json", NULL);
	json_t *v;

	(void)state;
	assert_non_null(prompt);
	assert_non_null(ref);
	assert_non_null(task);
	v = parse(task);
	json_object_set_new(v, "prompt", json_string(prompt));
	json_object_set_new(v, "reference", json_pack("{s:s}", "text", ref));
	if (task_set_load("examples/tasks/fib", &dir, &err) < 0)
		fail_msg("%s", err.msg);
	if (task_set_from_json(v, "tasks", &in, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(in.n, 1);
	assert_int_equal(in.format, TASK_NATIVE);
	assert_string_equal(in.tasks[0].id, "fib");
	assert_string_equal(in.tasks[0].origin, "tasks");
	assert_int_equal(in.tasks[0].n_tests, dir.tasks[0].n_tests);
	assert_string_equal(in.hash, dir.hash);
	task_set_release(&in);
	/* an array of one gives the same */
	json_t *a = json_pack("[O]", v);
	if (task_set_from_json(a, "tasks", &in, &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(in.tasks[0].origin, "tasks[0]");
	assert_string_equal(in.hash, dir.hash);
	task_set_release(&in);
	task_set_release(&dir);
	json_decref(a);
	json_decref(v);
	free(prompt);
	free(ref);
	free(task);
}

/* A HumanEval record inline and in a file: the same hash. */
static void test_humaneval_inline_equals_file(void **state)
{
	static const char rec[] = "{\"task_id\": \"T/0\", \"prompt\": \"def f(x):\\n\", \"canonical_solution\": "
				  "\"    return x\\n\", \"test\": \"def check(c):\\n    assert c(1) == 1\\n\", "
				  "\"entry_point\": \"f\"}";
	char *dir = fx_tmpdir(), *file = fx_str("%s/he.jsonl", dir);
	struct task_set a = { 0 }, b = { 0 };
	struct sd_error err = { 0 };
	json_t *v = parse(rec);

	(void)state;
	fx_write(file, rec);
	if (task_set_load(file, &a, &err) < 0 || task_set_from_json(v, "tasks", &b, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(b.format, TASK_HUMANEVAL);
	assert_string_equal(a.hash, b.hash);
	task_set_release(&a);
	task_set_release(&b);
	json_decref(v);
	fx_rm_rf(dir);
	free(file);
	free(dir);
}

struct bad_case {
	const char *json;
	const char *msg;
};

static void test_task_errors_name_the_field(void **state)
{
	static const struct bad_case cases[] = {
		{ "[]", "tasks: no tasks (an empty array)" },
		{ "42", "tasks: expected a task (an object), got an integer" },
		{ "[{\"id\": \"a\", \"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"x\", \"tests\": [{\"name\": \"t\", \"args\": [1], \"expected\": 1}]}, 7]",
		  "tasks[1]: expected a task (an object), got an integer" },
		{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"def f(): pass\", \"tests\": []}",
		  "tasks: field 'id': missing" },
		{ "{\"id\": \"a\", \"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"prompt.md\"}",
		  "tasks: field 'prompt': 'prompt.md': a task given inline cannot name a file" },
		{ "{\"id\": \"a\", \"language\": \"python\", \"entry_point\": \"f\", \"prompt\": {\"file\": \"/etc/passwd\"}}",
		  "tasks: field 'prompt': '/etc/passwd': a task given inline cannot name a file" },
		{ "{\"id\": \"a\", \"language\": \"cobol\", \"entry_point\": \"f\", \"prompt\": \"x\", \"tests\": [{\"name\": \"t\", \"args\": [1], \"expected\": 1}]}",
		  "tasks: field 'language'" },
		{ "{\"id\": \"a\", \"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"x\", \"colour\": 1, \"tests\": []}",
		  "tasks: field 'colour': unknown field" },
		{ "[{\"id\": \"a\", \"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"x\", "
		  "\"tests\": [{\"name\": \"t\", \"args\": 5}]}]", "tasks[0]: field 'tests[0].args'" },
		{ "[{\"id\": \"a\", \"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"x\", \"tests\": [{\"name\": \"t\", \"args\": [1], \"expected\": 1}]},"
		  " {\"id\": \"a\", \"language\": \"python\", \"entry_point\": \"g\", \"prompt\": \"y\", \"tests\": [{\"name\": \"t\", \"args\": [1], \"expected\": 1}]}]",
		  "tasks[1]: duplicate task id 'a' (first at tasks[0])" },
		{ "{\"task_id\": \"T/0\", \"prompt\": \"x\", \"canonical_solution\": 5, \"test\": \"t\", \"entry_point\": \"f\"}",
		  "tasks: field 'canonical_solution': expected a string, got an integer" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct task_set set = { 0 };
		struct sd_error err = { 0 };
		json_t *v = parse(cases[i].json);

		if (task_set_from_json(v, "tasks", &set, &err) == 0)
			fail_msg("case %zu loaded: %s", i, cases[i].json);
		if (strncmp(err.msg, cases[i].msg, strlen(cases[i].msg)) != 0)
			fail_msg("case %zu: '%s' does not start with '%s'", i, err.msg, cases[i].msg);
		assert_null(set.tasks);
		json_decref(v);
	}
}

static void test_samples(void **state)
{
	static const char tasks[] = "[{\"id\": \"a\", \"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"x\", \"tests\": [{\"name\": \"t\", \"args\": [1], \"expected\": 1}]},"
				    " {\"id\": \"b\", \"language\": \"python\", \"entry_point\": \"g\", \"prompt\": \"y\", \"tests\": [{\"name\": \"t\", \"args\": [1], \"expected\": 1}]}]";
	struct task_set ts = { 0 };
	struct sample_set ss = { 0 };
	struct sd_error err = { 0 };
	json_t *tv = parse(tasks), *sv;

	(void)state;
	if (task_set_from_json(tv, "tasks", &ts, &err) < 0)
		fail_msg("%s", err.msg);
	sv = parse("[{\"task_id\": \"a\", \"completion\": \"  return 1\"}, {\"task_id\": \"a\", \"solution\": \"def f(): 2\"},"
		   " {\"task_id\": \"b\", \"completion\": \"x\", \"sample_id\": \"mine\", \"model\": \"m\"}]");
	if (sample_set_from_json(sv, "samples", &ts, &ss, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(ss.n, 3);
	assert_string_equal(ss.samples[0].sample_id, "a/0");
	assert_true(ss.samples[0].is_completion);
	assert_string_equal(ss.samples[1].sample_id, "a/1");
	assert_false(ss.samples[1].is_completion);
	assert_string_equal(ss.samples[2].sample_id, "mine");
	assert_string_equal(ss.samples[2].model, "m");
	sample_set_release(&ss);
	json_decref(sv);

	static const struct bad_case bad[] = {
		{ "{}", "field 'samples': expected an array of samples, got an object" },
		{ "[]", "samples: no samples" },
		{ "[7]", "samples[0]: expected a sample (an object), got an integer" },
		{ "[{\"task_id\": \"a\", \"completion\": \"x\"}, {\"task_id\": \"zz\", \"completion\": \"x\"}]",
		  "samples[1]: field 'task_id': unknown task 'zz'" },
		{ "[{\"task_id\": \"a\"}]", "samples[0]: field 'completion': missing" },
		{ "[{\"task_id\": \"a\", \"completion\": \"x\", \"solution\": \"y\"}]", "samples[0]: field 'solution': not allowed" },
		{ "[{\"task_id\": \"a\", \"completion\": 5}]", "samples[0]: field 'completion': expected a string" },
		{ "[{\"task_id\": \"a\", \"completion\": \"x\", \"sample_id\": \"s\"}, {\"task_id\": \"b\", \"completion\": \"x\", "
		  "\"sample_id\": \"s\"}]", "samples[1]: field 'sample_id': duplicate sample id 's' (first at samples[0])" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		sv = parse(bad[i].json);
		if (sample_set_from_json(sv, "samples", &ts, &ss, &err) == 0)
			fail_msg("case %zu loaded: %s", i, bad[i].json);
		if (strncmp(err.msg, bad[i].msg, strlen(bad[i].msg)) != 0)
			fail_msg("case %zu: '%s' does not start with '%s'", i, err.msg, bad[i].msg);
		json_decref(sv);
	}
	task_set_release(&ts);
	json_decref(tv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_native_inline_equals_directory),
		cmocka_unit_test(test_humaneval_inline_equals_file),
		cmocka_unit_test(test_task_errors_name_the_field),
		cmocka_unit_test(test_samples),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
