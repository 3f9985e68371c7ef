/* test-agent.c - unit tests of the agent loop's text work and wire formats: cleaning, public tests, templates, answers parsed */
#include "fixture.h"

#include "agent/generator.h"
#include "agent/prompt.h"
#include "base/util.h"

static struct task humaneval(const char *prompt, const char *entry)
{
	struct task t = { .id = "T/0", .language = "python", .format = TASK_HUMANEVAL, .entry_point = (char *)entry,
			  .prompt = (char *)prompt, .test_code = "def check(candidate):\n    assert candidate(1) == 2\n" };

	return t;
}

static void test_clean(void **state)
{
	struct task t = humaneval("from typing import List\n\n\ndef inc(x: int) -> int:\n    \"\"\"One more.\"\"\"\n", "inc");
	bool whole = true;
	char *c;

	(void)state;
	/* a body stays a body (a completion), byte for byte but CR LF */
	c = prompt_clean(&t, "    return x + 1\r\n", &whole);
	assert_string_equal(c, "    return x + 1\n");
	assert_false(whole);
	free(c);
	/* a fenced body: the block's content */
	c = prompt_clean(&t, "Sure:\n```python\n    return x + 1\n```\nDone.", &whole);
	assert_string_equal(c, "    return x + 1\n");
	assert_false(whole);
	free(c);
	/* the prompt repeated: a whole program after the prompt's imports, its own main cut */
	c = prompt_clean(&t, "```\nprint('first block')\n```\ntext\n```python\ndef inc(x: int) -> int:\n    return x + 1\n\n"
			 "if __name__ == '__main__':\n    print(inc(1))\n```\n", &whole);
	assert_string_equal(c, "from typing import List\n\n\ndef inc(x: int) -> int:\n    return x + 1\n\n");
	assert_true(whole);
	free(c);
	/* an unclosed fence runs to the end; NUL bytes never reach the code */
	c = prompt_clean(&t, "```py\n    return x + 1\n", &whole);
	assert_string_equal(c, "    return x + 1\n");
	free(c);
	c = prompt_clean(&t, "", &whole);
	assert_string_equal(c, "");
	assert_false(whole);
	free(c);
	/* MBPP and native answers are whole programs */
	t.format = TASK_MBPP;
	c = prompt_clean(&t, "def inc(x):\n    return x + 1\n", &whole);
	assert_true(whole);
	assert_string_equal(c, "def inc(x):\n    return x + 1\n");
	free(c);
}

static char *public_code(const char *prompt, const char *entry, size_t *n)
{
	struct task t = humaneval(prompt, entry), c;
	struct sd_error err = { 0 };
	char *code;

	assert_int_equal(prompt_public_task(&t, &c, n, &err), 0);
	code = strdup(c.test_code);
	assert_null(c.test_split);
	task_release(&c);
	return code;
}

static void test_public_humaneval(void **state)
{
	size_t n = 99;
	char *code;

	(void)state;
	code = public_code("def f(x):\n    \"\"\" Doc.\n    >>> f(1)\n    2\n    >>> round(f(2.5), 2) # a comment\n    3.5\n"
			   "    >>> f(3)\n    >>> f(4)\n    5\n    \"\"\"\n", "f", &n);
	/* the >>> line without a value before another >>> is no test */
	assert_string_equal(code, "def check(candidate):\n    assert (f(1)) == (2)\n    assert (round(f(2.5), 2)) == (3.5)\n"
				  "    assert (f(4)) == (5)\n");
	assert_int_equal(n, 3);
	free(code);
	/* examples in prose: the separators prompts use, a label before the call */
	code = public_code("def g(s):\n    \"\"\"\n    Example: g('a') ==> 'b'\n    g([1, 2]) \xe2\x9e\x9e [2, 3]\n"
			   "    g(0) == 1\n    g(5) -> 6\n    so g is nice\n    \"\"\"\n", "g", &n);
	assert_string_equal(code, "def check(candidate):\n    assert (g('a')) == ('b')\n    assert (g([1, 2])) == ([2, 3])\n"
				  "    assert (g(0)) == (1)\n    assert (g(5)) == (6)\n");
	assert_int_equal(n, 4);
	free(code);
	/* prose after a value, an assignment, a full stop, unbalanced text: no test */
	code = public_code("def h(n):\n    \"\"\"\n    h(1) => 'No' (the name starts badly)\n    h(2) => 2 - 1 = 1\n"
			   "    h(n) => h(n-1) + h(n-2).\n    h(3) => [1, 2\n    >>> h(4)\n    Traceback (most recent call last):\n"
			   "    h(5) ==> 'a' if True else 'b'\n    \"\"\"\n", "h", &n);
	assert_string_equal(code, "def check(candidate):\n    assert (h(5)) == ('a' if True else 'b')\n");
	assert_int_equal(n, 1);
	free(code);
	/* examples of other functions of the prompt (before the entry point's def) are not its tests */
	code = public_code("def helper(x):\n    \"\"\">>> helper(1)\n    1\n    \"\"\"\n\ndef k(x):\n    \"\"\"No example.\"\"\"\n",
			   "k", &n);
	assert_string_equal(code, "def check(candidate):\n");
	assert_int_equal(n, 0);
	free(code);
}

