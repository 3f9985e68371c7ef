/* test-task-multilang.c - unit tests of task-multilang.c: HumanEval-X's and MultiPL-E's C++ and JavaScript records as program tasks */
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

static void load_ok(const char *path, struct task_set *set)
{
	struct sd_error err = { 0 };

	if (task_set_load(path, set, &err) < 0)
		fail_msg("%s", err.msg);
}

static void test_real_humaneval_x(void **state)
{
	FX_REAL(cpp, "multilang/humaneval-x/humaneval_cpp.jsonl.gz");
	char *js = fx_data_file("multilang/humaneval-x/humaneval_js.jsonl.gz");
	struct task_set set;
	const struct task *t;

	(void)state;
	load_ok(cpp, &set);
	assert_int_equal(set.n, 164);
	assert_int_equal(set.format, TASK_PROGRAM);
	t = &set.tasks[0];
	assert_string_equal(t->id, "CPP/0");
	assert_string_equal(t->class, "humaneval-x");
	assert_string_equal(t->language, "cpp");
	assert_int_equal(t->format, TASK_PROGRAM);
	assert_string_equal(t->entry_point, "has_close_elements");
	assert_contains(t->prompt, "bool has_close_elements(vector<float> numbers, float threshold){");
	assert_contains(t->reference, "return false;");
	assert_contains(t->test_code, "int main(){");
	/* CodeGeeX's includes the prompt lacks: it has stdio.h, vector, math.h */
	assert_string_equal(t->setup_code, "#include<stdlib.h>\n#include<algorithm>\n#include<string>\n"
			    "#include<climits>\n#include<cstring>\n#include<iostream>\n");
	assert_string_equal(t->build, "[\"g++\", \"-std=c++11\", \"-o\", \"/tmp/candidate\", \"{source}\"]");
	assert_false(t->quiet);
	assert_int_equal(t->n_tests, 0);
	t = task_set_find(&set, "CPP/162");	/* CodeGeeX links OpenSSL for it */
	assert_string_equal(t->build, "[\"g++\", \"-std=c++11\", \"-o\", \"/tmp/candidate\", \"{source}\", \"-lcrypto\", \"-lssl\"]");
	for (size_t i = 0; i < set.n; i++)
		if (!set.tasks[i].entry_point)
			fail_msg("%s: no entry point found", set.tasks[i].id);
	task_set_release(&set);

	load_ok(js, &set);
	assert_int_equal(set.n, 164);
	t = &set.tasks[0];
	assert_string_equal(t->id, "JavaScript/0");
	assert_string_equal(t->language, "javascript");
	assert_string_equal(t->entry_point, "hasCloseElements");
	assert_null(t->setup_code);
	assert_null(t->build);
	assert_true(t->quiet);	/* console.assert: passing is writing nothing */
	assert_contains(t->test_code, "console.assert(");
	for (size_t i = 0; i < set.n; i++)
		if (!set.tasks[i].entry_point)
			fail_msg("%s: no entry point found", set.tasks[i].id);
	task_set_release(&set);
	free(js);
	free(cpp);
}

static void test_real_multipl_e(void **state)
{
	FX_REAL(cpp, "multilang/multipl-e/humaneval-cpp.jsonl");
	char *js = fx_data_file("multilang/multipl-e/humaneval-js.jsonl");
	struct task_set set;
	const struct task *t;

	(void)state;
	load_ok(cpp, &set);
	assert_int_equal(set.n, 161);
	assert_int_equal(set.format, TASK_PROGRAM);
	t = &set.tasks[0];
	assert_string_equal(t->id, "HumanEval_23_strlen");
	assert_string_equal(t->class, "multipl-e");
	assert_string_equal(t->language, "cpp");
	assert_string_equal(t->entry_point, "string_length");
	assert_null(t->reference);	/* MultiPL-E has none */
	assert_null(t->setup_code);
	assert_null(t->build);		/* the runner's: g++ -std=c++17 */
	assert_false(t->quiet);
	assert_true(strncmp(t->test_code, "}\nint main() {", 14) == 0);
	task_set_release(&set);

	load_ok(js, &set);
	assert_int_equal(set.n, 161);
	t = task_set_find(&set, "HumanEval_23_strlen");
	assert_string_equal(t->language, "javascript");
	assert_string_equal(t->entry_point, "strlen");
	assert_false(t->quiet);		/* assert.deepEqual throws: the exit status says */
	for (size_t i = 0; i < set.n; i++)
		if (!set.tasks[i].entry_point)
			fail_msg("%s: no entry point found", set.tasks[i].id);
	task_set_release(&set);
	free(js);
	free(cpp);
}

