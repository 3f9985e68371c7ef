/* test-task.c - unit tests of task.c, task-dataset.c, task-sample.c: HumanEval and MBPP files, samples, real data */
#include "fixture.h"

#include <zlib.h>

#include "suite/task.h"

struct dir {
	char *path;
};

static int setup(void **state)
{
	struct dir *d = calloc(1, sizeof(*d));

	assert_non_null(d);
	d->path = fx_tmpdir();
	*state = d;
	return 0;
}

static int teardown(void **state)
{
	struct dir *d = *state;

	fx_rm_rf(d->path);
	free(d->path);
	free(d);
	return 0;
}

static char *put(const char *dir, const char *name, const char *text)
{
	char *p = fx_str("%s/%s", dir, name);

	fx_write(p, text);
	return p;
}

/* Fail unless loading PATH fails with exactly WANT (malloc'd, freed here). */
static void tasks_fail_msg(const char *path, char *want)
{
	struct task_set set;
	struct sd_error err = { 0 };

	memset(&set, 0x5a, sizeof(set));
	if (task_set_load(path, &set, &err) == 0)
		fail_msg("'%s' loaded, expected: %s", path, want);
	assert_string_equal(err.msg, want);
	for (size_t i = 0; i < sizeof(set); i++)	/* out-param untouched */
		assert_int_equal(((unsigned char *)&set)[i], 0x5a);
	free(want);
}

static void samples_fail_msg(const char *path, const struct task_set *tasks, char *want)
{
	struct sample_set set = { .samples = (struct sample *)0x1, .n = 77 };
	struct sd_error err = { 0 };

	if (sample_set_load(path, tasks, &set, &err) == 0)
		fail_msg("'%s' loaded, expected: %s", path, want);
	assert_string_equal(err.msg, want);
	assert_ptr_equal(set.samples, (struct sample *)0x1);
	assert_int_equal(set.n, 77);
	free(want);
}

/* FMT names PATH with %1$s */
#define tasks_fail(path, fmt) tasks_fail_msg((path), fx_str((fmt), (path)))
#define samples_fail(path, tasks, fmt) samples_fail_msg((path), (tasks), fx_str((fmt), (path)))

#define HE_LINE(id, ep) \
	"{\"task_id\": \"" id "\", \"prompt\": \"def " ep "(x):\\n\", \"canonical_solution\": \"    return x\\n\", " \
	"\"test\": \"def check(candidate):\\n    assert candidate(1) == 1\\n\", \"entry_point\": \"" ep "\"}\n"

/* ---- real data ---- */