static void test_public_other(void **state)
{
	struct task t = { .id = "11", .language = "python", .format = TASK_MBPP, .entry_point = "f",
			  .test_code = "assert f(1) == 2\nassert f(2) == 3\nassert f(3) == 4" }, c;
	struct task_test tests[3] = {
		{ .name = "a", .visibility = VIS_PUBLIC, .args_json = "[1]", .expected_json = "2" },
		{ .name = "secret", .visibility = VIS_HOLDOUT, .args_json = "[77]", .expected_json = "78" },
		{ .name = "b", .visibility = VIS_PUBLIC, .args_json = "[2]", .expected_json = "3" },
	};
	struct sd_error err = { 0 };
	size_t n = 0;

	(void)state;
	/* MBPP: the first assertion, the one the prompt shows */
	assert_int_equal(prompt_public_task(&t, &c, &n, &err), 0);
	assert_string_equal(c.test_code, "assert f(1) == 2");
	assert_int_equal(n, 1);
	task_release(&c);
	/* native: the public tests, never a holdout one */
	t.format = TASK_NATIVE;
	t.test_code = NULL;
	t.tests = tests;
	t.n_tests = 3;
	assert_int_equal(prompt_public_task(&t, &c, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(c.n_tests, 2);
	assert_string_equal(c.tests[0].name, "a");
	assert_string_equal(c.tests[1].name, "b");
	assert_string_equal(t.tests[1].name, "secret");	/* the task itself untouched */
	task_release(&c);
	/* other formats are refused by name */
	t.format = TASK_EVALPLUS;
	assert_int_equal(prompt_public_task(&t, &c, &n, &err), -1);
	assert_contains(err.msg, "task '11'");
}

static void test_render(void **state)
{
	const char *vars[] = { "prompt", "def f(): {{feedback}}", "round", "2", NULL };
	char *s;

	(void)state;
	s = prompt_render("{{prompt}} / {{round}} / {{unknown}} / {{ / }}", vars);
	/* a value is never expanded again; an unknown name stays */
	assert_string_equal(s, "def f(): {{feedback}} / 2 / {{unknown}} / {{ / }}");
	free(s);
	/* the shipped retry template (runners/agent/retry.txt) takes the feedback */
	{
		char *tmpl = NULL;
		size_t len;
		struct sd_error err = { 0 };

		assert_int_equal(read_file("runners/agent/retry.txt", 1 << 20, &tmpl, &len, &err), 0);
		s = prompt_render(tmpl, (const char *[]){ "feedback", "FAIL x", NULL });
		assert_contains(s, "FAIL x");
		assert_contains(s, "public tests");
		free(s);
		free(tmpl);
	}
}

static void test_parse_chat(void **state)
{
	struct generator_answer a = { 0 };
	struct sd_error err = { 0 };
	const char *ok = "{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":\"x = 1\"}},"
			 "{\"message\":{\"content\":null}}],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":7}}";

	(void)state;
	assert_int_equal(generator_parse_chat(ok, strlen(ok), &a, &err), 0);
	assert_int_equal(a.n, 2);
	assert_string_equal(a.completions[0], "x = 1");
	assert_string_equal(a.completions[1], "");
	assert_true(a.usage);
	/* usage adds up over answers */
	assert_int_equal(generator_parse_chat(ok, strlen(ok), &a, &err), 0);
	assert_int_equal(a.prompt_tokens, 24);
	assert_int_equal(a.completion_tokens, 14);
	generator_answer_release(&a);
	/* what is wrong is named */
	assert_int_equal(generator_parse_chat("nope", 4, &a, &err), -1);
	assert_contains(err.msg, "not JSON");
	assert_int_equal(generator_parse_chat("[]", 2, &a, &err), -1);
	assert_contains(err.msg, "expected a JSON object");
	assert_int_equal(generator_parse_chat("{\"error\":{\"message\":\"model not found\"}}", 39, &a, &err), -1);
	assert_contains(err.msg, "model not found");
	assert_int_equal(generator_parse_chat("{\"choices\":[{\"message\":{\"content\":5}}]}", 39, &a, &err), -1);
	assert_contains(err.msg, "choices[0].message.content");
	ok = "{\"choices\":[{\"message\":{\"content\":\"\"}}],\"usage\":{\"prompt_tokens\":-1}}";
	assert_int_equal(generator_parse_chat(ok, strlen(ok), &a, &err), -1);
	assert_contains(err.msg, "usage");
	generator_answer_release(&a);
}