static void load_fail(const char *dir, const char *text, const char *want_after_path)
{
	char *p = fx_str("%s/t.jsonl", dir), *want = fx_str("%s%s", p, want_after_path);
	struct task_set set;
	struct sd_error err = { 0 };

	fx_write(p, text);
	if (task_set_load(p, &set, &err) == 0)
		fail_msg("loaded, expected: %s", want);
	assert_string_equal(err.msg, want);
	free(want);
	free(p);
}

static void test_errors_and_fields(void **state)
{
	const char *dir = *state;
	char *p = fx_str("%s/t.jsonl", dir);
	struct task_set a, b;

	load_fail(dir, "{\"task_id\": \"Go/0\", \"prompt\": \"\", \"declaration\": \"\", \"canonical_solution\": \"\", \"test\": \"\"}\n",
		  ":1: field 'task_id': 'Go/0': HumanEval-X's C++ (CPP/) and JavaScript (JavaScript/) tasks are supported, no other language");
	load_fail(dir, "{\"task_id\": \"CPP/0\", \"prompt\": \"\", \"declaration\": 5, \"canonical_solution\": \"\", \"test\": \"\"}\n",
		  ":1: field 'declaration': expected a string, got an integer");
	load_fail(dir, "{\"name\": \"HumanEval_0_x\", \"language\": \"py\", \"prompt\": \"\", \"tests\": \"\", \"stop_tokens\": []}\n",
		  ":1: field 'language': 'py': MultiPL-E's C++ (cpp) and JavaScript (js) tasks are supported, no other language");
	load_fail(dir, "{\"name\": \"HumanEval_0_x\", \"language\": \"js\", \"prompt\": \"\", \"stop_tokens\": [], \"tests\": 1}\n",
		  ":1: field 'tests': expected a string, got an integer");
	/* the name, when there is no task_id; the function from the tests */
	fx_write(p, "{\"name\": \"HumanEval_0_x\", \"language\": \"js\", \"prompt\": \"function x(a){\\n\", \"stop_tokens\": [],"
		    " \"tests\": \"let candidate = x;\\n\"}\n");
	load_ok(p, &a);
	assert_string_equal(a.tasks[0].id, "HumanEval_0_x");
	assert_string_equal(a.tasks[0].entry_point, "x");
	/* the includes CodeGeeX adds: those the prompt lacks */
	fx_write(p, "{\"task_id\": \"CPP/1\", \"prompt\": \"#include<vector>\\nint f(){\\n\", \"declaration\": \"int f(){\\n\","
		    " \"canonical_solution\": \"return 1;}\\n\", \"test\": \"int main(){}\\n\"}\n");
	load_ok(p, &b);
	assert_string_equal(b.tasks[0].entry_point, "f");
	assert_string_equal(b.tasks[0].setup_code, "#include<stdlib.h>\n#include<algorithm>\n#include<math.h>\n"
			    "#include<stdio.h>\n#include<string>\n#include<climits>\n#include<cstring>\n#include<iostream>\n");
	task_set_release(&a);
	fx_write(p, "{\"task_id\": \"CPP/162\", \"prompt\": \"#include<vector>\\nint f(){\\n\", \"declaration\": \"int f(){\\n\","
		    " \"canonical_solution\": \"return 1;}\\n\", \"test\": \"int main(){}\\n\"}\n");
	load_ok(p, &a);
	assert_contains(a.tasks[0].build, "-lcrypto");
	task_set_release(&a);
	task_set_release(&b);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_humaneval_x),
		cmocka_unit_test(test_real_multipl_e),
		cmocka_unit_test_setup_teardown(test_errors_and_fields, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