static void test_real_humaneval(void **state)
{
	FX_REAL(path, "humaneval/HumanEval.jsonl.gz");
	struct task_set set, again;
	struct sd_error err = { 0 };
	const struct task *t;

	(void)state;
	if (task_set_load(path, &set, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(set.n, 164);
	assert_int_equal(set.format, TASK_HUMANEVAL);
	assert_int_equal(strlen(set.hash), 64);
	t = &set.tasks[0];
	assert_string_equal(t->id, "HumanEval/0");
	assert_string_equal(t->class, "humaneval");
	assert_string_equal(t->language, "python");
	assert_int_equal(t->format, TASK_HUMANEVAL);
	assert_string_equal(t->entry_point, "has_close_elements");
	assert_true(strncmp(t->prompt, "from typing import List\n", 24) == 0);
	assert_contains(t->reference, "return False");
	assert_contains(t->test_code, "def check(candidate):");
	assert_null(t->setup_code);
	assert_null(t->signature);
	assert_int_equal(t->n_tests, 0);
	assert_null(t->tests);
	assert_true(t->cpu_time == 0 && t->wall_time == 0 && t->memory == 0);
	assert_contains(t->origin, "HumanEval.jsonl.gz:1");
	for (size_t i = 0; i < set.n; i++) {
		char id[32];

		snprintf(id, sizeof(id), "HumanEval/%zu", i);
		assert_string_equal(set.tasks[i].id, id);
		assert_true(*set.tasks[i].entry_point && *set.tasks[i].prompt && *set.tasks[i].test_code);
	}
	t = task_set_find(&set, "HumanEval/163");
	assert_non_null(t);
	assert_string_equal(t->entry_point, "generate_integers");
	assert_null(task_set_find(&set, "HumanEval/164"));
	/* the hash is over the data, not the path */
	if (task_set_load(path, &again, &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(set.hash, again.hash);
	task_set_release(&again);
	task_set_release(&set);
	assert_int_equal(set.n, 0);
	assert_null(set.tasks);
	free(path);
}

static void test_real_humaneval_samples(void **state)
{
	FX_REAL(tasks_path, "humaneval/HumanEval.jsonl.gz");
	char *codegen = fx_data_file("samples/codet_codegen16b/humaneval_codegen16B_n100_samples.jsonl.gz");
	char *gpt4 = fx_data_file("samples/reflexion_gpt4/humaneval_simple_gpt4_samples.jsonl");
	struct task_set tasks;
	struct sample_set s;
	struct sd_error err = { 0 };

	(void)state;
	if (task_set_load(tasks_path, &tasks, &err) < 0)
		fail_msg("%s", err.msg);
	if (sample_set_load(codegen, &tasks, &s, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(s.n, 16400);
	assert_string_equal(s.samples[0].task_id, "HumanEval/0");
	assert_string_equal(s.samples[0].sample_id, "HumanEval/0/0");
	assert_string_equal(s.samples[99].sample_id, "HumanEval/0/99");
	/* the file is in task id order as strings: HumanEval/0, /1, /10, /100, ... /99 */
	assert_string_equal(s.samples[16399].sample_id, "HumanEval/99/99");
	assert_int_equal(s.samples[16399].line, 16400);
	assert_true(s.samples[0].is_completion);
	assert_null(s.samples[0].model);
	{
		size_t of_163 = 0;
		const struct sample *last = NULL;

		for (size_t i = 0; i < s.n; i++) {
			assert_non_null(task_set_find(&tasks, s.samples[i].task_id));
			if (strcmp(s.samples[i].task_id, "HumanEval/163") == 0) {
				of_163++;
				last = &s.samples[i];
			}
		}
		assert_int_equal(of_163, 100);
		assert_string_equal(last->sample_id, "HumanEval/163/99");
	}
	sample_set_release(&s);

	/* extra fields ("expected_passed") are ignored */
	if (sample_set_load(gpt4, &tasks, &s, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(s.n, 164);
	assert_string_equal(s.samples[163].sample_id, "HumanEval/163/0");
	sample_set_release(&s);
	task_set_release(&tasks);
	free(codegen);
	free(gpt4);
	free(tasks_path);
}

static void test_real_example_problem(void **state)
{
	FX_REAL(path, "humaneval/example_problem.jsonl");
	char *samples = fx_data_file("humaneval/example_samples.jsonl");
	char *codegen = fx_data_file("samples/codet_codegen16b/humaneval_codegen16B_n100_samples.jsonl.gz");
	struct task_set tasks;
	struct sample_set s;
	struct sd_error err = { 0 };

	(void)state;
	if (task_set_load(path, &tasks, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(tasks.n, 1);
	assert_string_equal(tasks.tasks[0].id, "test/0");
	assert_string_equal(tasks.tasks[0].entry_point, "return1");
	if (sample_set_load(samples, &tasks, &s, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(s.n, 6);
	assert_string_equal(s.samples[5].sample_id, "test/0/5");
	assert_string_equal(s.samples[5].code, "\treturn 1");
	sample_set_release(&s);
	/* samples of other tasks */
	if (fx_exists(codegen))
		samples_fail(codegen, &tasks, "%1$s:1: field 'task_id': unknown task 'HumanEval/0'");
	task_set_release(&tasks);
	free(codegen);
	free(samples);
	free(path);
}

static void test_real_mbpp(void **state)
{
	FX_REAL(path, "mbpp/mbpp.jsonl");
	struct task_set set;
	struct sd_error err = { 0 };
	const struct task *t;

	(void)state;
	if (task_set_load(path, &set, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(set.n, 974);
	assert_int_equal(set.format, TASK_MBPP);
	for (size_t i = 0; i < set.n; i++) {
		char id[32];

		snprintf(id, sizeof(id), "%zu", i + 1);
		t = &set.tasks[i];
		assert_string_equal(t->id, id);
		assert_string_equal(t->class, "mbpp");
		assert_string_equal(t->language, "python");
		assert_null(strchr(t->reference, '\r'));
		assert_null(strchr(t->test_code, '\r'));
		assert_non_null(strstr(t->test_code, t->entry_point));
	}
	t = task_set_find(&set, "11");
	assert_string_equal(t->entry_point, "remove_Occ");
	assert_string_equal(t->prompt, "Write a python function to remove first and last occurrence of a given character from the string.");
	/* the three test_list asserts, not the challenge tests */
	assert_string_equal(t->test_code, "assert remove_Occ(\"hello\",\"l\") == \"heo\"\n"
			    "assert remove_Occ(\"abcda\",\"a\") == \"bcd\"\n"
			    "assert remove_Occ(\"PHP\",\"P\") == \"H\"");
	assert_null(t->setup_code);
	t = task_set_find(&set, "1");
	assert_true(strncmp(t->reference, "R = 3\nC = 3\ndef min_cost(cost, m, n): \n", 39) == 0);
	t = task_set_find(&set, "367");
	assert_non_null(t->setup_code);
	assert_true(strncmp(t->setup_code, "root = Node(1) \nroot.left = Node(2) \n", 37) == 0);
	assert_string_equal(t->entry_point, "is_tree_balanced");
	assert_non_null(task_set_find(&set, "927")->setup_code);
	task_set_release(&set);
	free(path);
}

static void test_real_mbpp_sanitized(void **state)
{
	FX_REAL(path, "mbpp/sanitized-mbpp.json");
	struct task_set set;
	struct sd_error err = { 0 };
	const struct task *t;
	size_t with_setup = 0;

	(void)state;
	if (task_set_load(path, &set, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(set.n, 427);
	assert_int_equal(set.format, TASK_MBPP);
	t = &set.tasks[0];
	assert_string_equal(t->id, "2");
	assert_string_equal(t->entry_point, "similar_elements");	/* not set(), which wraps it */
	assert_contains(t->test_code, "assert set(similar_elements((3, 4, 5, 6),(5, 7, 4, 10))) == set((4, 5))");
	assert_contains(t->origin, "sanitized-mbpp.json:1");
	for (size_t i = 0; i < set.n; i++)
		with_setup += set.tasks[i].setup_code != NULL;
	assert_int_equal(with_setup, 13);
	t = task_set_find(&set, "809");
	assert_non_null(t);
	task_set_release(&set);
	free(path);
}

/* ---- HumanEval-style files ---- */

static void test_humaneval_errors(void **state)
{
	struct dir *d = *state;
	char *p;

	p = put(d->path, "missing.jsonl", HE_LINE("T/0", "f")
		"{\"task_id\": \"T/1\", \"canonical_solution\": \"\", \"test\": \"\", \"entry_point\": \"g\"}\n");
	tasks_fail(p, "%1$s:2: field 'prompt': missing");
	free(p);
	p = put(d->path, "type.jsonl", HE_LINE("T/0", "f")
		"{\"task_id\": \"T/1\", \"prompt\": 3, \"canonical_solution\": \"\", \"test\": \"\", \"entry_point\": \"g\"}\n");
	tasks_fail(p, "%1$s:2: field 'prompt': expected a string, got an integer");
	free(p);
	p = put(d->path, "id.jsonl", "{\"task_id\": 5, \"prompt\": \"\", \"canonical_solution\": \"\", \"test\": \"\", \"entry_point\": \"g\"}\n");
	tasks_fail(p, "%1$s:1: field 'task_id': expected a string, got an integer");
	free(p);
	p = put(d->path, "ep.jsonl", HE_LINE("T/0", "not a name"));
	tasks_fail(p, "%1$s:1: field 'entry_point': 'not a name' is not a Python identifier");
	free(p);
	p = put(d->path, "dup.jsonl", HE_LINE("T/0", "f") "\n" HE_LINE("T/0", "g"));
	tasks_fail(p, "%1$s:3: duplicate task id 'T/0' (first at %1$s:1)");
	free(p);
	p = put(d->path, "unknown.jsonl", "{\"task_id\": \"x\", \"question\": \"?\"}\n");
	tasks_fail(p, "%1$s:1: unknown task format: expected HumanEval fields (task_id, prompt, canonical_solution, "
		   "test, entry_point), MBPP fields (task_id, text or prompt, code, test_list), EvalPlus's "
		   "(base_input, plus_input), HumanEval-X's (declaration, canonical_solution, test) or MultiPL-E's "
		   "(language, prompt, tests, stop_tokens)");
	free(p);
	p = put(d->path, "bad.jsonl", HE_LINE("T/0", "f") HE_LINE("T/1", "g") "{\"task_id\": \"T/2\",}\n");
	tasks_fail(p, "%1$s:3:19: invalid JSON: string or '}' expected near '}'");
	free(p);
	p = put(d->path, "utf8.jsonl", HE_LINE("T/0", "f") "{\"task_id\": \"T/\xe9\"}\n");
	tasks_fail(p, "%1$s:2:15: invalid UTF-8");
	free(p);
	p = put(d->path, "empty.jsonl", "");
	tasks_fail(p, "%1$s: no tasks");
	free(p);
	p = put(d->path, "blank.jsonl", "\n  \n");
	tasks_fail(p, "%1$s: no tasks");
	free(p);
	/* formats do not mix: line 2 is held to HumanEval's fields */
	p = put(d->path, "mixed.jsonl", HE_LINE("T/0", "f")
		"{\"task_id\": \"7\", \"text\": \"t\", \"code\": \"def f(): pass\", \"test_list\": [\"assert f()\"]}\n");
	tasks_fail(p, "%1$s:2: field 'prompt': missing");
	free(p);
	p = fx_str("%s/nope.jsonl", d->path);
	tasks_fail(p, "cannot open '%1$s': No such file or directory");
	free(p);
}

static void test_humaneval_huge_line_and_gzip(void **state)
{
	struct dir *d = *state;
	size_t big = (16u << 20) + 10, len = 0, size = 0;
	char *text = malloc(big + 4096), *p, *data;
	gzFile gz;

	assert_non_null(text);
	len += (size_t)sprintf(text, "%s", HE_LINE("T/0", "f"));
	len += (size_t)sprintf(text + len, "{\"task_id\": \"T/1\", \"prompt\": \"");
	memset(text + len, 'x', big);
	len += big;
	len += (size_t)sprintf(text + len, "\"}\n");
	p = fx_str("%s/huge.jsonl", d->path);
	fx_write(p, text);
	tasks_fail(p, "%1$s:2: line longer than 16777216 bytes");
	free(p);

	/* gzip, whole: loads; cut: an error naming the line */
	len = 0;
	for (int i = 0; i < 3000; i++)
		len += (size_t)sprintf(text + len, "{\"task_id\": \"T/%d\", \"prompt\": \"def f%d(x):\\n\", "
				       "\"canonical_solution\": \"    return %d\\n\", \"test\": \"def check(c): pass\", "
				       "\"entry_point\": \"f%d\"}\n", i, i, i * 7919 % 1013, i);
	p = fx_str("%s/t.jsonl.gz", d->path);
	gz = gzopen(p, "wb");
	assert_non_null(gz);
	assert_int_equal(gzwrite(gz, text, (unsigned)len), (int)len);
	assert_int_equal(gzclose(gz), Z_OK);
	{
		struct task_set set;
		struct sd_error err = { 0 };

		if (task_set_load(p, &set, &err) < 0)
			fail_msg("%s", err.msg);
		assert_int_equal(set.n, 3000);
		assert_string_equal(set.tasks[2999].entry_point, "f2999");
		task_set_release(&set);
	}
	data = fx_read_len(p, &size);
	assert_non_null(data);
	free(p);
	p = fx_str("%s/cut.jsonl.gz", d->path);
	{
		FILE *f = fopen(p, "wb");
		struct task_set set;
		struct sd_error err = { 0 };

		assert_non_null(f);
		assert_int_equal(fwrite(data, 1, size / 2, f), size / 2);
		fclose(f);
		assert_int_equal(task_set_load(p, &set, &err), -1);
		assert_contains(err.msg, p);
		assert_contains(err.msg, "truncated gzip data (unexpected end of file)");
	}
	free(p);
	free(data);
	free(text);
}

/* ---- MBPP-style files ---- */

static void test_mbpp_records(void **state)
{
	struct dir *d = *state;
	struct task_set set;
	struct sd_error err = { 0 };
	char *p = put(d->path, "mbpp.jsonl",
		      "{\"text\": \"Add.\", \"code\": \"def add(a, b):\\r\\n  return a + b\", \"task_id\": 5, "
		      "\"test_setup_code\": \"x = 1\\r\\ny = 2\", \"test_list\": [\"assert sorted(add(1, 2)) == 3\", "
		      "\"assert add(2, 2) == 4\"], \"challenge_test_list\": [\"assert add(0, 0) == 0\"]}\n"
		      "{\"text\": \"Sub.\", \"code\": \"import math\\ndef helper(): pass\\ndef sub(a, b): return a - b\", "
		      "\"task_id\": \"Mbpp/6\", \"test_setup_code\": \"\", \"test_list\": [\"assert math.isclose(sub(\\\"f(\\\", 1), 1)\"]}\n");

	(void)state;
	if (task_set_load(p, &set, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(set.n, 2);
	assert_string_equal(set.tasks[0].id, "5");
	assert_string_equal(set.tasks[0].reference, "def add(a, b):\n  return a + b");
	assert_string_equal(set.tasks[0].setup_code, "x = 1\ny = 2");
	assert_string_equal(set.tasks[0].test_code, "assert sorted(add(1, 2)) == 3\nassert add(2, 2) == 4");
	assert_string_equal(set.tasks[0].entry_point, "add");
	assert_string_equal(set.tasks[0].prompt, "Add.");
	assert_string_equal(set.tasks[1].id, "Mbpp/6");
	assert_string_equal(set.tasks[1].entry_point, "sub");
	assert_null(set.tasks[1].setup_code);
	task_set_release(&set);
	free(p);
}

static void test_mbpp_errors(void **state)
{
	struct dir *d = *state;
	char *p;

	p = put(d->path, "a.jsonl", "{\"text\": \"t\", \"code\": \"def f(): pass\", \"task_id\": 1, \"test_list\": []}\n");
	tasks_fail(p, "%1$s:1: field 'test_list': empty");
	free(p);
	p = put(d->path, "b.jsonl", "{\"text\": \"t\", \"code\": \"def f(): pass\", \"task_id\": 1, \"test_list\": [\"assert f()\", 3]}\n");
	tasks_fail(p, "%1$s:1: field 'test_list[1]': expected a string, got an integer");
	free(p);
	p = put(d->path, "c.jsonl", "{\"text\": \"t\", \"code\": \"def f(): pass\", \"task_id\": 1, \"test_list\": [\"assert True\"]}\n");
	tasks_fail(p, "%1$s:1: field 'test_list[0]': cannot tell which function the test calls");
	free(p);
	p = put(d->path, "d.jsonl", "{\"text\": \"t\", \"code\": \"def f(): pass\", \"task_id\": 1, \"test_list\": [\"assert f()\"], "
		"\"challenge_test_list\": \"assert f()\"}\n");
	tasks_fail(p, "%1$s:1: field 'challenge_test_list': expected an array of strings, got a string");
	free(p);
	p = put(d->path, "e.jsonl", "{\"text\": \"t\", \"code\": \"def f(): pass\", \"task_id\": -1, \"test_list\": [\"assert f()\"]}\n");
	tasks_fail(p, "%1$s:1: field 'task_id': negative");
	free(p);
	p = put(d->path, "f.jsonl", "{\"text\": \"t\", \"code\": 1, \"task_id\": 1, \"test_list\": [\"assert f()\"]}\n");
	tasks_fail(p, "%1$s:1: field 'code': expected a string, got an integer");
	free(p);
}

static void test_mbpp_array(void **state)
{
	struct dir *d = *state;
	struct task_set set;
	struct sd_error err = { 0 };
	char *p = put(d->path, "s.json",
		      "\n[\n"
		      "  {\"task_id\": 2, \"prompt\": \"p\", \"code\": \"def g(): pass\",\n"
		      "   \"test_imports\": [\"import math\", \"import re\"], \"test_list\": [\"assert g() is None\"]},\n"
		      "  {\"task_id\": 3, \"prompt\": \"q\", \"code\": \"def h(): pass\",\n"
		      "   \"test_imports\": [], \"test_list\": [\"assert h() is None\"]}\n"
		      "]\n");

	(void)state;
	if (task_set_load(p, &set, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(set.n, 2);
	assert_string_equal(set.tasks[0].setup_code, "import math\nimport re");
	assert_null(set.tasks[1].setup_code);
	assert_contains(set.tasks[1].origin, "s.json:5");
	task_set_release(&set);
	free(p);

	p = put(d->path, "bad.json",
		"[\n"
		"  {\"task_id\": 2, \"prompt\": \"p\", \"code\": \"def g(): pass\", \"test_list\": [\"assert g()\"]},\n"
		"  {\"task_id\": 3, \"prompt\": \"q\",\n"
		"   \"test_list\": [\"assert h()\"]}\n"
		"]\n");
	tasks_fail(p, "%1$s:3: field '[1].code': missing");
	free(p);
	p = put(d->path, "type.json",
		"[{\"task_id\": 2, \"prompt\": \"p\", \"code\": \"def g(): pass\", \"test_list\": [\"assert g()\"]},\n"
		" {\"task_id\": 3, \"prompt\": \"q\", \"code\": \"def h(): pass\",\n"
		"  \"test_list\":\n"
		"    [\"assert h()\", null]}]\n");
	tasks_fail(p, "%1$s:4: field '[1].test_list[1]': expected a string, got null");
	free(p);
	p = put(d->path, "scalars.json", "[1, 2]");
	tasks_fail(p, "%1$s:1: field '[0]': expected an object, got an integer");
	free(p);
	p = put(d->path, "broken.json", "[\n{\"task_id\": 2,\n");
	tasks_fail(p, "%1$s:3:1: invalid JSON: string or '}' expected near end of file");
	free(p);
	p = put(d->path, "empty.json", "[]");
	tasks_fail(p, "%1$s: no tasks");
	free(p);
}

/* ---- samples ---- */

static struct task_set two_humaneval_tasks(const char *dir)
{
	struct task_set set;
	struct sd_error err = { 0 };
	char *p = put(dir, "tasks.jsonl", HE_LINE("T/0", "f") HE_LINE("T/1", "g"));

	if (task_set_load(p, &set, &err) < 0)
		fail_msg("%s", err.msg);
	free(p);
	return set;
}

static void test_samples(void **state)
{
	struct dir *d = *state;
	struct task_set tasks = two_humaneval_tasks(d->path);
	struct sample_set s;
	struct sd_error err = { 0 };
	char *p = put(d->path, "s.jsonl",
		      "{\"task_id\": \"T/1\", \"completion\": \"    return x\", \"model\": \"m1\"}\n"
		      "\n"
		      "{\"task_id\": \"T/0\", \"solution\": \"def f(x): return x\", \"sample_id\": \"mine\"}\n"
		      "{\"task_id\": \"T/1\", \"completion\": \"\", \"extra\": [1, 2]}\n"
		      "{\"task_id\": \"T/0\", \"completion\": null, \"solution\": \"pass\", \"sample_id\": 12}\n"
		      "{\"task_id\": \"T/0\", \"completion\": \"x\"}\n");

	(void)state;
	if (sample_set_load(p, &tasks, &s, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(s.n, 5);
	assert_string_equal(s.samples[0].sample_id, "T/1/0");
	assert_string_equal(s.samples[0].model, "m1");
	assert_true(s.samples[0].is_completion);
	assert_int_equal(s.samples[0].line, 1);
	assert_string_equal(s.samples[1].sample_id, "mine");
	assert_false(s.samples[1].is_completion);
	assert_string_equal(s.samples[1].code, "def f(x): return x");
	assert_int_equal(s.samples[1].line, 3);
	assert_null(s.samples[1].model);
	assert_string_equal(s.samples[2].sample_id, "T/1/1");
	assert_string_equal(s.samples[2].code, "");
	assert_string_equal(s.samples[3].sample_id, "12");
	assert_false(s.samples[3].is_completion);
	assert_string_equal(s.samples[4].sample_id, "T/0/2");	/* the third of T/0 */
	sample_set_release(&s);
	assert_int_equal(s.n, 0);

	/* without tasks: any id, integers in decimal */
	free(p);
	p = put(d->path, "any.jsonl", "{\"task_id\": 11, \"completion\": \"a\"}\n{\"task_id\": \"11\", \"completion\": \"b\"}\n"
		"{\"task_id\": \"x\", \"completion\": \"c\"}\n");
	if (sample_set_load(p, NULL, &s, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.samples[0].task_id, "11");
	assert_string_equal(s.samples[1].sample_id, "11/1");
	assert_string_equal(s.samples[2].sample_id, "x/0");
	sample_set_release(&s);
	task_set_release(&tasks);
	free(p);
}

static void test_samples_errors(void **state)
{
	struct dir *d = *state;
	struct task_set tasks = two_humaneval_tasks(d->path);
	char *p;

	(void)state;
	p = put(d->path, "both.jsonl", "{\"task_id\": \"T/0\", \"completion\": \"a\"}\n"
		"{\"task_id\": \"T/0\", \"completion\": \"a\", \"solution\": \"b\"}\n");
	samples_fail(p, &tasks, "%1$s:2: field 'solution': not allowed with 'completion' (give one of them)");
	free(p);
	p = put(d->path, "neither.jsonl", "{\"task_id\": \"T/0\", \"code\": \"a\"}\n");
	samples_fail(p, &tasks, "%1$s:1: field 'completion': missing (give 'completion' or 'solution')");
	free(p);
	p = put(d->path, "type.jsonl", "{\"task_id\": \"T/0\", \"completion\": [\"a\"]}\n");
	samples_fail(p, &tasks, "%1$s:1: field 'completion': expected a string, got an array");
	free(p);
	p = put(d->path, "dup.jsonl", "{\"task_id\": \"T/0\", \"completion\": \"a\", \"sample_id\": \"s\"}\n"
		"{\"task_id\": \"T/1\", \"completion\": \"a\"}\n"
		"{\"task_id\": \"T/1\", \"completion\": \"a\", \"sample_id\": \"s\"}\n");
	samples_fail(p, &tasks, "%1$s:3: field 'sample_id': duplicate sample id 's' (first on line 1)");
	free(p);
	p = put(d->path, "dup2.jsonl", "{\"task_id\": \"T/0\", \"completion\": \"a\", \"sample_id\": \"T/0/1\"}\n"
		"{\"task_id\": \"T/0\", \"completion\": \"a\"}\n");
	samples_fail(p, &tasks, "%1$s:2: field 'sample_id': duplicate sample id 'T/0/1', as numbered for a sample "
		     "without one, (first on line 1)");
	free(p);
	p = put(d->path, "unknown.jsonl", "{\"task_id\": \"T/0\", \"completion\": \"a\"}\n"
		"{\"task_id\": \"HumanEval/999\", \"completion\": \"a\"}\n");
	samples_fail(p, &tasks, "%1$s:2: field 'task_id': unknown task 'HumanEval/999'");
	free(p);
	p = put(d->path, "noid.jsonl", "{\"completion\": \"a\"}\n");
	samples_fail(p, &tasks, "%1$s:1: field 'task_id': missing");
	free(p);
	p = put(d->path, "idtype.jsonl", "{\"task_id\": [1], \"completion\": \"a\"}\n");
	samples_fail(p, &tasks, "%1$s:1: field 'task_id': expected a string or an integer, got an array");
	free(p);
	p = put(d->path, "model.jsonl", "{\"task_id\": \"T/0\", \"completion\": \"a\", \"model\": 4}\n");
	samples_fail(p, &tasks, "%1$s:1: field 'model': expected a string, got an integer");
	free(p);
	p = put(d->path, "sid.jsonl", "{\"task_id\": \"T/0\", \"completion\": \"a\", \"sample_id\": \"\"}\n");
	samples_fail(p, &tasks, "%1$s:1: field 'sample_id': expected 1 to 512 printable ASCII characters");
	free(p);
	p = put(d->path, "json.jsonl", "{\"task_id\": \"T/0\", \"completion\": \"a\"}\n{\"task_id\": \"T/0\" \"completion\": \"a\"}\n");
	samples_fail(p, &tasks, "%1$s:2:30: invalid JSON: '}' expected near '\"completion\"'");
	free(p);
	p = put(d->path, "empty.jsonl", "");
	samples_fail(p, &tasks, "%1$s: no samples");
	free(p);
	p = fx_str("%s/nope.jsonl", d->path);
	samples_fail(p, &tasks, "cannot open '%1$s': No such file or directory");
	free(p);
	task_set_release(&tasks);
}

static void test_samples_mbpp_ids(void **state)
{
	struct dir *d = *state;
	struct task_set tasks;
	struct sample_set s;
	struct sd_error err = { 0 };
	char *t = put(d->path, "mbpp.jsonl",
		      "{\"text\": \"t\", \"code\": \"def remove_Occ(s, c): pass\", \"task_id\": 11, \"test_list\": [\"assert remove_Occ('a', 'a')\"]}\n"
		      "{\"text\": \"t\", \"code\": \"def f(): pass\", \"task_id\": 12, \"test_list\": [\"assert f()\"]}\n");
	char *p = put(d->path, "s.jsonl",
		      "{\"task_id\": 11, \"solution\": \"a\"}\n"
		      "{\"task_id\": \"11\", \"solution\": \"a\"}\n"
		      "{\"task_id\": \"mbpp/11\", \"solution\": \"a\"}\n"
		      "{\"task_id\": \"Mbpp/11\", \"solution\": \"a\"}\n"
		      "{\"task_id\": \"mbpp_11_remove_occ\", \"solution\": \"a\"}\n"
		      "{\"task_id\": \"MBPP_12\", \"solution\": \"a\"}\n");

	(void)state;
	if (task_set_load(t, &tasks, &err) < 0)
		fail_msg("%s", err.msg);
	if (sample_set_load(p, &tasks, &s, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(s.n, 6);
	for (size_t i = 0; i < 5; i++)
		assert_string_equal(s.samples[i].task_id, "11");
	assert_string_equal(s.samples[4].sample_id, "11/4");
	assert_string_equal(s.samples[5].sample_id, "12/0");
	sample_set_release(&s);
	free(p);
	p = put(d->path, "bad.jsonl", "{\"task_id\": \"mbpp/11x\", \"solution\": \"a\"}\n");
	samples_fail(p, &tasks, "%1$s:1: field 'task_id': unknown task 'mbpp/11x'");
	free(p);
	p = put(d->path, "bad2.jsonl", "{\"task_id\": 13, \"solution\": \"a\"}\n");
	samples_fail(p, &tasks, "%1$s:1: field 'task_id': unknown task '13'");
	free(p);
	task_set_release(&tasks);
	free(t);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(test_tier_name(TIER_CANONICAL), "canonical");
	assert_string_equal(test_tier_name(TIER_EDGE), "edge");
	assert_string_equal(test_tier_name(TIER_PROPERTY), "property");
	assert_string_equal(test_visibility_name(VIS_PUBLIC), "public");
	assert_string_equal(test_visibility_name(VIS_HOLDOUT), "holdout");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_humaneval),
		cmocka_unit_test(test_real_humaneval_samples),
		cmocka_unit_test(test_real_example_problem),
		cmocka_unit_test(test_real_mbpp),
		cmocka_unit_test(test_real_mbpp_sanitized),
		cmocka_unit_test_setup_teardown(test_humaneval_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_humaneval_huge_line_and_gzip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mbpp_records, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mbpp_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mbpp_array, setup, teardown),
		cmocka_unit_test_setup_teardown(test_samples, setup, teardown),
		cmocka_unit_test_setup_teardown(test_samples_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_samples_mbpp_ids, setup, teardown),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