static void test_parse_command(void **state)
{
	struct generator_answer a = { 0 };
	struct sd_error err = { 0 };
	const char *ok = "{\"completions\":[\"a\",\"b\\u0000c\"],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":4}}";

	(void)state;
	assert_int_equal(generator_parse_command(ok, strlen(ok), &a, &err), 0);
	assert_int_equal(a.n, 2);
	assert_string_equal(a.completions[0], "a");
	assert_string_equal(a.completions[1], "bc");
	assert_int_equal(a.prompt_tokens, 3);
	assert_int_equal(a.completion_tokens, 4);
	generator_answer_release(&a);
	assert_int_equal(generator_parse_command("{\"completions\":\"a\"}", 19, &a, &err), -1);
	assert_contains(err.msg, "'completions'");
	assert_int_equal(generator_parse_command("{\"completions\":[1]}", 19, &a, &err), -1);
	assert_contains(err.msg, "completions[0]");
	assert_int_equal(generator_parse_command("", 0, &a, &err), -1);
	assert_contains(err.msg, "not JSON");
	generator_answer_release(&a);
}

static void test_bodies(void **state)
{
	struct task t = humaneval("def f(x):\n", "f");
	json_t *msgs = json_pack("[{s:s, s:s}]", "role", "user", "content", "hi");
	struct generator_request rq = { .task = &t, .prompt = t.prompt, .messages = msgs, .k = 3, .round = 2,
					.feedback = "FAIL", .seed = 40, .temperature = 0.5, .max_tokens = 64 };
	json_t *b = generator_chat_body(&rq, "m", 41), *in = generator_command_input(&rq);

	(void)state;
	assert_string_equal(json_string_value(json_object_get(b, "model")), "m");
	assert_int_equal(json_integer_value(json_object_get(b, "seed")), 41);
	assert_int_equal(json_integer_value(json_object_get(b, "max_tokens")), 64);
	assert_true(json_equal(json_object_get(b, "messages"), msgs));
	assert_string_equal(json_string_value(json_object_get(in, "task_id")), "T/0");
	assert_string_equal(json_string_value(json_object_get(in, "feedback")), "FAIL");
	assert_int_equal(json_integer_value(json_object_get(in, "k")), 3);
	assert_int_equal(json_integer_value(json_object_get(in, "round")), 2);
	/* the task's tests never go to a generator */
	assert_null(json_object_get(in, "test"));
	{
		char *text = json_dumps(in, 0);

		assert_null(strstr(text, "assert candidate"));
		free(text);
	}
	json_decref(b);
	json_decref(in);
	json_decref(msgs);
}

static void test_task_copy(void **state)
{
	struct task_test tests[2] = {
		{ .name = "a", .visibility = VIS_PUBLIC, .args_json = "[1]", .expected_json = "2", .weight = 1.5 },
		{ .name = "b", .visibility = VIS_HOLDOUT, .generator = "{\"args\": []}", .cases = 7 },
	};
	struct task t = { .id = "x", .class = "c", .language = "python", .format = TASK_NATIVE, .entry_point = "f",
			  .prompt = "p", .reference = "r", .tests = tests, .n_tests = 2, .cpu_time = 2, .high_risk = true },
		    c;

	(void)state;
	assert_int_equal(task_copy(&t, &c), 0);
	/* equal, and nothing shared: the copy is freed on its own */
	assert_string_equal(c.id, "x");
	assert_ptr_not_equal(c.id, t.id);
	assert_ptr_not_equal(c.tests, t.tests);
	assert_int_equal(c.n_tests, 2);
	assert_string_equal(c.tests[0].expected_json, "2");
	assert_ptr_not_equal(c.tests[0].name, t.tests[0].name);
	assert_true(c.tests[0].weight == 1.5 && c.tests[1].cases == 7 && c.tests[1].visibility == VIS_HOLDOUT);
	assert_null(c.tests[1].args_json);
	assert_null(c.signature);
	assert_true(c.high_risk && c.cpu_time == 2);
	task_release(&c);
	assert_string_equal(t.tests[1].name, "b");
}

int main(void)
{
	const struct CMUnitTest t[] = {
		cmocka_unit_test(test_clean),
		cmocka_unit_test(test_public_humaneval),
		cmocka_unit_test(test_public_other),
		cmocka_unit_test(test_render),
		cmocka_unit_test(test_parse_chat),
		cmocka_unit_test(test_parse_command),
		cmocka_unit_test(test_bodies),
		cmocka_unit_test(test_task_copy),
	};

	return cmocka_run_group_tests(t, NULL, NULL);
}
