/* test-task-evalplus.c - unit tests of task-evalplus.c: HumanEval+ and MBPP+ as tasks, inputs kept as written, bad records, --mini, samples */
#include "fixture.h"

#include "suite/task.h"

static int setup(void **state)
{
	*state = fx_tmpdir();
	return 0;
}

static int teardown(void **state)
{
	fx_rm_rf(*state);
	free(*state);
	return 0;
}

static const struct task_test *test_named(const struct task *t, const char *name)
{
	for (size_t i = 0; i < t->n_tests; i++)
		if (strcmp(t->tests[i].name, name) == 0)
			return &t->tests[i];
	fail_msg("task '%s' has no test '%s'", t->id, name);
	return NULL;
}

static size_t count_prefix(const struct task_set *set, const char *prefix)
{
	size_t n = 0;

	for (size_t i = 0; i < set->n; i++)
		for (size_t j = 0; j < set->tasks[i].n_tests; j++)
			n += strncmp(set->tasks[i].tests[j].name, prefix, strlen(prefix)) == 0;
	return n;
}

static void test_real_humaneval_plus(void **state)
{
	FX_REAL(path, "evalplus/HumanEvalPlus-v0.1.10.jsonl.gz");
	struct task_set set;
	struct sd_error err = { 0 };
	const struct task *t;

	(void)state;
	if (task_set_load(path, &set, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(set.n, 164);
	assert_int_equal(set.format, TASK_EVALPLUS);
	/* every input a test: 1,570 base (HumanEval's own) and 122,683 plus */
	assert_int_equal(count_prefix(&set, "base/"), 1570);
	assert_int_equal(count_prefix(&set, "plus/"), 122683);
	t = &set.tasks[0];
	assert_string_equal(t->id, "HumanEval/0");
	assert_string_equal(t->class, "humaneval+");
	assert_string_equal(t->language, "python");
	assert_string_equal(t->entry_point, "has_close_elements");
	assert_contains(t->prompt, "def has_close_elements(");
	assert_contains(t->reference, "return False");	/* canonical_solution: a body */
	assert_contains(t->contract, "$_CONTRACT_$");
	assert_null(t->test_code);
	assert_true(t->atol == 0);
	assert_contains(t->origin, "HumanEvalPlus-v0.1.10.jsonl.gz:1");
	assert_true(task_set_find(&set, "HumanEval/2")->atol == 1e-6);
	assert_true(task_set_find(&set, "HumanEval/32")->atol == 1e-4);
	/* line 23, where `sandeval run` used to stop ("too big integer"): the
	 * 23-digit integers are kept as written, for Python to read */
	t = task_set_find(&set, "HumanEval/22");
	assert_string_equal(t->origin + strlen(t->origin) - 3, ":23");
	assert_string_equal(test_named(t, "plus/597")->args_json,
			    "[[99999999999999999999999, -99999999999999999999999]]");
	assert_string_equal(test_named(t, "base/0")->args_json, "[[]]");
	assert_null(test_named(t, "base/0")->expected_json);	/* the oracle's answers */
	assert_int_equal(test_named(t, "base/0")->tier, TIER_CANONICAL);
	assert_true(test_named(t, "plus/0")->weight == 1.0);
	assert_int_equal(test_named(t, "plus/0")->visibility, VIS_PUBLIC);
	task_set_release(&set);
	free(path);
}

static void test_real_mbpp_plus_and_mini(void **state)
{
	FX_REAL(path, "evalplus/MbppPlus-767efcc.jsonl.gz");
	char *mini = fx_data_file("evalplus/HumanEvalPlus-Mini-v0.1.10.jsonl.gz");
	struct task_set set;
	struct sd_error err = { 0 };
	const struct task *t;

	(void)state;
	if (task_set_load(path, &set, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(set.n, 399);
	assert_int_equal(set.format, TASK_EVALPLUS);
	assert_int_equal(count_prefix(&set, "base/"), 1236);
	assert_int_equal(count_prefix(&set, "plus/"), 42082);
	t = task_set_find(&set, "Mbpp/2");
	assert_non_null(t);
	assert_string_equal(t->class, "mbpp+");
	assert_string_equal(t->entry_point, "similar_elements");
	/* NaN's kin and exact float text, as written */
	t = task_set_find(&set, "Mbpp/404");
	assert_string_equal(test_named(t, "plus/9")->args_json, "[-Infinity, Infinity]");
	assert_string_equal(test_named(t, "plus/12")->args_json, "[0.12345678901234568, 0.9876543210987654]");
	assert_string_equal(test_named(t, "plus/13")->args_json, "[10000000000000000000000, -9999999999999999999999]");
	assert_true(t->atol == 0);
	assert_true(task_set_find(&set, "Mbpp/82")->atol == 1e-4);
	/* plus_input {} (793): no plus input, as EvalPlus's loop over it sees none */
	t = task_set_find(&set, "Mbpp/793");
	assert_int_equal(t->n_tests, 3);
	task_set_release(&set);

	/* the Mini file: the same tasks and base inputs, fewer plus inputs */
	if (task_set_load(mini, &set, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(set.n, 164);
	assert_int_equal(count_prefix(&set, "base/"), 1570);
	assert_int_equal(count_prefix(&set, "plus/"), 1107);
	task_set_release(&set);
	free(mini);
	free(path);
}

/* Fail unless loading TEXT as DIR/t.jsonl fails with W (malloc'd; freed here). */
static void load_fail_(const char *dir, const char *text, char *w)
{
	char *p = fx_str("%s/t.jsonl", dir);
	struct task_set set;
	struct sd_error err = { 0 };

	fx_write(p, text);
	memset(&set, 0x5a, sizeof(set));
	if (task_set_load(p, &set, &err) == 0)
		fail_msg("loaded, expected: %s", w);
	assert_string_equal(err.msg, w);
	for (size_t i = 0; i < sizeof(set); i++)
		assert_int_equal(((unsigned char *)&set)[i], 0x5a);
	free(w);
	free(p);
}

/* WANT names the file as %s (and as many times as it is given here) */
#define load_fail(dir, text, ...) do { \
		char *path_ = fx_str("%s/t.jsonl", dir); \
		load_fail_(dir, text, fx_str(__VA_ARGS__)); \
		free(path_); \
	} while (0)

#define REC(fields) "{\"task_id\": \"HumanEval/0\", \"prompt\": \"def f(x):\\n\", \"canonical_solution\": \"    return x\\n\"," \
	" \"entry_point\": \"f\", \"atol\": 0, " fields "}\n"
#define OK REC("\"base_input\": [[1]], \"plus_input\": [[2]]")

static void test_errors(void **state)
{
	const char *dir = *state;

	load_fail(dir, OK "{\"task_id\": \"HumanEval/1\", \"base_input\": [[1]], \"plus_input\": [[1, 2]] x}\n",
		  "%s:2:72: invalid JSON: ',' or '}' expected", path_);
	load_fail(dir, OK REC("\"plus_input\": [[2]]"), "%s:2: field 'base_input': missing", path_);
	load_fail(dir, OK REC("\"base_input\": [[1]]"), "%s:2: field 'plus_input': missing", path_);
	load_fail(dir, OK REC("\"base_input\": [[1], 5], \"plus_input\": []"),
		  "%s:2: field 'base_input[1]': expected an array of arguments, got a number", path_);
	load_fail(dir, OK REC("\"base_input\": [], \"plus_input\": [[1], [\"a\"], {}]"),
		  "%s:2: field 'plus_input[2]': expected an array of arguments, got an object", path_);
	load_fail(dir, OK REC("\"base_input\": [], \"plus_input\": {\"a\": [1]}"),
		  "%s:2: field 'plus_input': expected an array of inputs, got an object", path_);
	load_fail(dir, OK REC("\"base_input\": \"[[1]]\", \"plus_input\": []"),
		  "%s:2: field 'base_input': expected an array of inputs, got a string", path_);
	load_fail(dir, OK "{\"task_id\": \"HumanEval/1\", \"prompt\": \"\", \"canonical_solution\": \"\", \"entry_point\": "
		  "\"not-a-name\", \"atol\": 0, \"base_input\": [], \"plus_input\": []}\n",
		  "%s:2: field 'entry_point': 'not-a-name' is not a Python identifier", path_);
	load_fail(dir, OK "{\"task_id\": \"HumanEval/1\", \"prompt\": \"\", \"canonical_solution\": \"\", \"entry_point\": "
		  "\"g\", \"atol\": -1, \"base_input\": [], \"plus_input\": []}\n",
		  "%s:2: field 'atol': expected a number >= 0, got an integer", path_);
	load_fail(dir, OK "{\"task_id\": \"HumanEval/1\", \"prompt\": \"\", \"canonical_solution\": \"\", \"entry_point\": "
		  "\"g\", \"atol\": NaN, \"base_input\": [], \"plus_input\": []}\n",
		  "%s:2: field 'atol': expected a finite number >= 0, got NaN", path_);
	load_fail(dir, OK "{\"task_id\": \"HumanEval/1\", \"prompt\": \"\", \"canonical_solution\": \"\", \"entry_point\": "
		  "\"g\", \"base_input\": [], \"plus_input\": []}\n", "%s:2: field 'atol': missing", path_);
	load_fail(dir, OK "{\"task_id\": 7, \"prompt\": \"\", \"canonical_solution\": \"\", \"entry_point\": "
		  "\"g\", \"atol\": 0, \"base_input\": [], \"plus_input\": []}\n",
		  "%s:2: field 'task_id': expected a string, got an integer", path_);
	load_fail(dir, OK "{\"task_id\": \"HumanEval/1\", \"entry_point\": \"g\", \"canonical_solution\": \"\", \"atol\": 0,"
		  " \"base_input\": [], \"plus_input\": []}\n", "%s:2: field 'prompt': missing", path_);
	/* a repeated key, whatever its value holds */
	load_fail(dir, OK REC("\"base_input\": [[1]], \"plus_input\": [], \"atol\": 1"),
		  "%s:2:168: invalid JSON: duplicate object key near '\"atol\"'", path_);
	load_fail(dir, OK REC("\"base_input\": [[1]], \"plus_input\": [], \"base_input\": [[1e999999]]"),
		  "%s:2:174: invalid JSON: duplicate object key near '\"base_input\"'", path_);
	load_fail(dir, OK "[1]\n", "%s:2: expected a JSON object, got an array", path_);
	load_fail(dir, OK "{\"a\": \"\xff\"}\n", "%s:2:8: invalid UTF-8", path_);
	load_fail(dir, OK OK, "%s:2: duplicate task id 'HumanEval/0' (first at %s:1)", path_, path_);
}

/* Inputs are kept byte for byte, whatever jansson would make of them. */
static void test_inputs_as_written(void **state)
{
	const char *dir = *state;
	char *p = fx_str("%s/t.jsonl", dir);
	struct task_set set;
	struct sd_error err = { 0 };
	char hash[65];

	fx_write(p, "\n" REC("\"base_input\": [[1.10, 1e400, -0.0], [NaN], [123456789012345678901234567890]],"
			    " \"plus_input\": [[{\"a\": [1, 2]}, \"\\u00e9\\n\"],[ ] ], \"test\": \"ignored\"")
		    "\n");
	if (task_set_load(p, &set, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(set.format, TASK_EVALPLUS);
	assert_int_equal(set.tasks[0].n_tests, 5);
	assert_string_equal(set.tasks[0].tests[0].name, "base/0");
	assert_string_equal(set.tasks[0].tests[0].args_json, "[1.10, 1e400, -0.0]");
	assert_string_equal(set.tasks[0].tests[1].args_json, "[NaN]");
	assert_string_equal(set.tasks[0].tests[2].args_json, "[123456789012345678901234567890]");
	assert_string_equal(set.tasks[0].tests[3].name, "plus/0");
	assert_string_equal(set.tasks[0].tests[3].args_json, "[{\"a\": [1, 2]}, \"\\u00e9\\n\"]");
	assert_string_equal(set.tasks[0].tests[4].args_json, "[ ]");
	assert_contains(set.tasks[0].origin, "t.jsonl:2");
	memcpy(hash, set.hash, sizeof(hash));
	task_set_release(&set);
	/* the suite hash covers the inputs' text: 1.10 and 1.1 are other files */
	fx_write(p, "\n" REC("\"base_input\": [[1.1, 1e400, -0.0], [NaN], [123456789012345678901234567890]],"
			    " \"plus_input\": [[{\"a\": [1, 2]}, \"\\u00e9\\n\"],[ ] ], \"test\": \"ignored\"")
		    "\n");
	if (task_set_load(p, &set, &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_not_equal(hash, set.hash);
	task_set_release(&set);
	/* and atol */
	fx_write(p, REC("\"base_input\": [], \"plus_input\": []"));
	if (task_set_load(p, &set, &err) < 0)
		fail_msg("%s", err.msg);
	memcpy(hash, set.hash, sizeof(hash));
	assert_int_equal(set.tasks[0].n_tests, 0);
	task_set_release(&set);
	fx_write(p, "{\"task_id\": \"HumanEval/0\", \"prompt\": \"def f(x):\\n\", \"canonical_solution\": \"    return x\\n\","
		    " \"entry_point\": \"f\", \"atol\": 1e-6, \"base_input\": [], \"plus_input\": []}\n");
	if (task_set_load(p, &set, &err) < 0)
		fail_msg("%s", err.msg);
	assert_true(set.tasks[0].atol == 1e-6);
	assert_string_not_equal(hash, set.hash);
	task_set_release(&set);
	free(p);
}

static void test_mini_path(void **state)
{
	const char *dir = *state;
	char *full = fx_str("%s/HumanEvalPlus-v0.1.10.jsonl.gz", dir), *mini = fx_str("%s/HumanEvalPlus-Mini-v0.1.10.jsonl.gz", dir);
	char *mbpp = fx_str("%s/MbppPlus-767efcc.jsonl.gz", dir), *out = NULL, *want;
	struct sd_error err = { 0 };

	(void)state;
	fx_write(full, "");
	fx_write(mbpp, "");
	want = fx_str("--mini: cannot open '%s', the Mini file of '%s': No such file or directory", mini, full);
	assert_int_equal(task_mini_path(full, &out, &err), -1);
	assert_string_equal(err.msg, want);
	free(want);
	fx_write(mini, "");
	assert_int_equal(task_mini_path(full, &out, &err), 0);
	assert_string_equal(out, mini);
	free(out);
	out = NULL;
	want = fx_str("--mini: '%s' is already a Mini file", mini);
	assert_int_equal(task_mini_path(mini, &out, &err), -1);
	assert_string_equal(err.msg, want);
	free(want);
	assert_int_equal(task_mini_path(mbpp, &out, &err), -1);
	assert_contains(err.msg, "MbppPlus-Mini-767efcc.jsonl.gz', the Mini file of");
	assert_int_equal(task_mini_path("HumanEval.jsonl.gz", &out, &err), -1);
	assert_string_equal(err.msg, "--mini: 'HumanEval.jsonl.gz' is not an EvalPlus file "
			    "(HumanEvalPlus-VERSION.jsonl.gz or MbppPlus-VERSION.jsonl.gz)");
	assert_null(out);
	free(full);
	free(mini);
	free(mbpp);
}

/* MBPP+ tasks are "Mbpp/2"; samples may name them as MBPP does. */
static void test_samples(void **state)
{
	const char *dir = *state;
	char *tp = fx_str("%s/t.jsonl", dir), *sp = fx_str("%s/s.jsonl", dir);
	struct task_set tasks;
	struct sample_set samples;
	struct sd_error err = { 0 };

	fx_write(tp, "{\"task_id\": \"Mbpp/2\", \"prompt\": \"'''x'''\", \"canonical_solution\": \"def f(x):\\n    return x\\n\","
		     " \"entry_point\": \"f\", \"atol\": 0, \"base_input\": [[1]], \"plus_input\": [[2]], \"assertion\": \"\"}\n");
	fx_write(sp, "{\"task_id\": \"Mbpp/2\", \"solution\": \"a\"}\n{\"task_id\": 2, \"solution\": \"b\"}\n"
		     "{\"task_id\": \"mbpp/2\", \"solution\": \"c\"}\n{\"task_id\": \"mbpp_2_similar_elements\", \"completion\": \"d\"}\n");
	if (task_set_load(tp, &tasks, &err) < 0 || sample_set_load(sp, &tasks, &samples, &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(tasks.tasks[0].class, "mbpp+");
	assert_int_equal(samples.n, 4);
	for (size_t i = 0; i < 4; i++)
		assert_string_equal(samples.samples[i].task_id, "Mbpp/2");
	assert_string_equal(samples.samples[3].sample_id, "Mbpp/2/3");
	sample_set_release(&samples);
	fx_write(sp, "{\"task_id\": \"Mbpp/3\", \"solution\": \"a\"}\n");
	assert_int_equal(sample_set_load(sp, &tasks, &samples, &err), -1);
	assert_contains(err.msg, "s.jsonl:1: field 'task_id': unknown task 'Mbpp/3'");
	task_set_release(&tasks);
	free(tp);
	free(sp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_humaneval_plus),
		cmocka_unit_test(test_real_mbpp_plus_and_mini),
		cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_inputs_as_written, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mini_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_samples, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
